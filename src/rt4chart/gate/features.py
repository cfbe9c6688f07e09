"""RAGScope evidence features (RAGScope §II-B base family, §II-C enhanced family), computed for a whole batch.

Definitions follow the paper: tokens are lower-cased alphanumeric spans, "non-stopword" uses scikit-learn's English
stop-word list, sentence boundaries are sentence punctuation (``.``, ``!``, ``?`` before white space) and line
breaks, numbers are matched after stripping thousands commas. Where the paper leaves a detail open we pick one:

* lengths are token counts and the numeric count counts number occurrences, raw as the paper lists them (a
  ``log1p`` of the three counts ranks better on RAGTruth; docs/results/gate.md shows that ablation);
* coverage counts token occurrences ("the fraction of non-stopword answer tokens that do not occur in the context",
  §II-B; per task this reproduces the paper's uncovered-token table, distinct tokens do not); Jaccard overlaps and
  the sentence support use sets; an answer with no token of the kind measured is fully covered (1.0), since it
  asserts nothing of that kind;
* the longest contiguous supported run is the longest run of consecutive answer tokens (stop words included) that
  occur in the context, as a fraction of the answer's tokens;
* best sentence-level support: for each answer sentence, the largest fraction of its non-stopword tokens found in a
  single context sentence, averaged over the answer's sentences;
* the maximum sentence-level TF-IDF risk is the largest, over answer sentences, of ``1 - max cosine`` with any single
  context sentence; sentences of stop words only are skipped (an answer with nothing else falls back to the
  document-level risk), while a sentence whose words are all unknown to the fitted vocabulary has risk 1.

Vectorised over the batch: each text goes through one compiled ``findall`` that yields its tokens and sentence
breaks, tokens become 64-bit hashes, and every overlap is a sort, a ``searchsorted`` or a sparse product over
``(example, token)`` keys, so no Python code runs per token. The one loop is the ROUGE-L dynamic programme, which
steps over answer positions while it updates every example and context position of a length bucket at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import InputError, MissingDependencyError
from ._arrays import sorted_isin, uniq, uniq_counts, uniq_first
from .tfidf import TfidfSpace

__all__ = [
    "BASE_FEATURES",
    "ENHANCED_FEATURES",
    "Batch",
    "as_triples",
    "base_features",
    "enhanced_features",
    "fit_tfidf",
    "uncovered_fraction",
]

BASE_FEATURES: tuple[str, ...] = (
    "answer_length",
    "context_length",
    "answer_coverage",
    "rare_coverage",
    "answer_context_jaccard",
    "question_answer_jaccard",
    "longest_supported_run",
    "best_sentence_support",
    "numeric_coverage",
    "numeric_count",
)
ENHANCED_FEATURES: tuple[str, ...] = (
    "rougel_risk",
    "token_f1_risk",
    "tfidf_risk",
    "max_sentence_tfidf_risk",
)

RARE_MIN_LEN = 6
# One pass per text: alphanumeric tokens, or a sentence break (end punctuation before white space, a line break).
_LEXEME = re.compile(r"[^\W_]+|[.!?](?=\s)|\n")
_BREAKS = (".", "!", "?", "\n")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_MIX = np.int64(-7046029254386353131)  # odd 64-bit constant: mixes the example index into a token hash
# Bucket size for the batched ROUGE-L programme (examples are sorted by filtered context length first).
_LCS_BUCKET = 64


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


def _join_context(context: Any, where: Any) -> str:
    if isinstance(context, str):
        return context
    if isinstance(context, (list, tuple)) and all(isinstance(c, str) for c in context):
        return "\n\n".join(context)
    raise InputError("context must be a string or a list of strings", record=where, field="context")


def as_triples(X: Sequence[Any]) -> list[tuple[str, str, str]]:
    """Normalise gate input to ``(question, context, answer)`` strings.

    Accepts input records (mappings with ``context``, ``answer`` and optional ``question``; a list context is joined
    with blank lines as everywhere in rt4chart) or ``(question, context, answer)`` tuples. A missing question is "".
    """
    out = []
    for i, x in enumerate(X):
        if isinstance(x, Mapping):
            where = x.get("id", i)
            if "context" not in x or "answer" not in x:
                raise InputError("a gate record needs 'context' and 'answer'", record=where)
            q, c, a = x.get("question"), _join_context(x["context"], where), x["answer"]
        elif isinstance(x, (tuple, list)) and len(x) == 3:
            where = i
            q, c, a = x[0], _join_context(x[1], where), x[2]
        else:
            raise InputError("expected a record mapping or a (question, context, answer) tuple", record=i)
        if not isinstance(a, str):
            raise InputError("answer must be a string", record=where, field="answer")
        if q is not None and not isinstance(q, str):
            raise InputError("question must be a string or null", record=where, field="question")
        out.append((q or "", c, a))
    return out


@dataclass
class Tokens:
    """Tokens of one text per example, flattened in text order.

    ``doc``/``sent`` give each token's example and global sentence index (both non-decreasing); ``sent_doc`` maps a
    sentence to its example. ``flat``/``where`` keep the token strings for fitting a TF-IDF vocabulary.
    """

    flat: list[str]
    where: np.ndarray
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
        flat=flat,
        where=keep,
        hashes=h,
        doc=doc,
        sent=sent,
        sent_doc=doc[change],
        n_tokens=np.bincount(doc, minlength=n),
        lengths=lengths[keep],
        stop=sorted_isin(h, _stop_hashes()),
    )


def _numbers(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    per_doc = [_NUMBER.findall(_THOUSANDS.sub("", t)) for t in texts]
    counts = np.fromiter(map(len, per_doc), dtype=np.int64, count=len(texts))
    flat = list(chain.from_iterable(per_doc))
    return np.fromiter(map(hash, flat), dtype=np.int64, count=len(flat)), np.repeat(np.arange(len(texts)), counts)


def _keys(hashes: np.ndarray, doc: np.ndarray) -> np.ndarray:
    """(example, token) keys: the token hash mixed with the example index (64-bit wrap-around is intended)."""
    with np.errstate(over="ignore"):
        return hashes ^ (doc.astype(np.int64) * _MIX)


def _fraction(num: np.ndarray, den: np.ndarray, empty: float) -> np.ndarray:
    out = np.full(np.shape(num), empty, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _covered_fraction(a_hash, a_doc, c_keys_sorted, n) -> np.ndarray:
    """Per example: the fraction of the given answer token occurrences whose (example, token) key is in the context."""
    hit = sorted_isin(_keys(a_hash, a_doc), c_keys_sorted)
    return _fraction(np.bincount(a_doc, weights=hit, minlength=n), np.bincount(a_doc, minlength=n), 1.0)


def _segment_max(values: np.ndarray, seg: np.ndarray, n: int, empty: float) -> np.ndarray:
    out = np.full(n, -np.inf)
    np.maximum.at(out, seg, values)
    out[np.isneginf(out)] = empty
    return out


def _longest_run(supported: np.ndarray, doc: np.ndarray, n: int) -> np.ndarray:
    """Longest run of consecutive True values within each example (``doc`` is non-decreasing)."""
    if supported.size == 0:
        return np.zeros(n)
    pos = np.arange(supported.size)
    start = np.ones(supported.size, dtype=bool)
    start[1:] = doc[1:] != doc[:-1]
    # A run restarts after every unsupported token and at each example's first token.
    reset = np.where(~supported, pos + 1, np.where(start, pos, 0))
    run = np.where(supported, pos - np.maximum.accumulate(reset) + 1, 0)
    return _segment_max(run.astype(np.float64), doc, n, 0.0)


def _block_max(a_rows, a_cols, a_vals, c_rows, c_cols, c_vals, n_a: int, n_c: int) -> np.ndarray:
    """For every answer row, the largest dot product with a context row (0 where none shares a column).

    Columns are (example, term) keys, so rows of different examples never share one: a join on the column pairs
    every answer entry with the context entries of the same key, the products are summed per (answer row, context
    row) and the maximum is taken per answer row. Pure NumPy: cheap for one record as for a batch.
    """
    best = np.zeros(n_a)
    if a_rows.size == 0 or c_rows.size == 0:
        return best
    order = np.argsort(c_cols, kind="stable")
    c_cols, c_rows, c_vals = c_cols[order], c_rows[order], c_vals[order]
    lo = np.searchsorted(c_cols, a_cols, side="left")
    hi = np.searchsorted(c_cols, a_cols, side="right")
    count = hi - lo
    if count.sum() == 0:
        return best
    a_idx = np.repeat(np.arange(a_rows.size), count)
    # positions lo, lo+1, ..., hi-1 for every answer entry, laid end to end
    offsets = np.arange(a_idx.size) - np.repeat(np.cumsum(count) - count, count)
    c_idx = np.repeat(lo, count) + offsets
    pair = a_rows[a_idx].astype(np.int64) * np.int64(n_c) + c_rows[c_idx]
    keys, inverse = np.unique(pair, return_inverse=True)
    dots = np.bincount(inverse.ravel(), weights=a_vals[a_idx] * c_vals[c_idx], minlength=keys.size)
    np.maximum.at(best, keys // n_c, dots)
    return best


def _lcs_bit_parallel(a: np.ndarray, c: np.ndarray) -> int:
    """LCS length of two token-hash arrays with one machine-word-parallel pass over ``a`` (Hyyro 2004).

    Context positions are the bits of one Python integer, so each answer token costs a few big-integer operations;
    the match masks are built with NumPy (one ``packbits`` per distinct answer token).
    """
    masks = {}
    for tok in uniq(a).tolist():
        bits = np.packbits(c == tok, bitorder="little")
        masks[tok] = int.from_bytes(bits.tobytes(), "little")
    full = (1 << c.size) - 1
    v = full
    for tok in a.tolist():
        u = v & masks[tok]
        v = ((v + u) | (v - u)) & full
    return c.size - bin(v).count("1")


def _lcs_lengths(a_seqs: list[np.ndarray], c_seqs: list[np.ndarray]) -> np.ndarray:
    """LCS length of each (answer, context) pair of token-hash arrays; a bucket of pairs advances together.

    Row recurrence: ``L_i[j] = cummax_j(max(L_{i-1}[j], L_{i-1}[j-1] + [a_i == c_j]))``. A bucket of one pair (a
    single record, the tail of a batch) takes the bit-parallel pass instead, which is cheaper for one pair.
    """
    n = len(a_seqs)
    out = np.zeros(n, dtype=np.int64)
    a_len = np.fromiter(map(len, a_seqs), dtype=np.int64, count=n)
    c_len = np.fromiter(map(len, c_seqs), dtype=np.int64, count=n)
    order = np.lexsort((a_len, c_len))
    order = order[(a_len[order] > 0) & (c_len[order] > 0)]
    for b in range(0, order.size, _LCS_BUCKET):
        idx = order[b : b + _LCS_BUCKET]
        if idx.size == 1:
            out[idx[0]] = _lcs_bit_parallel(a_seqs[idx[0]], c_seqs[idx[0]])
            continue
        m, k = int(c_len[idx].max()), int(a_len[idx].max())
        A = np.full((idx.size, k), 1, dtype=np.int64)
        C = np.full((idx.size, m), 0, dtype=np.int64)
        a_pad = np.zeros((idx.size, k), dtype=bool)
        for r, i in enumerate(idx):
            A[r, : a_len[i]] = a_seqs[i]
            C[r, : c_len[i]] = c_seqs[i]
            a_pad[r, a_len[i] :] = True
        # Padding never matches: padded context slots hold 0 and padded answer slots are masked.
        c_pad = np.arange(m)[None, :] >= c_len[idx][:, None]
        prev = np.zeros((idx.size, m + 1), dtype=np.int32)
        for step in range(k):
            match = (C == A[:, step : step + 1]) & ~c_pad & ~a_pad[:, step : step + 1]
            tmp = np.maximum(prev[:, 1:], prev[:, :-1] + match)
            np.maximum.accumulate(tmp, axis=1, out=prev[:, 1:])
        out[idx] = prev[:, -1]
    return out


class Batch:
    """A batch of ``(question, context, answer)`` triples; each text is tokenised once, on first use."""

    def __init__(self, triples: Sequence[tuple[str, str, str]]) -> None:
        self.triples = list(triples)
        self.n = len(self.triples)

    @classmethod
    def from_records(cls, X: Sequence[Any]) -> "Batch":
        return cls(as_triples(X))

    @cached_property
    def answers(self) -> Tokens:
        return tokenize([t[2] for t in self.triples])

    @cached_property
    def contexts(self) -> Tokens:
        return tokenize([t[1] for t in self.triples])

    @cached_property
    def questions(self) -> Tokens:
        return tokenize([t[0] for t in self.triples])

    @cached_property
    def context_keys(self) -> np.ndarray:
        """Sorted distinct (example, token) keys of every context token."""
        c = self.contexts
        return uniq(_keys(c.hashes, c.doc))

    @cached_property
    def answer_content_keys(self) -> np.ndarray:
        """Sorted distinct (example, token) keys of the answer's non-stopword tokens."""
        a = self.answers
        return uniq(_keys(a.hashes[a.content], a.doc[a.content]))

    @cached_property
    def coverage(self) -> np.ndarray:
        """Answer coverage: the fraction of non-stopword answer tokens that occur in the context (§II-B)."""
        a = self.answers
        m = a.content
        return _covered_fraction(a.hashes[m], a.doc[m], self.context_keys, self.n)

    def base(self) -> np.ndarray:
        """The base family, columns in :data:`BASE_FEATURES` order (§II-B)."""
        a, c, q, n = self.answers, self.contexts, self.questions, self.n
        am, cm, qm = a.content, c.content, q.content
        rare = am & (a.lengths >= RARE_MIN_LEN)
        rare_cov = _covered_fraction(a.hashes[rare], a.doc[rare], self.context_keys, n)

        a_keys = self.answer_content_keys
        a_docs = _owner(a_keys, a.hashes[am], a.doc[am])
        c_keys, c_first = uniq_first(_keys(c.hashes[cm], c.doc[cm]))
        q_keys, q_first = uniq_first(_keys(q.hashes[qm], q.doc[qm]))
        q_docs = q.doc[qm][q_first]
        ac_inter = np.bincount(a_docs[sorted_isin(a_keys, c_keys)], minlength=n)
        qa_inter = np.bincount(q_docs[sorted_isin(q_keys, a_keys)], minlength=n)
        a_size = np.bincount(a_docs, minlength=n)
        c_size = np.bincount(c.doc[cm][c_first], minlength=n)
        q_size = np.bincount(q_docs, minlength=n)
        ac_jacc = _fraction(ac_inter, a_size + c_size - ac_inter, 0.0)
        qa_jacc = _fraction(qa_inter, q_size + a_size - qa_inter, 0.0)

        supported = sorted_isin(_keys(a.hashes, a.doc), self.context_keys)
        run = _fraction(_longest_run(supported, a.doc, n), a.n_tokens, 0.0)

        a_num, a_num_doc = _numbers([t[2] for t in self.triples])
        c_num, c_num_doc = _numbers([t[1] for t in self.triples])
        num_cov = _covered_fraction(a_num, a_num_doc, uniq(_keys(c_num, c_num_doc)), n)
        num_count = np.bincount(a_num_doc, minlength=n)

        return np.column_stack(
            [
                a.n_tokens,
                c.n_tokens,
                self.coverage,
                rare_cov,
                ac_jacc,
                qa_jacc,
                run,
                self._sentence_support(),
                num_cov,
                num_count,
            ]
        )

    def _sentence_support(self) -> np.ndarray:
        a, c, n = self.answers, self.contexts, self.n
        am, cm = a.content, c.content
        keys = self.answer_content_keys
        # Columns are the answer's distinct (example, token) keys; other context tokens cannot overlap.
        a_cols = np.searchsorted(keys, _keys(a.hashes[am], a.doc[am]))
        c_all = _keys(c.hashes[cm], c.doc[cm])
        c_in = sorted_isin(c_all, keys)
        c_cols = np.searchsorted(keys, c_all[c_in])
        # One entry per distinct (sentence, token): binary sets on both sides.
        width = np.int64(keys.size + 1)
        a_pairs = uniq(a.sent[am] * width + a_cols)
        c_pairs = uniq(c.sent[cm][c_in] * width + c_cols)
        a_rows, c_rows = a_pairs // width, c_pairs // width
        n_as, n_cs = a.sent_doc.size, c.sent_doc.size
        best = _block_max(
            a_rows, a_pairs % width, np.ones(a_pairs.size), c_rows, c_pairs % width, np.ones(c_pairs.size), n_as, n_cs
        )
        size = np.bincount(a_rows, minlength=n_as)
        has = size > 0
        docs = a.sent_doc[has]
        frac = best[has] / size[has]
        return _fraction(np.bincount(docs, weights=frac, minlength=n), np.bincount(docs, minlength=n), 1.0)

    def rougel_risk(self) -> np.ndarray:
        """1 - LCS recall of the answer's non-stopword tokens against the context's (§II-C)."""
        a, c, n = self.answers, self.contexts, self.n
        am, cm = a.content, c.content
        a_h, a_d = a.hashes[am], a.doc[am]
        c_h, c_d = c.hashes[cm], c.doc[cm]
        # Tokens that cannot match never change an LCS: drop them on both sides before the programme.
        a_keep = sorted_isin(_keys(a_h, a_d), self.context_keys)
        c_keep = sorted_isin(_keys(c_h, c_d), self.answer_content_keys)
        a_split = np.split(a_h[a_keep], np.cumsum(np.bincount(a_d[a_keep], minlength=n))[:-1])
        c_split = np.split(c_h[c_keep], np.cumsum(np.bincount(c_d[c_keep], minlength=n))[:-1])
        lcs = _lcs_lengths(a_split, c_split)
        return 1.0 - _fraction(lcs, np.bincount(a_d, minlength=n), 1.0)

    def token_f1_risk(self) -> np.ndarray:
        """1 - token F1 between the bags of non-stopword tokens of answer and context (§II-C)."""
        a, c, n = self.answers, self.contexts, self.n
        am, cm = a.content, c.content
        a_keys, a_first, a_cnt = uniq_counts(_keys(a.hashes[am], a.doc[am]))
        c_keys, _, c_cnt = uniq_counts(_keys(c.hashes[cm], c.doc[cm]))
        hit = sorted_isin(a_keys, c_keys)
        c_pos = np.searchsorted(c_keys, a_keys[hit])
        overlap = np.bincount(a.doc[am][a_first][hit], weights=np.minimum(a_cnt[hit], c_cnt[c_pos]), minlength=n)
        recall = _fraction(overlap, np.bincount(a.doc[am], minlength=n), 0.0)
        precision = _fraction(overlap, np.bincount(c.doc[cm], minlength=n), 0.0)
        return 1.0 - _fraction(2 * precision * recall, precision + recall, 0.0)

    def tfidf_risks(self, space: TfidfSpace) -> tuple[np.ndarray, np.ndarray]:
        """(1 - cosine(answer, context), max over answer sentences of 1 - best cosine with a context sentence)."""
        a, c, n = self.answers, self.contexts, self.n
        (ad_r, ad_c, ad_v), (as_r, as_c, as_v) = space.doc_and_sentence_vectors(a)
        (cd_r, cd_c, cd_v), (cs_r, cs_c, cs_v) = space.doc_and_sentence_vectors(c)
        width = np.int64(space.n_terms + 1)
        # Document cosine: entries are sorted by (row, col), so equal (example, term) keys meet by binary search.
        a_keys, c_keys = ad_r * width + ad_c, cd_r * width + cd_c
        hit = sorted_isin(a_keys, c_keys)
        dots = ad_v[hit] * cd_v[np.searchsorted(c_keys, a_keys[hit])]
        doc_risk = 1.0 - np.bincount(ad_r[hit], weights=dots, minlength=n)

        n_as, n_cs = a.sent_doc.size, c.sent_doc.size
        best = _block_max(
            as_r, a.sent_doc[as_r] * width + as_c, as_v, cs_r, c.sent_doc[cs_r] * width + cs_c, cs_v, n_as, n_cs
        )
        # A sentence of stop words only ("It is.") asserts nothing: skip it. A sentence whose words are all outside
        # the fitted vocabulary has a zero vector and risk 1, as with scikit-learn.
        eligible = (a.lengths >= 2) & a.content
        has_terms = np.bincount(a.sent[eligible], minlength=n_as) > 0
        sent_risk = _segment_max(1.0 - best[has_terms], a.sent_doc[has_terms], n, np.nan)
        return doc_risk, np.where(np.isnan(sent_risk), doc_risk, sent_risk)

    def enhanced(self, space: TfidfSpace) -> np.ndarray:
        """The four enhanced columns in :data:`ENHANCED_FEATURES` order (§II-C), in a fitted TF-IDF space."""
        doc_risk, sent_risk = self.tfidf_risks(space)
        return np.column_stack([self.rougel_risk(), self.token_f1_risk(), doc_risk, sent_risk])


