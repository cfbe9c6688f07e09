"""Running many records: ``batch`` audits rows into a results file that holds exactly one line per input row, in
input order, resumable after a kill and reusing a baseline's results (``run_batch``; ``audit_lines`` is the per-record
path every engine runs, ``rt4chart.ray`` the cluster one); ``resume`` reads what a results file being resumed already
holds. The gate cascade (``--gate-accept``) routes the rows here before they are audited."""

from __future__ import annotations

from .batch import BatchSummary, audit_lines, run_batch, run_batch_async, run_sync

__all__ = ["BatchSummary", "audit_lines", "run_batch", "run_batch_async", "run_sync"]
