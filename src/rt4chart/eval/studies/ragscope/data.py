"""The protocol's data and folds: records with labels, context groups and tasks; grouped stratified folds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

__all__ = ["SEED", "ProtocolData", "load_ragtruth_data", "grouped_folds"]

#: Seed of the folds, the bootstrap resamples and the logistic regressions.
SEED = 13


@dataclass
class ProtocolData:
    """Records with labels, context groups and task names, aligned by position."""

    X: list[dict]
    y: np.ndarray
    groups: np.ndarray
    tasks: np.ndarray

    def __post_init__(self) -> None:
        self.y = np.asarray(self.y, dtype=bool)
        self.groups = np.asarray(self.groups)
        self.tasks = np.asarray(self.tasks)
        if not (len(self.X) == self.y.size == self.groups.size == self.tasks.size):
            raise ValueError("X, y, groups and tasks must have the same length")

    @property
    def task_names(self) -> list[str]:
        return list(dict.fromkeys(self.tasks.tolist()))

    def subset(self, idx: np.ndarray) -> "ProtocolData":
        return ProtocolData([self.X[i] for i in idx], self.y[idx], self.groups[idx], self.tasks[idx])


def load_ragtruth_data(split: str = "test", root: Optional[str] = None, *, data_dir: Optional[str] = None
                       ) -> ProtocolData:
    """RAGTruth ``split`` as protocol data (group = the loader's task + context key); ``root``/``data_dir`` as for
    :func:`~rt4chart.eval.datasets.load_ragtruth`."""
    from ...datasets import load_ragtruth

    recs = load_ragtruth(split, root=root, data_dir=data_dir)
    return ProtocolData(
        [r.to_record() for r in recs], [r.hallucinated for r in recs], [r.group for r in recs], [r.task for r in recs]
    )


def grouped_folds(y: np.ndarray, groups: np.ndarray, n_splits: int = 5, seed: int = SEED):
    """The protocol's folds: ``StratifiedGroupKFold(n_splits, shuffle=True, random_state=seed)``."""
    from sklearn.model_selection import StratifiedGroupKFold

    cv = StratifiedGroupKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    return list(cv.split(np.zeros(len(y)), y, groups))
