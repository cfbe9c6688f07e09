"""Claim decomposition (RT4CHART §3.3): the Decomposer protocol and the offline rule-based decomposer.

Every claim keeps the index of the answer sentence it came from and the answer character span(s) it covers, so
claim verdicts map back to answer spans. LLM decomposers (sentence-based and holistic) live in ``judges.llm``.
"""

from __future__ import annotations

import re
from typing import Optional, Protocol, Sequence, runtime_checkable

from ..evidence import is_preamble
from ..text.segment import split_sentences
from ..types import Claim, Span


@runtime_checkable
class Decomposer(Protocol):
    """Turns an answer into ordered, self-contained claims with answer-sentence pointers."""

    name: str

    async def decompose(self, answer: str, *, question: Optional[str] = None) -> list[Claim]: ...


# A conjunction starts a new clause only when what follows looks like a subject followed by a finite verb, e.g.
# "... applies to all users and verification is not required". Splitting "salt and pepper" would be wrong, so
# noun-phrase coordination is left alone.
_AUX = (
    r"(?:is|are|was|were|has|have|had|can|cannot|can't|could|will|won't|would|does|doesn't|do|don't|did|didn't|"
    r"must|should|may|might|shall|isn't|aren't|wasn't|weren't|lasts|includes|requires|offers|provides|applies|"
    r"remains|became|becomes|gets|got|includes|contains|costs|takes)"
)
_PRONOUN = r"(?:it|they|he|she|we|you|i|there|this|these|those|that)"
_CLAUSE_START = re.compile(
    rf"^(?:{_PRONOUN}\s+\w+|(?:the|a|an|its|their|his|her|our|your|this|that|these|those)?\s*(?:\w[\w\-]*\s+){{0,2}}{_AUX}\b)",
    re.IGNORECASE,
)
_BOUNDARY = re.compile(r"\s*;\s+|,?\s+(?:and|but|while|whereas|although|though)\s+", re.IGNORECASE)
_MIN_WORDS = 3
# The left side must be a clause too: "The CityRide frame and motor are covered ..." coordinates two subjects of one
# verb, and cutting it would leave "The CityRide frame" and "motor are covered ...". A left side with no verb cue
# outside its relative clauses ("The bike, which has a motor, and the helmet are included") is such a noun phrase and
# stays joined to the right. Cues: an auxiliary or listed verb, a word after a pronoun ("they offer"), a past form
# in -ed, or any word in -s after the first ("the shop accepts"; a plural noun passes too, as before).
_VERB_CUE = re.compile(
    rf"\b(?:{_AUX}|{_PRONOUN}\s+\w+|\w{{3,}}ed|said|made|took|went|gave|found|began|sold|won|lost|led|left|built|"
    r"held|met|ran|saw|told|wrote|grew|fell|rose|paid|kept|brought|bought|came|knew|felt|spent|sent|include|offer|"
    r"accept|provide|serve|need|been|be)\b|(?<=\w)\s+\w{2,}[^s\W]s\b",
    re.IGNORECASE,
)
_RELATIVE = re.compile(r"\b(?:which|who|whom|whose)\b[^,;]*", re.IGNORECASE)


def _is_clause(left: str) -> bool:
    """Whether the text before a conjunction has a finite verb of its own (not only inside a relative clause)."""
    return _VERB_CUE.search(_RELATIVE.sub(" ", left)) is not None


# A right conjunct with no subject of its own: an auxiliary or listed verb first, at most two adverbs before it
# ("... hasn't seen it and doesn't plan to", "... opens at 9 and is closed on Monday", "... and also offers ...").
_ADVERB = (
    r"(?:also|then|still|now|later|recently|currently|further|additionally|subsequently|eventually|finally|often|"
    r"usually|always|never|even|only|already|thus|therefore|soon|again|[a-z]+ly)"
)
_BARE_VERB_PHRASE = re.compile(rf"^(?:{_ADVERB}\s+){{0,2}}{_AUX}\b")  # case-sensitive: "Italy is" has a subject
_PERSONAL = re.compile(r"^(?:it|they|he|she|we|you|i)\b", re.IGNORECASE)
# A subject does not open with a preposition, a subordinator or a conjunction ("In 2019 the shop opened ..."), and
# does not end on a determiner or preposition (a verb cue taken for a noun: "The talented chef ...").
_PRONOUN_FIRST = re.compile(rf"{_PRONOUN}\s", re.IGNORECASE)
_VERB_CUE_AFTER_SUBJECT = re.compile(_VERB_CUE.pattern.replace(rf"|{_PRONOUN}\s+\w+", ""), re.IGNORECASE)
_TRAILING_ADVERBS = re.compile(
    r"(?:\s+(?:also|then|still|now|further|additionally|often|usually|always|never|even|only|already|thus|therefore|"
    r"again))+$"
)
_AUX_NEXT = re.compile(rf"\s+{_AUX}\b", re.IGNORECASE)
_NOT_SUBJECT_START = frozenset(
    "in on at by for from with without to of into onto after before during since until while when whenever if "
    "because although though as once unless whereas where and or but so yet also then however here according "
    "therefore thus moreover furthermore additionally overall finally instead meanwhile please".split()
)
_NOT_SUBJECT_END = frozenset(
    "the a an its their his her our your this that these those of in on at by for from with to and or".split()
)
_SUBJECT_MAX_WORDS = 8


