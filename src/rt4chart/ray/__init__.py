"""The Ray engine: ``rt4chart audit --engine ray`` and ``audit_dataset`` (``pip install 'rt4chart[ray]'``).

    import ray, rt4chart.ray
    ray.init()                                        # or ray.init(address="auto") on a cluster
    ds = ray.data.read_parquet("s3://bucket/answers/")
    results = rt4chart.ray.audit_dataset(ds, judge="local", context="passages", answer="response")
    results.write_parquet("s3://bucket/audits/")

The same per-record path as the local engine runs in a pool of Ray actors (one auditor each), so both give the same
labels, spans, evidence and error rows. Modules: ``_read`` (input files as numbered rows), ``_audit`` (the actors,
the id pass, the shared rate limit), ``_run`` (the command: output files and ``--resume``).
"""

from __future__ import annotations

try:
    import ray  # noqa: F401
    import ray.data  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    from ..errors import MissingDependencyError

    raise MissingDependencyError("ray", "ray") from exc

from ._audit import OUTPUT_SCHEMA, RateBucket, audit_dataset, repeated_rows
from ._read import list_inputs, numbered, read_records
from ._run import audit_files, connect

__all__ = ["OUTPUT_SCHEMA", "RateBucket", "audit_dataset", "audit_files", "connect", "list_inputs", "numbered",
           "read_records", "repeated_rows"]
