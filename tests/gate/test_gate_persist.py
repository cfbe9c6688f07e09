"""Versioned npz save/load and the shipped default gate."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from rt4chart.errors import ConfigError
from rt4chart.gate import (
    DEFAULT_GATE_FILE,
    RAGScopeC,
    RAGScopeE,
    RAGScopeZ,
    load_default_gate,
    load_gate,
    risk_scores,
    save_gate,
)
from rt4chart.gate.persist import FORMAT_VERSION


@pytest.mark.parametrize("cls", [RAGScopeZ, RAGScopeC, RAGScopeE])
def test_round_trip_scores_identically(cls, synth, tmp_path):
    X, y, *_ = synth
    gate = cls().fit(X, y)
    path = save_gate(gate, tmp_path / "g.npz", provenance={"note": "test"})
    loaded = load_gate(path)
    assert type(loaded) is cls and loaded.get_params() == gate.get_params()
    # the vocabulary is fitted and stored in scikit-learn's sorted order: the reloaded gate adds in the same order
    np.testing.assert_array_equal(loaded.predict_proba(X), gate.predict_proba(X))
    # plain arrays only: numpy can read every member without pickle
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
    assert meta["format_version"] == FORMAT_VERSION and meta["provenance"] == {"note": "test"}


def _rewrite_meta(src, dst, **changes):
    with np.load(src, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays.pop("meta")))
    meta.update(changes)
    with open(dst, "wb") as fh:
        np.savez(fh, meta=np.array(json.dumps(meta)), **arrays)


def test_newer_or_foreign_files_are_refused(synth, tmp_path):
    X, y, *_ = synth
    path = save_gate(RAGScopeC().fit(X, y), tmp_path / "g.npz")
    _rewrite_meta(path, tmp_path / "newer.npz", format_version=FORMAT_VERSION + 1)
    with pytest.raises(ConfigError, match="newer"):
        load_gate(tmp_path / "newer.npz")
    _rewrite_meta(path, tmp_path / "other.npz", format="something-else")
    with pytest.raises(ConfigError, match="format"):
        load_gate(tmp_path / "other.npz")
    _rewrite_meta(path, tmp_path / "features.npz", features=["a"])
    with pytest.raises(ConfigError, match="features"):
        load_gate(tmp_path / "features.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ConfigError):
        load_gate(tmp_path / "junk.npz")


def test_shipped_default_gate(tmp_path):
    from importlib import resources

    ref = resources.files("rt4chart.gate") / "models" / DEFAULT_GATE_FILE
    assert ref.stat().st_size < 5_000_000 if hasattr(ref, "stat") else True
    with resources.as_file(ref) as path:
        assert path.stat().st_size < 5_000_000
        assert zipfile.is_zipfile(path)
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
    assert meta["variant"] == "E" and meta["provenance"]["n_records"] == 15090
    gate = load_default_gate()
    assert isinstance(gate, RAGScopeE) and gate.tfidf_.n_terms > 100_000
    ctx = "The museum opens at 9 am and closes at 5 pm. Entry costs 12 euros for adults."
    scores = risk_scores([
        {"context": ctx, "question": "When does the museum open?", "answer": "The museum opens at 9 am."},
        {"context": ctx, "question": "When does the museum open?",
         "answer": "The museum opens at 7 am on weekdays, offers free guided tours by famous historians, and "
                   "children under 16 enter free of charge."},
    ])
    assert 0.0 <= scores[0] < scores[1] <= 1.0
    assert risk_scores([]).shape == (0,)
