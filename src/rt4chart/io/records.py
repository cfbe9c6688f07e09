"""Input records validated once: ``validate_record`` is the one place a raw record becomes a ``Record``; the CLI, the
batch runner, the server and ``Auditor.audit`` all go through it (``checked_rows`` for a file's rows, naming each row
that is rejected and why). ``join_context`` is the one place a list context is joined. Readers with a record contract
of their own share the pieces: facet diagnostics (question required, answer optional) checks its fields with
``check_text`` and ``check_context``; the gate's rows and the evaluation datasets take their context through
``context_text``.
"""

from __future__ import annotations

import re
from collections.abc import Container, Mapping
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Optional, Sequence, Union


from ..errors import InputError
from ..types import Citation, Record
from .formats import Row

__all__ = ["CONTEXT_SEPARATOR", "FieldMap", "answer_blocks", "check_context", "check_text", "checked_rows",
           "context_text", "id_key", "join_context", "passage_bounds", "read_citations", "record_ids",
           "validate_record"]

CONTEXT_SEPARATOR = "\n\n"


def join_context(parts: Sequence[str]) -> str:
    """A list context as one text: its passages joined with a blank line (DESIGN.md "Contracts"); sentence offsets
    in results refer to this text."""
    return CONTEXT_SEPARATOR.join(parts)


def passage_bounds(parts: Sequence[str]) -> list[tuple[int, int]]:
    """Where each passage of a list context lies in ``join_context(parts)``: ``(start, end)`` per passage."""
    out, pos = [], 0
    for part in parts:
        out.append((pos, pos + len(part)))
        pos += len(part) + len(CONTEXT_SEPARATOR)
    return out


def context_text(value: Any, *, record: Any = None, field: str = "context") -> str:
    """A context given as a string or a list (or tuple) of strings, as one text (``join_context``); anything else
    raises ``InputError`` naming ``record`` and ``field``. For readers with their own record contract (the gate's
    rows, evaluation datasets); ``validate_record`` checks an audit record's context itself, part by part."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(part, str) for part in value):
        return join_context(value)
    raise InputError("must be a string or a list of strings", record=record, field=field)


@dataclass(frozen=True)
class FieldMap:
    """Names of the input fields (``--id-field`` and friends)."""

    id: str = "id"
    context: str = "context"
    question: str = "question"
    answer: str = "answer"
    task: str = "task"



_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_bad_utf8(s: str) -> bool:
    """Lone surrogates: undecodable bytes (surrogateescape) or unpaired ``\\ud800``-``\\udfff`` JSON escapes."""
    return _SURROGATE.search(s) is not None


def check_text(value: Any, *, record: Any, field: str, required: bool) -> Optional[str]:
    """One text field of a record: None (absent; ``InputError`` "is missing" when ``required``), else a string of
    valid UTF-8, not blank when ``required``."""
    if value is None:
        if required:
            raise InputError("is missing", record=record, field=field)
        return None
    if not isinstance(value, str):
        raise InputError(f"must be a string, got {type(value).__name__}", record=record, field=field)
    if _has_bad_utf8(value):
        raise InputError("is not valid UTF-8", record=record, field=field)
    if required and not value.strip():
        raise InputError("is empty", record=record, field=field)
    return value


def check_context(value: Any, *, record: Any, field: str = "context") -> Union[str, list[str]]:
    """A record's context checked and returned as given: a non-blank string (``check_text``), or a list of strings,
    each valid UTF-8, that is not blank as a whole; ``InputError`` names the field or the list item."""
    if isinstance(value, list):
        for i, part in enumerate(value):
            if check_text(part, record=record, field=f"{field}[{i}]", required=False) is None:
                raise InputError("is null", record=record, field=f"{field}[{i}]")
        if not join_context(value).strip():
            raise InputError("is empty", record=record, field=field)
        return value
    return check_text(value, record=record, field=field, required=True)  # type: ignore[return-value]


def answer_blocks(value: Any, *, record: Any, field: str = "answer") -> tuple[str, list[dict]]:
    """An answer given as a model API's content blocks (Anthropic's ``[{"type": "text", "text": ..., "citations":
    [...]}]``): the blocks' texts joined as written, and each block citation with the block's offsets in that text
    (``start``, ``end``) added, for ``read_citations``."""
    text, cited = "", []
    for i, block in enumerate(value):
        if not isinstance(block, Mapping) or not isinstance(block.get("text"), str):
            raise InputError("must be a text block (an object with a 'text' string)", record=record,
                             field=f"{field}[{i}]")
        start = len(text)
        text += block["text"]
        for c in block.get("citations") or ():
            if isinstance(c, Mapping):
                cited.append({**c, "start": start, "end": len(text)})
    return text, cited


#: the keys that name the passages a provider's citation cites, and whether their numbers count from 0
_CITED_KEYS = (("passages", False), ("document_ids", False), ("sources", False), ("document_index", True),
               ("file_id", False), ("filename", False), ("url", False))


def _cited_passages(item: Mapping, ids: Optional[Sequence[Any]]) -> tuple[int, ...]:
    """The passage numbers (from 1) one citation object names; 0 for a name that is no passage's."""
    names: list[Any] = []
    zero_based = False
    for key, from_zero in _CITED_KEYS:
        value = item.get(key)
        if value is None:
            continue
        if key == "sources":  # Cohere: [{"id": ...}] or [{"document": {"id": ...}}]
            value = [(v.get("document") or {}).get("id", v.get("id")) if isinstance(v, Mapping) else v for v in value]
        names += value if isinstance(value, list) else [value]
        zero_based = from_zero
        break

    def number(name: Any) -> int:
        if ids is not None and name in ids:
            return list(ids).index(name) + 1
        if isinstance(name, int) and not isinstance(name, bool):
            return name + 1 if zero_based else name
        return 0

    return tuple(number(n) for n in names)


