"""The training package's guards (the training itself is measured by running its modules, see docs/results.md)."""

import argparse

import numpy as np
import pytest

from rt4chart.judges import local
from training import device_tagger, train_local_judge


def test_semantic_training_without_the_taggers_out_of_fold_probabilities_says_how_to_make_them(tmp_path):
    args = argparse.Namespace(out_dir=str(local.model_dir()), cache_dir=str(tmp_path / "judge"),
                              tagger_cache=str(tmp_path / "tagger"), seed=13)
    with pytest.raises(SystemExit) as err:
        train_local_judge.tagger_column({"y": np.zeros(3)}, [], args)
    message = str(err.value)
    assert str(tmp_path / "tagger" / "oof-13.npz") in message
    assert "--stage oof" in message and "--tagger-cache" in message


def test_device_results_come_back_in_pieces_and_are_checked_when_joined(tmp_path):
    made, out, dest = tmp_path / "made", tmp_path / "out", tmp_path / "dest"
    made.mkdir()
    out.mkdir()
    weights = made / "tagger-13.safetensors"
    weights.write_bytes(bytes(range(256)) * 40)  # 10,240 bytes: 3 pieces of at most 4,000
    small = made / "oof-13.npz"
    small.write_bytes(b"probabilities")
    for path in (weights, small):
        device_tagger.add_to_manifest(out, path, device_tagger.split_file(path, out, piece=4000))
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "oof-13.npz", "tagger-13.safetensors.00",
                                                     "tagger-13.safetensors.01", "tagger-13.safetensors.02"]
    assert max(p.stat().st_size for p in out.iterdir()) <= 4000
    joined = device_tagger.join_files(out, dest)
    assert {p.name: p.read_bytes() for p in joined} == {weights.name: weights.read_bytes(),
                                                        small.name: b"probabilities"}

    # a piece that changed on the way is refused, and nothing is left under the file's name
    (out / "tagger-13.safetensors.01").write_bytes(b"x" * 4000)
    (dest / weights.name).unlink()
    with pytest.raises(SystemExit, match="tagger-13.safetensors: joined file does not match"):
        device_tagger.join_files(out, dest)
    assert not (dest / weights.name).exists() and not (dest / (weights.name + ".part")).exists()
    # a missing piece is named
    (out / "tagger-13.safetensors.02").unlink()
    with pytest.raises(SystemExit, match=r"piece\(s\) tagger-13.safetensors.02 missing"):
        device_tagger.join_files(out, dest)
