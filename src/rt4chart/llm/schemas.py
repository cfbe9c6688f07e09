"""Reply schemas for the LLM judge and decomposers, and strict parsing of model replies.

The JSON schema sent as ``response_format`` is built from these pydantic models, with the reasoning field first so
that the model writes its reasoning before it commits to a verdict. The same models validate the reply whether the
server enforced the schema or the model wrote JSON in plain text. Nothing is ever ``eval``-ed and labels are never
found by substring matching: a reply is valid JSON matching the model, or it is an error that is sent back to the
model once (instructor's re-ask pattern).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Optional, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator

Verdict = Literal["entailed", "contradicted", "baseless"]
#: the longest reason a cited verdict asks for (the schema's maxLength; a longer one is cut, not re-asked)
REASON_CHARS = 120
#: the most sentence numbers a cited verdict may cite
CITED = 8


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid")


class VerdictReply(_Reply):
    """One verdict on one claim."""

    reasoning: str = Field(description="Step-by-step reasoning, written before the verdict.")
    evidence: list[str] = Field(description="Exact quotes copied from the evidence text; empty for baseless.")
    verdict: Verdict
    reason: str = Field(description="One short sentence for a report.")


class NumberedVerdict(_Reply):
    claim: int = Field(description="The claim's number as listed in the prompt.")
    reasoning: str
    evidence: list[str]
    verdict: Verdict
    reason: str


class BatchVerdictReply(_Reply):
    """One verdict per listed claim (batched granularity)."""

    verdicts: list[NumberedVerdict]


class SentenceClaimsReply(_Reply):
    """Claims decomposed from one answer sentence."""

    claims: list[str]


class HolisticClaim(_Reply):
    sentence: int = Field(description="Number of the answer sentence the claim mainly comes from.")
    claim: str


class HolisticClaimsReply(_Reply):
    """Claims decomposed from a whole answer, each pointing at its answer sentence."""

    claims: list[HolisticClaim]


_REASON = Field(json_schema_extra={"maxLength": REASON_CHARS})
_CITED = Field(json_schema_extra={"maxItems": CITED})


def _cut(value: str) -> str:
    return value[:REASON_CHARS]


class CitedVerdict(_Reply):
    """One verdict on one claim against numbered evidence sentences (the LLM judge's ``v3`` prompts): a short reason
    first, then the verdict and the numbers of the sentences it rests on, which rt4chart turns into evidence quotes.
    A longer reason is cut, not re-asked."""

    reason: str = _REASON
    verdict: Verdict
    sentences: list[int] = _CITED

    _short = field_validator("reason")(_cut)


class NumberedCitedVerdict(_Reply):
    """A ``CitedVerdict`` of claim number ``claim`` among several judged in one call."""

    claim: int
    reason: str = _REASON
    verdict: Verdict
    sentences: list[int] = _CITED

    _short = field_validator("reason")(_cut)


class CitedBatch(_Reply):
    """The base of ``batch_cited_reply``'s models: a batch of verdicts that cite sentence numbers."""


@lru_cache(maxsize=128)
def _batch_of(item: type[BaseModel], n: int, name: str, base: type[BaseModel]) -> type[BaseModel]:
    verdicts = Annotated[list[item], Field(json_schema_extra={"minItems": n, "maxItems": n})]  # type: ignore[valid-type]
    return create_model(f"{name}{n}", __base__=base, verdicts=(verdicts, ...))


def batch_cited_reply(n: int) -> type[BaseModel]:
    """The reply model of ``n`` claims judged in one call with cited sentence numbers (the LLM judge's ``v3``
    batched prompts): exactly ``n`` ``NumberedCitedVerdict`` items (``minItems``/``maxItems``, so a server that
    enforces the schema cannot stop early or run on)."""
    return _batch_of(NumberedCitedVerdict, n, "BatchCitedReply", CitedBatch)


@dataclass(frozen=True)
class JsonSchema:
    """A named JSON schema for ``response_format={"type": "json_schema", ...}``, and the reply model it was made from
    (``schema_for``; what the cost estimate reads to build an assumed reply)."""

    name: str
    schema: dict[str, Any]
    model: Optional[type[BaseModel]] = field(default=None, compare=False)

    def response_format(self) -> dict[str, Any]:
        return {"type": "json_schema", "json_schema": {"name": self.name, "schema": self.schema, "strict": True}}


def _strict(node: Any) -> Any:
    """OpenAI strict mode: every object lists all its properties as required and forbids extra ones."""
    if isinstance(node, dict):
        node = {k: _strict(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
        if node.get("type") == "object" and "properties" in node:
            node["required"] = list(node["properties"])
            node["additionalProperties"] = False
        return node
    if isinstance(node, list):
        return [_strict(v) for v in node]
    return node


def schema_for(model: type[BaseModel]) -> JsonSchema:
    """The strict JSON schema of a reply model (property order = field order, reasoning first)."""
    return JsonSchema(name=model.__name__, schema=_strict(model.model_json_schema()), model=model)


_FENCE = re.compile(r"^\s*```(?:json|JSON)?\s*\n(.*?)\n?```\s*$", re.DOTALL)

M = TypeVar("M", bound=BaseModel)


class ReplyError(ValueError):
    """A reply that is not valid JSON for its schema, or that breaks a semantic rule (e.g. a quote not in the text)."""


def parse_reply(text: str | None, model: type[M]) -> M:
    """Parse a model reply as ``model``.

    Accepts the bare JSON object, the object inside a Markdown code fence, or (for servers that ignore
    ``response_format``) the outermost ``{...}`` of a reply that wraps it in prose. Raises ``ReplyError`` with a
    message meant to be shown to the model when it is re-asked.
    """
    if text is None or not text.strip():
        raise ReplyError("the reply was empty; a JSON object was expected")
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    elif not body.startswith("{"):
        first, last = body.find("{"), body.rfind("}")
        if first < 0 or last <= first:
            raise ReplyError("the reply contains no JSON object")
        body = body[first : last + 1]
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ReplyError(f"the reply is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()[:8]
        )
        raise ReplyError(f"the JSON does not match the schema: {problems}") from None


_WS = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "\u00a0": " "})


@lru_cache(maxsize=16)
def _normalised_with_map(text: str) -> tuple[str, tuple[int, ...]]:
    """``text`` with whitespace runs collapsed to one space, typographic quotes made plain and lower-cased, plus the
    index in ``text`` of every character of the result."""
    out: list[str] = []
    where: list[int] = []
    previous_space = True  # drops leading whitespace
    for i, ch in enumerate(text):
        if ch.isspace():
            if not previous_space:
                out.append(" ")
                where.append(i)
            previous_space = True
            continue
        previous_space = False
        for piece in ch.translate(_QUOTES).lower():
            out.append(piece)
            where.append(i)
    if out and out[-1] == " ":
        out.pop()
        where.pop()
    return "".join(out), tuple(where)


def clean_quote(quote: str) -> str:
    """A quote without surrounding whitespace, quotation marks or ellipses that models like to add."""
    q = quote.strip()
    for _ in range(2):
        q = q.strip().strip("\"'\u201c\u201d\u2018\u2019").strip()
        q = q.removeprefix("...").removesuffix("...").strip("\u2026").strip()
    return q


def locate_quote(quote: str, text: str) -> Optional[str]:
    """The exact slice of ``text`` that ``quote`` reproduces up to whitespace, case and quote style, or None.

    This is a quote check, not label matching: it decides whether the model's evidence is really in the text it
    was given, and returns the text's own characters so that the auditor can anchor them exactly. Looser than the
    auditor's ``rt4chart.text.align.locate`` on purpose (quote styles folded, no minimum length): it decides what to
    ask again; whether a found quote counts as evidence is decided there.
    """
    exact = quote.strip()
    if exact and exact in text:  # the common case: the model copied the text exactly
        return exact
    haystack, where = _normalised_with_map(text)  # cached: one context serves many quotes
    for candidate in dict.fromkeys((quote.strip(), clean_quote(quote))):
        needle, _ = _normalised_with_map(candidate)
        pos = haystack.find(needle) if needle else -1
        if pos >= 0:
            return text[where[pos] : where[pos + len(needle) - 1] + 1]
    return None
