"""Two runs of results compared record by record: what got worse, what got fixed, what changed.

Records are matched by id (as text: 7 and "7" are one id). Each id gets a **status**, and each id with a result in
both runs a **change**; both partition their records, so their counts add up:

* status: ``newly_hallucinated`` (not hallucinated before, hallucinated after), ``fixed`` (hallucinated before,
  confirmed not hallucinated after), ``still_hallucinated``, ``needs_review`` (not hallucinated after, but no judge
  confirmed it: ``hallucinated`` None, label unverified; whatever it was before), ``not_hallucinated`` (confirmed in
  the later run and not hallucinated in the earlier), ``errored`` (an error line in either run), ``only_before``,
  ``only_after``. "Hallucinated" is the result's ``hallucinated`` field being true (contradicted or baseless); an
  unverified answer, or one the gate accepted, is neither hallucinated nor confirmed clean.
* change, the first that holds: ``answer_changed`` (another answer text), ``label_flip`` (a claim, or the answer,
  went from contradicted to baseless or back), ``claims_changed`` (a claim added, removed, reworded or relabelled,
  or another answer label), ``evidence_changed`` (the same claims and labels with other evidence quotes),
  ``unchanged``. Claims are paired across the runs by text (``align_claims``).

The hallucination rate is compared over the records with a result in both runs, so records only one run has do
not move it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from ..errors import InputError
from ..io import ResultLine, read_results
from ..types import AuditResult, Label, RecordError
from ._pairing import ClaimPair, align_claims

STATUSES = ("newly_hallucinated", "fixed", "still_hallucinated", "needs_review", "not_hallucinated", "errored",
            "only_before", "only_after")
CHANGES = ("answer_changed", "label_flip", "claims_changed", "evidence_changed", "unchanged")
_HALLUCINATED = (Label.CONTRADICTED, Label.BASELESS)


@dataclass(frozen=True)
class Side:
    """One run of a record: its result, or the error line that stands for it."""

    line: int
    result: Optional[AuditResult] = None
    error: Optional[RecordError] = None


@dataclass(frozen=True)
class RecordDiff:
    """One id in the two runs: its status, its change (None unless both runs have a result) and its claim pairs."""

    id: Union[str, int]
    status: str
    change: Optional[str]
    before: Optional[Side]
    after: Optional[Side]
    claims: tuple[ClaimPair, ...] = ()

    @property
    def changed(self) -> bool:
        """Anything a reviewer should look at: every status but an unchanged record hallucinated in neither run."""
        return not (self.status == "not_hallucinated" and self.change == "unchanged")

    def to_json(self) -> dict[str, Any]:
        b = self.before.result if self.before else None
        a = self.after.result if self.after else None
        out: dict[str, Any] = {
            "id": self.id, "status": self.status, "change": self.change,
            "label": {"before": b.label.value if b else None, "after": a.label.value if a else None},
            "hallucinated": {"before": b.hallucinated if b else None, "after": a.hallucinated if a else None},
            "line": {"before": self.before.line if self.before else None,
                     "after": self.after.line if self.after else None},
        }
        if b is not None and a is not None:
            out["answer_changed"] = b.answer != a.answer
            out["question_changed"] = b.question != a.question
            out["context_changed"] = b.context != a.context
            out["claims"] = [_pair_json(p, b, a) for p in self.claims]
        errors = {side: s.error.message for side, s in (("before", self.before), ("after", self.after))
                  if s is not None and s.error is not None}
        if errors:
            out["error"] = errors
        return out


def _pair_json(pair: ClaimPair, b: AuditResult, a: AuditResult) -> dict[str, Any]:
    return {
        "before": pair.before, "after": pair.after, "change": pair.change, "similarity": pair.similarity,
        "label": {"before": pair.label_before.value if pair.label_before else None,
                  "after": pair.label_after.value if pair.label_after else None},
        "text": {"before": b.claims[pair.before].text if pair.before is not None else None,
                 "after": a.claims[pair.after].text if pair.after is not None else None},
    }


@dataclass(frozen=True)
class RunSummary:
    """What one results file holds: lines, results, error lines, hallucinated results and the judges named."""

    path: str
    lines: int
    results: int
    errors: int
    hallucinated: int
    judges: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "lines": self.lines, "results": self.results, "errors": self.errors,
                "hallucinated": self.hallucinated,
                "rate": round(self.hallucinated / self.results, 6) if self.results else None,
                "judges": list(self.judges)}


@dataclass(frozen=True)
class RunDiff:
    """The comparison of two results files (module docstring); ``records`` in the earlier file's order, then the
    ids only the later file has, in its order."""

    before: RunSummary
    after: RunSummary
    records: tuple[RecordDiff, ...]
    unmatched_errors: dict[str, int] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        """How many ids have each status and each change (both partitions, ``STATUSES`` then ``CHANGES``)."""
        statuses = Counter(r.status for r in self.records)
        changes = Counter(r.change for r in self.records if r.change is not None)
        return {**{s: statuses[s] for s in STATUSES}, **{c: changes[c] for c in CHANGES}}

    @property
    def common(self) -> list[RecordDiff]:
        """The records with a result in both runs."""
        return [r for r in self.records if r.change is not None]

    @property
    def rate(self) -> dict[str, Any]:
        """The hallucination rate of each run over the records with a result in both, and its change (None when
        there are none)."""
        common = self.common
        n = len(common)
        before = sum(r.before.result.hallucinated is True for r in common)  # type: ignore[union-attr]
        after = sum(r.after.result.hallucinated is True for r in common)  # type: ignore[union-attr]
        if not n:
            return {"records": 0, "before": None, "after": None, "change": None}
        return {"records": n, "before": round(before / n, 6), "after": round(after / n, 6),
                "change": round((after - before) / n, 6)}

    @property
    def claims(self) -> dict[str, int]:
        """Claim pairs over the records with a result in both runs: ``flipped`` (label changed; of which ``worse``:
        to contradicted or baseless, ``better``: from them), ``added``, ``removed``, ``reworded``."""
        pairs = [p for r in self.common for p in r.claims]
        kinds = Counter(p.change for p in pairs)
        return {"paired": sum(p.before is not None and p.after is not None for p in pairs),
                "flipped": kinds["flipped"], "worse": sum(p.worse for p in pairs),
                "better": sum(p.better for p in pairs), "added": kinds["added"], "removed": kinds["removed"],
                "reworded": kinds["reworded"]}

    def to_json(self, checks: Iterable[Any] = ()) -> dict[str, Any]:
        """The JSON document of ``rt4chart diff --json``; ``checks``: the ``RuleCheck`` of each ``--fail-on``."""
        return {
            "before": self.before.to_json(), "after": self.after.to_json(), "counts": self.counts,
            "rate": self.rate, "claims": self.claims, "unmatched_errors": dict(self.unmatched_errors),
            "rules": [c.to_json() for c in checks], "records": [r.to_json() for r in self.records],
        }


def _status(b: Optional[Side], a: Optional[Side]) -> str:
    if b is None or a is None:
        return "only_after" if b is None else "only_before"
    if b.result is None or a.result is None:
        return "errored"
    was, now = _flag(b.result), _flag(a.result)
    if now is True:
        return "still_hallucinated" if was is True else "newly_hallucinated"
    if now is None:
        return "needs_review"
    return "fixed" if was is True else "not_hallucinated"


def _flag(result: AuditResult) -> Optional[bool]:
    """``hallucinated``, with None for an unverified answer also in files written when it was false."""
    return None if result.hallucinated is not True and result.label is Label.UNVERIFIED else result.hallucinated


def _change(b: AuditResult, a: AuditResult, pairs: Sequence[ClaimPair]) -> str:
    if b.answer != a.answer:
        return "answer_changed"
    if (any(p.between_hallucinated for p in pairs)
            or (b.label != a.label and b.label in _HALLUCINATED and a.label in _HALLUCINATED)):
        return "label_flip"
    if b.label != a.label or any(p.change in ("flipped", "added", "removed", "reworded") for p in pairs):
        return "claims_changed"
    if any(p.change == "evidence" for p in pairs):
        return "evidence_changed"
    return "unchanged"


def compare(b: Optional[Side], a: Optional[Side], rid: Union[str, int]) -> RecordDiff:
    """The diff of one id, given its line in each run (None: the run does not have it)."""
    status = _status(b, a)
    if b is None or a is None or b.result is None or a.result is None:
        return RecordDiff(rid, status, None, b, a)
    pairs = align_claims(b.result.claims, a.result.claims)
    return RecordDiff(rid, status, _change(b.result, a.result, pairs), b, a, pairs)


def _index(lines: Sequence[ResultLine], path: str) -> tuple[dict[str, tuple[Any, Side]], int]:
    """A run's lines by id, and how many error lines cannot be matched (no id, or an id a result line has: the
    error of a duplicate id). A second result line with one id raises ``InputError`` naming both lines."""
    by_id: dict[str, tuple[Any, Side]] = {}
    for line in lines:
        if line.result is not None:
            key = str(line.id)
            if key in by_id and by_id[key][1].result is not None:
                raise InputError(f"duplicate id (also on line {by_id[key][1].line})", record=f"{path} line {line.line}",
                                 field="id")
            by_id[key] = (line.id, Side(line.line, result=line.result))
    unmatched = 0
    for line in lines:
        if line.error is None:
            continue
        key = str(line.id)
        if line.id is None or key in by_id:
            unmatched += 1
        else:
            by_id[key] = (line.id, Side(line.line, error=line.error))
    return by_id, unmatched


def _summary(path: str, lines: Sequence[ResultLine]) -> RunSummary:
    results = [line.result for line in lines if line.result is not None]
    return RunSummary(path, len(lines), len(results), len(lines) - len(results),
                      sum(r.hallucinated is True for r in results),
                      tuple(sorted({r.judge for r in results if r.judge})))


def diff_runs(before: Sequence[ResultLine], after: Sequence[ResultLine], *, before_name: str = "before",
              after_name: str = "after") -> RunDiff:
    """Compare two runs given as their results lines (``rt4chart.io.read_results``)."""
    old, old_unmatched = _index(before, before_name)
    new, new_unmatched = _index(after, after_name)
    order = list(old) + [key for key in new if key not in old]
    records = tuple(compare(old[k][1] if k in old else None, new[k][1] if k in new else None,
                            (old.get(k) or new[k])[0]) for k in order)
    return RunDiff(_summary(before_name, before), _summary(after_name, after), records,
                   {"before": old_unmatched, "after": new_unmatched})


def diff_files(before: Union[str, Path], after: Union[str, Path]) -> RunDiff:
    """Compare two results files (what ``rt4chart audit`` writes); ``InputError`` names the file, line and field of
    a line that is not a result or an error line."""
    return diff_runs(list(read_results(before)), list(read_results(after)), before_name=str(before),
                     after_name=str(after))
