"""The gate's tokenisation: each text goes through one compiled ``findall`` that yields its tokens and sentence
breaks, and tokens become 64-bit hashes, so every later overlap is array work with no Python code per token.

Tokens are lower-cased alphanumeric spans; "stop word" is scikit-learn's English stop-word list; sentence breaks are
sentence punctuation (``.``, ``!``, ``?`` before white space) and line breaks; numbers are matched after stripping
thousands commas (RAGScope §II-B).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from typing import Sequence

import numpy as np

from ..errors import MissingDependencyError
from ._arrays import sorted_isin

__all__ = ["Tokens", "tokenize", "numbers", "example_keys"]

# Not rt4chart.evidence's tokens and stop words (the judges'): these RAGScope definitions are part of what the
# shipped gate models were fitted on.
# One pass per text: alphanumeric tokens, or a sentence break (end punctuation before white space, a line break).
_LEXEME = re.compile(r"[^\W_]+|[.!?](?=\s)|\n")
_BREAKS = (".", "!", "?", "\n")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_MIX = np.int64(-7046029254386353131)  # odd 64-bit constant: mixes the example index into a token hash


@lru_cache(maxsize=1)
def _stop_hashes() -> np.ndarray:
    try:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError("scikit-learn", "gate") from exc
    return np.sort(np.fromiter(map(hash, ENGLISH_STOP_WORDS), dtype=np.int64))


@lru_cache(maxsize=1)
def _break_hashes() -> np.ndarray:
    return np.sort(np.fromiter(map(hash, _BREAKS), dtype=np.int64))


@dataclass
class Tokens:
    """Tokens of one text per example, flattened in text order.

    ``doc``/``sent`` give each token's example and global sentence index (both non-decreasing); ``sent_doc`` maps a
    sentence to its example.
    """

    hashes: np.ndarray
    doc: np.ndarray
    sent: np.ndarray
    sent_doc: np.ndarray
    n_tokens: np.ndarray
    lengths: np.ndarray
    stop: np.ndarray

    @property
    def content(self) -> np.ndarray:
        return ~self.stop


def tokenize(texts: Sequence[str]) -> Tokens:
    """Tokenise ``texts`` (one per example) into flat arrays."""
    n = len(texts)
    per_doc = [_LEXEME.findall(t.lower()) for t in texts]
    counts = np.fromiter(map(len, per_doc), dtype=np.int64, count=n)
    flat = list(chain.from_iterable(per_doc))
    hashes = np.fromiter(map(hash, flat), dtype=np.int64, count=len(flat))
    lengths = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat))
    doc = np.repeat(np.arange(n), counts)
    brk = sorted_isin(hashes, _break_hashes())
    # A sentence starts at every example's first lexeme and after every break; breaks then leave the stream.
    new = np.zeros(len(flat), dtype=bool)
    offsets = np.cumsum(counts) - counts
    new[offsets[counts > 0]] = True
    new[1:] |= brk[:-1]
    keep = np.flatnonzero(~brk)
    sent_raw = np.cumsum(new)[keep]
    # Renumber the sentences that kept a token as 0..S-1.
    change = np.ones(keep.size, dtype=bool)
    change[1:] = sent_raw[1:] != sent_raw[:-1]
    sent = np.cumsum(change) - 1
    doc = doc[keep]
    h = hashes[keep]
    return Tokens(
        hashes=h,
        doc=doc,
        sent=sent,
        sent_doc=doc[change],
        n_tokens=np.bincount(doc, minlength=n),
        lengths=lengths[keep],
        stop=sorted_isin(h, _stop_hashes()),
    )


def numbers(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Hashes of the numbers in each text (thousands commas removed) and the example of each."""
    per_doc = [_NUMBER.findall(_THOUSANDS.sub("", t)) for t in texts]
    counts = np.fromiter(map(len, per_doc), dtype=np.int64, count=len(texts))
    flat = list(chain.from_iterable(per_doc))
    return np.fromiter(map(hash, flat), dtype=np.int64, count=len(flat)), np.repeat(np.arange(len(texts)), counts)


def example_keys(hashes: np.ndarray, doc: np.ndarray) -> np.ndarray:
    """(example, token) keys: the token hash mixed with the example index (64-bit wrap-around is intended)."""
    with np.errstate(over="ignore"):
        return hashes ^ (doc.astype(np.int64) * _MIX)
