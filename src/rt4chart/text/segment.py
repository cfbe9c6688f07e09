"""Sentences with exact character offsets, and the sliding chunks of RT4CHART §2 (W sentences, O overlap).

Segmentation is layered so that it stays accurate and linear in the text length:

1. lines: every non-blank line is its own unit, so bullet lists, headings and table rows never merge;
2. a line longer than ``_PYSBD_MAX`` characters is first cut with blingfire (a fast finite-state splitter), and the
   pieces are grouped into runs of at most ``_PYSBD_MAX`` characters, because pysbd's cost grows faster than
   linearly with its input;
3. pysbd (rule-based, handles abbreviations such as "Dr." and "U.S." and decimals such as "3.5") splits each unit.

Offsets are recovered by searching each sentence forward from a cursor, so ``text[s.start:s.end] == s.text`` holds
by construction; leading and trailing whitespace is never part of a sentence.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterator

from ..errors import ConfigError
from ..types import Chunk, Sentence

_PYSBD_MAX = 1500
_LINE = re.compile(r"[^\n]+")


@lru_cache(maxsize=1)
def _pysbd():
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


def _pieces_long_line(line: str) -> Iterator[tuple[int, int]]:
    """Cut a long line into runs of whole blingfire sentences of at most ``_PYSBD_MAX`` characters."""
    import blingfire

    _, offsets = blingfire.text_to_sentences_and_offsets(line)
    run_start = run_end = None
    for s, e in offsets:
        if run_start is None:
            run_start, run_end = s, e
        elif e - run_start > _PYSBD_MAX:
            yield run_start, run_end
            run_start, run_end = s, e
        else:
            run_end = e
    if run_start is not None:
        yield run_start, run_end


def _units(text: str) -> Iterator[tuple[int, int]]:
    for m in _LINE.finditer(text):
        start, end = m.start(), m.end()
        if not text[start:end].strip():
            continue
        if end - start <= _PYSBD_MAX:
            yield start, end
        else:
            for s, e in _pieces_long_line(text[start:end]):
                yield start + s, start + e


def _split_unit(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    unit = text[start:end]
    cursor = 0
    pieces = _pysbd().segment(unit) if len(unit.strip()) > 1 else [unit]
    for piece in pieces:
        body = piece.strip()
        if not body:
            continue
        pos = unit.find(body, cursor)
        if pos < 0:
            # pysbd altered the text (it should not with clean=False); keep the rest of the unit as one sentence
            rest = unit[cursor:]
            lead = len(rest) - len(rest.lstrip())
            if rest.strip():
                yield start + cursor + lead, start + cursor + lead + len(rest.strip())
            return
        yield start + pos, start + pos + len(body)
        cursor = pos + len(body)
    tail = unit[cursor:]
    if tail.strip():
        lead = len(tail) - len(tail.lstrip())
        yield start + cursor + lead, start + cursor + lead + len(tail.strip())


@lru_cache(maxsize=512)
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


def make_chunks(sentences: list[Sentence], text: str, window: int = 25, overlap: int = 10) -> list[Chunk]:
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
