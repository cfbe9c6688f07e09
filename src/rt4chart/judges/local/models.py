"""The local judge's model files: where they are, the model cards, the onnxruntime sessions and their inputs.

Two pairs of tree models (word model, claim model), each with a calibrator; the second pair (the semantic stage)
also reads the MiniLM tagger's probabilities (``tagger``) and has a span model. ``Models.predict`` runs one pair on
claims judged together.
"""

from __future__ import annotations

import json
import math
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Callable, NamedTuple, Optional, Sequence

import numpy as np

from ...errors import ConfigError, MissingDependencyError
from . import features as F
from . import tagger as T
from . import verifier as V
from .rules import decided_by_rule

MODEL_NAME = "local_judge"
WORD_MODEL = "local_judge_words.onnx"
CLAIM_MODEL = "local_judge_claims.onnx"
CARD = "local_judge.json"
#: the trees alone's calibrator (used when the local judge's card names one)
CALIBRATOR = "local_judge_calibrator.onnx"
# the semantic stage: the tagger (tagger.TAGGER_MODEL) and tree models that also read its probabilities
TAGGER_CARD = "local_tagger.json"
WORD_MODEL_T = "local_judge_words_tagger.onnx"
CLAIM_MODEL_T = "local_judge_claims_tagger.onnx"
#: the semantic stage's calibrator: P(the answer is hallucinated) given one claim's probability as its riskiest and
#: the record's shape and size (``CALIBRATOR_FEATURES``); used when the tagger's card names one (older model folders
#: decide on the claim probability)
CALIBRATOR_T = "local_judge_calibrator_tagger.onnx"
#: the calibrators' inputs: the claim model's probability (monotone: a riskier claim never lowers the answer's risk),
#: whether there is a question, whether the context is a record, the context's and the answer's length
CALIBRATOR_FEATURES = ("claim_p", "r_question_words", "r_ev_brace", "r_ev_chars", "a_words")
#: the short-context calibrators (trees alone, with the tagger): for a context shorter than the card's
#: ``short_calibrator.below_chars`` (shorter than almost every RAGTruth context the trees learned from), the claim
#: probability beside the claim's lexical coverage, fitted on the NLI sets that may train a shipped model
#: (``python -m training.world_calibrator``); used when the cards name them, with the features they name
CALIBRATOR_SHORT = "local_judge_calibrator_short.onnx"
CALIBRATOR_SHORT_T = "local_judge_calibrator_short_tagger.onnx"
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
#: the span model is fitted on the train words of claims whose out-of-fold claim probability reaches this (spans are
#: cut only in flagged claims); read by the training script
SPAN_MODEL_MIN_RISK = 0.10


def model_dir() -> Path:
    """The shipped models folder (package data)."""
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


def calibrator_rows(claim_p: np.ndarray, claim_matrix: np.ndarray,
                    features: Sequence[str] = CALIBRATOR_FEATURES, verdicts: Optional[V.Verdicts] = None
                    ) -> np.ndarray:
    """The calibrator's input rows, one per claim: its probability, then the columns ``features[1:]`` of
    ``claim_matrix`` (whose columns are ``F.CLAIM_MODEL_FEATURES``, then, for the semantic stage, the tagger's
    ``T.CLAIM_COLUMNS``), or of the claim verifier's ``verdicts`` (``V.COLUMNS``). ``features`` is the list the model
    card names (``CALIBRATOR_FEATURES`` for cards that name none)."""
    columns = F.CLAIM_MODEL_FEATURES + T.CLAIM_COLUMNS
    return np.column_stack([claim_p] + [verdicts.column(c) if verdicts is not None and c in V.COLUMNS else
                                        claim_matrix[:, columns.index(c)] for c in features[1:]])


def blend_short(short_risk: np.ndarray, trees_risk: np.ndarray, blend: float, lacks: np.ndarray) -> np.ndarray:
    """A blended short-context calibrator's risk of each claim (``Short.blend``): ``blend`` times its own risk plus
    the rest times the trees' calibrated risk, and the higher of that and the trees' where the claim has a number the
    evidence lacks (the claim verifier reads amounts worse than words: its number-form probes, docs/history.md)."""
    mixed = blend * short_risk + (1.0 - blend) * trees_risk if blend < 1.0 else short_risk
    return np.where(lacks, np.maximum(mixed, trees_risk), mixed)


def reads_verifier(features: Sequence[str]) -> bool:
    """True when a calibrator reading ``features`` reads the claim verifier's columns."""
    return any(c in V.COLUMNS for c in features)


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


class Short(NamedTuple):
    """A short-context calibrator: its session, its input columns, the context length it reads below (on the
    ``r_ev_chars`` scale, log1p of the characters), and its weight beside the trees' calibrator (1: its risk alone;
    w < 1: w times its risk plus 1 - w times the trees' calibrated risk)."""

    session: Any
    features: tuple[str, ...]
    below: float
    blend: float = 1.0


