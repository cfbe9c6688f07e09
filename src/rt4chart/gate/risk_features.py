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

Vectorised over the batch: each text is tokenised once (:mod:`.tokens`: 64-bit token hashes) and every overlap is a
sort, a ``searchsorted`` or a sparse product over ``(example, token)`` keys (:mod:`._arrays`), so no Python code runs
per token; the LCS of ROUGE-L is rapidfuzz's ``LCSseq`` (bit-parallel, in C++), one call per example.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Mapping, Sequence

import numpy as np
from rapidfuzz.distance import LCSseq

from ..errors import InputError
from ..io import context_text
from ._arrays import block_max, fraction, longest_run, segment_max, sorted_isin, uniq
from .tfidf import TfidfSpace
from .tokens import Tokens, example_keys, numbers, tokenize

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


def as_triples(X: Sequence[Any]) -> list[tuple[str, str, str]]:
    """Normalise gate input to ``(question, context, answer)`` strings.

    Accepts input records (mappings with ``context``, ``answer`` and optional ``question``; a list context is joined
    with blank lines as everywhere in rt4chart) or ``(question, context, answer)`` tuples. A missing question is "".
    Lighter than ``io.validate_record`` on purpose: the gate is an estimator over any such rows (training rows and
    tuples included), which need no id and may hold empty texts; the CLI and the server hand it ``Record``s.
    """
    out = []
    for i, x in enumerate(X):
        if isinstance(x, Mapping):
            where = x.get("id", i)
            if "context" not in x or "answer" not in x:
                raise InputError("a gate record needs 'context' and 'answer'", record=where)
            q, c, a = x.get("question"), context_text(x["context"], record=where), x["answer"]
        elif isinstance(x, (tuple, list)) and len(x) == 3:
            where = i
            q, c, a = x[0], context_text(x[1], record=where), x[2]
        else:
            raise InputError("expected a record mapping or a (question, context, answer) tuple", record=i)
        if not isinstance(a, str):
            raise InputError("must be a string", record=where, field="answer")
        if q is not None and not isinstance(q, str):
            raise InputError("must be a string or null", record=where, field="question")
        out.append((q or "", c, a))
    return out


