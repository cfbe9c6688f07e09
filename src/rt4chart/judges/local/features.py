"""Features of the trained offline judge (``rt4chart.judges.local``): one row per word of a claim.

A claim is read against one evidence text (a chunk, or the whole context C) and, when there is one, the question.
Each word token of the claim gets a feature row of three parts:

- **word**: what the word is (content word, number, capitalised name, length; a hedge, quantifier, causal, temporal
  or comparative function word) and whether it, its stem, the bigrams and the trigram around it, or its number occur
  in the evidence; whether the best evidence sentences for the claim hold it; how many of its neighbours (three
  words either side) are found; how far apart, in evidence tokens, it and the claim's previous / next content word
  occur; whether it only names a record field whose value is false;
- **claim**: the lexical assessment of the whole claim (``rt4chart.evidence.assess``: weighted coverage after joining
  one, two, three sentences, missing numbers and names, the number rival and negation checks; the ``Rule`` that
  ``rule_of`` applies at the lexical judge's default thresholds) and the claim's own length and position;
- **record**: the shape of the evidence (length, sentences, how table-like it is) and of the question.

The same function builds the training rows (``python -m training.train_local_judge``) and the inference rows,
so the model sees at run time exactly what it saw in training. ``FEATURES`` names the columns (``CLAIM_MODEL_FEATURES``
those of the claim model's rows, ``claim_matrix``), and each group of columns is written where its names stand;
``VERSION`` changes whenever a feature changes meaning, and a model trained on another version is refused. The evidence
is read once per text: the caller builds its ``FeatureEvidence`` and passes it to ``claim_rows`` for every claim (a text
given instead is read for that call alone; nothing is kept between calls).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Sequence, Union

import numpy as np

from ...evidence import (
    CAMEL, STOPWORDS, TOKEN, Assessment, amount_spans, EvidenceIndex, Kind, Rule, Thresholds, assess, claim_numbers,
    normalised_numbers, question_keys, rule_of, stem, tokens, word_key,
)
from ...text.segment import record_lines, split_sentences

VERSION = 3

#: the codes of the ``c_rule`` column: a rule's position in ``Rule`` (as strings, for readers of a matrix)
RULES = tuple(r.value for r in Rule)
_RULE_CODE = {r: float(i) for i, r in enumerate(Rule)}
#: the ``c_kind`` column: an assessment kind's position in ``Kind``
_KIND_CODE = {k: float(i) for i, k in enumerate(Kind)}
#: the rules are the lexical judge's, at its default thresholds
_THRESHOLDS = Thresholds()
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


def _columns(columns: tuple[str, ...], group: tuple[str, ...]) -> slice:
    """Where the column names ``group`` stand, one after another, in ``columns``."""
    start = columns.index(group[0])
    if columns[start:start + len(group)] != group:
        raise ValueError(f"the columns {group} do not stand together")
    return slice(start, start + len(group))


_COL = {name: i for i, name in enumerate(FEATURES)}
_CLAIM_COLUMNS = _columns(FEATURES, CLAIM_FEATURES)
_RECORD_COLUMNS = _columns(FEATURES, RECORD_FEATURES)


@dataclass(frozen=True)
class WordRows:
    """Feature rows of one claim: ``spans[i]`` is word i's ``(start, end)`` in the claim text; ``assessment`` and
    ``rule`` are the lexical judge's view of the claim (the judge takes its evidence sentences from them: their
    sentence numbers index ``index.texts`` of the ``FeatureEvidence``)."""

    spans: tuple[tuple[int, int], ...]
    matrix: np.ndarray  # (words, len(FEATURES)) float32
    assessment: Optional[Assessment] = None
    rule: Rule = Rule.UNVERIFIED


class FeatureEvidence:
    """What the features read of one evidence text: its ``EvidenceIndex`` (``index``), token counts, bigrams,
    trigrams, positions and the joined tokens, the keys of fields set to false, and the record columns (the first
    four of ``RECORD_FEATURES``). Build it once per evidence text and pass it to ``claim_rows``."""

    def __init__(self, text: str) -> None:
        toks = tokens(text)
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
        self.trigrams = set(zip(toks, toks[1:], toks[2:]))
        #: the tokens joined by single spaces, with a space at each end: ``" w1 w2 ... "`` (``rules.copies``)
        self.joined = f" {' '.join(toks)} "
        self.index = EvidenceIndex(text)
        # words that only name a field whose value is false / none / no (a record's "OutdoorSeating": false), read
        # sentence by sentence: a record's fields are its sentences, on one line or many (``split_sentences``)
        self.false_keys = _false_field_keys("\n".join(self.index.texts))
        self.numbers = self.index.all_numbers
        lines = record_lines(text)
        # r_ev_chars, r_ev_sentences, r_ev_colon_lines, r_ev_brace
        self.record = (math.log1p(len(text)), math.log1p(len(self.index.sentences)),
                       sum(1 for ln in lines if ":" in ln) / max(len(lines), 1),
                       float(text.count("{") + text.count("[") > 3))


def sentences_of(text: str) -> list:
    """The sentences of an evidence text as the features split it (``Sentence`` objects; a ``FeatureEvidence``
    holds them as ``index.sentences``)."""
    return split_sentences(text)


def _word_key(tok: str) -> Optional[str]:
    if tok in STOPWORDS or (len(tok) < 2 and not tok.isdigit()):
        return None
    return word_key(stem(tok))


_FIELD = re.compile(r"""["']?([A-Za-z][A-Za-z_ ]*?)["']?\s*[:=]\s*["']?(false|none|no|null|n/a)["']?\s*,?\s*$""",
                    re.IGNORECASE | re.MULTILINE)
