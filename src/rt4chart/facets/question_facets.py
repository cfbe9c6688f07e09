"""Question -> facets: atomic reasoning steps, each a sub-question (Facet tracing §3, Appendix B.1-B.2).

- ``RuleFacetDecomposer`` (offline fallback): the question is one facet, except obvious cases that are split:
  an "X or Y" comparison ("Who was born first, A or B?" -> one facet per option), "Are A and B both P?" -> one
  boolean facet per entity, and conjoined questions ("Who directed X and when was it released?").
- ``LLMFacetDecomposer``: the paper's few-shot templates (bridge and comparison), chosen by ``question_shape``,
  over a ``ChatBackend``; reply validated as JSON and re-asked once (instructor's pattern).

Facet types are assigned by explicit rules (``facet_type``, documented in docs/facets.md) whatever produced the
facet, so offline and LLM facets are counted the same way.
"""

from __future__ import annotations

import re
from typing import Literal, Optional, Protocol, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ..errors import JudgeError
from ..llm.ask import ask
from ..llm.templates import FACET_PROMPTS, load_prompt
from ._model import Facet, FacetType

Shape = Literal["bridge", "comparison"]

_AUX = r"(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should|shall|may|might|must)"
_WH = r"(?:who|whom|whose|what|when|where|which|why|how)"
_BOOLEAN = re.compile(rf"^\s*{_AUX}\b", re.IGNORECASE)
_TEMPORAL = re.compile(
    r"\b(?:when|what (?:year|date|day|month|century|decade|time)|which (?:year|date|day|month|century|decade)"
    r"|how long|how soon|how often|since when|until when)\b", re.IGNORECASE)
_NUMERIC = re.compile(
    r"\b(?:how (?:many|much|old|far|big|large|tall|high|deep|fast|heavy|wide)|what (?:number|percentage|percent|"
    r"proportion|amount|share|rate|size|population|cost|price)|number of)\b", re.IGNORECASE)
_COMPARATIVE = re.compile(
    r"\b(?:more|less|fewer|most|least|first|earlier|later|last|older|younger|oldest|youngest|bigger|smaller|larger|"
    r"longer|shorter|higher|lower|taller|better|worse|same|both|either|\w+er than|compared?|difference|differ)\b",
    re.IGNORECASE)
_CHOICE = re.compile(r"^(?P<stem>.*?\S)\s*[,:]\s*(?P<a>[^,?]+?),?\s+or\s+(?P<b>[^,?]+?)\s*\?*\s*$", re.IGNORECASE)
_BOTH = re.compile(rf"^\s*(?P<aux>{_AUX})\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+both\s+(?P<rest>.+?)\s*\?*\s*$",
                   re.IGNORECASE)
_CONJ = re.compile(rf"\s*(?:;|,?\s+and\s+(?={_WH}\b|{_AUX}\s))\s*", re.IGNORECASE)
_SINGULAR = {"are": "is", "were": "was", "do": "does", "have": "has"}


def facet_type(text: str, *, shape: Optional[str] = None) -> FacetType:
    """The semantic type of a facet, by the first rule that matches (docs/facets.md, "Facet types"):

    1. comparison - the facet itself compares (a comparative word with "or"/"than"/"both"/"same"/"between");
    2. boolean - it starts with an auxiliary verb ("Is ...", "Did ...");
    3. temporal - it asks for a time ("when", "what year", "how long");
    4. numeric - it asks for a quantity ("how many", "how much", "what percentage");
    5. bridge or comparison - it is one step of a multi-step decomposition of that shape (``shape``);
    6. factoid - anything else.
    """
    t = text.strip()
    comparative = bool(_COMPARATIVE.search(t)) and bool(re.search(r"\b(?:or|than|both|same|between)\b", t, re.I))
    if comparative:
        return "comparison"
    if _BOOLEAN.match(t):
        return "boolean"
    if _TEMPORAL.search(t):
        return "temporal"
    if _NUMERIC.search(t):
        return "numeric"
    if shape in ("bridge", "comparison"):
        return shape  # type: ignore[return-value]
    return "factoid"


