"""The training rows and validation metrics of ``python -m training.train_local_judge``: claim-model rows
built from word rows and word probabilities (answer aggregates within each record), span-model rows, each record's
riskiest claim (the calibrator's rows), claim texts, and answer and span precision / recall / F1 at two thresholds,
as the judge decides at run time."""

from __future__ import annotations

import numpy as np

from rt4chart.audit.decompose import RuleDecomposer
from rt4chart.eval.metrics import answer_prf, span_prf
from rt4chart.judges.local import features as F
from rt4chart.judges.local import merge_words, span_rows
from rt4chart.judges.local import tagger as T


def claim_rows_from(data: dict, p: np.ndarray, claims: np.ndarray,
                    tagged: "np.ndarray | None" = None) -> tuple[np.ndarray, np.ndarray]:
    """Claim-model rows (answer aggregates within each record) for the given claim ids, with their record ids; with
    ``tagged`` (the tagger's word probabilities, one per word row), the semantic stage's claim columns too."""
    X, cl, rec = data["X"], data["claim"], data["record"]
    bounds = np.flatnonzero(np.r_[True, cl[1:] != cl[:-1], True])
    by_claim = {int(cl[a]): (a, b) for a, b in zip(bounds[:-1], bounds[1:])}
    out, out_rec = [], []
    cur: list = []
    cur_rec = None

    def flush() -> None:
        if cur:
            rows = [F.WordRows(spans=(), matrix=X[a:b]) for a, b in cur]
            m = F.claim_matrix([p[a:b] for a, b in cur], rows)
            if tagged is not None:
                m = np.hstack([m, T.claim_columns([tagged[a:b] for a, b in cur])])
            out.append(m)
            out_rec.extend([cur_rec] * len(cur))

    for c in claims:
        a, b = by_claim[int(c)]
        if rec[a] != cur_rec:
            flush()
            cur, cur_rec = [], rec[a]
        cur.append((a, b))
    flush()
    return np.concatenate(out), np.array(out_rec)


def span_rows_from(data: dict, p: np.ndarray, claims: np.ndarray, q: np.ndarray,
                   tagged: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The span model's rows (``rt4chart.judges.local.span_rows``) of the words of the given claim ids, whose claim
    probabilities are ``q``, and those words' row indices."""
    cl = data["claim"]
    first = np.searchsorted(cl, claims)
    last = np.searchsorted(cl, claims, side="right")
    rows = span_rows([p[a:b] for a, b in zip(first, last)], q, [tagged[a:b] for a, b in zip(first, last)])
    return rows, np.concatenate([np.arange(a, b) for a, b in zip(first, last)] + [np.zeros(0, dtype=np.int64)])


def riskiest_rows(rows: np.ndarray, q: np.ndarray, claim_records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The row of each record's riskiest claim (``q``: claim probabilities; rows and ``claim_records`` per claim, in
    record order), and the records."""
    recs, first = np.unique(claim_records, return_index=True)
    ends = np.r_[first[1:], len(q)]
    return np.array([rows[a + int(np.argmax(q[a:b]))] for a, b in zip(first, ends)]), recs


def claim_record_of(data: dict) -> np.ndarray:
    """The record index of every claim id (claim ids run in record order)."""
    claim_record = np.zeros(len(data["claim_y"]), dtype=np.int64)
    claim_record[data["claim"]] = data["record"]
    return claim_record


def claim_texts(data: dict, records, claims: np.ndarray) -> list[str]:
    """The texts of the given claim ids, from the decomposer run again on their answers as ``prepare`` ran it (a
    claim without words got no id)."""
    claim_record = claim_record_of(data)
    dec = RuleDecomposer()
    texts: dict[int, str] = {}
    for ri in np.unique(claim_record[claims]):
        r = records[int(ri)]
        evidence = F.FeatureEvidence(r.context)
        kept = [c.text for c in dec.decompose_sync(r.answer)
                if F.claim_rows(c.text, evidence, r.question).spans]
        first = int(np.searchsorted(claim_record, ri))
        texts.update((first + k, t) for k, t in enumerate(kept))
    return [texts[int(c)] for c in claims]


def evaluate(data: dict, records, p_word: np.ndarray, q_claim: np.ndarray, val_claims: np.ndarray,
             claim_t: float, word_t: float, *, spans: bool = True) -> tuple:
    """Answer PRF and span PRF on the validation records at the given thresholds (the judge's own rules: an answer
    is hallucinated when one claim reaches ``claim_t``; its spans are the flagged claims' words >= ``word_t``)."""
    claim_record = claim_record_of(data)
    val_records, inverse = np.unique(claim_record[val_claims], return_inverse=True)
    risk = np.zeros(len(val_records))
    np.maximum.at(risk, inverse, q_claim)
    gold_y = [records[r].hallucinated for r in val_records]
    ans = answer_prf(gold_y, risk >= claim_t)
    if not spans:
        return ans, None, risk, gold_y
    pos = {int(r): k for k, r in enumerate(val_records)}
    flagged = val_claims[q_claim >= claim_t]
    pred: list[list] = [[] for _ in val_records]
    words = np.flatnonzero(np.isin(data["claim"], flagged))
    by_claim: dict[int, list] = {}
    for i in words:
        by_claim.setdefault(int(data["claim"][i]), []).append(
            (int(data["start"][i]), int(data["end"][i]), float(p_word[i])))
    for c, ws in by_claim.items():
        pred[pos[int(claim_record[c])]].extend(merge_words(ws, word_t))
    gold = [[(g.start, g.end) for g in records[r].spans] for r in val_records]
    return ans, span_prf(gold, pred), risk, gold_y
