"""The trained offline judge (``--judge local``; the default when no LLM is configured): two tree ensembles run
with onnxruntime, trained on the RAGTruth train split only by ``scripts/train_local_judge.py``.

For each claim, every word gets a feature row (``rt4chart.judges.features``: is it, its stem, its bigrams found in
the evidence; is it a number or a name; how well the best evidence sentences cover the claim; the lexical judge's
checks). The **word model** gives each word P(inside a hallucinated span). The **claim model** reads those
probabilities aggregated per claim and over all the claims judged together (at the global stage: the whole answer),
with the claim features, and gives P(claim is hallucinated). A small **calibrator** (``CALIBRATOR``, fitted on the
train answers, monotone in the claim probability) turns it into the answer's risk were that claim its riskiest, given
whether there is a question, whether the context is a record, and the context's and the answer's lengths: the same
claim probability means more risk in some inputs than in others. That risk is ``Judgment.score``.

A claim is hallucinated when that risk reaches ``threshold`` (from the model card; ``--threshold``
overrides). It is then ``contradicted`` when the lexical checks found a conflicting number or negation in the
evidence (that sentence is the evidence), else ``baseless``; its ``Judgment.spans`` are its words whose word
probability reaches ``word_threshold`` (its likeliest word when none does), so answer spans are narrower than the
claim. A claim that copies an evidence sentence but for one edit (another name, number word or closed-class word in
one place, "... is in London" against "... is in Paris", "330 metres wide" against "330 metres tall"; a negation the
sentence does not have, or none where it has one; ``rt4chart.text.lexical.one_edit``) is
``contradicted`` whatever the model says, the edited words its span: RAGTruth has almost no such edits, so the
models never learned them. A claim of ``MIN_UNSEEN_WORDS`` content words or more, none of them in the evidence, is
``baseless`` whatever the model says (``unseen_claims``), unless it is a remark about the sources or the conversation
("If you have any further questions, feel free to ask.") or states only numbers of the evidence
(``shares_something``), or the model puts it below ``UNSEEN_MIN_RISK`` ("offers takeout services." against a
record's ``"RestaurantsTakeOut": true``). An ``entailed`` claim's evidence is the sentences that best cover its content
words; a claim with nothing checkable (a meta sentence, a restated question) gets none, which the auditor reports as
``unverified``.

**Semantic stage** (global verification only; ``semantic=False`` or ``--no-tagger`` turns it off). Unless the
trees alone find every claim clearly supported (``SKIP_TAGGER_BELOW``; in a short answer, a short claim with an
unmatched word is not, ``SHORT_CLAIM_WORDS``), the MiniLM token tagger of
``rt4chart.judges.tagger`` reads the claims against the context once, and a second pair of tree models, trained the
same way with the tagger's word probabilities as extra columns (``tagger.WORD_COLUMNS``, ``tagger.CLAIM_COLUMNS``),
gives the probabilities instead, with its own calibrator (``CALIBRATOR_T``) and a **span model**
(``SPAN_MODEL_T``) that reads each word's probability beside its neighbours' and the claim's: RAGTruth's spans are
phrases. Its threshold and the word threshold are in ``models/local_tagger.json``. Local chunks get the trees alone:
they are search hints, and the global pass decides.

Runtime needs only numpy, onnxruntime and tokenizers (core dependencies): no torch, no scikit-learn. The models
(``models/local_judge_*.onnx``, about 2.6 MB; ``models/local_tagger.onnx``, 23 MB, int8) ship in the wheel.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from ..errors import ConfigError, MissingDependencyError
from ..text.lexical import one_edit
from ..types import Claim, Judgment, Label, Span, Stage
from . import features as F
from . import tagger as T
from .lexical import claim_numbers, evidence_numbers, is_remark

MODEL_NAME = "local_judge"
WORD_MODEL = "local_judge_words.onnx"
CLAIM_MODEL = "local_judge_claims.onnx"
CARD = "local_judge.json"
# the semantic stage: the tagger (tagger.TAGGER_MODEL) and tree models that also read its probabilities
TAGGER_CARD = "local_tagger.json"
WORD_MODEL_T = "local_judge_words_tagger.onnx"
CLAIM_MODEL_T = "local_judge_claims_tagger.onnx"
#: the semantic stage's calibrator: P(the answer is hallucinated) given one claim's probability as its riskiest and
#: the record's shape and size (``CALIBRATOR_FEATURES``); used when the tagger's card names one (older model folders
#: decide on the claim probability)
CALIBRATOR_T = "local_judge_calibrator_tagger.onnx"
#: the trees alone's calibrator, fitted the same way (used when the local judge's card names one)
CALIBRATOR = "local_judge_calibrator.onnx"
#: the calibrator's inputs: the claim model's probability (monotone: a riskier claim never lowers the answer's risk),
#: whether there is a question, whether the context is a record, the context's and the answer's length
CALIBRATOR_FEATURES = ("claim_p", "r_question_words", "r_ev_brace", "r_ev_chars", "a_words")
#: the semantic stage's span model: P(word inside a hallucinated span) again, from the word model's probability of the
#: word beside those of its neighbours in the claim and the claim's own risk (RAGTruth's spans are phrases, and the
#: word model reads each word alone); its output is what ``word_threshold`` cuts. Used when the tagger's card names it
SPAN_MODEL_T = "local_judge_spans_tagger.onnx"
#: its inputs, per word: the word model's probability, those of the two words before and after it in the claim
#: (``tagger.MISSING`` past the claim's ends), the claim's highest and mean word probability, the word's relative
#: position and the claim's word count, the claim model's probability (before the calibrator), the word's rank by
#: probability within the claim (0 the likeliest), and the tagger's probability of the word (``tagger.MISSING``
#: beyond its window: the ONNX trees have no branch for ``nan``)
SPAN_FEATURES = ("p", "p_prev", "p_prev2", "p_next", "p_next2", "p_claim_max", "p_claim_mean", "position",
                 "claim_words", "claim_p", "rank", "w_tagger")
#: the span model was fitted on the train words of claims whose out-of-fold claim probability reached this: spans
#: are cut only in flagged claims, and the words of clearly supported claims taught it little (on the validation
#: slice, fitting on every word gave span F1 0.4983, on these 0.5002, against 0.4959 for the word model alone)
SPAN_MODEL_MIN_RISK = 0.10
_BRIDGE = 3  # flagged words separated by at most this many characters (spaces, punctuation) form one span
#: a claim with at least this many content words, none of which occurs anywhere in the evidence, is baseless
#: whatever the model says (RAGTruth's short unsupported fragments taught it a lower risk; see unseen_claims)
MIN_UNSEEN_WORDS = 3
#: ... unless the model itself puts it below this risk. Fitted on RAGTruth train outside the validation slice, with
#: out-of-fold claim probabilities of the semantic pair: of the 1,116 claims the rule forced there, the 250 under
#: 0.05 were 1.6 % gold-hallucinated ("offers takeout services.", "is well-regarded by its customers."), those from
#: 0.05 to the threshold 15 %; answer F1 over the train answers rose from 0.7493 (the rule with no floor) to 0.7533
#: (0.05; 0.7550 with no rule at all). "A dog barked loudly" against "A cat." gets 0.09 from the trees alone and
#: stays baseless.
UNSEEN_MIN_RISK = 0.05
#: a claim stating a number absent from the evidence, whose other content words a number-stating evidence sentence
#: covers at least this well, is contradicted whatever the model says (see number_swaps)
NUMBER_SWAP_COVER = 0.8


#: at global verification, claims whose riskiest one the trees alone put below this (their calibrator's answer risk),
#: with no rule firing, are decided by the trees without the tagger. On the validation slice
#: (scripts/semantic_cascade.py, session 12): 0.28 skips 38.6% of the answers for answer F1 0.7350, against 0.7400
#: with the tagger on every answer; 0.22 skips 31.6% for 0.7390; the raw rule it replaces (0.10 on the claim
#: probability, below) skipped 32.5% for 0.7361. The speed benchmark (300 test answers, three runs each): median 98.0 ms
#: at 0.28, 102.8 ms at 0.22
SKIP_TAGGER_BELOW = 0.28
#: the same for model folders whose trees alone have no calibrator (on their claim probability). On the validation
#: slice (scripts/semantic_cascade.py), before the semantic stage's calibrator: 0.10 skipped 32% of the answers for
#: answer F1 0.7169, against 0.7160 with the tagger on every answer. With it (session 11): 0.10 skips 32% for 0.7361,
#: against 0.7400 on every answer; 0.08 skips 26% for 0.7404, but put the speed benchmark's median at 102.9 ms against
#: 100.0 (one benchmark each, three runs); 0.11 to 0.15 skip 35-47% and lose 0.010-0.014
SKIP_TAGGER_BELOW_UNCALIBRATED = 0.10
#: ... unless the answer is short (at most ``SHORT_ANSWER_CLAIMS`` claims) and a claim of at most
#: ``SHORT_CLAIM_WORDS`` words has a content word that the evidence sentences matching it best do not have. The trees
#: learned from RAGTruth's long answers that one unmatched word is mostly a paraphrase, and pass "The Eiffel Tower is
#: made of wood" (P 0.08) against five sentences saying wrought iron, which the tagger flags (0.24; against four of
#: them it does not, 0.15: the rule lets the better reader decide, it does not decide). On the validation
#: slice this changes no answer (RAGTruth has few short answers; the tagger runs on 67.7% of them either way), and
#: over the speed benchmark's 300 test answers, timed in turn in one process, the median stayed at 115 to 116 ms.
#: Without the answer-length condition, the tagger ran on 76% of the validation answers instead of 68% (answer F1
#: 0.7221, span F1 0.4887, against 0.7222 and 0.4890, both with a one-edit misfire since fixed) and the benchmark's
#: median rose from 115 to 126 ms.
SHORT_CLAIM_WORDS = 8
SHORT_ANSWER_CLAIMS = 2


def unseen_claims(claim_matrix: np.ndarray) -> np.ndarray:
    """Which rows of a claim matrix are claims sharing no content word with the evidence, with at least
    ``MIN_UNSEEN_WORDS`` of them. Gold labels call only 23 % of such RAGTruth train claims hallucinated (most are
    headers and generic fragments, which do not reach three content words as often), so the model gives them a low
    risk; a user reading "A dog barked loudly" against "A cat." expects baseless. Cost 0.003 validation F1 before the
    exemptions of ``shares_something`` (session 10)."""
    col = F.CLAIM_MODEL_FEATURES.index
    return ((claim_matrix[:, col("c_rule")] == F.RULES.index("no-evidence"))
            & (claim_matrix[:, col("c_content")] >= MIN_UNSEEN_WORDS))


def shares_something(text: str, evidence: str) -> bool:
    """Whether a claim that shares no content word with ``evidence`` is still not one that ``unseen_claims`` should
    force to baseless: a remark (``is_remark``), or a claim whose numbers all occur in the evidence ("They operate
    daily from 10:00 to 20:00" against a record's ``"10:0-20:0"``). The trees decide these. Fitted on RAGTruth train:
    of the 1,288 claims the rule forces outside the validation slice (26 % gold-hallucinated), 105 are remarks (6 %
    gold) and 67 more state only numbers of the evidence (13 % gold); see docs/results/local_judge.md, session 10."""
    if is_remark(text):
        return True
    numbers = claim_numbers(text)
    return bool(numbers) and numbers <= evidence_numbers(evidence)


def exempt(claims: Sequence[Claim], rows: Sequence[F.WordRows], evidence: str) -> np.ndarray:
    """Which claims share no content word with the evidence but ``shares_something`` with it: exempt from
    ``unseen_claims`` (only those claims are read: the others cannot be unseen)."""
    return np.array([r.rule == "no-evidence" and shares_something(c.text, evidence) for c, r in zip(claims, rows)],
                    dtype=bool)


def number_swaps(claim_matrix: np.ndarray) -> np.ndarray:
    """Which rows of a claim matrix are near-copies of an evidence sentence with another number ("revenue of $5.1
    billion" against "revenue of $4.2 billion"): the lexical number conflict with the rival sentence covering at
    least ``NUMBER_SWAP_COVER`` of the claim. The model alone lets them pass, because the lexical number check misfires
    on RAGTruth (only 54 % of its train conflicts are gold hallucinations); near-copies are rare there (1 of 11,000
    validation claims) and cost no validation F1."""
    col = F.CLAIM_MODEL_FEATURES.index
    return ((claim_matrix[:, col("c_rule")] == F.RULES.index("number-conflict"))
            & (claim_matrix[:, col("c_rival_cover")] >= NUMBER_SWAP_COVER))


def negation_flips(claim_matrix: np.ndarray) -> np.ndarray:
    """Which rows of a claim matrix are an evidence sentence with the opposite negation and otherwise the same
    content words ("flash is permitted" against "flash is not permitted"): the lexical negation conflict, which
    requires coverage both ways. Six claims in all of RAGTruth train, so the model never learned it."""
    return claim_matrix[:, F.CLAIM_MODEL_FEATURES.index("c_rule")] == F.RULES.index("negation-conflict")


def decided_by_rule(claim_matrix: np.ndarray, spared: Optional[np.ndarray] = None,
                    risk: Optional[np.ndarray] = None) -> np.ndarray:
    """Claims flagged whatever the model's probability: ``unseen_claims`` (but those ``spared``, a mask from
    ``exempt``, and those whose ``risk``, the model's claim probabilities, is below ``UNSEEN_MIN_RISK``),
    ``number_swaps``, ``negation_flips``."""
    unseen = unseen_claims(claim_matrix)
    if spared is not None:
        unseen &= ~spared
    if risk is not None:
        unseen &= risk >= UNSEEN_MIN_RISK
    return unseen | number_swaps(claim_matrix) | negation_flips(claim_matrix)


def calibrator_rows(claim_p: np.ndarray, claim_matrix: np.ndarray) -> np.ndarray:
    """The calibrator's input rows (``CALIBRATOR_FEATURES``), one per claim: its probability beside the record and
    answer features of ``claim_matrix`` (whose columns start with ``F.CLAIM_MODEL_FEATURES``, the semantic stage's
    tagger columns or not)."""
    col = F.CLAIM_MODEL_FEATURES.index
    return np.column_stack([claim_p] + [claim_matrix[:, col(c)] for c in CALIBRATOR_FEATURES[1:]])


def span_rows(word_p: Sequence[np.ndarray], claim_p: np.ndarray, tagged: Sequence[np.ndarray]) -> np.ndarray:
    """The span model's input rows (``SPAN_FEATURES``), one per word of each claim, in order: ``word_p`` and
    ``tagged`` (the word model's and the tagger's probabilities of each claim's words), ``claim_p`` (the claim model's
    probability of each claim)."""
    out = [np.zeros((0, len(SPAN_FEATURES)))]
    for p, q, t in zip(word_p, claim_p, tagged):
        n = len(p)
        if n == 0:
            continue
        pad = np.r_[T.MISSING, T.MISSING, p, T.MISSING, T.MISSING]
        rank = np.empty(n)
        rank[np.argsort(-p, kind="stable")] = np.arange(n)
        out.append(np.column_stack([p, pad[1:n + 1], pad[:n], pad[3:n + 3], pad[4:n + 4], np.full(n, p.max()),
                                    np.full(n, p.mean()), np.arange(n) / max(n - 1, 1), np.full(n, n),
                                    np.full(n, q), rank / n, T.word_column(t)[:, 0]]))
    return np.concatenate(out)


def _word_spans(rows: F.WordRows, word_p: np.ndarray, word_threshold: float) -> tuple[Span, ...]:
    """A flagged claim's spans: its words at or over ``word_threshold``, joined (``merge_words``)."""
    return tuple(Span(start=s, end=e) for s, e in merge_words(
        [(s, e, float(p)) for (s, e), p in zip(rows.spans, word_p)], word_threshold))


def model_dir() -> Path:
    return Path(str(resources.files("rt4chart.judges") / "models"))


def is_available(directory: Optional[Path] = None) -> bool:
    """True when the model files and onnxruntime are present."""
    d = directory or model_dir()
    if not all((d / name).exists() for name in (WORD_MODEL, CLAIM_MODEL, CARD)):
        return False
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def merge_words(words: Sequence[tuple[int, int, float]], threshold: float) -> list[tuple[int, int]]:
    """Spans of the words ``(start, end, p)`` of one flagged claim with ``p >= threshold``, adjacent words merged;
    when no word reaches the threshold (the claim was flagged as a whole), its likeliest word alone."""
    if not words:
        return []
    picked = sorted((s, e) for s, e, p in words if p >= threshold)
    if not picked:
        s, e, _ = max(words, key=lambda w: w[2])
        return [(s, e)]
    out = [picked[0]]
    for s, e in picked[1:]:
        if s - out[-1][1] <= _BRIDGE:
            out[-1] = (out[-1][0], max(e, out[-1][1]))
        else:
            out.append((s, e))
    return out


class _Models:
    """The two onnxruntime sessions and the model card."""

    def __init__(self, directory: Path, threads: Optional[int]) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:  # pragma: no cover - is_available() guards the normal path
            raise MissingDependencyError("onnxruntime", "local", hint="pip install onnxruntime") from exc
        self.card = json.loads((directory / CARD).read_text())
        if self.card.get("feature_version") != F.VERSION or self.card.get("word_features") != list(F.FEATURES):
            raise ConfigError(f"the local judge model in {directory} was trained on feature version "
                              f"{self.card.get('feature_version')}, this rt4chart computes version {F.VERSION}; "
                              "retrain it with scripts/train_local_judge.py")
        opts = ort.SessionOptions()
        # the trees take one thread whatever ``threads`` says (it sizes the tagger's pool): a few hundred rows are not
        # worth a pool, and with threads=2 the trees' pool spinning beside the tagger's on a 2-core machine made each
        # tagger call 38% slower (benchmarks/local_judge_speed.py --threads 2, 90 records: median 184 -> 125 ms)
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1

        def session(name: str) -> Any:
            return ort.InferenceSession(str(directory / name), opts, providers=["CPUExecutionProvider"])

        def named(trees: dict[str, Any], key: str, name: str, retrain: str) -> Any:
            """The session of ``name`` when the card's ``trees`` name it (its thresholds are then on that model's
            scale; older model folders have none): a missing file is an error, not a silently mis-scaled threshold."""
            if key not in trees:
                return None
            if not (directory / name).exists():
                raise ConfigError(f"the local judge in {directory} was calibrated with {name}, which is missing; "
                                  f"reinstall rt4chart or retrain with {retrain}")
            return session(name)

        self.words, self.claims = session(WORD_MODEL), session(CLAIM_MODEL)
        self.calibrator = named(self.card, "calibrator", CALIBRATOR, "scripts/train_local_judge.py")
        # the semantic stage, when its files (and the tokenizers package) are present; the tagger itself loads on
        # first use (``tagger``)
        self.has_tagger = False
        self._tagger: Optional[T.Tagger] = None
        self._tagger_args = (directory, threads)
        self._tagger_lock = threading.Lock()
        self.tagger_card: dict[str, Any] = {}
        self.words_t = self.claims_t = self.calibrator_t = self.spans_t = None
        if all((directory / f).exists() for f in (TAGGER_CARD, WORD_MODEL_T, CLAIM_MODEL_T)) \
                and T.is_available(directory):
            self.tagger_card = json.loads((directory / TAGGER_CARD).read_text())
            trees = self.tagger_card.get("trees", {})
            if trees.get("feature_version") != F.VERSION or trees.get("word_features") != [*F.FEATURES,
                                                                                          *T.WORD_COLUMNS]:
                raise ConfigError(f"the local judge's semantic stage in {directory} was trained on feature version "
                                  f"{trees.get('feature_version')}, this rt4chart computes version {F.VERSION}; "
                                  "retrain it with scripts/train_local_judge.py --semantic")
            self.has_tagger = True
            self.words_t, self.claims_t = session(WORD_MODEL_T), session(CLAIM_MODEL_T)
            retrain = "scripts/train_local_judge.py --semantic"
            self.calibrator_t = named(trees, "calibrator", CALIBRATOR_T, retrain)
            self.spans_t = named(trees, "span_model", SPAN_MODEL_T, retrain)

    @property
    def tagger(self) -> Optional[T.Tagger]:
        """The tagger (None when not installed), loaded on first use: about 0.25 s and 70 MB that the trees alone
        (``--no-tagger``) never pay."""
        if not self.has_tagger:
            return None
        with self._tagger_lock:
            if self._tagger is None:
                self._tagger = T.Tagger(*self._tagger_args)
        return self._tagger

    @staticmethod
    def _run(session: Any, x: np.ndarray) -> np.ndarray:
        if len(x) == 0:
            return np.zeros(0)
        logit = session.run(None, {"X": np.ascontiguousarray(x, dtype=np.float32)})[0][:, 0]
        return 1.0 / (1.0 + np.exp(-logit.astype(np.float64)))

    def predict(self, rows: Sequence[F.WordRows], tagged: Optional[Sequence[np.ndarray]] = None,
                spared: Optional[np.ndarray] = None) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
        """Word probabilities per claim, claim probabilities, and which claims ``decided_by_rule`` flags (``spared``:
        its ``exempt`` mask), for claims judged together. With ``tagged`` (the tagger's probability of each claim
        word, ``nan`` outside its window), the semantic stage's tree models read those too, its calibrator (when
        installed) turns each claim probability into the answer's risk were that claim its riskiest, and its span
        model (when installed) gives the word probabilities returned."""
        if not rows:
            return [], np.zeros(0), np.zeros(0, dtype=bool)
        words, claims = (self.words, self.claims) if tagged is None else (self.words_t, self.claims_t)
        mats = [r.matrix for r in rows] if tagged is None else \
            [np.hstack([r.matrix, T.word_column(t)]) for r, t in zip(rows, tagged)]
        p = self._run(words, np.concatenate(mats))
        ends = np.cumsum([len(r.spans) for r in rows])[:-1]  # where each claim's words end in p
        per_claim = np.split(p, ends)
        matrix = F.claim_matrix(per_claim, rows)
        if tagged is not None:
            matrix = np.hstack([matrix, T.claim_columns(tagged)])
        claim_p = self._run(claims, matrix)
        by_rule = decided_by_rule(matrix, spared, claim_p)
        if tagged is not None and self.spans_t is not None:
            per_claim = np.split(self._run(self.spans_t, span_rows(per_claim, claim_p, tagged)), ends)
        calibrator = self.calibrator if tagged is None else self.calibrator_t
        if calibrator is not None:
            claim_p = self._run(calibrator, calibrator_rows(claim_p, matrix))
        return per_claim, claim_p, by_rule


@lru_cache(maxsize=4)
def _load(directory: str, threads: Optional[int]) -> _Models:
    return _Models(Path(directory), threads)


class LocalJudge:
    """Offline trained judge (see the module docstring). Shares one loaded model per process.

    ``threads`` sizes the tagger's onnxruntime pool (default: the CPU count, at most 4); the tree models always take
    one thread. ``semantic=False`` keeps the trees alone (``--no-tagger``)."""

    name = "local"

    def __init__(self, *, threshold: Optional[float] = None, word_threshold: Optional[float] = None,
                 threads: Optional[int] = None, directory: Optional[Path] = None, semantic: bool = True) -> None:
        d = Path(directory) if directory else model_dir()
        if not is_available(d):
            raise ConfigError(f"no trained local judge model in {d}; train one with scripts/train_local_judge.py "
                              "or use --judge lexical")
        self._models = _load(str(d), threads)
        card = self._models.card
        #: the semantic stage (the tagger) runs at global verification when its model is present
        self.semantic = semantic and self._models.has_tagger
        tcard = self._models.tagger_card if self.semantic else {}
        # thresholds: (claim, word) for claims the trees decide alone, and for claims the tagger also read; the
        # threshold and word_threshold arguments (--threshold) override both
        self._cuts = {
            False: (float(threshold if threshold is not None else card["threshold"]),
                    float(word_threshold if word_threshold is not None else card["word_threshold"])),
            True: (float(threshold if threshold is not None else tcard.get("threshold", card["threshold"])),
                   float(word_threshold if word_threshold is not None
                         else tcard.get("word_threshold", card["word_threshold"]))),
        }
        for name, value in (("threshold", self._cuts[False][0]), ("word_threshold", self._cuts[False][1])):
            if not 0.0 < value < 1.0:
                raise ConfigError(f"{name} must be in (0, 1), got {value}")
        self.threshold, self.word_threshold = self._cuts[self.semantic]
        self._lock = threading.Lock()
        # the last few feature rows and decisions: a context of at most W sentences is one chunk equal to C, so the
        # local and the global pass read the same claims against the same text (half of RAGTruth's answers); they
        # share the rows and the trees' prediction, and the decision too unless the global pass runs the tagger
        self._recent: OrderedDict[tuple, dict[Any, Any]] = OrderedDict()

    @property
    def card(self) -> dict[str, Any]:
        """The model card: training data, validation metrics, thresholds, versions."""
        return dict(self._models.card)

    def score(self, claims: Sequence[Claim], evidence: str, question: Optional[str], *, semantic: bool = False,
              rows: Optional[list[F.WordRows]] = None, memo: Optional[dict[Any, Any]] = None,
              ) -> tuple[list[F.WordRows], list[np.ndarray], np.ndarray, np.ndarray, bool]:
        """Feature rows, word probabilities, claim probabilities, the ``decided_by_rule`` mask of claims read
        together against ``evidence``, and whether the tagger read them: with ``semantic``, it does unless the trees
        alone find the claims clearly supported (``SKIP_TAGGER_BELOW``, ``SHORT_CLAIM_WORDS``). ``memo`` keeps the
        trees' own prediction for another pass over the same ``rows``."""
        if rows is None:
            rows = self.rows(claims, evidence, question)
        memo = {} if memo is None else memo
        if "trees" not in memo:
            memo["spared"] = exempt(claims, rows, evidence)
            memo["trees"] = self._models.predict(rows, spared=memo["spared"])
        word_p, claim_p, by_rule = memo["trees"]
        if not (semantic and self._models.has_tagger and rows):
            return rows, word_p, claim_p, by_rule, False
        # a short answer with a short claim that has an unmatched word is not clearly supported (SHORT_CLAIM_WORDS)
        short_unmatched = len(rows) <= SHORT_ANSWER_CLAIMS and any(
            len(r.spans) <= SHORT_CLAIM_WORDS and r.assessment is not None and r.assessment.uncovered for r in rows)
        below = SKIP_TAGGER_BELOW if self._models.calibrator is not None else SKIP_TAGGER_BELOW_UNCALIBRATED
        if claim_p.max() < below and not by_rule.any() and not short_unmatched:
            return rows, word_p, claim_p, by_rule, False
        word_p, claim_p, by_rule = self._models.predict(rows, self.tag(claims, evidence, question, rows),
                                                        spared=memo["spared"])
        return rows, word_p, claim_p, by_rule, True

    @staticmethod
    def rows(claims: Sequence[Claim], evidence: str, question: Optional[str]) -> list[F.WordRows]:
        """The word feature rows of each claim against ``evidence``."""
        return [F.claim_rows(c.text, evidence, question, index=c.index, sentence=c.sentence_index,
                             start=c.answer_spans[0].start if c.answer_spans else 0) for c in claims]

    def tag(self, claims: Sequence[Claim], evidence: str, question: Optional[str],
            rows: Sequence[F.WordRows]) -> list[np.ndarray]:
        """The tagger's P(hallucinated) of each word of each claim (``nan`` beyond its 512-token window)."""
        tagger = self._models.tagger
        if tagger is None:
            raise ConfigError("the local judge's tagger is not installed")
        enc, starts = tagger.encoder.encode_claims(question, evidence, [c.text for c in claims])
        token_p = tagger.probabilities(enc)
        return [T.word_probabilities(enc, token_p, start, r.spans) for start, r in zip(starts, rows)]

    def _decide(self, claims: Sequence[Claim], evidence: str, question: Optional[str],
                semantic: bool) -> list[Judgment]:
        key = (evidence, question, tuple((c.text, c.index, c.sentence_index, c.answer_spans) for c in claims))
        with self._lock:  # feature building is pure Python (GIL-bound): one pass at a time, no thrashing
            seen = self._recent.get(key)
            if seen is None:
                seen = self._recent[key] = {}
                if len(self._recent) > 8:
                    self._recent.popitem(last=False)
            self._recent.move_to_end(key)
            if semantic not in seen:
                if "rows" not in seen:
                    seen["rows"] = self.rows(claims, evidence, question)
                seen[semantic] = self._judgments(claims, evidence, question, semantic, seen["rows"], memo=seen)
            return list(seen[semantic])

    def _judgments(self, claims: Sequence[Claim], evidence: str, question: Optional[str],
                   semantic: bool = False, rows: Optional[list[F.WordRows]] = None,
                   memo: Optional[dict[Any, Any]] = None) -> list[Judgment]:
        rows, word_p, claim_p, by_rule, tagged = self.score(claims, evidence, question, semantic=semantic, rows=rows,
                                                            memo=memo)
        version = f"{MODEL_NAME}@{self._models.card.get('version', '?')}"
        if tagged:
            version += f"+tagger@{self._models.tagger_card.get('version', '?')}"
        threshold, word_threshold = self._cuts[tagged]
        out = []
        texts = F.sentence_texts(evidence)
        for claim, rows_i, wp, q, forced in zip(claims, rows, word_p, claim_p, by_rule):
            a = rows_i.assessment
            q = float(q)
            if forced and rows_i.rule == "no-evidence":
                # the score stays the model's risk, raised to the threshold so that it agrees with the label; the
                # spans are the likeliest words, as for any flagged claim (and as the word threshold was calibrated)
                out.append(Judgment(label=Label.BASELESS, score=round(max(q, threshold), 4),
                                    prompt_version=version, spans=_word_spans(rows_i, wp, word_threshold),
                                    reason=f"none of the claim's content words occurs in the evidence "
                                    f"(model P(hallucinated)={q:.2f})"))
                continue
            if forced:
                q = max(q, threshold)  # a number swap or negation flip: flagged, the score agrees
            edit = None if forced else one_edit(claim.text, texts)
            if edit is not None:  # an evidence sentence copied but for one edit: flagged, whatever the model says
                q = max(q, threshold)
                out.append(Judgment(label=Label.CONTRADICTED, evidence=(texts[edit.sentence],), score=round(q, 4),
                                    spans=(Span(start=edit.start, end=edit.end),), prompt_version=version,
                                    reason=f"P(hallucinated)={q:.2f}: {edit.describe()}"))
                continue
            if q >= threshold:
                spans = _word_spans(rows_i, wp, word_threshold)
                if rows_i.rule in ("number-conflict", "negation-conflict"):
                    quote = texts[a.rival if rows_i.rule == "number-conflict" else a.order[0]]
                    why = "a number in the claim differs from" if rows_i.rule == "number-conflict" else \
                        "the claim has the opposite negation of"
                    out.append(Judgment(label=Label.CONTRADICTED, evidence=(quote,), score=round(q, 4), spans=spans,
                                        reason=f"P(hallucinated)={q:.2f}: {why} the closest evidence sentence",
                                        prompt_version=version))
                else:
                    ranked = sorted(zip(wp, rows_i.spans), key=lambda x: -x[0])
                    top_words = ", ".join(list(dict.fromkeys(claim.text[s:e] for p, (s, e) in ranked
                                                             if p >= word_threshold))[:8])
                    missing = f"; unsupported words: {top_words}" if top_words else ""
                    out.append(Judgment(label=Label.BASELESS, score=round(q, 4), spans=spans,
                                        reason=f"P(hallucinated)={q:.2f} >= {threshold:.2f}{missing}",
                                        prompt_version=version))
                continue
            quotes = tuple(texts[i] for i in sorted(a.order[:3])) if a is not None and a.order else ()
            out.append(Judgment(label=Label.ENTAILED, evidence=quotes, score=round(q, 4),
                                reason=f"P(hallucinated)={q:.2f} < {threshold:.2f}"
                                + ("" if quotes else "; nothing in the claim to check against the evidence"),
                                prompt_version=version))
        return out

    async def judge(
        self,
        claims: Sequence[Claim],
        evidence: str,
        *,
        question: Optional[str],
        stage: Stage,
        local_labels: Optional[Sequence[Label]] = None,
        hints: Optional[Sequence[Optional[str]]] = None,
    ) -> list[Judgment]:
        if not claims:
            return []
        # onnxruntime releases the GIL; keep the event loop free for other records and requests
        # the tagger reads the whole context once, at global verification; local chunks get the trees alone
        return await asyncio.to_thread(self._decide, claims, evidence, question,
                                       self.semantic and stage == "global")

