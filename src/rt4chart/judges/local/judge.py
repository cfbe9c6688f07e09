"""``LocalJudge``: the trained offline judge (``--judge local``), its scores and its decisions. The package
docstring (``rt4chart.judges.local``) says how it decides."""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, fields
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Callable, NamedTuple, Optional, Sequence, Union

import numpy as np

from ...errors import ConfigError
from ...evidence import (
    content_words, derive, given_numbers, holds, one_edit, original_offset, premise, read_as, restated,
)
from ...types import Claim, Judgment, Label, Span, Stage
from ..judge_options import LocalOptions
from . import features as F
from . import rules as R
from . import tagger as T
from . import verifier as V
from .models import MODEL_NAME, Prediction, is_available, load
from .models import model_dir as shipped_models
from .spans import word_spans

#: an evidence text, or what the features read of it (``features.FeatureEvidence``)
Evidence = Union[str, F.FeatureEvidence]

#: evidence texts whose ``FeatureEvidence`` a judge keeps (``LocalJudge.evidence``): the answers to one context come
#: one after another in a batch or an eval, and a context's chunks and the context itself are judged in turn
EVIDENCE = 64
#: claim sets whose reading and decisions a judge keeps (``_Recent``): the local and the global pass of one record
#: read the same claims against the same text when the context is a single chunk
RECENT = 8


@dataclass(frozen=True, eq=False)
class Reading:
    """Claims read against one evidence text by the trees alone: each claim's word feature ``rows``, which claims
    ``rules.exempt`` ``spared`` from the unseen rule, and the ``trees``' prediction. ``LocalJudge.read`` builds it;
    ``LocalJudge.score`` takes it, so that two passes over the same claims and text build it once."""

    rows: list[F.WordRows]
    spared: np.ndarray
    trees: Prediction


@dataclass(frozen=True, eq=False)
class Scores:
    """``LocalJudge.score``'s result for claims judged together."""

    rows: list[F.WordRows]  #: each claim's word feature rows
    word_p: list[np.ndarray]  #: per claim, per word: P(inside a hallucinated span)
    claim_p: np.ndarray  #: per claim: the answer's risk were it the riskiest (P(claim) without a calibrator)
    by_rule: np.ndarray  #: per claim: flagged by ``rules.decided_by_rule`` whatever the model says
    tagged: bool  #: whether the tagger read them (the semantic pair gave the probabilities)
    #: the claim verifier's reading, where a calibrator read it for ``claim_p``: it also decides the kind of flag
    verdicts: Optional[V.Verdicts] = None


class _Key(NamedTuple):
    """What a reading depends on: the evidence, the question, the numbers the question gives and the claims (text,
    indices, answer spans)."""

    evidence: str
    question: Optional[str]
    given: frozenset[str]
    claims: tuple[tuple[str, int, int, tuple[Span, ...]], ...]

    @classmethod
    def of(cls, claims: Sequence[Claim], evidence: str, question: Optional[str],
           given: frozenset[str] = frozenset()) -> "_Key":
        return cls(evidence, question, given,
                   tuple((c.text, c.index, c.sentence_index, c.answer_spans) for c in claims))


@dataclass
class _Entry:
    """One claim set's evidence, its reading and the judgments made from it, by whether the semantic stage was
    asked for and whether the claim verifier was read."""

    evidence: F.FeatureEvidence
    reading: Reading
    judged: dict[tuple[bool, bool], list[Judgment]] = field(default_factory=dict)


class _Recent:
    """The last ``size`` claim sets judged, least recently used first out. Not thread-safe: the judge's lock
    guards it."""

    def __init__(self, size: int = RECENT) -> None:
        self.size = size
        self._entries: OrderedDict[_Key, _Entry] = OrderedDict()

    def get(self, key: _Key) -> Optional[_Entry]:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, key: _Key, entry: _Entry) -> None:
        self._entries[key] = entry
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


