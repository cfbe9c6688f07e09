#!/usr/bin/env python3
"""Throughput of the Ray engine against the local engine on the RAGTruth test answers, measured in the same run.

    python3 -m benchmarks.engine_scaling [--limit N] [--judge auto] [--workers 1,2] [--json FILE]   # repo root

The same records (all 2,700 test answers, or ``--limit N`` of them taken as ``rt4chart eval run --limit`` takes
them) are written to a JSONL file and audited three ways, as ``rt4chart audit`` runs them: by the local engine
(``run_batch``, one process: eight records in flight, the judge's default threads), then by the Ray engine
(``rt4chart.ray.audit_files``) on a local Ray cluster with the machine's CPUs, with a pool of 1 and then 2 workers
(each one CPU, its own judge, one tagger thread). Wall time counts everything a user waits for: reading, auditing
and writing the output (for Ray also numbering the rows, the id pass and starting the workers, which load their
models); for Ray, the table also gives when the first batch of rows was written and the rate after it (the steady
rate, without the start-up). Peak RSS is the process's high-water mark (``VmHWM`` in ``/proc``): the local
engine's process, and each Ray worker's, polled every 0.2 s while the run lasts. Every Ray run's rows are
compared with the local engine's (timing fields aside); the table says whether they are identical.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from rt4chart.jobs.batch import run_batch
from rt4chart.eval.datasets import ENV_DATA_DIR, load_ragtruth
from rt4chart.eval.runner import limit_records
from rt4chart.io import read_rows
from rt4chart.judges.registry import build_auditor

WORKER = "ray::MapWorker(MapBatches(AuditBatches))"


def _hwm_mb(pid: "int | str" = "self") -> float:
    """Peak resident set size of a process in MB (Linux ``VmHWM``), 0.0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class WorkerPeaks:
    """Polls the Ray workers of this machine (``WORKER`` processes) and keeps each one's peak RSS."""

    def __init__(self) -> None:
        self.peaks: dict[int, float] = {}
        self._before: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    @staticmethod
    def _workers() -> list[int]:
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                except OSError:
                    continue
                if cmd.startswith(WORKER):
                    pids.append(int(entry.name))
        return pids

    def _poll(self) -> None:
        while not self._stop.wait(0.2):
            for pid in self._workers():
                if pid not in self._before:  # a worker of an earlier run, still stopping, is not this run's
                    self.peaks[pid] = max(self.peaks.get(pid, 0.0), _hwm_mb(pid))

    def __enter__(self) -> "WorkerPeaks":
        self._before = set(self._workers())
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _lines(path: Path) -> list[dict]:
    out = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        if isinstance(line.get("usage"), dict):
            line["usage"].pop("seconds", None)
        out.append(line)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None, help="audit this many test answers (default: all 2,700)")
    ap.add_argument("--judge", default="auto", help="judge name, as rt4chart audit --judge (default: auto)")
    ap.add_argument("--workers", default="1,2", help="comma-separated Ray worker pool sizes to measure")
    ap.add_argument("--batch-size", type=int, default=16, help="rows per Ray batch (rt4chart.ray.audit_dataset)")
    ap.add_argument("--json", type=Path, default=None, help="also write the measurements to this JSON file")
    args = ap.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray

    from rt4chart.ray import audit_files

    records = [r.to_record() for r in limit_records(load_ragtruth("test", data_dir=os.environ.get(ENV_DATA_DIR)
                                                                  or None), args.limit)]
    tmp = Path(tempfile.mkdtemp(prefix="engine-scaling-"))
    src = tmp / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    n = len(records)

    t0 = time.perf_counter()
    run_batch(list(read_rows(src)), build_auditor(args.judge), tmp / "local.jsonl")
    local_s = time.perf_counter() - t0
    local = _lines(tmp / "local.jsonl")
    rows = [{"engine": "local (one process)", "workers": "-", "seconds": local_s, "rps": n / local_s,
             "ratio": 1.0, "peak_mb": [_hwm_mb()], "identical": True}]

    ray.init(address="local", include_dashboard=False, log_to_driver=False)
    try:
        ray.data.DataContext.get_current().enable_progress_bars = False
        for workers in (int(w) for w in args.workers.split(",")):
            out = tmp / f"ray-{workers}.jsonl"
            first: list[tuple[float, int]] = []

            def arrived(count: int) -> None:
                if not first:
                    first.append((time.perf_counter(), count))

            t0 = time.perf_counter()
            with WorkerPeaks() as peaks:
                audit_files(str(src), str(out), judge=args.judge, workers=workers, batch_size=args.batch_size,
                            on_rows=arrived)
            end = time.perf_counter()
            seconds = end - t0
            after = (n - first[0][1]) / (end - first[0][0]) if first and end > first[0][0] else float("nan")
            rows.append({"engine": "Ray (local cluster)", "workers": workers, "seconds": seconds,
                         "rps": n / seconds, "ratio": local_s / seconds, "first_s": first[0][0] - t0,
                         "rps_after_first": after, "peak_mb": sorted(peaks.peaks.values(), reverse=True),
                         "identical": _lines(out) == local})
        cpus = int(ray.cluster_resources().get("CPU", 0))
    finally:
        ray.shutdown()

    print(f"{n} RAGTruth test answers, judge {args.judge}, {os.cpu_count()} CPUs ({cpus} for Ray), "
          f"batch size {args.batch_size}")
    print(f"command: python3 -m benchmarks.engine_scaling {' '.join(sys.argv[1:])}\n")
    print("| engine | workers | wall s | records/s | vs local | first rows after s | records/s after them | "
          "peak RSS per process MB | rows = local |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        peaks = ", ".join(f"{m:.0f}" for m in r["peak_mb"]) or "?"
        first = f"{r['first_s']:.1f}" if "first_s" in r else "-"
        after = f"{r['rps_after_first']:.2f}" if "rps_after_first" in r else "-"
        print(f"| {r['engine']} | {r['workers']} | {r['seconds']:.1f} | {r['rps']:.2f} | {r['ratio']:.2f}x | "
              f"{first} | {after} | {peaks} | {'yes' if r['identical'] else 'NO'} |")
    if args.json is not None:
        args.json.write_text(json.dumps({"records": n, "judge": args.judge, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