def _covered_fraction(a_hash, a_doc, c_keys_sorted, n) -> np.ndarray:
    """Per example: the fraction of the given answer token occurrences whose (example, token) key is in the context."""
    hit = sorted_isin(example_keys(a_hash, a_doc), c_keys_sorted)
    return fraction(np.bincount(a_doc, weights=hit, minlength=n), np.bincount(a_doc, minlength=n), 1.0)


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
        return uniq(example_keys(c.hashes, c.doc))

    @cached_property
    def answer_content_keys(self) -> np.ndarray:
        """Sorted distinct (example, token) keys of the answer's non-stopword tokens."""
        a = self.answers
        return uniq(example_keys(a.hashes[a.content], a.doc[a.content]))

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
        c_keys, c_first = np.unique(example_keys(c.hashes[cm], c.doc[cm]), return_index=True)
        q_keys, q_first = np.unique(example_keys(q.hashes[qm], q.doc[qm]), return_index=True)
        q_docs = q.doc[qm][q_first]
        ac_inter = np.bincount(a_docs[sorted_isin(a_keys, c_keys)], minlength=n)
        qa_inter = np.bincount(q_docs[sorted_isin(q_keys, a_keys)], minlength=n)
        a_size = np.bincount(a_docs, minlength=n)
        c_size = np.bincount(c.doc[cm][c_first], minlength=n)
        q_size = np.bincount(q_docs, minlength=n)
        ac_jacc = fraction(ac_inter, a_size + c_size - ac_inter, 0.0)
        qa_jacc = fraction(qa_inter, q_size + a_size - qa_inter, 0.0)

        supported = sorted_isin(example_keys(a.hashes, a.doc), self.context_keys)
        run = fraction(longest_run(supported, a.doc, n), a.n_tokens, 0.0)

        a_num, a_num_doc = numbers([t[2] for t in self.triples])
        c_num, c_num_doc = numbers([t[1] for t in self.triples])
        num_cov = _covered_fraction(a_num, a_num_doc, uniq(example_keys(c_num, c_num_doc)), n)
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
        a_cols = np.searchsorted(keys, example_keys(a.hashes[am], a.doc[am]))
        c_all = example_keys(c.hashes[cm], c.doc[cm])
        c_in = sorted_isin(c_all, keys)
        c_cols = np.searchsorted(keys, c_all[c_in])
        # One entry per distinct (sentence, token): binary sets on both sides.
        width = np.int64(keys.size + 1)
        a_pairs = uniq(a.sent[am] * width + a_cols)
        c_pairs = uniq(c.sent[cm][c_in] * width + c_cols)
        a_rows, c_rows = a_pairs // width, c_pairs // width
        n_as, n_cs = a.sent_doc.size, c.sent_doc.size
        best = block_max(
            a_rows, a_pairs % width, np.ones(a_pairs.size), c_rows, c_pairs % width, np.ones(c_pairs.size), n_as, n_cs
        )
        size = np.bincount(a_rows, minlength=n_as)
        has = size > 0
        docs = a.sent_doc[has]
        frac = best[has] / size[has]
        return fraction(np.bincount(docs, weights=frac, minlength=n), np.bincount(docs, minlength=n), 1.0)

    def rougel_risk(self) -> np.ndarray:
        """1 - LCS recall of the answer's non-stopword tokens against the context's (§II-C)."""
        a, c, n = self.answers, self.contexts, self.n
        am, cm = a.content, c.content
        lcs = np.fromiter(map(LCSseq.similarity, _per_example(a.hashes[am], a.doc[am], n),
                              _per_example(c.hashes[cm], c.doc[cm], n)), dtype=np.int64, count=n)
        return 1.0 - fraction(lcs, np.bincount(a.doc[am], minlength=n), 1.0)

    def token_f1_risk(self) -> np.ndarray:
        """1 - token F1 between the bags of non-stopword tokens of answer and context (§II-C)."""
        a, c, n = self.answers, self.contexts, self.n
        am, cm = a.content, c.content
        a_keys, a_first, a_cnt = np.unique(example_keys(a.hashes[am], a.doc[am]), return_index=True, return_counts=True)
        c_keys, c_cnt = np.unique(example_keys(c.hashes[cm], c.doc[cm]), return_counts=True)
        hit = sorted_isin(a_keys, c_keys)
        c_pos = np.searchsorted(c_keys, a_keys[hit])
        overlap = np.bincount(a.doc[am][a_first][hit], weights=np.minimum(a_cnt[hit], c_cnt[c_pos]), minlength=n)
        recall = fraction(overlap, np.bincount(a.doc[am], minlength=n), 0.0)
        precision = fraction(overlap, np.bincount(c.doc[cm], minlength=n), 0.0)
        return 1.0 - fraction(2 * precision * recall, precision + recall, 0.0)

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
        best = block_max(
            as_r, a.sent_doc[as_r] * width + as_c, as_v, cs_r, c.sent_doc[cs_r] * width + cs_c, cs_v, n_as, n_cs
        )
        # A sentence of stop words only ("It is.") asserts nothing: skip it. A sentence whose words are all outside
        # the fitted vocabulary has a zero vector and risk 1, as with scikit-learn.
        eligible = (a.lengths >= 2) & a.content
        has_terms = np.bincount(a.sent[eligible], minlength=n_as) > 0
        sent_risk = segment_max(1.0 - best[has_terms], a.sent_doc[has_terms], n, np.nan)
        return doc_risk, np.where(np.isnan(sent_risk), doc_risk, sent_risk)

    def enhanced(self, space: TfidfSpace) -> np.ndarray:
        """The four enhanced columns in :data:`ENHANCED_FEATURES` order (§II-C), in a fitted TF-IDF space."""
        doc_risk, sent_risk = self.tfidf_risks(space)
        return np.column_stack([self.rougel_risk(), self.token_f1_risk(), doc_risk, sent_risk])


def _per_example(hashes: np.ndarray, doc: np.ndarray, n: int) -> list[list[int]]:
    """The token hashes of each example, in text order (``doc`` is non-decreasing)."""
    return [part.tolist() for part in np.split(hashes, np.cumsum(np.bincount(doc, minlength=n))[:-1])]


def _owner(sorted_keys: np.ndarray, hashes: np.ndarray, doc: np.ndarray) -> np.ndarray:
    """The example of each sorted distinct key, given the tokens it was built from."""
    owner = np.empty(sorted_keys.size, dtype=np.int64)
    owner[np.searchsorted(sorted_keys, example_keys(hashes, doc))] = doc
    return owner


def base_features(X: Sequence[Any]) -> np.ndarray:
    """Base feature matrix ``(n, 10)`` of records or ``(question, context, answer)`` tuples."""
    return Batch.from_records(X).base()


def enhanced_features(X: Sequence[Any], space: TfidfSpace) -> np.ndarray:
    """Enhanced feature matrix ``(n, 4)`` in a fitted :class:`TfidfSpace`."""
    return Batch.from_records(X).enhanced(space)


def uncovered_fraction(X: Sequence[Any]) -> np.ndarray:
    """The RAGScope-Z / uncovered-token risk (§II-B): the fraction of the answer's non-stopword token occurrences
    that do not occur in the context (``1 - Batch.coverage``). ``eval.baselines.uncovered_token_risk``, the
    baseline row of the eval tables, counts distinct tokens instead."""
    return 1.0 - Batch.from_records(X).coverage


def fit_tfidf(X: Sequence[Any]) -> TfidfSpace:
    """Fit the §II-C TF-IDF space on a training set: its distinct contexts and all its answers."""
    triples = as_triples(X)
    contexts = list(dict.fromkeys(t[1] for t in triples))
    return TfidfSpace.fit(contexts + [t[2] for t in triples])
