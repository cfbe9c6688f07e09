"""How an assistant's answer is written, read apart from what it says: citation markers and markdown.

A RAG app's answer cites its passages with inline markers (``[1]``, ``[2][3]``, ``[1, 3]``, ``[1-3]``, ``[^1]``,
``【1】``, ``(Source 2)``) and is often formatted as markdown (headings, bullets, emphasis, tables). None of that is a
word or a number of a claim:

- ``citation_markers`` finds the markers with the passages they name (numbers as written, from 1);
- ``blank_markers`` puts spaces in their place (same length, so every offset still points into the answer), for the
  sentence splitter: a claim is never split at a marker, and a marker after a full stop stays with its sentence;
- ``claim_text`` is the text a judge reads for a slice of the answer: markers, emphasis and a list bullet removed;
- ``markdown_line`` tells what a line of markdown is (a heading, a table's header or separator row, a table row) and
  ``table_row_claim`` reads a table row with its header's names ("Basic: price $9/month, storage 50 GB").
"""

from __future__ import annotations

import re
from typing import Iterator, Literal, Optional

from ..types import Citation

_NUM_LIST = r"\d{1,3}(?:\s*(?:[,;]|[-–]|and|&)\s*\d{1,3})*"
#: one citation marker: bracketed numbers (with ranges and lists), a footnote, full-width brackets, or a source named
#: in brackets or parentheses ("(Source 2)", "[Passage 3]", "[doc1]")
MARKER = re.compile(
    rf"\[\^?(?P<a>{_NUM_LIST})\]"
    rf"|【(?P<b>\d{{1,3}}(?:\s*[,，、]\s*\d{{1,3}})*)(?:†[^】]*)?】"
    rf"|[(\[](?:sources?|passages?|docs?|documents?|refs?|references?|citations?)\.?\s*#?(?P<c>{_NUM_LIST})[)\]]",
    re.IGNORECASE,
)
_RANGE = re.compile(r"(\d+)\s*[-–]\s*(\d+)")

_EMPHASIS = re.compile(r"\*\*|__|(?<![\w*])\*(?=[^\s*])|(?<=[^\s*])\*(?![\w*])|(?<!\w)_(?=[^\s_])|(?<=[^\s_])_(?!\w)"
                       r"|`")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")

LineKind = Literal["heading", "table-header", "table-separator", "table-row", "text"]


def _passages(numbers: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in re.split(r"\s*(?:[,;，、]|and|&)\s*", numbers.strip()):
        span = _RANGE.fullmatch(part)
        if span:
            lo, hi = int(span.group(1)), int(span.group(2))
            out.extend(range(lo, hi + 1) if 0 < hi - lo < 50 else (lo, hi))
        elif part.isdigit():
            out.append(int(part))
    return tuple(dict.fromkeys(out))


def citation_markers(text: str) -> list[Citation]:
    """Every citation marker of ``text``, in order, with its offsets and the passages it names."""
    return [Citation(start=m.start(), end=m.end(), marker=m.group(0),
                     passages=_passages(m.group("a") or m.group("b") or m.group("c")))
            for m in MARKER.finditer(text)]


def blank_markers(text: str) -> str:
    """``text`` with each citation marker replaced by as many spaces (every offset unchanged)."""
    return MARKER.sub(lambda m: " " * len(m.group(0)), text)


def claim_text(text: str) -> str:
    """What a judge reads of a slice of the answer: citation markers (and the blank before them), markdown emphasis
    and a leading list bullet removed, runs of white space made one space."""
    out = MARKER.sub("", re.sub(rf"\s+(?=(?:{MARKER.pattern}))", "", text, flags=re.IGNORECASE))
    out = _EMPHASIS.sub("", _BULLET.sub("", out))
    out = re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s+", " ", out))
    return out.strip()


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span ``[start, end)`` of ``text`` without a leading list bullet or emphasis and without the citation
    markers, emphasis and white space it ends with (a marker before the closing full stop takes the stop with it:
    the claim is the words before the marker)."""
    bullet = _BULLET.match(text[start:end])
    if bullet:
        start += bullet.end()
    while start < end and (text[start].isspace() or text.startswith(("**", "__"), start) or text[start] in "*_`"):
        start += 1
    first_marker = next((m for m in MARKER.finditer(text, start, end)), None)
    if first_marker is not None and not re.search(r"\w", MARKER.sub("", text[first_marker.start():end])):
        end = first_marker.start()  # "14 days [1]." -> "14 days"
    while end > start and (text[end - 1].isspace() or text[end - 1] in "*_`"):
        end -= 1
    return start, end


def markdown_line(line: str, next_line: Optional[str] = None) -> LineKind:
    """What one line of an answer is: a ``heading`` ("## Plans"), a table's ``table-header`` (a row followed by its
    separator row), a ``table-separator`` ("|---|:--:|"), a ``table-row``, or ``text``."""
    if _HEADING.match(line):
        return "heading"
    if _TABLE_SEPARATOR.match(line) and "-" in line and ("|" in line or line.count("-") >= 3):
        return "table-separator" if "|" in line else "text"
    if _TABLE_ROW.match(line):
        if next_line is not None and _TABLE_SEPARATOR.match(next_line) and "|" in next_line:
            return "table-header"
        return "table-row"
    return "text"


def table_cells(line: str) -> list[str]:
    """The cells of a markdown table row, emphasis removed."""
    return [claim_text(c) for c in line.strip().strip("|").split("|")]


def table_row_claim(cells: list[str], header: Optional[list[str]]) -> str:
    """A table row read as a claim: its first cell, then each other cell after its column's name ("Basic: price
    $9/month, storage 50 GB"); without a header, the cells joined."""
    if not header or len(header) != len(cells):
        return ", ".join(c for c in cells if c)
    pairs = [f"{h[:1].lower() + h[1:]} {c}" if h else c for h, c in zip(header[1:], cells[1:]) if c]
    return f"{cells[0]}: " + ", ".join(pairs) if pairs else cells[0]


def lines_of(text: str) -> Iterator[tuple[int, int, str]]:
    """The non-blank lines of ``text``: (start, end, line) with ``text[start:end] == line``."""
    for m in re.finditer(r"[^\n]+", text):
        if m.group(0).strip():
            yield m.start(), m.end(), m.group(0)
