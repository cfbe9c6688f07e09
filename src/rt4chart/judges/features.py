"""Features of the trained offline judge (``rt4chart.judges.local``): one row per word of a claim.

A claim is read against one evidence text (a chunk, or the whole context C) and, when there is one, the question.
Each word token of the claim gets a feature row of three parts:

- **word**: what the word is (content word, number, capitalised name, length; a hedge, quantifier, causal, temporal
  or comparative function word) and whether it, its stem, the bigrams and the trigram around it, or its number occur
  in the evidence; whether the best evidence sentences for the claim hold it; how many of its neighbours (three
  words either side) are found; how far apart, in evidence tokens, it and the claim's previous / next content word
  occur; whether it only names a record field whose value is false;
- **claim**: the lexical judge's threshold-free assessment of the whole claim (weighted coverage after joining one,
  two, three sentences, missing numbers and names, the number rival and negation checks, the rule it would apply)
  and the claim's own length and position;
- **record**: the shape of the evidence (length, sentences, how table-like it is) and of the question.

The same function builds the training rows (``scripts/train_local_judge.py``) and the inference rows, so the model
sees at run time exactly what it saw in training. ``FEATURES`` names the columns; ``VERSION`` changes whenever a
feature changes meaning, and a model trained on another version is refused.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional, Sequence

import numpy as np

from ..text.lexical import STOPWORDS, stem
from .lexical import LexicalJudge, _assess, _index, _key, _numbers, _words

VERSION = 3

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?(?:[.,][0-9]+)*")
RULES = ("unverified", "no-evidence", "number-conflict", "negation-conflict", "number-missing", "name-missing",
         "entailed", "low-coverage")
_KINDS = ("meta", "empty", "restates", "no-evidence", "scored")
_RULER = LexicalJudge()
_WINDOW = 3

WORD_FEATURES = (
    "w_content", "w_number", "w_capital", "w_len", "w_key_in_ev", "w_raw_in_ev", "w_ev_count", "w_in_question",
    "w_bigram_prev", "w_bigram_next", "w_trigram", "w_in_best", "w_in_chosen", "w_number_in_ev", "w_pos",
    "w_pos_back", "w_window_found", "w_window_content", "w_run_missing", "w_near_prev", "w_near_next",
    "w_false_field", "w_hedge", "w_quantifier", "w_causal", "w_temporal", "w_comparative",
)
CLAIM_FEATURES = (
    "c_kind", "c_rule", "c_cover1", "c_cover_a", "c_cover_b", "c_cover_c", "c_missing_numbers", "c_numbers",
    "c_rival_cover", "c_negation_match", "c_missing_names", "c_uncovered", "c_words", "c_content", "c_found_frac",
    "c_bigram_frac", "c_index", "c_sentence", "c_start", "c_negated", "c_pairs_near", "c_false_fields",
    "c_relation_words", "c_relation_in_ev",
)
RECORD_FEATURES = ("r_ev_chars", "r_ev_sentences", "r_ev_colon_lines", "r_ev_brace", "r_question_words")
FEATURES = WORD_FEATURES + CLAIM_FEATURES + RECORD_FEATURES


@dataclass(frozen=True)
class WordRows:
    """Feature rows of one claim: ``spans[i]`` is word i's ``(start, end)`` in the claim text; ``assessment`` and
    ``rule`` are the lexical judge's view of the claim (the judge takes its evidence sentences from them)."""

    spans: tuple[tuple[int, int], ...]
    matrix: np.ndarray  # (words, len(FEATURES)) float32
    assessment: Any = None
    rule: str = "unverified"