def _owner(sorted_keys: np.ndarray, hashes: np.ndarray, doc: np.ndarray) -> np.ndarray:
    """The example of each sorted distinct key, given the tokens it was built from."""
    keys = _keys(hashes, doc)
    owner = np.empty(sorted_keys.size, dtype=np.int64)
    owner[np.searchsorted(sorted_keys, keys)] = doc
    return owner


def base_features(X: Sequence[Any]) -> np.ndarray:
    """Base feature matrix ``(n, 10)`` of records or ``(question, context, answer)`` tuples."""
    return Batch.from_records(X).base()


def enhanced_features(X: Sequence[Any], space: TfidfSpace) -> np.ndarray:
    """Enhanced feature matrix ``(n, 4)`` in a fitted :class:`TfidfSpace`."""
    return Batch.from_records(X).enhanced(space)


def uncovered_fraction(X: Sequence[Any]) -> np.ndarray:
    """The RAGScope-Z / uncovered-token risk: ``1 - |T(a) ∩ T(c)| / |T(a)|`` over non-stopword tokens (§II-B)."""
    return 1.0 - Batch.from_records(X).coverage


def fit_tfidf(X: Sequence[Any]) -> TfidfSpace:
    """Fit the §II-C TF-IDF space on a training set: its distinct contexts and all its answers."""
    triples = as_triples(X)
    contexts = list(dict.fromkeys(t[1] for t in triples))
    return TfidfSpace.fit(tokenize(contexts + [t[2] for t in triples]))
