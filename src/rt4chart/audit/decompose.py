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


def _clause_spans(sentence: str) -> list[tuple[int, int]]:
    """Split one sentence at safe clause boundaries; returns (start, end) offsets into ``sentence``."""
    cuts: list[tuple[int, int]] = []
    for m in _BOUNDARY.finditer(sentence):
        right = sentence[m.end():]
        left_words = len(sentence[: m.start()].split())
        if left_words < _MIN_WORDS or len(right.split()) < _MIN_WORDS:
            continue
        if m.group(0).strip() == ";":
            cuts.append((m.start(), m.end()))
        elif _CLAUSE_START.match(right) and _is_clause(sentence[cuts[-1][1] if cuts else 0:m.start()]):
            cuts.append((m.start(), m.end()))
    spans: list[tuple[int, int]] = []
    pos = 0
    for cut_start, cut_end in cuts:
        if cut_start - pos > 0 and sentence[pos:cut_start].strip():
            spans.append((pos, cut_start))
        pos = cut_end
    spans.append((pos, len(sentence)))
    # strip trailing punctuation/whitespace inside each span, keep offsets exact
    out = []
    for s, e in spans:
        seg = sentence[s:e]
        lead = len(seg) - len(seg.lstrip())
        body = seg.strip()
        if body:
            out.append((s + lead, s + lead + len(body)))
    return out or [(0, len(sentence))]


class RuleDecomposer:
    """Offline decomposer: one claim per answer sentence, optionally split at safe clause boundaries. A preamble
    (``evidence.is_preamble``: "Here is a summary of the article:", "I hope this helps!") is no claim.

    Claims are verbatim answer fragments, so their answer spans are exact. Pronouns are not resolved: this
    decomposer trades the "self-contained" property of §3.3 for needing no model.
    """

    name = "rule"

    def __init__(self, *, split_clauses: bool = True) -> None:
        self.split_clauses = split_clauses

    def decompose_sync(self, answer: str) -> list[Claim]:
        claims: list[Claim] = []
        for sent in split_sentences(answer):
            if is_preamble(sent.text):
                continue
            spans = _clause_spans(sent.text) if self.split_clauses else [(0, len(sent.text))]
            for s, e in spans:
                start, end = sent.start + s, sent.start + e
                text = answer[start:end]
                if not any(ch.isalnum() for ch in text):
                    continue
                claims.append(
                    Claim(
                        index=len(claims),
                        text=text,
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
