"""Re-anchor evidence quotes in the context (the retromorphic relation needs exact offsets).

A judge returns evidence as quoted text. ``locate`` finds a quote in the context: first verbatim, then ignoring
whitespace and case differences (models re-flow whitespace and change case at sentence starts), each search limited
to a window when one is given. Nothing fuzzier: a quote that does not occur in the context is not evidence.

``rt4chart.llm.schemas.locate_quote`` is a second locator on purpose, one step earlier: the LLM judge checks each
quote of a reply against the text the model read (folding typographic quotes too, and with no minimum length), so
that a miss is asked again, and hands on the text's own characters, which ``locate`` then finds verbatim. Whether
a quote is evidence (at least ``_MIN_QUOTE`` characters, with a letter) is decided here, for every judge.

A judge that knows which sentence it quotes says so (``Judgment.evidence_ids``): ``anchor`` then looks for the quote
in that sentence only, and the text search is the fallback for quotes without ids (an LLM's reply).
"""

from __future__ import annotations

import bisect
import re
from typing import Optional, Sequence

from ..types import Evidence, Sentence

_WS = re.compile(r"\s+")
_STRIP = " \t\n\r\"'“”‘’«»…."
_MIN_QUOTE = 4


def _normalise_with_map(text: str) -> tuple[str, list[int]]:
    """Collapse whitespace runs to one space and lower-case; return the text and a map to original offsets."""
    out: list[str] = []
    index: list[int] = []
    prev_space = False
    for i, ch in enumerate(text):
        if ch.isspace():
            if prev_space:
                continue
            out.append(" ")
            prev_space = True
            index.append(i)
        else:
            low = ch.lower()  # may be longer than ch ("İ" -> "i̇"): map every output character back to i
            out.append(low)
            index.extend([i] * len(low))
            prev_space = False
    return "".join(out), index


def locate(quote: str, context: str, *, start: int = 0, end: Optional[int] = None) -> Optional[tuple[int, int]]:
    """Return ``(s, e)`` with ``context[s:e]`` equal to ``quote`` up to whitespace/case, searched in [start, end).

    The quote is tried as given, then without surrounding quotation marks, ellipses and final full stops.
    """
    end = len(context) if end is None else end
    # a quote must say something: "is" or "14" would ground a verdict on whatever matches first
    candidates = [q for q in dict.fromkeys((quote.strip(), quote.strip(_STRIP)))
                  if len(q) >= _MIN_QUOTE and any(ch.isalpha() for ch in q)]
    for q in candidates:
        pos = context.find(q, start, end)
        if pos >= 0:
            return pos, pos + len(q)
    norm, index = _normalise_with_map(context[start:end])
    for q in candidates:
        nq = _WS.sub(" ", q).lower()
        pos = norm.find(nq)
        if pos >= 0:
            return start + index[pos], start + index[pos + len(nq) - 1] + 1
    return None


def sentence_ids(sentences: Sequence[Sentence], s: int, e: int) -> tuple[int, ...]:
    """Ids of the sentences overlapping ``[s, e)`` (sentences sorted by offset)."""
    starts = [x.start for x in sentences]
    i = max(bisect.bisect_right(starts, s) - 1, 0)
    ids = []
    while i < len(sentences) and sentences[i].start < e:
        if sentences[i].end > s:
            ids.append(sentences[i].index)
        i += 1
    return tuple(ids)


def quote_ids(quote: str, text: str, sentences: Sequence[Sentence]) -> tuple[int, ...]:
    """The ids of the ``sentences`` of ``text`` that ``quote`` lies in when it occurs in ``text`` exactly once, word
    for word; () otherwise (absent, or ambiguous: the auditor then finds it by text)."""
    q = quote.strip()
    pos = text.find(q) if q else -1
    if pos < 0 or text.find(q, pos + 1) >= 0:
        return ()
    return sentence_ids(sentences, pos, pos + len(q))


def rebase_ids(ids: Sequence[int], own: Sequence[Sentence], offset: int,
               sentences: Sequence[Sentence]) -> tuple[int, ...]:
    """Sentence ids ``ids`` of a text that starts at ``offset`` in the context (its sentences ``own``) as the ids of
    the context's ``sentences`` they overlap (by character offsets: the two splits need not agree); () when an id is
    not one of ``own``."""
    if not ids or any(not 0 <= i < len(own) for i in ids):
        return ()
    return sentence_ids(sentences, offset + own[ids[0]].start, offset + own[ids[-1]].end)


def anchor(
    quotes: Sequence[str],
    context: str,
    sentences: Sequence[Sentence],
    *,
    start: int = 0,
    end: Optional[int] = None,
    ids: Sequence[Sequence[int]] = (),
) -> tuple[list[Evidence], list[str]]:
    """Anchor quotes to context spans; return (evidence found, in the judge's order: what decided first; quotes not
    found). Duplicates are dropped.

    ``ids[i]``, when given and not empty, are the context sentence ids of quote i (``Judgment.evidence_ids``): the
    quote is found in those sentences (so a sentence that occurs twice in the context is the one the judge read);
    a quote without ids, or not found in its sentences, is searched in the window as text."""
    found: list[Evidence] = []
    missing: list[str] = []
    seen: set[tuple[int, int]] = set()
    end = len(context) if end is None else end
    for n, quote in enumerate(quotes):
        hit = None
        own = ids[n] if n < len(ids) else ()
        if own and all(0 <= i < len(sentences) for i in own):
            lo, hi = max(sentences[own[0]].start, start), min(sentences[own[-1]].end, end)
            hit = locate(quote, context, start=lo, end=hi) if lo < hi else None
        if hit is None:
            hit = locate(quote, context, start=start, end=end)
        if hit is None:
            missing.append(quote)
            continue
        if hit in seen:
            continue
        seen.add(hit)
        s, e = hit
        found_ids = sentence_ids(sentences, s, e)
        if not found_ids:
            missing.append(quote)
            continue
        found.append(Evidence(start=s, end=e, text=context[s:e], sentence_ids=found_ids))
    return found, missing
