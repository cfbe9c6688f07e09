"""Sentences with exact character offsets, and the sliding chunks of RT4CHART §2 (W sentences, O overlap).

Segmentation is layered so that it stays accurate and linear in the text length:

1. lines: every non-blank line is its own unit, so bullet lists, headings and table rows never merge (a hard-wrapped
   line, one that does not end a clause followed by one starting in lower case, is joined to the next); a line that
   is a whole record literal (JSON on one line, a Python dict or list as ``repr`` writes it) is cut after each
   comma, opening bracket and before each closing bracket outside its strings, so that it splits into the same
   fields, one unit each, as the record's indented JSON splits into lines;
2. blingfire (a fast finite-state splitter) cuts each line into sentence candidates;
3. a candidate that may hide a boundary (a full stop followed by a capital, as in "The U.K. is big. Mr. Lee...")
   is re-split with pysbd, which is rule-based and precise with abbreviations ("Dr.", "U.S.", "e.g.") and decimals
   but slow, so it only sees those few candidates.

Offsets are recovered by searching each sentence forward from a cursor, so ``text[s.start:s.end] == s.text`` holds
by construction; leading and trailing whitespace is never part of a sentence.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Iterator, Optional

from ..errors import ConfigError
from ..types import Chunk, Sentence

_LINE = re.compile(r"[^\n]+")
_MAYBE_BOUNDARY = re.compile(r"[.!?][\"'”’)\]]*\s+[\"'“‘(\[]?[A-Z0-9]")
_RECORD_KEY = re.compile(r"""["'][^"'\n]{1,80}["']\s*:\s""")  # a quoted key and its colon: 'name': or "name":
_RECORD_MIN_KEYS = 3  # fewer quoted keys: a line that merely starts and ends with a bracket
_PYSBD_LOCK = threading.Lock()  # pysbd's Segmenter keeps the text it is splitting on itself: one call at a time


@lru_cache(maxsize=1)
def _pysbd():
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


def _lines(text: str) -> Iterator[tuple[int, int]]:
    """Non-blank lines, with hard-wrapped lines re-joined: a line that does not end a clause, followed by a line
    that starts in lower case, continues the same paragraph."""
    cur: Optional[list[int]] = None
    for m in _LINE.finditer(text):
        start, end = m.start(), m.end()
        body = text[start:end].strip()
        if not body:
            continue
        if cur is not None:
            prev = text[cur[0]:cur[1]].rstrip()
            if prev[-1] not in ".!?:;" and body[0].islower() and text[cur[1]:start].count("\n") == 1:
                cur[1] = end
                continue
            yield cur[0], cur[1]
        cur = [start, end]
    if cur is not None:
        yield cur[0], cur[1]


def _is_record(line: str) -> bool:
    """Whether a (stripped) line is a whole record literal: bracketed, with at least ``_RECORD_MIN_KEYS`` quoted
    keys."""
    return (line[:1] in "{[" and line[-1:] in "}]"
            and len(_RECORD_KEY.findall(line, 0, 4000)) >= _RECORD_MIN_KEYS)


def _record_pieces(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """A one-line record literal ``text[start:end]`` cut after each comma and opening bracket and before each
    closing bracket that is outside a string (quotes ' and ", backslash escapes)."""
    quote: Optional[str] = None
    escaped = False
    cut = start
    for i in range(start, end):
        ch = text[i]
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in ",{[":
            yield cut, i + 1
            cut = i + 1
        elif ch in "}]" and i > cut:
            yield cut, i
            cut = i
    if cut < end:
        yield cut, end


def record_lines(text: str) -> list[str]:
    """The non-blank lines of ``text`` (split at newlines only), stripped, a line that is a whole record literal
    counted as its fields, one line each (as ``split_sentences`` cuts it): a record has the same lines whether it is
    indented JSON, JSON on one line or a Python literal."""
    out: list[str] = []
    for m in _LINE.finditer(text):
        body = m.group().strip()
        if not body:
            continue
        if _is_record(body):
            out.extend(p for p in (text[a:b].strip() for a, b in _record_pieces(text, m.start(), m.end())) if p)
        else:
            out.append(body)
    return out


def _flat(s: str) -> str:
    # joined hard-wrapped lines: the splitters would cut at "\n", so they see spaces (same length, same offsets)
    return s.replace("\n", " ").replace("\r", " ")


def _units(text: str) -> Iterator[tuple[int, int]]:
    """Sentence candidates from blingfire, line by line (offsets into ``text``)."""
    import blingfire

    for line_start, line_end in _lines(text):
        body = text[line_start:line_end].strip()
        pieces = _record_pieces(text, line_start, line_end) if _is_record(body) else [(line_start, line_end)]
        for start, end in pieces:
            if not text[start:end].strip():
                continue
            _, offsets = blingfire.text_to_sentences_and_offsets(_flat(text[start:end]))
            for s, e in offsets:
                yield start + s, start + e


def _split_unit(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Trim a candidate; re-split it with pysbd when it may hide a boundary."""
    unit = _flat(text[start:end])
    if _MAYBE_BOUNDARY.search(unit):
        with _PYSBD_LOCK:
            pieces = _pysbd().segment(unit)
    else:
        pieces = [unit]
    cursor = 0
    for piece in pieces:
        body = piece.strip()
        if not body:
            continue
        pos = unit.find(body, cursor)
        if pos < 0:
            break  # pysbd altered the text (it should not with clean=False): keep the rest as one sentence
        yield start + pos, start + pos + len(body)
        cursor = pos + len(body)
    tail = unit[cursor:]
    if tail.strip():
        lead = len(tail) - len(tail.lstrip())
        yield start + cursor + lead, start + cursor + lead + len(tail.strip())


@lru_cache(maxsize=64)
def _segment_cached(text: str) -> tuple[Sentence, ...]:
    out: list[Sentence] = []
    for ustart, uend in _units(text):
        for s, e in _split_unit(text, ustart, uend):
            out.append(Sentence(index=len(out), start=s, end=e, text=text[s:e]))
    return tuple(out)


def split_sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences with exact offsets (``text[s.start:s.end] == s.text``), in order."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    return list(_segment_cached(text))


def make_chunks(sentences: list[Sentence], text: str, window: int, overlap: int) -> list[Chunk]:
    """Sliding windows of ``window`` sentences overlapping by ``overlap`` (RT4CHART §3.4 "Chunking").

    The last window ends at the last sentence; no chunk is a subset of the previous one. Each chunk's text is the
    exact context slice from its first sentence's start to its last sentence's end.
    """
    validate_window(window, overlap)
    n = len(sentences)
    if n == 0:
        return []
    step = window - overlap
    chunks: list[Chunk] = []
    first = 0
    while True:
        last = min(first + window, n) - 1
        s, e = sentences[first].start, sentences[last].end
        chunks.append(Chunk(index=len(chunks), first=first, last=last, start=s, end=e, text=text[s:e]))
        if last >= n - 1:
            break
        first += step
    return chunks


def validate_window(window: int, overlap: int) -> None:
    """Raise ``ConfigError`` unless 1 <= window and 0 <= overlap < window."""
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ConfigError(f"window (W) must be a positive integer, got {window!r}")
    if isinstance(overlap, bool) or not isinstance(overlap, int) or overlap < 0:
        raise ConfigError(f"overlap (O) must be a non-negative integer, got {overlap!r}")
    if overlap >= window:
        raise ConfigError(f"overlap (O={overlap}) must be smaller than window (W={window})")