#: function words that carry relations a summary or an answer may add on its own (a cause, an order in time, a
#: hedge, a quantity): stop words to the coverage features, but often the very part of a claim that is invented
_HEDGE = frozenset("may might could possibly likely perhaps probably potentially seems appears suggest "
                   "suggests".split())
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
        for tok in CAMEL.sub(" ", m.group(1)).replace("_", " ").lower().split():
            k = _word_key(tok)
            if k is not None:
                keys.add(k)
    if not keys:
        return frozenset()
    rest = _FIELD.sub(" ", text)
    rest_keys = {_word_key(t.lower()) for t in TOKEN.findall(CAMEL.sub(" ", rest))}
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


@dataclass(frozen=True)
class _ClaimWords:
    """What the rows of a claim take from the claim alone (``_claim_words``: one claim is read against every chunk and
    then the whole context). ``fixed`` holds the word columns that do not depend on the evidence; it is copied,
    never written."""

    spans: tuple[tuple[int, int], ...]
    toks: tuple[str, ...]
    keys: tuple[Optional[str], ...]
    content: tuple[bool, ...]
    order: tuple[int, ...]  # the content words' positions
    window: tuple[int, ...]  # per word: how many content words lie within _WINDOW of it (itself left out)
    tok_numbers: tuple[Optional[frozenset[str]], ...]  # per word: its numbers when it has a digit, else None
    bigrams: tuple[tuple[str, str], ...]
    trigrams: tuple[tuple[str, str, str], ...]
    relation: tuple[str, ...]
    negated: bool
    fixed: np.ndarray  # (words, len(FEATURES)) float32


