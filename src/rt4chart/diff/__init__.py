"""Two runs of results compared: ``rt4chart diff BEFORE.jsonl AFTER.jsonl``.

Records are matched by id; each gets a status (newly hallucinated, fixed, still hallucinated, ...) and a change
(answer changed, label flip, claims changed, evidence changed, unchanged); claims are paired across the runs by
text similarity. ``--fail-on`` rules turn the diff into a CI gate. See ``_compare`` for the definitions.

>>> from rt4chart.diff import parse_rule
>>> parse_rule("rate:+0.02").limit
0.02
"""

from ._pairing import CLAIM_CHANGES, MIN_SIMILARITY, ClaimPair, align_claims
from ._compare import CHANGES, STATUSES, RecordDiff, RunDiff, RunSummary, Side, diff_files, diff_runs
from ._html import render_diff_html, write_diff_html
from ._rules import RULES, Rule, RuleCheck, check_rule, parse_rule

__all__ = [
    "CHANGES", "CLAIM_CHANGES", "MIN_SIMILARITY", "RULES", "STATUSES", "ClaimPair", "RecordDiff", "Rule", "RuleCheck",
    "RunDiff", "RunSummary", "Side", "align_claims", "check_rule", "diff_files", "diff_runs", "parse_rule",
    "render_diff_html", "write_diff_html",
]