def _subject(left: str) -> Optional[str]:
    """The subject of the clause ``left``: the words before its first verb cue (outside relative clauses, after the
    last comma), or None when no plausible noun phrase stands there."""
    blanked = _RELATIVE.sub(lambda m: " " * len(m.group(0)), left)
    cue = _VERB_CUE.search(blanked)
    if cue is None:
        return None
    personal = _PERSONAL.match(blanked[cue.start():])
    if personal:  # "She hasn't seen it": the pronoun
        subject = personal.group(0)
    else:
        # the first verb cue that is not "<demonstrative> <word>" ("This hotel has ..." -> "This hotel")
        cue = _VERB_CUE_AFTER_SUBJECT.search(blanked, cue.start() + 1) if cue.group(0)[0].isalpha() and \
            _PRONOUN_FIRST.match(cue.group(0)) else cue
        if cue is None:
            return None
        end = cue.start()
        if not cue.group(0)[0].isalpha() and _AUX_NEXT.match(blanked, cue.end()):
            end = cue.end()  # a plural noun taken for a verb in -s: "Forward contracts are ..."
        # "In 2019, the shop opened ...", "The bike, which has a motor, costs ...": the last comma-separated piece
        # before the verb that is not blank (relative clauses are blanked) is the subject
        pieces = [p for p in blanked[:end].split(",") if p.strip()]
        subject = " ".join(pieces[-1].split()) if pieces else ""
        subject = _TRAILING_ADVERBS.sub("", subject)  # "Cafe Ana also doesn't ..." -> "Cafe Ana"
    words = subject.split()
    if not words or len(words) > _SUBJECT_MAX_WORDS or not any(ch.isalpha() for ch in subject):
        return None
    if words[0].lower() in _NOT_SUBJECT_START or words[-1].lower() in _NOT_SUBJECT_END:
        return None
    return subject


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
            subject = cuts[-1][2] if cuts and cuts[-1][2] and _BARE_VERB_PHRASE.match(left.lstrip()) else _subject(left)
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


def _clause_spans(sentence: str) -> list[tuple[int, int]]:
    """Split one sentence at safe clause boundaries; returns (start, end) offsets into ``sentence``."""
    return [(s, e) for s, e, _ in _clause_parts(sentence)]


def with_subject(subject: str, fragment: str) -> str:
    """The claim text of a verb phrase read with the subject of the clause it was coordinated with."""
    if subject[0].islower() and subject.split()[0] != "i":
        subject = subject[0].upper() + subject[1:]
    return f"{subject} {fragment}"


class RuleDecomposer:
    """Offline decomposer: one claim per answer sentence, optionally split at safe clause boundaries. A preamble
    (``evidence.is_preamble``: "Here is a summary of the article:", "I hope this helps!") is no claim.

    Claims are verbatim answer fragments, so their answer spans are exact, with one exception: a verb phrase
    coordinated with a clause before it ("She hasn't seen it and doesn't plan to") is read with that clause's subject
    ("She doesn't plan to"); its text is then the subject, a space and the verbatim fragment, and its answer span is
    the fragment's alone. Pronouns are not resolved: this decomposer trades the "self-contained" property of §3.3
    for needing no model.
    """

    name = "rule"

    def __init__(self, *, split_clauses: bool = True) -> None:
        self.split_clauses = split_clauses

    def decompose_sync(self, answer: str) -> list[Claim]:
        claims: list[Claim] = []
        for sent in split_sentences(answer):
            if is_preamble(sent.text):
                continue
            parts = _clause_parts(sent.text) if self.split_clauses else [(0, len(sent.text), None)]
            for s, e, subject in parts:
                start, end = sent.start + s, sent.start + e
                text = answer[start:end]
                if not any(ch.isalnum() for ch in text):
                    continue
                claims.append(
                    Claim(
                        index=len(claims),
                        text=with_subject(subject, text) if subject else text,
                        sentence_index=sent.index,
                        answer_spans=(Span(start=start, end=end),),
                    )
                )
        return claims

    async def decompose(self, answer: str, *, question: Optional[str] = None) -> list[Claim]:
        return self.decompose_sync(answer)


def sentence_claims(answer: str, texts_per_sentence: Sequence[Sequence[str]]) -> list[Claim]:
    """Build claims from rewritten texts grouped by answer sentence (used by LLM decomposers).

    ``texts_per_sentence[i]`` are the claims decomposed from answer sentence i; each claim's answer span is that
    sentence's span, since a rewritten claim is not a verbatim fragment.
    """
    sentences = split_sentences(answer)
    claims: list[Claim] = []
    for sent, texts in zip(sentences, texts_per_sentence):
        for t in texts:
            if t.strip():
                claims.append(
                    Claim(
                        index=len(claims),
                        text=t.strip(),
                        sentence_index=sent.index,
                        answer_spans=(Span(start=sent.start, end=sent.end),),
                    )
                )
    return claims
