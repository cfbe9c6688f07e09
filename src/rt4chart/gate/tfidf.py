"""The §II-C TF-IDF space: fitted with scikit-learn, applied on the gate's token arrays.

It is the model of ``TfidfVectorizer(token_pattern=r"[^\\W_]{2,}", stop_words="english", ngram_range=(1, 2),
min_df=1, norm="l2")`` (scikit-learn English stop words, L2-normalised unigram+bigram vectors, smooth IDF). The
vocabulary and document frequencies are learned by scikit-learn's ``CountVectorizer`` with those settings (terms in
its sorted order); vectors are computed here from the gate's tokenisation, so a text is tokenised once for every
feature, with n-grams turned into 64-bit keys so that transforming a batch is a few sorts and a sparse matrix build
with no Python code per token — and so that sentence vectors come from the same pass (the tests check vectors and
IDF against scikit-learn's). Bigrams are formed after stop-word removal, inside a document for document vectors and
inside a sentence for sentence vectors, as scikit-learn would on those strings.

Only the vocabulary strings and their document frequencies are learned state; the 64-bit keys are recomputed in the
running process (``hash`` of a string is salted per process), so saved models never depend on hash values.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import InputError, MissingDependencyError

__all__ = ["TfidfSpace"]

_MIX = np.int64(-7046029254386353131)  # odd 64-bit constant (golden ratio), mixes the first token of a bigram
_MIN_LEN = 2


def _bigram_keys(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return (left * _MIX + right) ^ np.int64(0x5BD1E995)


def term_stream(hashes: np.ndarray, lengths: np.ndarray, stop: np.ndarray, rows: np.ndarray):
    """Unigram and bigram keys with their row (document or sentence) and the position of their first token.

    ``rows`` must be non-decreasing (tokens in text order). Returns ``(keys, rows, first, second)`` where ``second``
    is -1 for unigrams.
    """
    keep = np.flatnonzero((lengths >= _MIN_LEN) & ~stop)
    h, r = hashes[keep], rows[keep]
    same = r[1:] == r[:-1]
    bi = np.flatnonzero(same)
    keys = np.concatenate([h, _bigram_keys(h[bi], h[bi + 1])])
    out_rows = np.concatenate([r, r[bi]])
    first = np.concatenate([keep, keep[bi]])
    second = np.concatenate([np.full(keep.size, -1), keep[bi + 1]])
    return keys, out_rows, first, second


class TfidfSpace:
    """A fitted TF-IDF vocabulary: ``terms`` (unigrams and space-joined bigrams) and their document frequencies."""

    def __init__(self, terms: Sequence[str], df: np.ndarray, n_docs: int) -> None:
        if len(terms) != len(df):
            raise InputError(f"TF-IDF vocabulary has {len(terms)} terms but {len(df)} document frequencies")
        self.terms = list(terms)
        self.df = np.asarray(df, dtype=np.int64)
        self.n_docs = int(n_docs)
        # Smooth IDF, as scikit-learn: ln((1 + n) / (1 + df)) + 1.
        self.idf = np.log((1.0 + self.n_docs) / (1.0 + self.df)) + 1.0
        self._keys, self._order = self._term_keys(self.terms)

    @staticmethod
    def _term_keys(terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        n_parts = np.fromiter(map(str.count, terms, [" "] * len(terms)), dtype=np.int64, count=len(terms)) + 1
        if np.any(n_parts > 2):
            raise InputError("TF-IDF terms must be unigrams or bigrams")
        parts = " ".join(terms).split(" ") if terms else []
        ph = np.fromiter(map(hash, parts), dtype=np.int64, count=len(parts))
        start = np.concatenate([[0], np.cumsum(n_parts)[:-1]]).astype(np.int64)
        keys = ph[start].copy()
        bi = n_parts == 2
        keys[bi] = _bigram_keys(ph[start[bi]], ph[start[bi] + 1])
        order = np.argsort(keys, kind="stable")
        return keys[order], order

    @classmethod
    def fit(cls, texts: Sequence[str]) -> "TfidfSpace":
        """Learn vocabulary and document frequencies from a corpus (one text per document)."""
        try:
            from sklearn.feature_extraction.text import CountVectorizer
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            raise MissingDependencyError("scikit-learn", "gate") from exc

        vectorizer = CountVectorizer(token_pattern=r"[^\W_]{2,}", stop_words="english", ngram_range=(1, 2),
                                     binary=True, dtype=np.int64)
        try:
            present = vectorizer.fit_transform(texts)
        except ValueError:  # "empty vocabulary": no text has a term outside the stop words
            return cls([], np.zeros(0, dtype=np.int64), len(texts))
        df = np.asarray(present.sum(axis=0)).ravel()
        return cls(vectorizer.get_feature_names_out().tolist(), df, len(texts))

    @property
    def n_terms(self) -> int:
        return len(self.terms)

    def vectors(self, tokens, rows: np.ndarray, n_rows: int):
        """L2-normalised TF-IDF rows (CSR, ``n_rows x n_terms``); ``rows`` gives each token's row, non-decreasing."""
        from scipy import sparse

        keys, r, _, _ = term_stream(tokens.hashes, tokens.lengths, tokens.stop, rows)
        cols, known = self._lookup(keys)
        rr, cc, vv = self._entries(r[known], cols)
        return sparse.csr_matrix((vv, (rr, cc)), shape=(n_rows, self.n_terms))

    def doc_and_sentence_vectors(self, tokens) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
        """Document and sentence vectors from one pass, as ``(rows, cols, values)`` entries sorted by row.

        A sentence keeps the bigrams that do not cross its end.
        """
        keys, doc, first, second = term_stream(tokens.hashes, tokens.lengths, tokens.stop, tokens.doc)
        cols, known = self._lookup(keys)
        sent_first = tokens.sent[first[known]]
        second = second[known]
        inside = (second < 0) | (tokens.sent[np.maximum(second, 0)] == sent_first)
        return self._entries(doc[known], cols), self._entries(sent_first[inside], cols[inside])

    def _lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vocabulary column of each known key, and which keys are known."""
        if self._keys.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(keys.size, dtype=bool)
        pos = np.searchsorted(self._keys, keys)
        pos[pos == self._keys.size] = 0
        known = self._keys[pos] == keys
        return self._order[pos[known]], known

    def _entries(self, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct (row, col) entries with value ``tf * idf / ||row||``."""
        width = np.int64(self.n_terms + 1)
        pair, tf = np.unique(rows.astype(np.int64) * width + cols, return_counts=True)
        r, c = pair // width, pair % width
        v = tf * self.idf[c]
        norms = np.sqrt(np.bincount(r, weights=v**2)) if r.size else np.zeros(0)
        return r, c, v / norms[r]