@lru_cache(maxsize=1024)
def _claim_words(claim: str) -> _ClaimWords:
    matches = list(TOKEN.finditer(claim))
    n = len(matches)
    toks = tuple(m.group(0).lower().replace("’", "'").replace(",", "") for m in matches)
    keys = tuple(_word_key(t) for t in toks)
    content = tuple(k is not None for k in keys)
    lo_hi = [(max(0, i - _WINDOW), min(n, i + _WINDOW + 1)) for i in range(n)]
    window = tuple(sum(content[lo:hi]) - content[i] for i, (lo, hi) in enumerate(lo_hi))
    is_num = [any(ch.isdigit() for ch in t) for t in toks]
    fixed = np.zeros((n, len(FEATURES)), dtype=np.float32)
    if n:
        fixed[:, _COL["w_content"]] = content
        fixed[:, _COL["w_number"]] = is_num
        fixed[:, _COL["w_capital"]] = [m.group(0)[0].isupper() and i > 0 for i, m in enumerate(matches)]
        fixed[:, _COL["w_len"]] = [float(len(t)) for t in toks]
        fixed[:, _COL["w_pos"]] = [i / n for i in range(n)]
        fixed[:, _COL["w_pos_back"]] = [(n - 1 - i) / n for i in range(n)]
        fixed[:, _COL["w_window_content"]] = [float(w) for w in window]
        for name, words in (("w_hedge", _HEDGE), ("w_quantifier", _QUANTIFIER), ("w_causal", _CAUSAL),
                            ("w_temporal", _TEMPORAL), ("w_comparative", _COMPARATIVE)):
            fixed[:, _COL[name]] = [t in words for t in toks]
    return _ClaimWords(
        spans=tuple((m.start(), m.end()) for m in matches), toks=toks, keys=keys, content=content,
        order=tuple(i for i in range(n) if content[i]), window=window,
        tok_numbers=tuple(frozenset(normalised_numbers(t, claim=False)) if d else None for t, d in zip(toks, is_num)),
        bigrams=tuple(zip(toks, toks[1:])), trigrams=tuple(zip(toks, toks[1:], toks[2:])),
        relation=tuple(t for t in toks if t in _RELATION),
        negated=any(t in ("not", "no", "never") or t.endswith("n't") for t in toks), fixed=fixed,
    )


