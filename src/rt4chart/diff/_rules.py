"""``--fail-on`` rules: conditions on a ``RunDiff`` that make ``rt4chart diff`` fail a CI job.

* ``new-hallucinations``: some record is newly hallucinated.
* ``rate:+X``: the hallucination rate (over the records with a result in both runs) rose by more than X, a fraction
  (``rate:+0.02``: more than 2 points); ``rate:-0.01`` asks for a drop of at least 1 point. With no record in both
  runs there is no rate to compare, and the rule trips: a gate that compared nothing has not passed.
* ``flips:N``: more than N claims, paired across the runs, changed label (either way).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

from ..errors import ConfigError
from ._compare import RunDiff

RULES = ("new-hallucinations", "rate:+X", "flips:N")


@dataclass(frozen=True)
class Rule:
    """One parsed ``--fail-on`` rule: ``kind`` (``new-hallucinations``, ``rate``, ``flips``) and its limit."""

    text: str
    kind: str
    limit: float


def parse_rule(text: str) -> Rule:
    """A ``--fail-on`` value as a ``Rule``; ``ConfigError`` says what is wrong with it."""
    spec = text.strip()
    kind, _, arg = spec.partition(":")
    if kind == "new-hallucinations" and not arg:
        return Rule(spec, kind, 0.0)
    if kind == "rate" and arg:
        try:
            limit = float(arg)
        except ValueError:
            limit = math.nan
        if math.isfinite(limit) and -1.0 <= limit <= 1.0:
            return Rule(spec, kind, limit)
        raise ConfigError(f"{text!r}: the rate change must be a fraction between -1 and 1, e.g. rate:+0.02")
    if kind == "flips" and arg:
        if arg.isdigit():
            return Rule(spec, kind, float(int(arg)))
        raise ConfigError(f"{text!r}: the number of flips must be a whole number >= 0, e.g. flips:5")
    raise ConfigError(f"unknown rule {text!r}; use one of {', '.join(RULES)}")


@dataclass(frozen=True)
class RuleCheck:
    """A rule applied to a diff: the value it read (None: nothing to read) and whether it tripped."""

    rule: Rule
    value: Optional[float]
    tripped: bool

    def describe(self) -> str:
        """One line for the console: the rule, what was measured and the verdict."""
        kind = self.rule.kind
        if kind == "new-hallucinations":
            seen = f"{self.value:.0f} newly hallucinated"
        elif kind == "rate":
            seen = "no record in both runs" if self.value is None else f"rate change {self.value:+.4f}"
        else:
            seen = f"{self.value:.0f} claims flipped"
        return f"{self.rule.text}: {seen} -> {'TRIPPED' if self.tripped else 'pass'}"

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule.text, "kind": self.rule.kind, "limit": self.rule.limit, "value": self.value,
                "tripped": self.tripped}


def check_rule(rule: Rule, diff: RunDiff) -> RuleCheck:
    """Apply one rule to a diff (module docstring)."""
    if rule.kind == "new-hallucinations":
        value = diff.counts["newly_hallucinated"]
        return RuleCheck(rule, value, value > 0)
    if rule.kind == "rate":
        change = diff.rate["change"]
        # a rate over n records moves in steps of 1/n: rounding must not turn "exactly X" into "more than X"
        return RuleCheck(rule, change, change is None or change > rule.limit + 1e-9)
    value = diff.claims["flipped"]
    return RuleCheck(rule, value, value > rule.limit)
