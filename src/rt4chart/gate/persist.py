"""Versioned save/load of fitted gates as one ``.npz`` of plain arrays (no pickle).

Layout (``FORMAT_VERSION`` 1): ``meta`` is a JSON document (format name and version, gate variant and parameters,
feature names, classes, library versions, free-form provenance); ``mean``, ``scale``, ``coef`` are float64 arrays and
``intercept`` a scalar; an E gate adds ``tfidf_terms`` (the vocabulary as UTF-8 bytes, one term per line),
``tfidf_df`` (document frequencies) and ``tfidf_n_docs``. Loading uses ``allow_pickle=False``, so a model file can
carry numbers and text but never code; an unknown format or a newer version is refused with a ConfigError.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from ..errors import ConfigError
from .risk_features import BASE_FEATURES, ENHANCED_FEATURES
from .gate import GATES, RAGScopeZ, GateBase, LinearGate
from .tfidf import TfidfSpace

__all__ = ["FORMAT", "FORMAT_VERSION", "save_gate", "load_gate"]

FORMAT = "rt4chart-gate"
FORMAT_VERSION = 1

PathLike = Union[str, "os.PathLike[str]"]


def _variant(gate: GateBase) -> str:
    for name, cls in GATES.items():
        if type(gate) is cls:
            return name
    raise ConfigError(f"cannot save a {type(gate).__name__}; expected a RAGScope Z, C or E gate")


def save_gate(gate: GateBase, path: PathLike, *, provenance: Optional[dict] = None) -> Path:
    """Write a fitted gate to ``path`` (``.npz``); returns the path written."""
    from sklearn import __version__ as sklearn_version
    from sklearn.utils.validation import check_is_fitted

    from .._version import __version__

    check_is_fitted(gate)
    variant = _variant(gate)
    meta: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "variant": variant,
        "params": gate.get_params(),
        "classes": gate.classes_.tolist(),
        "rt4chart_version": __version__,
        "sklearn_version": sklearn_version,
        "provenance": provenance or {},
    }
    arrays: dict[str, np.ndarray] = {}
    if isinstance(gate, LinearGate):
        meta["features"] = list(gate.feature_names)
        arrays.update(mean=gate.mean_, scale=gate.scale_, coef=gate.coef_, intercept=np.float64(gate.intercept_))
        if variant == "E":
            space: TfidfSpace = gate.tfidf_
            # Sorted terms share long prefixes, which roughly halves the compressed size.
            order = sorted(range(space.n_terms), key=space.terms.__getitem__)
            terms = "\n".join(space.terms[i] for i in order)
            arrays["tfidf_terms"] = np.frombuffer(terms.encode("utf-8"), dtype=np.uint8)
            arrays["tfidf_df"] = space.df[order].astype(np.uint32)
            arrays["tfidf_n_docs"] = np.int64(space.n_docs)
    path = Path(path)
    with open(path, "wb") as fh:  # an open file keeps numpy from appending ".npz" to the name
        np.savez_compressed(fh, meta=np.array(json.dumps(meta, sort_keys=True)), **arrays)
    return path


def load_gate(path: PathLike) -> GateBase:
    """Read a gate written by :func:`save_gate`; refuses unknown formats and newer format versions."""
    try:
        data = np.load(Path(path), allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: not a readable gate file ({exc})") from None
    with data:
        if "meta" not in data.files:
            raise ConfigError(f"{path}: not an rt4chart gate file (no meta)")
        meta = json.loads(str(data["meta"]))
        if meta.get("format") != FORMAT:
            raise ConfigError(f"{path}: format {meta.get('format')!r} is not {FORMAT!r}")
        version = meta.get("format_version")
        if not isinstance(version, int) or version > FORMAT_VERSION:
            raise ConfigError(
                f"{path}: gate format version {version!r} is newer than this rt4chart reads ({FORMAT_VERSION}); "
                "upgrade rt4chart"
            )
        variant = meta.get("variant")
        if variant not in GATES:
            raise ConfigError(f"{path}: unknown gate variant {variant!r}")
        gate = GATES[variant](**meta["params"])
        gate.classes_ = np.array(meta["classes"])
        if isinstance(gate, RAGScopeZ):
            return gate
        expected = list(BASE_FEATURES + (ENHANCED_FEATURES if variant == "E" else ()))
        if meta.get("features") != expected:
            raise ConfigError(f"{path}: the gate was fitted on features {meta.get('features')}, expected {expected}")
        gate.mean_ = data["mean"].astype(np.float64)
        gate.scale_ = data["scale"].astype(np.float64)
        gate.coef_ = data["coef"].astype(np.float64)
        gate.intercept_ = float(data["intercept"])
        if not (gate.mean_.shape == gate.scale_.shape == gate.coef_.shape == (len(expected),)):
            raise ConfigError(f"{path}: coefficient arrays do not match {len(expected)} features")
        if variant == "E":
            raw = data["tfidf_terms"].tobytes().decode("utf-8")
            terms = raw.split("\n") if raw else []
            gate.tfidf_ = TfidfSpace(terms, data["tfidf_df"].astype(np.int64), int(data["tfidf_n_docs"]))
    return gate
