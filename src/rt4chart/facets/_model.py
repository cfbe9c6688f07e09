"""Frozen result types of facet diagnostics (docs/facets.md describes every field and rule)."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from ..types import Label, Usage

FacetType = Literal["bridge", "comparison", "boolean", "temporal", "numeric", "factoid"]
FACET_TYPES: tuple[str, ...] = ("bridge", "comparison", "boolean", "temporal", "numeric", "factoid")
Category = Literal[
    "robust", "evidence_failure", "evidence_misalignment", "evidence_override", "unaddressed", "unverified",
]
CATEGORIES: tuple[str, ...] = (
    "robust", "evidence_failure", "evidence_misalignment", "evidence_override", "unaddressed", "unverified",
)
Mode = Literal["strict", "soft", "llm_only"]
MODES: tuple[str, ...] = ("strict", "soft", "llm_only")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Facet(_Frozen):
    """One atomic reasoning step of a question, phrased as a sub-question."""

    index: int
    text: str
    type: FacetType
    source: Literal["question", "rule", "llm"] = "question"


class ChunkRef(_Frozen):
    """A context chunk (a passage of a list context, or a window of sentences): ``context[start:end] == text``."""

    index: int
    start: int
    end: int
    text: str


class Cell(_Frozen):
    """One Facet x Chunk entry: retrieval relevance and NLI faithfulness.

    ``bm25`` is the raw BM25 score of the chunk for the facet, ``bm25_norm`` that score over the facet's
    idf mass (an idf-weighted share of the facet's terms found in the chunk, in [0, 1]), ``cosine`` the MiniLM
    cosine similarity (None without the encoder). ``relevance`` combines them; ``relevant`` is
    ``relevance >= threshold``. ``nli`` maps each statement made for the facet (``strict``/``soft``/``llm_only``
    answers, or ``claim:<i>`` answer claims) to the judge's label against this chunk alone; ``faithfulness`` is the
    share of those statements the chunk entails (None when nothing was said).
    """

    chunk: int
    bm25: float
    bm25_norm: float
    cosine: Optional[float] = None
    relevance: float
    relevant: bool
    nli: dict[str, Label] = Field(default_factory=dict)
    faithfulness: Optional[float] = None


class ModeAnswer(_Frozen):
    """A facet answered in one generation mode, with its grounding in the chunks."""

    mode: Mode
    text: str
    abstained: bool = False
    grounded: bool = False
    contradicted: bool = False
    supporting_chunks: tuple[int, ...] = ()
    prompt_version: Optional[str] = None
    error: Optional[str] = None


class GenerationDiagnosis(_Frozen):
    """The three-mode diagnosis of a facet (docs/facets.md, rules R1-R4)."""

    answers: dict[str, ModeAnswer]
    sufficient: bool
    evidence_chunks: tuple[int, ...] = ()
    prior_match: Optional[bool] = None
    category: Category
    rule: str


class AnswerDiagnosis(_Frozen):
    """How the given answer A treats a facet: which of its claims address it and whether they are supported.

    ``retrieved``: some chunk is relevant to the facet; ``sufficient``: some relevant chunk entails one of the
    facet's claims (judged against that chunk alone)."""

    claims: tuple[int, ...] = ()
    status: Literal["supported", "unsupported", "unverified", "unaddressed"]
    label: Optional[Label] = None
    retrieved: bool
    sufficient: bool = False
    category: Category
    rule: str


class FacetDiagnosis(_Frozen):
    facet: Facet
    cells: tuple[Cell, ...]
    generation: Optional[GenerationDiagnosis] = None
    answer: Optional[AnswerDiagnosis] = None
    category: Category


class ClaimRef(_Frozen):
    """An answer claim from the audit with the facets it addresses (relevance to the facet at least the address
    threshold; empty: it addresses no facet) and its relevance to each facet."""

    index: int
    text: str
    label: Label
    facets: tuple[int, ...]
    similarity: tuple[float, ...]
    spans: tuple[tuple[int, int], ...] = ()


class Diagnosis(_Frozen):
    """Facet-level diagnosis of one question (the JSON written per question)."""

    id: Optional[str | int] = None
    question: str
    context: str
    answer: Optional[str] = None
    chunks: tuple[ChunkRef, ...]
    facets: tuple[FacetDiagnosis, ...]
    claims: tuple[ClaimRef, ...] = ()
    answer_label: Optional[Label] = None
    relevance_method: Literal["bm25+minilm", "bm25"]
    generation: bool
    decomposer: str
    judge: str
    config: dict = Field(default_factory=dict)
    notes: tuple[str, ...] = ()
    usage: Usage = Field(default_factory=Usage)
    errors: tuple[str, ...] = ()

    @property
    def categories(self) -> dict[str, int]:
        out = {c: 0 for c in CATEGORIES}
        for f in self.facets:
            out[f.category] += 1
        return out

    def to_json(self) -> dict:
        data = self.model_dump(mode="json")
        data["categories"] = self.categories
        return data
