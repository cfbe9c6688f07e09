"""The RAGScope evaluation protocol (RAGScope §II-D, §III; Tables I, IV-VIII) on RAGTruth: a paper reproduction.

Controls, as the paper's checklist (Table I) asks:

* context leakage — ``StratifiedGroupKFold`` (5 folds, shuffled, seed 13) with group = task + source context, so the
  answers written from one context never straddle train and test (:mod:`.data`);
* preprocessing leakage — every learned gate is cloned and fitted per training fold: TF-IDF vocabulary and IDF (E),
  standardisation and logistic regression (C, E); every reported score is out-of-fold (:mod:`.protocol`);
* uncertain gains — 1,000 resamples of context groups (pooled: all groups; per task: that task's groups; macro: the
  per-task resamples averaged) give 95% percentile intervals, and paired deltas use the same resamples for both
  scores (:mod:`.intervals`);
* deployment — review precision at the top 5-30% and residual risk when accepting the lowest 50-90%;
* cost — end-to-end milliseconds per example (features + scoring of the held-out folds);
* source shift (RQ5, on the tasks we have) — leave one task out (fit on the other two, score the third), and a
  target-only calibration curve: per task and seed, a grouped stratified 20% test set, ``k`` labels drawn
  prevalence-preserving from the rest, RAGScope-C fitted on those only; macro mean ± standard error over seeds
  (:mod:`.shift`).

:func:`render_markdown` (:mod:`.markdown`) writes the tables; ``rt4chart triage eval`` (:mod:`.cli`) runs it all.
The gates themselves are the product gate's, :mod:`rt4chart.gate`.
"""

from .data import SEED, ProtocolData, grouped_folds, load_ragtruth_data
from .intervals import ACCEPT_FRACTIONS, REVIEW_FRACTIONS, operating_points, paired_deltas, ranking_table
from .markdown import render_markdown
from .protocol import out_of_fold, run_protocol
from .shift import CALIBRATION_LABELS, calibration_curve, transfer_study

__all__ = [
    "ProtocolData",
    "SEED",
    "REVIEW_FRACTIONS",
    "ACCEPT_FRACTIONS",
    "CALIBRATION_LABELS",
    "load_ragtruth_data",
    "grouped_folds",
    "out_of_fold",
    "ranking_table",
    "paired_deltas",
    "operating_points",
    "transfer_study",
    "calibration_curve",
    "run_protocol",
    "render_markdown",
]
