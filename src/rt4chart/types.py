"""Frozen value types shared by every stage of the audit (DESIGN.md "Contracts").

``Record`` is one validated input record (made by ``rt4chart.io.validate_record``, the one validator). All results
are pydantic models with ``frozen=True``: they serialise to the documented JSON output record with
``model_dump(mode="json")`` and cannot be mutated after a stage hands them on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

_RECORD_KEYS = ("id", "context", "question", "answer", "task")


@dataclass(frozen=True, kw_only=True)
class Record(Mapping[str, Any]):
    """One input record after validation: ``context`` is one string (a list context is already joined with blank
    lines, by ``rt4chart.io.join_context``), ``question`` and ``task`` are None when absent.

    Make records with ``rt4chart.io.validate_record``, which checks raw input once and names the record and the
    field it rejects; a ``Record`` is trusted from then on. It also reads as a read-only mapping of those five keys,
    so code that takes record mappings (the gate, user callbacks) takes a ``Record`` as it is.
    """

    id: Union[str, int]
    context: str
    question: Optional[str] = None
    answer: str
    task: Optional[str] = None
    #: the passages of a list context, as given (``context`` is them joined); None for a string context. Citation
    #: markers in the answer name them (marker n = the n-th passage: ``rt4chart.audit.citations``)
    passages: Optional[tuple[str, ...]] = None
    #: the answer's citations given apart from its text (a model API's citation objects, ``io.read_citations``):
    #: spans of the answer and the passages they name; None when the record gives none
    citations: "Optional[tuple[Citation, ...]]" = None

    def __getitem__(self, key: str) -> Any:
        if key not in _RECORD_KEYS:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(_RECORD_KEYS)

    def __len__(self) -> int:
        return len(_RECORD_KEYS)


class Label(str, Enum):
    """Claim and answer labels (RT4CHART §2): Ent, Con, Nic, plus ``unverified`` when the judge failed."""

    ENTAILED = "entailed"
    CONTRADICTED = "contradicted"
    BASELESS = "baseless"
    UNVERIFIED = "unverified"

    @property
    def hallucinated(self) -> bool:
        """True for a claim label that finds a violation (contradicted, baseless)."""
        return self in (Label.CONTRADICTED, Label.BASELESS)

    @property
    def answer_hallucinated(self) -> Optional[bool]:
        """``AuditResult.hallucinated`` for an answer with this label: True (contradicted, baseless), False
        (entailed) or None (unverified: no judge confirmed the answer, so it is not called clean either)."""
        return None if self is Label.UNVERIFIED else self.hallucinated

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


Stage = Literal["local", "global"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Span(_Frozen):
    """A half-open character interval ``[start, end)`` of some text."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)

    @property
    def length(self) -> int:
        return self.end - self.start


def merge_intervals(intervals: Iterable[tuple[int, int]],
                    joins: Optional[Callable[[int, int], bool]] = None) -> list[tuple[int, int]]:
    """Union of half-open intervals ``(start, end)`` as sorted, disjoint pairs: intervals that overlap or touch are
    joined, and so are neighbours whose gap ``joins(end, start)`` accepts. The one span merger: the auditor's answer
    spans (``audit.auditor.merge_spans``) and the span metrics (``eval.metrics.merge_spans``) are this."""
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if merged and (start <= merged[-1][1] or (joins is not None and joins(merged[-1][1], start))):
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


class Sentence(_Frozen):
    """One sentence of a text with exact offsets: ``text[start:end] == self.text``."""

    index: int
    start: int
    end: int
    text: str


class Chunk(_Frozen):
    """A window of consecutive context sentences ``[first, last]`` (RT4CHART §3.4, W and O)."""

    index: int
    first: int
    last: int
    start: int
    end: int
    text: str

    @property
    def sentence_ids(self) -> range:
        return range(self.first, self.last + 1)


class Citation(_Frozen):
    """A citation marker of the answer ("[1]", "[2, 3]", "(Source 2)"): ``answer[start:end] == marker``, and the
    passages it names, numbered as written (from 1)."""

    start: int
    end: int
    marker: str
    passages: tuple[int, ...]


class Claim(_Frozen):
    """A self-contained proposition from the answer, with a pointer to its answer sentence (RT4CHART §3.3).

    ``citations`` are the citation markers of the answer that cite it (those of its answer sentence, or its part of
    that sentence); its ``text`` never holds them."""

    index: int
    text: str
    sentence_index: int
    answer_spans: tuple[Span, ...]
    citations: tuple[Citation, ...] = ()


#: a claim's citation status (``rt4chart.audit.citations.CitationStatus``'s values)
CitationStatusName = Literal["supported", "misattributed", "unsupported", "contradicted_by_cited", "uncited", "invalid",
                             "not_needed"]


class ClaimCitationCheck(_Frozen):
    """One claim's citation check (``rt4chart.audit.citations.ClaimCitation``): the passages it cites (numbered from
    1), its status, the cited passages that support it, why, the judge's risk against them, and the passages that
    hold the audit's evidence for it."""

    claim: int
    passages: tuple[int, ...]
    status: CitationStatusName
    relevant: tuple[int, ...] = ()
    reason: str = ""
    score: Optional[float] = None
    evidence_passages: tuple[int, ...] = ()


