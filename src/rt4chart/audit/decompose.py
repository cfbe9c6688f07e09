"""Claim decomposition (RT4CHART §3.3): the Decomposer protocol and the offline rule-based decomposer.

Every claim keeps the index of the answer sentence it came from and the answer character span(s) it covers, so
claim verdicts map back to answer spans. LLM decomposers (sentence-based and holistic) live in ``judges.llm``.
"""

from __future__ import annotations

import re
from typing import Optional, Protocol, Sequence, runtime_checkable

from ..evidence import is_preamble
from ..text.markup import (blank_markers, citation_markers, claim_text, lines_of, markdown_line, table_cells,
                           table_row_claim, trim_span)
from ..text.particles import particle, yes_no_statement
from ..text.subjects import AUX, PRONOUN, RELATIVE, VERB_CUE, subject_of
from ..text.segment import split_sentences
from ..types import Citation, Claim, NotClaim, Span


@runtime_checkable
class Decomposer(Protocol):
    """Turns an answer into ordered, self-contained claims with answer-sentence pointers."""

    name: str

    async def decompose(self, answer: str, *, question: Optional[str] = None) -> list[Claim]: ...


# A conjunction starts a new clause only when what follows looks like a subject followed by a finite verb, e.g.
# "... applies to all users and verification is not required". Splitting "salt and pepper" would be wrong, so
# noun-phrase coordination is left alone.
_CLAUSE_START = re.compile(
    rf"^(?:{PRONOUN}\s+\w+|(?:the|a|an|its|their|his|her|our|your|this|that|these|those)?\s*(?:\w[\w\-]*\s+){{0,2}}{AUX}\b)",
    re.IGNORECASE,
)
_BOUNDARY = re.compile(r"\s*;\s+|,?\s+(?:and|but|while|whereas|although|though)\s+", re.IGNORECASE)
_MIN_WORDS = 3
# The left side must be a clause too: "The CityRide frame and motor are covered ..." coordinates two subjects of one
# verb, and cutting it would leave "The CityRide frame" and "motor are covered ...". A left side with no verb cue
# outside its relative clauses ("The bike, which has a motor, and the helmet are included") is such a noun phrase and
# stays joined to the right (the verb cues: ``text.subjects.VERB_CUE``).

def _is_clause(left: str) -> bool:
    """Whether the text before a conjunction has a finite verb of its own (not only inside a relative clause)."""
    return VERB_CUE.search(RELATIVE.sub(" ", left)) is not None


# A right conjunct with no subject of its own: an auxiliary or listed verb first, at most two adverbs before it
# ("... hasn't seen it and doesn't plan to", "... opens at 9 and is closed on Monday", "... and also offers ...").
_ADVERB = (
    r"(?:also|then|still|now|later|recently|currently|further|additionally|subsequently|eventually|finally|often|"
    r"usually|always|never|even|only|already|thus|therefore|soon|again|[a-z]+ly)"
)
_BARE_VERB_PHRASE = re.compile(rf"^(?:{_ADVERB}\s+){{0,2}}{AUX}\b")  # case-sensitive: "Italy is" has a subject
def _clause_parts(sentence: str) -> list[tuple[int, int, Optional[str]]]:
    """Split one sentence at safe clause boundaries: (start, end, subject) per part, offsets into ``sentence``.
    ``subject`` is None for a part that has its own; for a verb phrase coordinated with the clause before it
    ("She hasn't seen it and doesn't plan to") it is that clause's subject ("She"), to be read with the part. A
    verb phrase whose subject cannot be found is not cut off: it stays joined to the clause before it."""
    cuts: list[tuple[int, int, Optional[str]]] = []
    for m in _BOUNDARY.finditer(sentence):
        right = sentence[m.end():]
        left_words = len(sentence[: m.start()].split())
        if left_words < _MIN_WORDS or len(right.split()) < _MIN_WORDS:
            continue
        if m.group(0).strip() == ";":
            cuts.append((m.start(), m.end(), None))
            continue
        left_start = cuts[-1][1] if cuts else 0
        left = sentence[left_start:m.start()]
        if not (_CLAUSE_START.match(right) and _is_clause(left)):
            continue
        subject = None
        if _BARE_VERB_PHRASE.match(right):
            # the left part may itself be a bare verb phrase that borrowed its subject: pass that one on
            borrowed = cuts[-1][2] if cuts and cuts[-1][2] and _BARE_VERB_PHRASE.match(left.lstrip()) else None
            subject = borrowed or subject_of(left)
            if subject is None:
                continue
        cuts.append((m.start(), m.end(), subject))
    parts: list[tuple[int, int, Optional[str]]] = []
    pos, subject = 0, None
    for cut_start, cut_end, next_subject in cuts:
        if cut_start - pos > 0 and sentence[pos:cut_start].strip():
            parts.append((pos, cut_start, subject))
        pos, subject = cut_end, next_subject
    parts.append((pos, len(sentence), subject))
    # strip trailing punctuation/whitespace inside each part, keep offsets exact
    out = []
    for s, e, subj in parts:
        seg = sentence[s:e]
        lead = len(seg) - len(seg.lstrip())
        body = seg.strip()
        if body:
            out.append((s + lead, s + lead + len(body), subj))
    return out or [(0, len(sentence), None)]