class LocalJudge:
    """Offline trained judge (see ``rt4chart.judges.local``). Shares one loaded model per process; reads each
    evidence text once (``evidence``) and keeps the last ``EVIDENCE`` read.

    ``threads`` sizes the tagger's onnxruntime pool (default: the CPU count, at most 4); the tree models always take
    one thread. ``no_tagger=True`` keeps the trees alone (``--no-tagger``). ``model_dir``: a models folder (default:
    the shipped one, ``models.model_dir()``). Its keywords are ``LocalOptions``' field names (``from_options``).

    The judge reads no question: the same answer and context get the same verdicts whether or not a question (or an
    instruction sent as one) comes with them. ``reads_question=True`` gives the question to the features and the
    tagger, as the models saw RAGTruth QA's questions in training (what each costs: docs/results/shape.md)."""

    name = "local"
    #: the languages it reads (trained on English): see ``LexicalJudge.languages``
    languages = ("en",)

    @classmethod
    def from_options(cls, options: LocalOptions) -> "LocalJudge":
        """The judge for ``options``: ``--threshold`` (None: its card's), ``--no-tagger``, ``--model-dir`` (None: the
        shipped models) and ``threads``."""
        return cls(**{f.name: getattr(options, f.name) for f in fields(LocalOptions)})

    def __init__(self, *, threshold: Optional[float] = None, word_threshold: Optional[float] = None,
                 threads: Optional[int] = None, model_dir: Optional[Union[str, Path]] = None,
                 no_tagger: bool = False, reads_question: bool = False) -> None:
        d = Path(model_dir) if model_dir else shipped_models()
        if not is_available(d):
            raise ConfigError(f"no trained local judge model in {d}; train one with "
                              "python -m training.train_local_judge or use --judge lexical")
        self._models = load(str(d), threads)
        card = self._models.card
        #: the semantic stage (the tagger) runs at global verification when its model is present
        self.semantic = not no_tagger and self._models.has_tagger
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
        # the models that label a claim: the trees alone, or the trees with the tagger
        trees = f"{MODEL_NAME}@{card.get('version', '?')}"
        if self._models.verifier is not None:
            trees += f"+verifier@{self._models.verifier.card.get('version', '?')}"
        self._versions = {False: trees, True: f"{trees}+tagger@{tcard.get('version', '?')}"}
        self.reads_question = reads_question
        if reads_question:
            self._versions = {k: v + "+question" for k, v in self._versions.items()}
        # one pass at a time: feature building is pure Python (GIL-bound), so passes in parallel only thrash
        self._lock = threading.Lock()
        self._recent = _Recent()
        self._evidence = lru_cache(maxsize=EVIDENCE)(F.FeatureEvidence)
        self._verified = lru_cache(maxsize=RECENT)(self._verify_now)

    @property
    def version(self) -> str:
        """The models this judge runs, with their card versions ("local_judge@2.x+tagger@1.y"); part of its
        fingerprint."""
        return self._versions[self.semantic]

    @property
    def card(self) -> dict[str, Any]:
        """The model card: training data, validation metrics, thresholds, versions."""
        return dict(self._models.card)

    def evidence(self, text: str) -> F.FeatureEvidence:
        """What the features read of an evidence text, built once per text: the judge keeps the last
        ``EVIDENCE``, and passes it to the features, the rules, ``one_edit`` and the tagger."""
        return self._evidence(text)

    def _read(self, evidence: Evidence) -> F.FeatureEvidence:
        return evidence if isinstance(evidence, F.FeatureEvidence) else self.evidence(evidence)

    @staticmethod
    def rows(claims: Sequence[Claim], evidence: Evidence, question: Optional[str],
             given: frozenset[str] = frozenset()) -> list[F.WordRows]:
        """The word feature rows of each claim against ``evidence`` (a text is read once, for these claims);
        ``given``: the numbers the question states of the user's situation (``evidence.given_numbers``)."""
        ev = evidence if isinstance(evidence, F.FeatureEvidence) else F.FeatureEvidence(evidence)
        return [F.claim_rows(c.text, ev, question, index=c.index, sentence=c.sentence_index,
                             start=c.answer_spans[0].start if c.answer_spans else 0, given=given) for c in claims]

    def read(self, claims: Sequence[Claim], evidence: Evidence, question: Optional[str],
             given: frozenset[str] = frozenset()) -> Reading:
        """The claims' feature rows against ``evidence``, their ``rules.exempt`` mask and the trees' prediction
        (without the claim verifier: a calibrator that reads it is left pending, for ``score`` with ``verify``)."""
        ev = self._read(evidence)
        rows = self.rows(claims, ev, question, given)
        spared = R.exempt(claims, rows, ev)
        return Reading(rows, spared, self._models.predict(rows, spared=spared))

    def score(self, claims: Sequence[Claim], evidence: Evidence, question: Optional[str], *, semantic: bool = False,
              reading: Optional[Reading] = None, verify: bool = True) -> Scores:
        """Probabilities and rule flags of claims read together against ``evidence`` (``reading``: their
        ``read``, when already made). With ``semantic``, the tagger reads them unless the trees alone find them
        clearly supported (``rules.needs_tagger``). With ``verify``, a calibrator that reads the claim verifier reads
        it (the global pass); without, the trees' risk stands where it would (the local chunks)."""
        ev = self._read(evidence)
        if reading is None:
            reading = self.read(claims, ev, question)
        rows, trees = reading.rows, reading.trees
        if verify and trees.pending is not None:
            trees = self._models.with_verifier(trees, self._verify(claims, ev, rows))
        if not (semantic and self._models.has_tagger and rows) or not R.needs_tagger(
                rows, trees.claim_p, trees.by_rule, calibrated=self._models.calibrator is not None):
            return Scores(rows, trees.word_p, trees.claim_p, trees.by_rule, tagged=False, verdicts=trees.verdicts)
        tagged = self._models.predict(rows, self.tag(claims, ev, question, rows), spared=reading.spared,
                                      verify=self._verify(claims, ev, rows) if verify else None)
        return Scores(rows, tagged.word_p, tagged.claim_p, tagged.by_rule, tagged=True, verdicts=tagged.verdicts)

    def _verify(self, claims: Sequence[Claim], ev: F.FeatureEvidence, rows: Sequence[F.WordRows]
                ) -> Callable[[], V.Verdicts]:
        """The claim verifier's reading of the claims against their windows of the evidence (``verifier.windows``:
        around the sentences that cover them best, a sentence opening with a pronoun read with its subject),
        computed when first asked for (only calibrators that name its columns ask) and kept for the recent claim
        sets."""
        if self._models.verifier is None:
            return self._no_verifier
        orders = tuple(tuple(r.assessment.order) if r.assessment is not None else () for r in rows)
        texts = tuple(restated(c.text, ev.index, surface=True)[0] for c in claims)  # one written form per amount
        return partial(self._verified, ev.index.readings, texts, orders)

    @staticmethod
    def _no_verifier() -> V.Verdicts:
        raise ConfigError("the local judge's claim verifier is not installed")

    def _verify_now(self, texts: tuple[str, ...], claims: tuple[str, ...],
                    orders: tuple[tuple[int, ...], ...]) -> V.Verdicts:
        return V.read_windows(self._models.verifier, texts, orders, claims)

    def tag(self, claims: Sequence[Claim], evidence: Evidence, question: Optional[str],
            rows: Sequence[F.WordRows]) -> list[np.ndarray]:
        """The tagger's P(hallucinated) of each word of each claim (``nan`` beyond its 512-token window)."""
        tagger = self._models.tagger
        if tagger is None:
            raise ConfigError("the local judge's tagger is not installed")
        enc, starts = tagger.encoder.encode_claims(question, self._read(evidence), [c.text for c in claims])
        token_p = tagger.probabilities(enc)
        return [T.word_probabilities(enc, token_p, start, r.spans) for start, r in zip(starts, rows)]

    def _decide(self, claims: Sequence[Claim], evidence: str, question: Optional[str],
                semantic: bool, given: frozenset[str] = frozenset(), verify: bool = True) -> list[Judgment]:
        """The judgments of one pass, made once per claim set, text, ``semantic`` and ``verify`` among the recent
        ones (the local and the global pass share the trees' reading, and the judgments too unless the global pass
        runs the tagger or reads the claim verifier)."""
        with self._lock:
            entry = self._entry(claims, evidence, question, given)
            key = (semantic, verify and entry.reading.trees.pending is not None)
            if key not in entry.judged:
                scores = self.score(claims, entry.evidence, question, semantic=semantic, reading=entry.reading,
                                    verify=verify)
                entry.judged[key] = self._judgments(claims, entry.evidence, scores)
            return list(entry.judged[key])

    def _entry(self, claims: Sequence[Claim], evidence: str, question: Optional[str],
               given: frozenset[str] = frozenset()) -> _Entry:
        """The recent entry of these claims against ``evidence``, read now if it is not kept. Call with the lock
        held."""
        key = _Key.of(claims, evidence, question, given)
        entry = self._recent.get(key)
        if entry is None:
            ev = self.evidence(evidence)
            entry = _Entry(ev, self.read(claims, ev, question, given))
            self._recent.put(key, entry)
        return entry

    def nearest(self, claims: Sequence[Claim], evidence: str, question: Optional[str]) -> list[tuple[int, ...]]:
        """Per claim, the evidence sentences its word evidence points to, best first (numbers of
        ``evidence(evidence).index.sentences``): the few sentences that together cover most of its content words;
        () when no sentence shares one. Reuses the reading of the last pass over these claims."""
        question = question if self.reads_question else None
        with self._lock:
            rows = self._entry(claims, evidence, question).reading.rows
        return [tuple(r.assessment.order) if r.assessment is not None else () for r in rows]

    def premises(self, claims: Sequence[Claim], evidence: str, question: Optional[str], k: int
                 ) -> list[tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]]:
        """Per claim, the ``k`` evidence sentences that cover it best (``nearest``), best first, as quotes and their
        sentence ids (``rt4chart.evidence.premise``): the evidence a composing judge (the hybrid) gives a claim the
        local judgment gave none."""
        texts = self.evidence(evidence).index.texts
        return [premise(texts, order[:k]) for order in self.nearest(claims, evidence, question)]

    def _judgments(self, claims: Sequence[Claim], ev: F.FeatureEvidence, scores: Scores) -> list[Judgment]:
        version = self._versions[scores.tagged]
        verdicts = scores.verdicts
        threshold, word_threshold = self._cuts[scores.tagged]
        out = []
        texts = ev.index.texts
        for i, (claim, rows_i, wp, q, forced) in enumerate(zip(claims, scores.rows, scores.word_p, scores.claim_p,
                                                               scores.by_rule)):
            a = rows_i.assessment
            q = float(q)
            if forced and rows_i.rule == "no-evidence":
                # the score stays the model's risk, raised to the threshold so that it agrees with the label; the
                # spans are the likeliest words, as for any flagged claim (and as the word threshold was calibrated)
                out.append(Judgment(label=Label.BASELESS, score=round(max(q, threshold), 4),
                                    prompt_version=version, spans=word_spans(rows_i, wp, word_threshold),
                                    reason=f"none of the claim's content words occurs in the evidence "
                                    f"(model P(hallucinated)={q:.2f})", rule="unseen"))
                continue
            # a number "missing" from the evidence that it writes otherwise ("48 hours" for "two days") is no swap
            same_amount = rows_i.rule == "number-conflict" and holds(claim.text, texts)
            forced = bool(forced) and not same_amount
            if forced:
                q = max(q, threshold)  # a number swap or negation flip: flagged, the score agrees
            copied = not forced and R.copies(claim.text, ev)
            if copied:  # the evidence holds the claim word for word: supported, however long the answer
                q = min(q, R.COPY_MAX_RISK)
            edit = None if forced or copied else one_edit(claim.text, ev.index.edits)
            if edit is not None:  # an evidence sentence copied but for one edit: flagged, whatever the model says
                q = max(q, threshold)
                out.append(Judgment(label=Label.CONTRADICTED, evidence=(texts[edit.sentence],), score=round(q, 4),
                                    evidence_ids=((edit.sentence,),),
                                    spans=(Span(start=edit.start, end=edit.end),), prompt_version=version,
                                    reason=f"P(hallucinated)={q:.2f}: {edit.describe()}", rule=f"edit:{edit.kind}"))
                continue
            typed = None if copied else R.typed(claim.text, ev, rows_i.rule, len(claims))
            if typed is not None:  # a typed edit against the aligned clause: flagged, the reason names it
                q = max(q, threshold)
                label = Label(typed.label)  # a baseless claim carries no evidence
                at = (typed.edit.sentence,) if label != Label.BASELESS and typed.edit.sentence >= 0 else ()
                out.append(Judgment(label=label, evidence=tuple(texts[k] for k in at),
                                    evidence_ids=tuple((k,) for k in at),
                                    score=round(q, 4), spans=(Span(start=typed.edit.start, end=typed.edit.end),),
                                    prompt_version=version, reason=f"P(hallucinated)={q:.2f}: {typed.reason}",
                                    rule=f"typed:{typed.edit.kind}"))
                continue
            if q < threshold and R.short_unseen(claim.text, rows_i.rule, ev, len(claims)):
                out.append(Judgment(label=Label.BASELESS, score=round(threshold, 4), prompt_version=version,
                                    spans=word_spans(rows_i, wp, word_threshold),
                                    reason=f"none of the claim's content words occurs in the evidence "
                                    f"(model P(hallucinated)={q:.2f})", rule="unseen"))
                continue
            if q >= threshold:
                spans = word_spans(rows_i, wp, word_threshold)
                if rows_i.rule in ("number-conflict", "negation-conflict") and not same_amount:
                    at = ev.index.contradicting(claim.text, a.rival) if rows_i.rule == "number-conflict" \
                        else a.order[0]
                    why = "a number in the claim differs from" if rows_i.rule == "number-conflict" else \
                        "the claim has the opposite negation of"
                    out.append(Judgment(label=Label.CONTRADICTED, evidence=(texts[at],), evidence_ids=((at,),),
                                        score=round(q, 4), spans=spans,
                                        reason=f"P(hallucinated)={q:.2f}: {why} the closest evidence sentence",
                                        prompt_version=version, rule=rows_i.rule if forced else None))
                elif verdicts is not None and verdicts.says_otherwise(i):
                    # the claim verifier reads a window of the evidence as saying otherwise
                    at = verdicts.against[i]
                    out.append(Judgment(label=Label.CONTRADICTED, evidence=tuple(texts[k] for k in at),
                                        evidence_ids=tuple((k,) for k in at), score=round(q, 4), spans=spans,
                                        reason=f"P(hallucinated)={q:.2f}: the claim verifier reads the evidence as "
                                        f"saying otherwise (P(contradiction)={verdicts.contradiction[i]:.2f})",
                                        prompt_version=version))
                else:
                    # the likeliest words the evidence lacks (a word the model flags but the evidence has, or a
                    # stop word, is not "unsupported", whatever its probability)
                    ranked = sorted(zip(wp, rows_i.spans, F.unsupported_words(rows_i)), key=lambda x: -x[0])
                    top_words = ", ".join(list(dict.fromkeys(claim.text[s:e] for p, (s, e), lacking in ranked
                                                             if lacking and p >= word_threshold))[:8])
                    missing = f"; unsupported words: {top_words}" if top_words else ""
                    out.append(Judgment(label=Label.BASELESS, score=round(q, 4), spans=spans,
                                        reason=f"P(hallucinated)={q:.2f} >= {threshold:.2f}{missing}",
                                        prompt_version=version))
                continue
            # best first (the greedy cover's order), and never a sentence that says otherwise
            quotes, ids = premise(texts, ev.index.supporting(claim.text, a.order)[:3]) \
                if a is not None and a.order else ((), ())
            read = ""
            if not quotes and verdicts is not None and verdicts.reads_in(i) and content_words(claim.text):
                # no sentence holds its words, but the claim verifier reads them in a window: that window decided
                # (a claim with no content word states nothing to read: it keeps no evidence)
                quotes, ids = premise(texts, verdicts.decided[i])
                read = f"; the claim verifier reads it in the evidence (P(entailment)={verdicts.entailment[i]:.2f})"
            out.append(Judgment(label=Label.ENTAILED, evidence=quotes, evidence_ids=ids, score=round(q, 4),
                                reason=f"P(hallucinated)={q:.2f} < {threshold:.2f}" + read
                                + ("; the evidence holds the claim word for word" if copied else "")
                                + ("" if quotes else "; no evidence sentence supports its words"
                                   if a is not None and a.order else "; nothing in the claim to check against the "
                                   "evidence"),
                                prompt_version=version, rule="copy" if copied else None))
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
        """Judge ``claims`` against ``evidence``. The work runs in a worker thread (``asyncio.to_thread``), so the
        event loop stays free for other records and requests; onnxruntime releases the GIL. The tagger and the
        claim verifier read the whole context once, at global verification; local chunks get the trees alone."""
        if not claims:
            return []
        asked, question = question, question if self.reads_question else None
        # amounts the evidence writes otherwise are read as it writes them; a judgment's spans are mapped back to
        # the claim as written, and its reason says what was read
        index = self.evidence(evidence).index
        forms = [restated(c.text, index) for c in claims]
        read = [c.model_copy(update={"text": text}) if pairs else c for c, (text, pairs) in zip(claims, forms)]
        # the numbers the question states of the user's own situation ("My flight lands at 21:40") are given, never
        # missing from the evidence, though the models read none of the question's words
        given = given_numbers(asked) if asked else frozenset()
        judgments = await asyncio.to_thread(self._decide, read, evidence, question,
                                            self.semantic and stage == "global", given, stage == "global")
        judgments = [j.model_copy(update={
                         "spans": tuple(Span(start=original_offset(pairs, s.start), end=original_offset(pairs, s.end))
                                        for s in j.spans if original_offset(pairs, s.start) <
                                        original_offset(pairs, s.end)),
                         "reason": f"{j.reason}; {read_as(pairs)}"})
                     if pairs else j for j, (_, pairs) in zip(judgments, forms)]
        # an amount the claim computed from the evidence (a difference, a total, a rate times a quantity, an end
        # time, a date from a start date the user states in the question) is checked by that arithmetic, whatever
        # the model read
        derived = [derive(c.text, index, asked) for c in claims]
        return [d.judgment(index, risk=0.05 if d.holds else 0.95) if d is not None else j
                for j, d in zip(judgments, derived)]