class CitationCheck(_Frozen):
    """An answer's citation check (``rt4chart.audit.citations.CitationReport``): citation recall and precision over
    its claims, the claims that need a citation, the citations made, the count of each status and each claim's
    check."""

    recall: Optional[float] = None
    precision: Optional[float] = None
    f1: Optional[float] = None
    claims_needing: int = 0
    citations: int = 0
    counts: dict[str, int] = Field(default_factory=dict)
    claims: tuple[ClaimCitationCheck, ...] = ()


class NotClaim(_Frozen):
    """A sentence of the answer that states nothing the context could support or contradict (a greeting, thanks,
    "Hope that helps!", "You've got several options:"): kept with its answer span, never judged, and never part of
    the answer's label."""

    text: str
    sentence_index: int
    answer_spans: tuple[Span, ...]
    status: Literal["not_a_claim"] = "not_a_claim"


class Judgment(_Frozen):
    """What a judge said about one claim against one evidence text.

    ``evidence`` holds verbatim quotes from the evidence text the judge read; the auditor re-anchors them in the
    full context and drops any it cannot find (the retromorphic relation). ``evidence_ids[i]``, when given, names the
    sentences quote i lies in, numbered as ``text.segment.split_sentences`` numbers the evidence text the judge read:
    at global verification these are the context's sentence ids; the auditor maps a chunk's to the context's by
    offsets, so its judgments always carry context ids. The auditor anchors a quote in the sentences its ids name, and
    searches the text only for a quote without ids (``()``; an LLM's quote that is not found once in its text).
    ``raw`` keeps the model output of LLM judges so every label can be traced.
    """

    label: Label
    evidence: tuple[str, ...] = ()
    #: per quote of ``evidence``, the ids of the sentences it lies in (see above); () for none, or no ids at all
    evidence_ids: tuple[tuple[int, ...], ...] = ()
    reason: str = ""
    score: Optional[float] = None
    raw: Optional[str] = None
    prompt_version: Optional[str] = None
    spans: tuple[Span, ...] = ()  # the unsupported part of the claim, as offsets into ``Claim.text``; () = all of it
    #: the rule that decided the label whatever the judge's model scored ("typed:quantifier", "edit:number",
    #: "unseen", "copy", ...: the local judge's rules); None when its model decided
    rule: Optional[str] = None


class Evidence(_Frozen):
    """A context span backing a verdict: ``context[start:end] == text``, anchored to context sentence ids."""

    start: int
    end: int
    text: str
    sentence_ids: tuple[int, ...]


class ClaimVerdict(_Frozen):
    """The final verdict on one claim, with the local trace that led to it."""

    index: int
    text: str
    sentence_index: int
    label: Label
    local_label: Optional[Label] = None
    chunk_labels: tuple[Label, ...] = ()
    focus_chunk: Optional[int] = None
    answer_spans: tuple[Span, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    reason: str = ""
    score: Optional[float] = None
    raw: Optional[str] = None
    prompt_version: Optional[str] = None
    #: for a hallucinated claim, the answer spans of the part its judge found unsupported (a judge that reads words,
    #: like the local judge, narrows the claim to them); () = the whole claim (``answer_spans``)
    flagged_spans: tuple[Span, ...] = ()
    #: the citation markers of the answer that cite this claim (``Claim.citations``)
    citations: tuple[Citation, ...] = ()


class Usage(_Frozen):
    """Cost of producing a result: model calls, tokens, money and wall time."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            seconds=self.seconds + other.seconds,
        )


class RecordError(_Frozen):
    """A problem with one input record or with auditing it; the batch goes on without it."""

    field: Optional[str] = None
    message: str
    kind: str = "input"


class AuditResult(_Frozen):
    """The audit of one (context, question, answer) record: the backward program's trace T plus its joins.

    ``hallucinated`` is True when a violation was found, False when the judge confirmed every claim, and None when
    no judge confirmed the answer (label ``unverified``: a judge failed or abstained, the decomposer found no claim,
    or the gate accepted it unverified). None is never a pass: read it as "needs review" (docs/output.md).
    """

    id: Optional[str | int] = None
    label: Label
    hallucinated: Optional[bool]
    claims: tuple[ClaimVerdict, ...]
    spans: tuple[Span, ...] = ()
    context: str
    question: Optional[str] = None
    answer: str
    judge: str = ""
    config: dict = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    routed: Optional[Literal["accepted", "verified"]] = None
    risk: Optional[float] = None
    errors: tuple[RecordError, ...] = ()
    #: the answer's sentences that state nothing (``NotClaim``); left out of ``to_json`` when there are none
    not_claims: tuple[NotClaim, ...] = ()
    #: the check of the answer's citations against its passages (``rt4chart.audit.citations.CitationReport``),
    #: when the auditor checks citations and the context is a list of passages; else None and left out of
    #: ``to_json``
    citation_check: Optional[CitationCheck] = None

    def json_exclude(self) -> Optional[set[str]]:
        """The fields a result's JSON leaves out: ``citation_check`` where none was made, ``not_claims`` where the
        answer has none."""
        out = set() if self.citation_check is not None else {"citation_check"}
        if not self.not_claims:
            out.add("not_claims")
        return out or None

    def to_json(self) -> dict:
        return self.model_dump(mode="json", exclude=self.json_exclude())