class _Evidence:
    """Token-level index of an evidence text (the lexical judge's sentence index is shared through ``_index``)."""

    def __init__(self, text: str) -> None:
        toks = [t.lower().replace("’", "'").replace(",", "") for t in _TOKEN.findall(text)]
        self.counts: dict[str, int] = {}
        for t in toks:
            self.counts[t] = self.counts.get(t, 0) + 1
        self.bigrams = set(zip(toks, toks[1:]))
        # where each content word occurs (token positions), to tell whether two claim words occur close together
        self.positions: dict[str, list[int]] = {}
        for i, t in enumerate(toks):
            k = _word_key(t)
            if k is not None:
                self.positions.setdefault(k, []).append(i)
        # words that only name a field whose value is false / none / no (a record's "OutdoorSeating": false)
        self.false_keys = _false_field_keys(text)
        self.trigrams = set(zip(toks, toks[1:], toks[2:]))
        self.index = _index(text)
        self.numbers = self.index.all_numbers
        lines = [ln for ln in text.splitlines() if ln.strip()]
        self.record = (
            math.log1p(len(text)),
            math.log1p(len(self.index.sentences)),
            sum(1 for ln in lines if ":" in ln) / max(len(lines), 1),
            float(text.count("{") + text.count("[") > 3),
        )


@lru_cache(maxsize=64)
def _evidence(text: str) -> _Evidence:
    return _Evidence(text)


def sentences_of(text: str) -> list:
    """The sentences of an evidence text, as indexed for the features (``Sentence`` objects)."""
    return _index(text).sentences


def sentence_texts(text: str) -> tuple[str, ...]:
    """The texts of ``sentences_of(text)`` (kept by the index: one tuple per evidence text)."""
    return _index(text).texts


def _word_key(tok: str) -> Optional[str]:
    if tok in STOPWORDS or (len(tok) < 2 and not tok.isdigit()):
        return None
    return _key(stem(tok))


