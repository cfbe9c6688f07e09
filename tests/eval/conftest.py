"""Small synthetic protocol data (as tests/gate/conftest.py): answers copied from their context (faithful) or with
invented content (unfaithful), in context groups of three tasks."""

from __future__ import annotations

import random

import numpy as np
import pytest

_WORDS = ("harbor lantern meadow copper violin glacier orchard pepper saddle thunder velvet walnut beacon canyon "
          "falcon garnet hazel island jasper kettle ledger marble nectar oyster quartz raven summit timber").split()
_ALIEN = ("zeppelin xylophone quasar nebula tundra vortex yonder wizard jigsaw kumquat").split()


def synth_records(n_groups: int = 30, per_group: int = 4, seed: int = 0):
    """``(records, y, groups, tasks)``: half of each group's answers invent words and numbers."""
    rng = random.Random(seed)
    records, y, groups, tasks = [], [], [], []
    for g in range(n_groups):
        task = ("qa", "summary", "data2txt")[g % 3]
        sentences = [" ".join(rng.sample(_WORDS, 6)).capitalize() + f" {rng.randint(10, 99)}." for _ in range(5)]
        context = " ".join(sentences)
        for j in range(per_group):
            bad = j % 2 == 1
            picked = rng.sample(sentences, 2)
            if bad:
                picked[1] = " ".join(rng.sample(_ALIEN, 4)).capitalize() + f" {rng.randint(100, 999)}."
            question = "What happened?" if task == "qa" else None
            records.append({"id": f"{g}-{j}", "context": context, "question": question, "answer": " ".join(picked),
                            "task": task})
            y.append(bad)
            groups.append(f"{task}:{g}")
            tasks.append(task)
    return records, np.array(y), np.array(groups), np.array(tasks)


@pytest.fixture(scope="session")
def synth():
    return synth_records()
