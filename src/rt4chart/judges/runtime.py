"""Loading the judges' model files: where they ship, an onnxruntime session on the CPU, and a ``tokenizers``
tokenizer that encodes exactly what it is given (the MiniLM ``tokenizer.json`` ships with truncation and padding to
128 turned on; our encoders build, cut and pad their inputs themselves). Used by the local judge's tagger."""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Optional

from ..errors import MissingDependencyError


def model_dir() -> Path:
    """The judges' shipped models folder (package data ``rt4chart/judges/models``)."""
    return Path(str(resources.files("rt4chart.judges") / "models"))


def default_threads() -> int:
    """The onnxruntime pool of a transformer judge when none is asked for: the CPU count, at most 4."""
    return min(4, os.cpu_count() or 1)


def cpu_session(path: "str | Path", threads: Optional[int], *, extra: str = "local") -> Any:
    """An onnxruntime ``InferenceSession`` of ``path`` on the CPU with ``threads`` intra-op threads
    (``default_threads()`` when None) and one inter-op thread (the judges run one graph call at a time)."""
    try:
        import onnxruntime as ort
    except ImportError as exc:  # pragma: no cover - a core dependency
        raise MissingDependencyError("onnxruntime", extra, hint="pip install onnxruntime") from exc
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or default_threads()
    opts.inter_op_num_threads = 1
    if u8s8_saturates():
        # int8 weights become uint8 (+128, zero point +128) when the session is built: the same integers, computed
        # by the U8U8 kernels, which do not saturate (see ``u8s8_saturates``)
        opts.add_session_config_entry(PRECISE_INT8, "1")
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


#: onnxruntime's session option that rewrites the int8 weights of MatMulInteger / DynamicQuantizeMatMul (and the other
#: quantized matrix products) to uint8 on x86, so that the U8U8 kernels run in place of the U8S8 ones
PRECISE_INT8 = "session.x64quantprecision"
#: the probe: 255 times 127 over 64 terms. U8S8 kernels that add each pair of products in 16 bits (VPMADDUBSW: x86
#: with AVX2 or AVX-512 and no VNNI) give 32 * 32767 in place of 64 * 255 * 127
_PROBE_K = 64
_PROBE_EXACT = 64 * 255 * 127


#: the probe's graph (``training.tagger_graph.u8s8_probe`` writes it): one ``MatMulInteger`` of a uint8 input of
#: shape (4, 64) by a constant int8 weight of 127s, shape (64, 16), zero points 0
PROBE_MODEL = "u8s8_probe.onnx"


def probe_session(precise: bool = False) -> Any:
    """A session of the probe (``PROBE_MODEL``) on this CPU, with ``PRECISE_INT8`` set when ``precise``."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    if precise:
        opts.add_session_config_entry(PRECISE_INT8, "1")
    return ort.InferenceSession(str(model_dir() / PROBE_MODEL), opts, providers=["CPUExecutionProvider"])


def probe_value(session: Any) -> int:
    """The smallest entry the probe gives (``_PROBE_EXACT`` where the products are exact)."""
    import numpy as np

    return int(session.run(None, {"a": np.full((4, _PROBE_K), 255, dtype=np.uint8)})[0].min())


@lru_cache(maxsize=1)
def u8s8_saturates() -> bool:
    """Whether onnxruntime's uint8-by-int8 matrix product is inexact on this CPU, measured once per process on a
    probe (``probe_session``). The int8 models are quantized as onnxruntime's ``quantize_dynamic`` does: uint8
    activations, int8 weights in [-127, 127]. On x86 without VNNI (Intel before Cascade Lake / Ice Lake, AMD before
    Zen 4) the U8S8 kernels multiply with VPMADDUBSW, which adds two products a*w in 16 bits and saturates where
    they pass 32767 (255 * 127 * 2 = 64770), and the model gives other probabilities than on a VNNI, AMX or ARM CPU;
    there ``cpu_session`` sets ``PRECISE_INT8``, after which the products are exact (the same integers as on VNNI).
    False where the probe cannot run (then nothing is changed)."""
    try:
        return probe_value(probe_session()) != _PROBE_EXACT
    except Exception:  # pragma: no cover - a probe file missing, or an onnxruntime that cannot run it
        return False


def plain_tokenizer(path: "str | Path", *, extra: str = "local") -> Any:
    """The ``tokenizers.Tokenizer`` of ``path`` with its truncation and padding turned off."""
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise MissingDependencyError("tokenizers", extra, hint="pip install tokenizers") from exc
    tok = Tokenizer.from_file(str(path))
    tok.no_truncation()
    tok.no_padding()
    return tok