def with_subject(subject: str, fragment: str) -> str:
    """The claim text of a verb phrase read with the subject of the clause it was coordinated with."""
    if subject[0].islower() and subject.split()[0] != "i":
        subject = subject[0].upper() + subject[1:]
    return f"{subject} {fragment}"


class RuleDecomposer:
    """Offline decomposer: one claim per answer sentence, optionally split at safe clause boundaries. A preamble
    (``evidence.is_preamble``: "Here is a summary of the article:", "I hope this helps!") is no claim.

    The answer is read as an assistant writes it (``text.markup``, ``text.particles``): citation markers are no
    words of a claim and never split one (each claim keeps the markers that cite it in ``citations``); markdown
    headings and a table's header and separator rows are no claims, a table row is read with its header's names, and
    list bullets and emphasis are dropped from the claim text. An answer particle ("Yes.", "No, ...") is no claim of
    its own when the sentence it opens states the fact ("Yes — dogs are welcome for $25 a night" is judged by what it
    says); standing alone in reply to a yes/no question it is the statement it asserts ("No." to "Can I bring my
    dog?" is "You cannot bring your dog."), its span the particle's characters; otherwise it is dropped. A sentence
    that states nothing (``evidence.is_preamble``: "Great question!", "Hope that helps!", "You've got several
    options:") is no claim; ``not_claims`` lists such sentences.

    Claims are verbatim answer fragments, so their answer spans are exact, with these exceptions: a verb phrase
    coordinated with a clause before it ("She hasn't seen it and doesn't plan to") is read with that clause's subject
    ("She doesn't plan to"), its text then the subject, a space and the verbatim fragment, its answer span the
    fragment's alone; markers, emphasis, table rows and particles are read as said above. Pronouns are not resolved:
    this decomposer trades the "self-contained" property of §3.3 for needing no model.
    """

    name = "rule"

    def __init__(self, *, split_clauses: bool = True) -> None:
        self.split_clauses = split_clauses

    def decompose_sync(self, answer: str, question: Optional[str] = None) -> list[Claim]:
        lines = list(lines_of(answer))
        kinds: list[tuple[int, int, str, Optional[list[str]]]] = []  # (start, end, kind, header cells)
        header: Optional[list[str]] = None
        for n, (start, end, line) in enumerate(lines):
            kind = markdown_line(line, lines[n + 1][2] if n + 1 < len(lines) else None)
            if kind == "table-header":
                header = table_cells(line)
            elif kind not in ("table-row", "table-separator"):
                header = None
            kinds.append((start, end, kind, header if kind == "table-row" else None))
        view = blank_markers(answer)
        sentences = [s for s in split_sentences(view) if s.text.strip()]
        markers = citation_markers(answer)
        claims: list[tuple[int, str, int, int, int]] = []  # (sentence index, text, start, end, reach end)
        done_lines: set[int] = set()
        for k, sent in enumerate(sentences):
            reach = sentences[k + 1].start if k + 1 < len(sentences) else len(answer)
            line_no = next((n for n, (ls, le, _, _) in enumerate(kinds) if ls <= sent.start < le), None)
            kind = kinds[line_no][2] if line_no is not None else "text"
            if kind in ("heading", "table-header", "table-separator"):
                continue
            if kind == "table-row":
                if line_no in done_lines:
                    continue
                done_lines.add(line_no)
                ls, le, _, cells_header = kinds[line_no]
                start, end = trim_span(answer, ls, le)
                text = table_row_claim(table_cells(answer[ls:le]), cells_header)
                if any(ch.isalnum() for ch in text):
                    claims.append((sent.index, text, start, end, max(reach, le)))
                continue
            body_start = sent.start
            found = particle(sent.text)
            if found is not None:
                body_start = sent.start + found[0]
                rest = view[body_start:sent.end]
                if not any(ch.isalnum() for ch in rest):
                    rest = sentences[k + 1].text if k + 1 < len(sentences) else ""
                if rest.strip() and is_preamble(claim_text(rest)):
                    rest = ""  # "Yes. I hope this helps!": the particle stands alone
                statement = yes_no_statement(question or "", found[1])
                # a particle is a claim of its own only when nothing after it states the fact ("Yes." alone, or
                # "Yes. I hope this helps!"); "Yes — dogs are welcome for $25" is judged by what it says
                if statement is not None and not rest.strip():
                    p_start, p_end = trim_span(answer, sent.start, sent.start + found[0])
                    p_end = p_start + len(answer[p_start:p_end].rstrip(",.!:;—–- "))
                    claims.append((sent.index, statement, p_start, max(p_end, p_start + 1), body_start))
            body = view[body_start:sent.end]
            if not body.strip() or is_preamble(claim_text(body)):
                continue
            parts = _clause_parts(body) if self.split_clauses else [(0, len(body), None)]
            for n, (s, e, subject) in enumerate(parts):
                start, end = trim_span(answer, body_start + s, body_start + e)
                text = claim_text(answer[start:end])
                if not any(ch.isalnum() for ch in text):
                    continue
                part_reach = body_start + parts[n + 1][0] if n + 1 < len(parts) else reach
                claims.append((sent.index, with_subject(subject, text) if subject else text, start, end, part_reach))
        # the markers after a sentence's last claim cite the whole sentence: its claims that have none of their own
        # take them ("A, and B [1]." cites A too)
        trailing: dict[int, tuple[Citation, ...]] = {}
        for sentence, _, _, end, reach in claims:
            trailing[sentence] = tuple(m for m in markers if end <= m.start < reach)
        out: list[Claim] = []
        for n, (sentence, text, start, end, reach) in enumerate(claims):
            cited = tuple(m for m in markers if start <= m.start < reach) or trailing[sentence]
            out.append(Claim(index=n, text=text, sentence_index=sentence,
                             answer_spans=(Span(start=start, end=end),), citations=cited))
        return out

    async def decompose(self, answer: str, *, question: Optional[str] = None) -> list[Claim]:
        return self.decompose_sync(answer, question)


