"""How long a verifier run trains when its steps are planned from its time budget: ``plan_steps`` counts the
batches ahead whose predicted time fits, and ``Planner`` plans after the run's first minute, then re-plans every
minute from its recent seconds per padded token (a shared machine's speed changes).
"""

from __future__ import annotations

import math
import sys
import time
from typing import Optional

from .sampling import Draws

#: the seconds of a budget kept for saving the model and the checkpoint at the end
SAVE_RESERVE_S = 10.0
#: batches whose time is not used to plan the run (the first ones are slower)
CALIBRATION_SKIP = 3
#: a run planned from its time budget re-plans its steps left this often, from the time of its last batches
REPLAN_S = 60.0
REPLAN_WINDOW = 300
#: the most steps one plan looks ahead
MAX_PLANNED = 10_000_000


def log(message: str) -> None:
    """A line of the training run's progress, to stderr."""
    print(f"[train] {message}", file=sys.stderr, flush=True)


def plan_steps(draws: Draws, epoch: int, pos: int, step: int, seconds: float, sec_per_token: float,
               max_epochs: Optional[float]) -> int:
    """The step at which the schedule ends: ``step`` plus the batches from (``epoch``, ``pos``) on whose predicted
    time (``sec_per_token`` times batch size times its longest pair) fits in ``seconds``, and no more than
    ``max_epochs`` epochs of batches in all."""
    left, planned = seconds, step
    e, i = epoch, pos
    limit = math.inf if max_epochs is None else max_epochs
    while planned - step < MAX_PLANNED:
        batches = draws.epoch(e)
        if not batches or e + i / len(batches) >= limit:
            return max(planned, step + 1)
        b = batches[i]
        left -= sec_per_token * len(b) * int(draws.lengths[b].max())
        if left < 0:
            return max(planned, step + 1)
        planned += 1
        i += 1
        if i == len(batches):
            e, i = e + 1, 0
    return planned


class Planner:
    """The steps of a run planned from its time budget: after its first minute (at most a tenth of the budget), then
    again every ``REPLAN_S``, the batches ahead that fit in the time left at the seconds per padded token of the
    last ``REPLAN_WINDOW`` batches (the machine may be shared: its speed changes). Each plan goes into ``plans``."""

    def __init__(self, draws: Draws, recipe: dict, plans: list, first_after_s: float) -> None:
        self.draws, self.recipe, self.plans = draws, recipe, plans
        self.first_after_s = first_after_s
        self.timed: list[tuple[float, int]] = []
        self.t0 = self.last = time.monotonic()

    def update(self, seconds: float, tokens: int, total: Optional[int], state: dict, left_s: float) -> Optional[int]:
        """The planned steps after a batch of ``tokens`` padded tokens that took ``seconds``, with ``left_s``
        seconds of the budget left: ``total`` unless it is time to (re-)plan."""
        self.timed.append((seconds, tokens))
        now = time.monotonic()
        if total is None:
            due = (now - self.t0 >= self.first_after_s and len(self.timed) >= CALIBRATION_SKIP + 5) \
                or left_s <= SAVE_RESERVE_S
            use = self.timed[CALIBRATION_SKIP:] or self.timed
        else:
            due = now - self.last >= REPLAN_S
            use = self.timed
        if not due:
            return total
        use = use[-REPLAN_WINDOW:]
        del self.timed[:-REPLAN_WINDOW]
        spt = sum(t for t, _ in use) / max(1, sum(n for _, n in use))
        new = plan_steps(self.draws, state["epoch"], state["pos"], state["step"],
                         0.97 * (left_s - SAVE_RESERVE_S), spt, self.recipe["epochs"])
        if total is None:
            log(f"planned {new} steps ({new * self.recipe['batch']} pairs) at {spt * 1e6:.1f} us per padded token")
        elif abs(new - total) > 0.01 * total:
            log(f"re-planned {total} -> {new} steps at {spt * 1e6:.1f} us per padded token")
        self.plans.append({"step": state["step"], "planned_steps": new, "seconds_per_padded_token": round(spt, 9)})
        self.last = now
        return new