_FIELD = re.compile(r"""["']?([A-Za-z][A-Za-z_ ]*?)["']?\s*[:=]\s*["']?(false|none|no|null|n/a)["']?\s*,?\s*$""",
                    re.IGNORECASE | re.MULTILINE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
#: function words that carry relations a summary or an answer may add on its own (a cause, an order in time, a
#: hedge, a quantity): stop words to the coverage features, but often the very part of a claim that is invented
_HEDGE = frozenset("may might could possibly likely perhaps probably potentially seems appears suggest suggests".split())
_QUANTIFIER = frozenset("all every always never only most many several each both none any entire whole".split())
_CAUSAL = frozenset("because since due therefore thus so hence result caused cause leading led reason".split())
_TEMPORAL = frozenset("after before during when while then later earlier first last until recently "
                      "previously currently now soon".split())
_COMPARATIVE = frozenset("more less than most least better worse best worst higher lower larger smaller".split())
_RELATION = _CAUSAL | _TEMPORAL | _COMPARATIVE
_FAR = 64  # token distance standing for "not near" (or not found)


#: what every ``_FIELD`` match contains: texts without it (most prose) skip ``_FIELD``, which costs about 5 ms on a
#: RAGTruth context because its lazy name group is tried at every position
_FIELD_VALUE = re.compile(r"""[:=]\s*["']?(?:false|none|no|null|n/a)""", re.IGNORECASE)


def _false_field_keys(text: str) -> frozenset[str]:
    """Word keys of record fields set to false / none / no, minus words that also occur elsewhere in the text."""
    if not _FIELD_VALUE.search(text):
        return frozenset()
    keys: set[str] = set()
    for m in _FIELD.finditer(text):
        for tok in _CAMEL.sub(" ", m.group(1)).replace("_", " ").lower().split():
            k = _word_key(tok)
            if k is not None:
                keys.add(k)
    if not keys:
        return frozenset()
    rest = _FIELD.sub(" ", text)
    rest_keys = {_word_key(t.lower()) for t in _TOKEN.findall(_CAMEL.sub(" ", rest))}
    return frozenset(keys - rest_keys)


def _distance(a: list[int], b: list[int]) -> int:
    """Smallest |i - j| for i in a, j in b (sorted lists); ``_FAR`` when either is empty or all are far apart."""
    if not a or not b:
        return _FAR
    if len(a) > len(b):
        a, b = b, a
    best = _FAR
    for i in a[:200]:
        k = bisect_left(b, i)
        if k < len(b):
            best = min(best, b[k] - i)
        if k:
            best = min(best, i - b[k - 1])
        if best <= 1:
            break
    return best


def claim_rows(claim: str, evidence: str, question: Optional[str], *, index: int = 0, sentence: int = 0,
               start: int = 0) -> WordRows:
    """Feature rows for every word of ``claim`` read against ``evidence`` (see the module docstring)."""
    ev = _evidence(evidence)
    matches = list(_TOKEN.finditer(claim))
    spans = tuple((m.start(), m.end()) for m in matches)
    n = len(matches)
    out = np.zeros((n, len(FEATURES)), dtype=np.float32)
    a = _assess(claim, evidence, question, _RULER.max_sentences)
    rule = _RULER._rule(a)
    if n == 0:
        return WordRows(spans, out, a, rule)
    toks = [m.group(0).lower().replace("’", "'").replace(",", "") for m in matches]
    keys = [_word_key(t) for t in toks]
    qkeys = {_key(w) for w in _words(question)} if question else set()
    sents = ev.index.keys
    best = sents[a.order[0]] if a.order else frozenset()
    chosen = frozenset().union(*(sents[i] for i in a.order)) if a.order else frozenset()
    cover = list(a.cover) + [a.cover[-1] if a.cover else 0.0] * (3 - len(a.cover))
    postings = ev.index.postings

    found = [k is not None and (k in postings or t in ev.counts) for k, t in zip(keys, toks)]
    content = [k is not None for k in keys]
    n_content = sum(content)
    # token distance in the evidence between each content word and the previous / next content word of the claim
    order = [i for i in range(n) if content[i]]
    near_prev = [float(_FAR)] * n
    near_next = [float(_FAR)] * n
    for a_i, b_i in zip(order, order[1:]):
        dist = float(_distance(ev.positions.get(keys[a_i], []), ev.positions.get(keys[b_i], [])))
        near_next[a_i] = dist
        near_prev[b_i] = dist
    pairs = len(order) - 1
    pairs_near = sum(1 for i in order[1:] if near_prev[i] <= 8) / pairs if pairs > 0 else 0.0
    false_field = [k is not None and k in ev.false_keys for k in keys]
    relation = [t for t in toks if t in _RELATION]
    bigram_hits = sum(1 for b in zip(toks, toks[1:]) if b in ev.bigrams)
    claim_part = (
        float(_KINDS.index(a.kind)), float(RULES.index(rule)), a.cover1, cover[0], cover[1], cover[2],
        float(len(a.missing_numbers)), float(len(_numbers(claim, claim=True))), a.rival_cover, a.negation_match,
        float(len(a.missing_names)), float(len(a.uncovered)), float(n), float(n_content),
        sum(f for f, c in zip(found, content) if c) / max(n_content, 1), bigram_hits / max(n - 1, 1),
        float(index), float(sentence), math.log1p(start), float(any(t in ("not", "no", "never") or t.endswith("n't")
                                                                     for t in toks)),
        pairs_near, float(sum(false_field)), float(len(relation)),
        sum(1 for t in relation if t in ev.counts) / len(relation) if relation else 1.0,
    )
    record_part = (*ev.record, float(len(question.split())) if question else 0.0)

    # length of the run of consecutive not-found content words each word belongs to (stop words are transparent)
    run = [0.0] * n
    i = 0
    while i < n:
        if content[i] and not found[i]:
            j, size = i, 0
            while j < n and (not content[j] or not found[j]):
                size += content[j]
                j += 1
            for k in range(i, j):
                run[k] = float(size)
            i = j
        else:
            i += 1

    for i, (tok, key) in enumerate(zip(toks, keys)):
        lo, hi = max(0, i - _WINDOW), min(n, i + _WINDOW + 1)
        wc = [k for k in range(lo, hi) if k != i and content[k]]
        is_num = any(ch.isdigit() for ch in tok)
        m = matches[i]
        capital = m.group(0)[0].isupper() and i > 0
        out[i, : len(WORD_FEATURES)] = (
            float(content[i]), float(is_num), float(capital), float(len(tok)),
            float(key is not None and key in postings), float(tok in ev.counts), math.log1p(ev.counts.get(tok, 0)),
            float(key is not None and key in qkeys),
            float(i > 0 and (toks[i - 1], tok) in ev.bigrams), float(i + 1 < n and (tok, toks[i + 1]) in ev.bigrams),
            float(0 < i < n - 1 and (toks[i - 1], tok, toks[i + 1]) in ev.trigrams),
            float(key is not None and key in best), float(key is not None and key in chosen),
            float(is_num and bool(_numbers(tok, claim=False) & ev.numbers)),
            i / n, (n - 1 - i) / n,
            sum(found[k] for k in wc) / max(len(wc), 1), float(len(wc)), run[i],
            math.log1p(near_prev[i]), math.log1p(near_next[i]), float(false_field[i]),
            float(tok in _HEDGE), float(tok in _QUANTIFIER), float(tok in _CAUSAL), float(tok in _TEMPORAL),
            float(tok in _COMPARATIVE),
        )
        out[i, len(WORD_FEATURES): len(WORD_FEATURES) + len(CLAIM_FEATURES)] = claim_part
        out[i, len(WORD_FEATURES) + len(CLAIM_FEATURES):] = record_part
    return WordRows(spans, out, a, rule)


AGGREGATE_FEATURES = ("p_max", "p_mean", "p_top3", "p_n20", "p_n50", "p_f20")
ANSWER_FEATURES = ("a_claims", "a_other_max", "a_mean_max", "a_n20", "a_words", "a_rank", "a_found_mean",
                   "a_missing", "a_near_mean")
#: Columns of the claim model: the word model's probabilities aggregated over the claim, the claim and record
#: features, and the same aggregates over all the claims judged together (the answer, at the global stage).
CLAIM_MODEL_FEATURES = AGGREGATE_FEATURES + ("c_n_words",) + CLAIM_FEATURES + RECORD_FEATURES + ANSWER_FEATURES


def claim_matrix(word_probs: Sequence[np.ndarray], rows: Sequence[WordRows]) -> np.ndarray:
    """Claim-model rows for claims judged together: ``word_probs[i]`` are the word model's P(hallucinated) for the
    words of claim i, ``rows[i]`` its feature rows."""
    n_word = len(WORD_FEATURES)
    out = np.zeros((len(rows), len(CLAIM_MODEL_FEATURES)), dtype=np.float32)
    for i, (p, r) in enumerate(zip(word_probs, rows)):
        if len(p) == 0:
            continue
        top = np.sort(p)[::-1]
        out[i, :7] = (p.max(), p.mean(), top[:3].mean(), (p >= 0.2).sum(), (p >= 0.5).sum(), (p >= 0.2).mean(), len(p))
        out[i, 7: 7 + len(CLAIM_FEATURES) + len(RECORD_FEATURES)] = r.matrix[0, n_word:]
    maxes = out[:, 0]
    k = len(CLAIM_MODEL_FEATURES) - len(ANSWER_FEATURES)
    col = {name: 7 + j for j, name in enumerate(CLAIM_FEATURES)}
    found_mean = out[:, col["c_found_frac"]].mean() if len(rows) else 0.0
    missing = (out[:, col["c_missing_numbers"]] + out[:, col["c_missing_names"]]).sum()
    near_mean = out[:, col["c_pairs_near"]].mean() if len(rows) else 0.0
    for i in range(len(rows)):
        others = np.delete(maxes, i)
        out[i, k:] = (len(rows), others.max() if len(others) else 0.0, maxes.mean(), out[:, 3].sum(),
                      out[:, 6].sum(), float((maxes > maxes[i]).sum()), found_mean, missing, near_mean)
    return out