def claim_rows(claim: str, evidence: Union[str, FeatureEvidence], question: Optional[str], *, index: int = 0,
               sentence: int = 0, start: int = 0, given: frozenset[str] = frozenset()) -> WordRows:
    """Feature rows for every word of ``claim`` read against ``evidence``, its ``FeatureEvidence`` (a text is read
    here, for this claim alone; see the module docstring). ``index``, ``sentence`` and ``start``: the claim's number,
    its answer sentence and that sentence's offset in the answer; ``given``: numbers the question states of the
    user's own situation, never missing (``evidence.assess``)."""
    ev = evidence if isinstance(evidence, FeatureEvidence) else FeatureEvidence(evidence)
    cw = _claim_words(claim)
    spans = cw.spans
    n = len(spans)
    a = assess(claim, ev.index, question, _THRESHOLDS.max_sentences, given=given)
    rule = rule_of(a, _THRESHOLDS)
    if n == 0:
        return WordRows(spans, np.zeros((0, len(FEATURES)), dtype=np.float32), a, rule)
    toks, keys, content = cw.toks, cw.keys, cw.content
    qkeys = question_keys(question) if question else frozenset()
    sents = ev.index.keys
    best = sents[a.order[0]] if a.order else frozenset()
    chosen = frozenset().union(*(sents[i] for i in a.order)) if a.order else frozenset()
    cover = list(a.cover) + [a.cover[-1] if a.cover else 0.0] * (3 - len(a.cover))
    postings, counts, bigrams = ev.index.postings, ev.counts, ev.bigrams

    # the words of an amount the evidence writes otherwise ("two dozen" for "24") are found
    amount_words = amount_spans(claim, ev.index.amount_postings)
    in_amount = [any(s <= w_start < e for s, e in amount_words) for w_start, _ in spans]
    in_postings = [(k is not None and k in postings) or m for k, m in zip(keys, in_amount)]
    found = [p or (k is not None and t in counts) for p, k, t in zip(in_postings, keys, toks)]
    n_content = len(cw.order)
    # token distance in the evidence between each content word and the previous / next content word of the claim
    order = cw.order
    near_prev = [float(_FAR)] * n
    near_next = [float(_FAR)] * n
    for a_i, b_i in zip(order, order[1:]):
        dist = float(_distance(ev.positions.get(keys[a_i], []), ev.positions.get(keys[b_i], [])))
        near_next[a_i] = dist
        near_prev[b_i] = dist
    pairs = len(order) - 1
    pairs_near = sum(1 for i in order[1:] if near_prev[i] <= 8) / pairs if pairs > 0 else 0.0
    false_field = [k is not None and k in ev.false_keys for k in keys]
    relation = cw.relation
    bigram_in = [b in bigrams for b in cw.bigrams]
    claim_part = {
        "c_kind": _KIND_CODE[a.kind], "c_rule": _RULE_CODE[rule], "c_cover1": a.cover1,
        "c_cover_a": cover[0], "c_cover_b": cover[1], "c_cover_c": cover[2],
        "c_missing_numbers": float(len(a.missing_numbers)), "c_numbers": float(len(claim_numbers(claim))),
        "c_rival_cover": a.rival_cover, "c_negation_match": a.negation_match,
        "c_missing_names": float(len(a.missing_names)), "c_uncovered": float(len(a.uncovered)),
        "c_words": float(n), "c_content": float(n_content),
        "c_found_frac": sum(found) / max(n_content, 1), "c_bigram_frac": sum(bigram_in) / max(n - 1, 1),
        "c_index": float(index), "c_sentence": float(sentence), "c_start": math.log1p(start),
        "c_negated": float(cw.negated), "c_pairs_near": pairs_near, "c_false_fields": float(sum(false_field)),
        "c_relation_words": float(len(relation)),
        "c_relation_in_ev": sum(1 for t in relation if t in counts) / len(relation) if relation else 1.0,
    }
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
    # found content words within _WINDOW of each word, itself left out (a found word is a content word)
    ahead = [0]
    for f in found:
        ahead.append(ahead[-1] + f)

    out = cw.fixed.copy()
    out[:, _COL["w_key_in_ev"]] = in_postings
    out[:, _COL["w_raw_in_ev"]] = [t in counts for t in toks]
    out[:, _COL["w_ev_count"]] = [math.log1p(counts.get(t, 0)) for t in toks]
    out[:, _COL["w_in_question"]] = [k is not None and k in qkeys for k in keys]
    out[:, _COL["w_bigram_prev"]] = [False, *bigram_in]
    out[:, _COL["w_bigram_next"]] = [*bigram_in, False]
    if n > 1:
        out[:, _COL["w_trigram"]] = [False, *(t in ev.trigrams for t in cw.trigrams), False]
    out[:, _COL["w_in_best"]] = [k is not None and k in best for k in keys]
    out[:, _COL["w_in_chosen"]] = [k is not None and k in chosen for k in keys]
    out[:, _COL["w_number_in_ev"]] = [m or nums is not None and not (nums.isdisjoint(ev.numbers)
                                                                     and nums.isdisjoint(given))
                                      for nums, m in zip(cw.tok_numbers, in_amount)]
    out[:, _COL["w_window_found"]] = [
        (ahead[min(n, i + _WINDOW + 1)] - ahead[max(0, i - _WINDOW)] - found[i]) / max(w, 1)
        for i, w in enumerate(cw.window)]
    out[:, _COL["w_run_missing"]] = run
    out[:, _COL["w_near_prev"]] = [math.log1p(x) for x in near_prev]
    out[:, _COL["w_near_next"]] = [math.log1p(x) for x in near_next]
    out[:, _COL["w_false_field"]] = false_field
    out[:, _CLAIM_COLUMNS] = [claim_part[name] for name in CLAIM_FEATURES]
    out[:, _RECORD_COLUMNS] = record_part
    return WordRows(spans, out, a, rule)


AGGREGATE_FEATURES = ("p_max", "p_mean", "p_top3", "p_n20", "p_n50", "p_f20")
ANSWER_FEATURES = ("a_claims", "a_other_max", "a_mean_max", "a_n20", "a_words", "a_rank", "a_found_mean",
                   "a_missing", "a_near_mean")
