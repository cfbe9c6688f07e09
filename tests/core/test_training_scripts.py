"""The training scripts' guards (the training itself is measured by running the scripts, see docs/results.md)."""

import argparse
import sys
from pathlib import Path

import numpy as np
import pytest

from rt4chart.judges import local

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import train_local_judge  # noqa: E402


def test_semantic_training_without_the_taggers_out_of_fold_probabilities_says_how_to_make_them(tmp_path):
    args = argparse.Namespace(out_dir=str(local.model_dir()), cache_dir=str(tmp_path / "judge"),
                              tagger_cache=str(tmp_path / "tagger"), seed=13)
    with pytest.raises(SystemExit) as err:
        train_local_judge.tagger_column({"y": np.zeros(3)}, [], args)
    message = str(err.value)
    assert str(tmp_path / "tagger" / "oof-13.npz") in message
    assert "--stage oof" in message and "--tagger-cache" in message
