"""Loading the judges' model files: where they ship, an onnxruntime session on the CPU, and a ``tokenizers``
tokenizer that encodes exactly what it is given (the MiniLM ``tokenizer.json`` ships with truncation and padding to
128 turned on; our encoders build, cut and pad their inputs themselves). Used by the local judge's tagger."""

from __future__ import annotations

import os
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
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


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