def question_shape(question: str) -> Shape:
    """Which of the paper's two decomposition templates fits: ``comparison`` when the question contrasts
    options or entities (a comparative word with "or"/"than"/"both"/"same"/"between"), else ``bridge``."""
    return "comparison" if facet_type(question) == "comparison" else "bridge"


def _question(text: str) -> str:
    text = text.strip().rstrip("?.!").strip()
    return text[:1].upper() + text[1:] + "?" if text else ""


class FacetDecomposer(Protocol):
    """Splits a question into facets (one async method, like the claim Decomposer)."""

    name: str

    async def facets(self, question: str) -> list[Facet]: ...


class RuleFacetDecomposer:
    """The offline fallback: one facet per question, splitting only obvious comparisons and conjunctions."""

    name = "rule"

    async def facets(self, question: str) -> list[Facet]:
        return self.split(question)

    def split(self, question: str) -> list[Facet]:
        q = " ".join(question.split())
        if not q:
            return []
        texts, shape = self._split(q)
        if len(texts) <= 1:
            return [Facet(index=0, text=q, type=facet_type(q), source="question")]
        return [Facet(index=i, text=t, type=facet_type(t, shape=shape), source="rule") for i, t in enumerate(texts)]

    @staticmethod
    def _split(q: str) -> tuple[list[str], Optional[str]]:
        m = _BOTH.match(q)
        if m:
            aux = m.group("aux")
            single = _SINGULAR.get(aux.lower(), aux.lower())
            single = single[:1].upper() + single[1:]
            return [_question(f"{single} {m.group(e)} {m.group('rest')}") for e in ("a", "b")], "comparison"
        m = _CHOICE.match(q)
        if m and _COMPARATIVE.search(m.group("stem")) and re.match(rf"^{_WH}\b", m.group("stem"), re.I):
            stem = m.group("stem").strip()
            options = [m.group("a").strip(), m.group("b").strip()]
            if re.search(r"\bborn\b", stem, re.I):
                return [f"When was {o} born?" for o in options], "comparison"
            return [_question(f"{stem} ({o})") for o in options], "comparison"
        parts = [p for p in _CONJ.split(q) if p and p.strip()]
        if len(parts) > 1:
            return [_question(p) for p in parts], None
        return [q], None


class FacetsReply(BaseModel):
    """The model's decomposition: reasoning first, then the facets as sub-questions."""

    model_config = ConfigDict(extra="forbid")

    reasoning: str = Field(description="Which reasoning steps the question needs, briefly.")
    facets: list[str] = Field(description="Atomic sub-questions, in the order they must be answered.")


class LLMFacetDecomposer:
    """Facets from an LLM with the paper's few-shot bridge/comparison templates (``facets_<shape>.v1``)."""

    name = "llm"

    def __init__(self, backend: object, *, version: str = "v1", max_facets: int = 6) -> None:
        self.backend = backend
        self.version = version
        self.max_facets = max_facets
        self.prompts = {s: load_prompt(f"facets_{s}", version, FACET_PROMPTS) for s in ("bridge", "comparison")}

    async def facets(self, question: str) -> list[Facet]:
        shape = question_shape(question)
        prompt = self.prompts[shape]

        def check(reply: FacetsReply) -> list[str]:
            n = len([f for f in reply.facets if f.strip()])
            return [] if 1 <= n <= self.max_facets else [
                f"give between 1 and {self.max_facets} non-empty facets (got {n})."]

        asked = await ask(self.backend, prompt, {"question": question.strip()}, FacetsReply, check)
        if not asked.ok or asked.reply is None:
            raise JudgeError(f"facet decomposition ({prompt.id}) {asked.why()} Raw reply: {(asked.raw or '')[:300]!r}")
        texts = [" ".join(f.split()) for f in asked.reply.facets if f.strip()]
        return [Facet(index=i, text=_question(t), type=facet_type(t, shape=shape if len(texts) > 1 else None),
                      source="llm") for i, t in enumerate(texts)]


__all__ = [
    "FacetDecomposer", "RuleFacetDecomposer", "LLMFacetDecomposer", "FacetsReply", "facet_type", "question_shape",
    "split_question",
]


def split_question(question: str) -> Sequence[Facet]:
    """Synchronous offline facets of ``question`` (the rule decomposer)."""
    return RuleFacetDecomposer().split(question)