#: Columns of the claim model: the word model's probabilities aggregated over the claim, the claim and record
#: features, and the same aggregates over all the claims judged together (the answer, at the global stage).
CLAIM_MODEL_FEATURES = AGGREGATE_FEATURES + ("c_n_words",) + CLAIM_FEATURES + RECORD_FEATURES + ANSWER_FEATURES
_M = {name: i for i, name in enumerate(CLAIM_MODEL_FEATURES)}
_M_CLAIM = _columns(CLAIM_MODEL_FEATURES, AGGREGATE_FEATURES + ("c_n_words",))
#: the claim and record columns, copied from a claim's first word row
_M_ROW = _columns(CLAIM_MODEL_FEATURES, CLAIM_FEATURES + RECORD_FEATURES)
_ROW_CLAIM = _columns(FEATURES, CLAIM_FEATURES + RECORD_FEATURES)
_M_ANSWER = _columns(CLAIM_MODEL_FEATURES, ANSWER_FEATURES)


def unsupported_words(rows: WordRows) -> list[bool]:
    """Per word of a claim: a content word (never a stop word) that the evidence lacks in every form the features
    read: its stem key, its raw token, its number (hyphenated words are read part by part: "bike" is in "e-bike").
    The only words a reason may call unsupported."""
    m = rows.matrix
    found = (m[:, _COL["w_key_in_ev"]] > 0) | (m[:, _COL["w_raw_in_ev"]] > 0) | (m[:, _COL["w_number_in_ev"]] > 0)
    return [bool(x) for x in (m[:, _COL["w_content"]] > 0) & ~found]


def claim_matrix(word_probs: Sequence[np.ndarray], rows: Sequence[WordRows]) -> np.ndarray:
    """Claim-model rows for claims judged together: ``word_probs[i]`` are the word model's P(hallucinated) for the
    words of claim i, ``rows[i]`` its feature rows."""
    n = len(rows)
    out = np.zeros((n, len(CLAIM_MODEL_FEATURES)), dtype=np.float32)
    for i, (p, r) in enumerate(zip(word_probs, rows)):
        if len(p) == 0:
            continue
        top = np.sort(p)[::-1]
        n20 = int((p >= 0.2).sum())
        # p_max, p_mean, p_top3, p_n20, p_n50, p_f20, c_n_words
        out[i, _M_CLAIM] = (top[0], p.mean(), top[:3].mean(), n20, (p >= 0.5).sum(), n20 / len(p), len(p))
        out[i, _M_ROW] = r.matrix[0, _ROW_CLAIM]
    if not n:
        return out
    maxes = out[:, _M["p_max"]]
    # the highest of the other claims' maxima: the answer's highest, or for the one claim holding it alone, the next
    ranked = np.sort(maxes)
    others = np.full(n, ranked[-1], dtype=np.float32)
    if n == 1:
        others[0] = 0.0
    elif ranked[-2] < ranked[-1]:
        others[maxes == ranked[-1]] = ranked[-2]
    answer = {
        "a_claims": np.full(n, n, dtype=np.float32), "a_other_max": others,
        "a_mean_max": np.full(n, maxes.mean(), dtype=np.float32),
        "a_n20": np.full(n, out[:, _M["p_n20"]].sum(), dtype=np.float32),
        "a_words": np.full(n, out[:, _M["c_n_words"]].sum(), dtype=np.float32),
        "a_rank": (maxes[None, :] > maxes[:, None]).sum(axis=1).astype(np.float32),
        "a_found_mean": np.full(n, out[:, _M["c_found_frac"]].mean(), dtype=np.float32),
        "a_missing": np.full(n, (out[:, _M["c_missing_numbers"]] + out[:, _M["c_missing_names"]]).sum(),
                             dtype=np.float32),
        "a_near_mean": np.full(n, out[:, _M["c_pairs_near"]].mean(), dtype=np.float32),
    }
    out[:, _M_ANSWER] = np.column_stack([answer[name] for name in ANSWER_FEATURES])
    return out
