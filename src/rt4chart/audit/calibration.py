"""A calibration: a judge's answer score mapped to a probability for one kind of data, and a decision threshold.

``rt4chart calibrate`` fits one on labelled answers (``rt4chart.eval.calibrate``); ``Auditor(calibration=...)``,
``audit --calibration FILE``, ``serve --calibration`` and ``audit_frame(..., calibration=...)`` apply it. A
calibration belongs to the judge whose scores it was fitted on: it records the judge's name and its fingerprint
(``rt4chart.judges.registry.judge_fingerprint``), and an auditor with another judge refuses it.

What applying changes in a result (``Calibration.apply``), all else being the judge's:

* ``risk``: the calibrated probability that the answer is hallucinated, ``map(answer_score)``.
* ``hallucinated``: ``answer_score >= threshold`` (the threshold is on the raw score, so the decision is exact);
  under the threshold, an answer whose label stays unverified keeps ``hallucinated`` None (no judge confirmed it).
* claims: an entailed claim whose score reaches the threshold becomes baseless (its evidence is dropped, as a
  baseless claim carries none; its reason says why). A contradicted or baseless claim whose score is under the
  threshold keeps its label and evidence: a calibration cannot supply the support an entailed verdict must quote.
* ``label``: the AND-join of the claim labels, so it may stay contradicted or baseless while ``hallucinated`` is
  false (a threshold above the judge's own: its claims lie between the two).
* ``spans``: the merged spans of the claims whose score reaches the threshold (none when not hallucinated).
* ``config["calibration"]``: the calibration's digest, raw threshold and probability threshold.

An answer without a score (no claim the judge decided) is left as the judge made it. Claims without scores (the LLM
judge's) keep their labels; such an answer's score is the fraction of its characters inside ``spans``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional

from ..errors import ConfigError
from ..types import AuditResult, Label, Span, merge_intervals
from .joins import and_join

__all__ = ["FORMAT", "Calibration", "answer_score", "fingerprint_with", "load_calibration", "scored_decision"]

FORMAT = "rt4chart-calibration/1"
METHODS = ("isotonic", "platt")


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def scored_decision(result: Mapping[str, Any]) -> Optional[bool]:
    """An audit result's decision as the scorers count it: its ``hallucinated`` when true or false; an unverified
    answer (``hallucinated`` None, label ``unverified``) counts as not flagged, a negative in answer P/R/F1, and is
    counted apart (``unverified``; docs/evaluation.md); None for a row without a decision (an error line)."""
    hallucinated = result.get("hallucinated")
    if isinstance(hallucinated, bool):
        return hallucinated
    return False if hallucinated is None and result.get("label") == Label.UNVERIFIED.value else None


def answer_score(result: Mapping[str, Any]) -> Optional[float]:
    """An audit result's (``AuditResult.to_json()``) answer score in [0, 1], higher = more likely hallucinated.

    The highest claim score when the judge scored every claim it decided (the lexical and local judges give each
    claim a hallucination risk; unverified claims are left out); otherwise (LLM judges) the fraction of answer
    characters inside ``spans`` (0.0 for an entailed answer), raised to at least 1/len(answer) when the answer is
    flagged without spans, so that flagged answers always rank above unflagged ones with no spans. The eval scorer's
    ``score`` (``rt4chart.eval.predictions.prediction_from_result``) is this; None for a row without a decision
    (``scored_decision``: an unverified answer is scored as not flagged).
    """
    hallucinated = scored_decision(result)
    if hallucinated is None:
        return None
    answer = result.get("answer")
    n = len(answer) if isinstance(answer, str) and answer else 0
    pairs = [(int(s["start"]), int(s["end"])) if isinstance(s, Mapping) else (int(s[0]), int(s[1]))
             for s in result.get("spans") or ()]
    covered = sum(e - s for s, e in merge_intervals(p for p in pairs if p[1] > p[0]))
    score = covered / n if n else float(hallucinated)
    if hallucinated and score == 0.0:
        score = 1.0 / max(n, 1)
    decided = [c for c in result.get("claims") or () if isinstance(c, Mapping) and c.get("label") != "unverified"]
    if decided and all(_finite(c.get("score")) for c in decided):
        score = float(max(c["score"] for c in decided))
    return min(score, 1.0)


@dataclass(frozen=True)
class Calibration:
    """A monotone map from a judge's answer score to a probability (``method`` ``isotonic``: the points ``x``, ``y``
    joined linearly and held flat outside; ``platt``: ``1 / (1 + exp(-(coef * score + intercept)))``) and the raw
    score ``threshold`` at or above which an answer is hallucinated. ``judge`` and ``judge_fingerprint`` name the
    judge whose scores it was fitted on; ``meta`` keeps how it was fitted (target, labels, cross-validated metrics)."""

    judge: str
    judge_fingerprint: Optional[str]
    method: str
    threshold: float
    x: tuple[float, ...] = ()
    y: tuple[float, ...] = ()
    coef: float = 0.0
    intercept: float = 0.0
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ConfigError(f"calibration method {self.method!r} is not one of {', '.join(METHODS)}")
        if self.method == "isotonic":
            if not self.x or len(self.x) != len(self.y):
                raise ConfigError("an isotonic calibration needs as many x as y points, at least one")
            if any(b < a for a, b in zip(self.x, self.x[1:])) or any(b < a for a, b in zip(self.y, self.y[1:])):
                raise ConfigError("an isotonic calibration's x and y points must be non-decreasing")
        if not all(_finite(v) for v in (self.threshold, self.coef, self.intercept, *self.x, *self.y)):
            raise ConfigError("a calibration's numbers must be finite")

    def probability(self, score: float) -> float:
        """The calibrated probability that an answer with this score is hallucinated."""
        if self.method == "platt":
            z = self.coef * score + self.intercept
            return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))
        xs, ys = self.x, self.y
        if score <= xs[0]:
            return ys[0]
        if score >= xs[-1]:
            return ys[-1]
        i = bisect_left(xs, score)
        x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
        return y1 if x1 == x0 else y0 + (y1 - y0) * (score - x0) / (x1 - x0)

    @property
    def probability_threshold(self) -> float:
        """The probability at the threshold: answers at or above it are flagged."""
        return self.probability(self.threshold)

    @property
    def digest(self) -> str:
        """A digest of what decides: the judge, the map and the threshold (not ``meta``)."""
        return hashlib.sha256(json.dumps(self._core(), sort_keys=True).encode()).hexdigest()[:16]

    def _core(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"judge": self.judge, "judge_fingerprint": self.judge_fingerprint,
                               "method": self.method, "threshold": self.threshold}
        if self.method == "isotonic":
            doc.update(x=list(self.x), y=list(self.y))
        else:
            doc.update(coef=self.coef, intercept=self.intercept)
        return doc

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, **self._core(), "probability_threshold": round(self.probability_threshold, 6),
                "meta": dict(self.meta)}

    def save(self, path: "str | os.PathLike[str]") -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, doc: Any, where: str = "calibration") -> "Calibration":
        if not isinstance(doc, Mapping) or doc.get("format") != FORMAT:
            raise ConfigError(f"{where} is not an rt4chart calibration (no \"format\": \"{FORMAT}\"); "
                              "write one with `rt4chart calibrate`")
        try:
            return cls(judge=str(doc["judge"]), judge_fingerprint=doc.get("judge_fingerprint"),
                       method=str(doc["method"]), threshold=doc["threshold"], x=tuple(doc.get("x") or ()),
                       y=tuple(doc.get("y") or ()), coef=doc.get("coef", 0.0), intercept=doc.get("intercept", 0.0),
                       meta=dict(doc.get("meta") or {}))
        except (KeyError, TypeError) as exc:
            raise ConfigError(f"{where} lacks a field or has one of the wrong type: {exc}") from None
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None

    def check_judge(self, judge: str, fingerprint: Optional[str]) -> None:
        """Raise ``ConfigError`` unless this calibration was fitted on the scores of this judge (name, and
        fingerprint where both are known)."""
        if judge != self.judge:
            raise ConfigError(f"the calibration was fitted on the scores of the {self.judge} judge, but this auditor's "
                              f"judge is {judge}: fit one for it with `rt4chart calibrate LABELLED --judge {judge}`")
        if fingerprint and self.judge_fingerprint and fingerprint != self.judge_fingerprint:
            raise ConfigError(f"the calibration was fitted on the {self.judge} judge with fingerprint "
                              f"{self.judge_fingerprint}, but this auditor's is {fingerprint} (another model, "
                              "threshold, W, O or option): fit one for this configuration with `rt4chart calibrate`")

    def apply(self, result: AuditResult) -> AuditResult:
        """``result`` re-decided at this calibration's threshold (the module docstring says what changes)."""
        score = answer_score({"hallucinated": result.hallucinated, "label": result.label.value, "answer": result.answer,
                              "spans": [(s.start, s.end) for s in result.spans],
                              "claims": [{"label": c.label.value, "score": c.score} for c in result.claims]})
        decided = [c for c in result.claims if c.label != Label.UNVERIFIED]
        if score is None or not decided:
            return result
        flag = score >= self.threshold
        scored = all(c.score is not None for c in decided)
        claims = list(result.claims)
        if scored:
            for i, c in enumerate(claims):
                if c.label == Label.ENTAILED and c.score is not None and c.score >= self.threshold:
                    claims[i] = c.model_copy(update={
                        "label": Label.BASELESS, "evidence": (),
                        "reason": f"calibrated: score {c.score:.4f} >= {self.threshold:.4f} (was entailed: "
                                  f"{c.reason})"})
            flagged = [c for c in claims if c.label.hallucinated and c.score is not None and c.score >= self.threshold]
        else:
            flagged = [c for c in claims if c.label.hallucinated]
        pairs = ((s.start, s.end) for c in flagged for s in (c.flagged_spans or c.answer_spans)) if flag else ()
        spans = tuple(Span(start=s, end=e) for s, e in merge_intervals(pairs))
        config = {**result.config, "calibration": {"digest": self.digest, "threshold": self.threshold,
                                                   "probability_threshold": round(self.probability_threshold, 6)}}
        label = and_join(c.label for c in claims)
        hallucinated = True if flag else (None if label is Label.UNVERIFIED else False)
        return result.model_copy(update={"claims": tuple(claims), "label": label, "hallucinated": hallucinated,
                                         "risk": round(self.probability(score), 6),
                                         "spans": spans, "config": config})


def load_calibration(source: "str | os.PathLike[str] | Mapping[str, Any] | Calibration") -> Calibration:
    """A calibration from a file written by ``rt4chart calibrate``, its JSON document, or itself."""
    if isinstance(source, Calibration):
        return source
    if isinstance(source, Mapping):
        return Calibration.from_json(source)
    path = Path(source)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the calibration {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ConfigError(f"the calibration {path} is not valid JSON: {exc}") from None
    return Calibration.from_json(doc, where=f"the calibration {path}")


def fingerprint_with(fingerprint: Optional[str], calibration: Optional[Calibration]) -> Optional[str]:
    """An auditor's fingerprint with its calibration in it (None stays None: such results are never reused)."""
    if fingerprint is None or calibration is None:
        return fingerprint
    return hashlib.sha256(f"{fingerprint}+{calibration.digest}".encode()).hexdigest()[:16]