def read_citations(value: Any, answer: str, ids: Optional[Sequence[Any]], *, record: Any,
                   field: str = "citations") -> tuple[Citation, ...]:
    """A record's citations given apart from the answer's text, as ``Citation``s over the answer. Each item is one
    provider citation: its answer span from ``start``/``end`` (Cohere, and what ``answer_blocks`` adds),
    ``start_index``/``end_index`` (OpenAI's url_citation) or the point ``index`` (OpenAI's file_citation); the passages
    it names from ``passages`` (numbers from 1, or ids), ``document_ids`` or ``sources`` (Cohere), ``document_index``
    (Anthropic, from 0), or ``file_id`` / ``filename`` / ``url`` (OpenAI). An id is looked up in ``ids`` (the record's
    ``passage_ids``, one per passage); a name that is no passage's becomes passage 0, which the citation check
    reports as invalid."""
    if not isinstance(value, list):
        raise InputError(f"must be a list of citation objects, got {type(value).__name__}", record=record, field=field)
    out = []
    for i, item in enumerate(value):
        where = f"{field}[{i}]"
        if not isinstance(item, Mapping):
            raise InputError(f"must be an object, got {type(item).__name__}", record=record, field=where)
        start = item.get("start", item.get("start_index", item.get("index")))
        end = item.get("end", item.get("end_index", item.get("index")))
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (start, end)):
            raise InputError("needs its answer offsets: start and end (or start_index and end_index, or index)",
                             record=record, field=where)
        if not 0 <= start <= end <= len(answer):
            raise InputError(f"offsets {start}-{end} are outside the answer ({len(answer)} characters)",
                             record=record, field=where)
        out.append(Citation(start=start, end=end, marker=answer[start:end], passages=_cited_passages(item, ids)))
    return tuple(out)


