"""Fixtures of the Ray engine's tests: a real Ray cluster on this machine (2 CPUs, a 200 MB object store, no
dashboard), whose workers import rt4chart from the same place as the tests and this folder's helpers."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

import rt4chart

HERE = Path(__file__).resolve().parent
OBJECT_STORE = 200 * 1024 * 1024


def worker_env() -> dict[str, str]:
    """Environment of Ray's workers: rt4chart from where the tests import it, this folder for ``ray_helpers``,
    and Ray's usage statistics off."""
    src = Path(rt4chart.__file__).resolve().parents[1]
    return {"PYTHONPATH": os.pathsep.join([str(src), str(HERE)]), "RAY_USAGE_STATS_ENABLED": "0"}


def make_data_context() -> None:
    """Create Ray Data's default context, whose constructor warns about Ray's own deprecated settings
    (``use_push_based_shuffle``, ``use_polars``; tests turn warnings into errors), with those warnings ignored."""
    import warnings

    import ray.data

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"ray\.data\.context")
        ray.data.DataContext.get_current()


@pytest.fixture(scope="module")
def ray_local() -> Iterator[None]:
    """``ray.init`` in this process: a new local cluster for the module's tests (never one that ``ray start``
    left running), shut down after them."""
    # ray.data, not ray: without Ray installed, this folder (tests/ray) would import as a namespace package "ray"
    pytest.importorskip("ray.data", reason="the Ray engine needs pip install 'rt4chart[ray]'")
    import ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(address="local", num_cpus=2, object_store_memory=OBJECT_STORE, include_dashboard=False,
             log_to_driver=False, runtime_env={"env_vars": worker_env()})
    make_data_context()
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture
def ragtruth_available(ragtruth_root: Path) -> None:
    """Skips the test without the real RAGTruth data (``ragtruth_root``)."""