class Prediction(NamedTuple):
    """One tree pair's output for claims judged together."""

    word_p: list[np.ndarray]  #: per claim, per word: P(inside a hallucinated span)
    claim_p: np.ndarray  #: per claim: the calibrated answer risk were it the riskiest (else P(claim hallucinated))
    by_rule: np.ndarray  #: per claim: flagged by ``rules.decided_by_rule`` whatever the probability
    #: what a calibrator that reads the claim verifier still has to read (``Models.with_verifier``), or None when
    #: ``claim_p`` is final
    pending: Optional["Pending"] = None
    #: the claim verifier's reading where it counts for these claims (a calibrator that reads it decides their
    #: context: the one decision of where the verifier counts), else None
    verdicts: Optional[V.Verdicts] = None


class Pending(NamedTuple):
    """A prediction made without the claim verifier whose short-context calibrator reads it: the raw claim
    probabilities, the claim-model matrix, the trees' risk so far, which claims that calibrator reads and which lack
    a number the evidence has, and which pair (the tagged one or not) made it."""

    raw: np.ndarray
    matrix: np.ndarray
    risk: np.ndarray
    reads_short: np.ndarray
    lacks: np.ndarray
    tagged: bool


class Models:
    """The tree models' onnxruntime sessions (both pairs, their calibrators, the span model), the model cards, and
    the tagger, loaded on first use. Shared by every judge on one folder (``load``); safe to use from threads."""

    def __init__(self, directory: Path, threads: Optional[int]) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:  # pragma: no cover - is_available() guards the normal path
            raise MissingDependencyError("onnxruntime", "local", hint="pip install onnxruntime") from exc
        self.card = json.loads((directory / CARD).read_text())
        if self.card.get("feature_version") != F.VERSION or self.card.get("word_features") != list(F.FEATURES):
            raise ConfigError(f"the local judge model in {directory} was trained on feature version "
                              f"{self.card.get('feature_version')}, this rt4chart computes version {F.VERSION}; "
                              "retrain it with python -m training.train_local_judge")
        opts = ort.SessionOptions()
        # the trees take one thread whatever ``threads`` says (it sizes the tagger's pool): a few hundred rows are not
        # worth a pool, and a second pool spinning beside the tagger's slows every tagger call on a small machine
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
        self.calibrator = named(self.card, "calibrator", CALIBRATOR, "python -m training.train_local_judge")
        self.calibrator_features = tuple(self.card.get("calibrator", {}).get("features", CALIBRATOR_FEATURES))
        self.calibrator_features_t = CALIBRATOR_FEATURES
        retrain_short = "python -m training.world_calibrator fit"
        self.short = self._short(self.card, named(self.card, "short_calibrator", CALIBRATOR_SHORT, retrain_short))
        self.short_t: Optional[Short] = None
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
                                  "retrain it with python -m training.train_local_judge --semantic")
            self.has_tagger = True
            self.words_t, self.claims_t = session(WORD_MODEL_T), session(CLAIM_MODEL_T)
            retrain = "python -m training.train_local_judge --semantic"
            self.calibrator_t = named(trees, "calibrator", CALIBRATOR_T, retrain)
            self.spans_t = named(trees, "span_model", SPAN_MODEL_T, retrain)
            self.calibrator_features_t = tuple(trees.get("calibrator", {}).get("features", CALIBRATOR_FEATURES))
            self.short_t = self._short(trees, named(trees, "short_calibrator", CALIBRATOR_SHORT_T, retrain_short))
        # the claim verifier, when a short-context calibrator reads it
        self.verifier: Optional[V.Verifier] = None
        if any(s is not None and reads_verifier(s.features) for s in (self.short, self.short_t)):
            if not V.is_available(directory):
                raise ConfigError(f"the local judge in {directory} was calibrated with {V.VERIFIER_MODEL}, which is "
                                  "missing; reinstall rt4chart or retrain with python -m training.train_nli_verifier")
            self.verifier = V.Verifier(directory, threads)

    @staticmethod
    def _short(card: dict[str, Any], session: Any) -> Optional["Short"]:
        if session is None:
            return None
        spec = card["short_calibrator"]
        return Short(session, tuple(spec["features"]), math.log1p(float(spec["below_chars"])),
                     float(spec.get("blend", 1.0)))

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
    def run(session: Any, x: np.ndarray) -> np.ndarray:
        """P(positive) of each row of ``x`` from one tree model's session (its logit through a sigmoid)."""
        if len(x) == 0:
            return np.zeros(0)
        logit = session.run(None, {"X": np.ascontiguousarray(x, dtype=np.float32)})[0][:, 0]
        return 1.0 / (1.0 + np.exp(-logit.astype(np.float64)))

    def predict(self, rows: Sequence[F.WordRows], tagged: Optional[Sequence[np.ndarray]] = None,
                spared: Optional[np.ndarray] = None, verify: Optional[Callable[[], V.Verdicts]] = None
                ) -> Prediction:
        """Word probabilities per claim, claim probabilities, and which claims ``decided_by_rule`` flags (``spared``:
        its ``exempt`` mask), for claims judged together. With ``tagged`` (the tagger's probability of each claim
        word, ``nan`` outside its window), the semantic stage's tree models read those too, its calibrator (when
        installed) turns each claim probability into the answer's risk were that claim its riskiest, and its span
        model (when installed) gives the word probabilities returned. ``verify`` gives the verifier's probabilities of
        the claims (``V.COLUMNS``), called only when a short-context calibrator that reads them decides; without it,
        such a calibrator is left for ``with_verifier`` (the prediction's ``pending``) and the trees' risk stands."""
        if not rows:
            return Prediction([], np.zeros(0), np.zeros(0, dtype=bool))
        words, claims = (self.words, self.claims) if tagged is None else (self.words_t, self.claims_t)
        mats = [r.matrix for r in rows] if tagged is None else \
            [np.hstack([r.matrix, T.word_column(t)]) for r, t in zip(rows, tagged)]
        p = self.run(words, np.concatenate(mats))
        ends = np.cumsum([len(r.spans) for r in rows])[:-1]  # where each claim's words end in p
        per_claim = np.split(p, ends)
        matrix = F.claim_matrix(per_claim, rows)
        if tagged is not None:
            matrix = np.hstack([matrix, T.claim_columns(tagged)])
        claim_p = self.run(claims, matrix)
        by_rule = decided_by_rule(matrix, spared, claim_p)
        if tagged is not None and self.spans_t is not None:
            per_claim = np.split(self.run(self.spans_t, span_rows(per_claim, claim_p, tagged)), ends)
        calibrator, features = (self.calibrator, self.calibrator_features) if tagged is None else \
            (self.calibrator_t, self.calibrator_features_t)
        short = self.short if tagged is None else self.short_t
        # a short context's claims go to the short-context calibrator, but for those ``spared`` (remarks about the
        # sources, claims stating only the evidence's numbers: nothing an NLI pair is made of)
        reads_short = np.zeros(len(rows), dtype=bool)
        if short is not None and matrix[0, F.CLAIM_MODEL_FEATURES.index("r_ev_chars")] < short.below:
            reads_short = ~spared if spared is not None else np.ones(len(rows), dtype=bool)
        # a number the evidence lacks keeps the trees' risk where that is higher: the claim verifier reads amounts
        # worse than words (its number-form probes, docs/history.md)
        lacks = matrix[:, F.CLAIM_MODEL_FEATURES.index("c_missing_numbers")] > 0
        risk = claim_p
        blends = short is not None and short.blend < 1.0
        if calibrator is not None and (blends or not (reads_short & ~lacks).all()):  # the trees' calibrator is read
            risk = self.run(calibrator, calibrator_rows(claim_p, matrix, features))
        pending = Pending(claim_p, matrix, risk, reads_short, lacks, tagged is not None)
        # the one decision of where the verifier counts: a calibrator that reads it decides this context's claims
        # (all of them spared too: the verifier's reading still says which contradict the evidence)
        verifies = short is not None and reads_verifier(short.features) and \
            matrix[0, F.CLAIM_MODEL_FEATURES.index("r_ev_chars")] < short.below
        if verifies and verify is None:
            return Prediction(per_claim, risk, by_rule, pending)
        verdicts = verify() if verifies and verify is not None else None
        if not reads_short.any():
            return Prediction(per_claim, risk, by_rule, verdicts=verdicts)
        return Prediction(per_claim, self._short_risk(pending, verdicts), by_rule, verdicts=verdicts)

    def with_verifier(self, prediction: Prediction, verify: Callable[[], V.Verdicts]) -> Prediction:
        """``prediction`` with its short-context calibrator read, the claim verifier's reading (``verify``) among
        its inputs (``Prediction.pending``) and carried as its ``verdicts``; the trees are not read again. A final
        prediction is returned as it is."""
        if prediction.pending is None:
            return prediction
        verdicts = verify()
        return prediction._replace(claim_p=self._short_risk(prediction.pending, verdicts), pending=None,
                                   verdicts=verdicts)

    def _short_risk(self, pending: Pending, verdicts: Optional[V.Verdicts]) -> np.ndarray:
        """The claims' risk with the short-context calibrator read where it reads them (``blend_short``)."""
        short = self.short_t if pending.tagged else self.short
        short_risk = self.run(short.session, calibrator_rows(pending.raw, pending.matrix, short.features, verdicts))
        return np.where(pending.reads_short, blend_short(short_risk, pending.risk, short.blend, pending.lacks),
                        pending.risk)


@lru_cache(maxsize=4)
def load(directory: str, threads: Optional[int]) -> Models:
    """The models of ``directory``, loaded once per process for each ``threads``."""
    return Models(Path(directory), threads)