def not_claims(answer: str, claims: Sequence[Claim]) -> tuple[NotClaim, ...]:
    """The answer's sentences that state nothing (``evidence.is_preamble``: greetings, thanks, "Hope that helps!",
    "You've got several options:") and that no claim covers: kept in a result with their answer spans, never
    judged."""
    covered = [sp for c in claims for sp in c.answer_spans]
    out: list[NotClaim] = []
    for sent in split_sentences(blank_markers(answer)):
        start, end = trim_span(answer, sent.start, sent.end)
        if end <= start or any(sp.start < end and start < sp.end for sp in covered):
            continue
        text = claim_text(answer[start:end])
        if any(ch.isalnum() for ch in text) and is_preamble(text):
            out.append(NotClaim(text=text, sentence_index=sent.index, answer_spans=(Span(start=start, end=end),)))
    return tuple(out)


def particle_statements(answer: str, claims: Sequence[Claim], question: Optional[str]) -> dict[int, str]:
    """What each answer particle that opens a sentence stating the fact asserts ("Yes, you can visit on Mondays." to
    "Is the museum open on Mondays?" asserts "The museum is open on Mondays."), keyed by the index of the first claim
    of what it opens (that sentence, or the next one after a particle standing alone: "Yes. You can ..."). Such a
    particle is no claim of its own (``RuleDecomposer``), but the answer still says it: the auditor checks it with
    that claim. Empty without a yes/no question."""
    if not question or not claims:
        return {}
    view = blank_markers(answer)
    sentences = [s for s in split_sentences(view) if s.text.strip()]
    out: dict[int, str] = {}
    for k, sent in enumerate(sentences):
        found = particle(sent.text)
        statement = yes_no_statement(question, found[1]) if found is not None else None
        if found is None or statement is None:
            continue
        body = view[sent.start + found[0]:sent.end]
        opened, start = (sent.index, sent.start + found[0]) if any(ch.isalnum() for ch in body) else \
            (sentences[k + 1].index, sentences[k + 1].start) if k + 1 < len(sentences) else (None, 0)
        first = next((c for c in claims if c.sentence_index == opened and c.text != statement
                      and all(sp.start >= start for sp in c.answer_spans)), None)
        if first is not None and not is_preamble(first.text):
            out.setdefault(first.index, statement)
    return out


def sentence_claims(answer: str, texts_per_sentence: Sequence[Sequence[str]]) -> list[Claim]:
    """Build claims from rewritten texts grouped by answer sentence (used by LLM decomposers).

    ``texts_per_sentence[i]`` are the claims decomposed from answer sentence i; each claim's answer span is that
    sentence's span, since a rewritten claim is not a verbatim fragment. A citation marker a model copied into a
    claim is dropped from its text (``text.markup.claim_text``); the markers of the sentence are its ``citations``.
    """
    sentences = split_sentences(answer)
    markers = citation_markers(answer)
    claims: list[Claim] = []
    for k, (sent, texts) in enumerate(zip(sentences, texts_per_sentence)):
        reach = sentences[k + 1].start if k + 1 < len(sentences) else len(answer)
        cited = tuple(m for m in markers if sent.start <= m.start < reach)
        for t in texts:
            text = claim_text(t)
            if text:
                claims.append(
                    Claim(
                        index=len(claims),
                        text=text,
                        sentence_index=sent.index,
                        answer_spans=(Span(start=sent.start, end=sent.end),),
                        citations=cited,
                    )
                )
    return claims