def validate_record(raw: Any, index: Optional[int] = None, fields: FieldMap = FieldMap()) -> Record:
    """Check one raw record (a mapping) and return it as a ``Record``.

    ``context`` may be a string or a list of strings (joined with a blank line); an empty question is None. Raises
    ``InputError`` naming the record (its id, or when the id is unusable its number ``#N``, counted from 1 as line
    numbers are: ``index`` 0 is ``#1``) and the offending field.
    """
    where = f"#{index + 1}" if index is not None else None
    if not isinstance(raw, Mapping):
        raise InputError(f"must be a JSON object, got {type(raw).__name__}", record=where)
    rid = raw.get(fields.id)
    if rid is None:
        raise InputError("is missing", record=where, field=fields.id)
    if isinstance(rid, bool) or not isinstance(rid, (str, int)):
        raise InputError(f"must be a string or an integer, got {type(rid).__name__}", record=where, field=fields.id)
    if isinstance(rid, str) and (not rid.strip() or _has_bad_utf8(rid)):
        raise InputError("is empty or not valid UTF-8", record=where, field=fields.id)
    ctx = check_context(raw.get(fields.context), record=rid, field=fields.context)
    context = join_context(ctx) if isinstance(ctx, list) else ctx
    given, block_citations = raw.get(fields.answer), []
    if isinstance(given, list):  # a model API's content blocks, with their citations
        given, block_citations = answer_blocks(given, record=rid, field=fields.answer)
    answer = check_text(given, record=rid, field=fields.answer, required=True)
    question = check_text(raw.get(fields.question), record=rid, field=fields.question, required=False)
    task = check_text(raw.get(fields.task), record=rid, field=fields.task, required=False)
    ids = raw.get("passage_ids")
    if ids is not None and (not isinstance(ids, list) or not isinstance(ctx, list) or len(ids) != len(ctx)):
        raise InputError("must be a list with one id per passage of the context (a list)", record=rid,
                         field="passage_ids")
    cited = raw.get("citations")
    citations = None
    if cited is not None or block_citations:  # the content blocks' citations, then the record's own field
        citations = read_citations(block_citations, answer, ids, record=rid, field=fields.answer) + \
            (read_citations(cited, answer, ids, record=rid) if cited is not None else ())
    return Record(id=rid, context=context, question=question or None, answer=answer, task=task,
                  passages=tuple(ctx) if isinstance(ctx, list) else None, citations=citations)


def id_key(rid: Union[str, int]) -> str:
    """What makes two record ids the same id (``7`` and ``"7"`` are one id)."""
    return str(rid)


def checked_rows(rows: Iterable[Row], fields: FieldMap = FieldMap(), *, repeated: Container[int] = frozenset()
                 ) -> Iterator[tuple[int, Union[Record, InputError], Optional[Union[str, int]]]]:
    """Validate rows in order: per row, its index, the record (``validate_record``) or the ``InputError`` that
    rejects it, and the id to name it by (None when the row has none that can be echoed: the row is then named by
    its position). A later row repeating an id is an error ("duplicate id"). Every command that reads records
    (audit, triage, --gate-accept) checks them here, so they accept and name the same rows.

    ``repeated``: indices of rows known to repeat the id of an earlier row outside ``rows``, for a caller that
    checks the rows in parts (the Ray engine finds them in one pass over all rows first)."""
    seen: set[str] = set()
    for row in rows:
        if row.error is not None:
            yield row.index, row.error, None
            continue
        try:
            rec = validate_record(row.data, row.index, fields)
        except InputError as exc:
            rid = row.data.get(fields.id) if isinstance(row.data, dict) else None
            usable = (isinstance(rid, int) and not isinstance(rid, bool)
                      or isinstance(rid, str) and not _has_bad_utf8(rid))
            yield row.index, exc, rid if usable else None  # an unusable id is not echoed
            continue
        key = id_key(rec.id)
        if key in seen or row.index in repeated:
            yield row.index, InputError("duplicate id", record=rec.id, field=fields.id), rec.id
            continue
        seen.add(key)
        yield row.index, rec, rec.id


def record_ids(rows: Iterable[Row], fields: FieldMap = FieldMap()) -> Iterator[tuple[int, str]]:
    """``(index, id_key)`` of every row that ``validate_record`` accepts, repeated ids included: what a caller
    that checks rows in parts collects first to find the rows whose id repeats an earlier one (``repeated``)."""
    for row in rows:
        if row.error is None:
            try:
                rec = validate_record(row.data, row.index, fields)
            except InputError:
                continue
            yield row.index, id_key(rec.id)


