"""Does `rt4chart serve` stay responsive while it audits? ``GET /healthz`` latency with and without load.

    python3 -m benchmarks.server_health                  # the default offline judge, 16 concurrent audits
    python3 -m benchmarks.server_health --judge lexical --rounds 5 --json out.json

The server runs in its own process on 127.0.0.1 (an ephemeral port), as `rt4chart serve` starts it (uvicorn, one
worker, the judge built once at startup). A thread polls ``/healthz`` every ``--interval`` seconds over its own
connection, first with the server idle (the baseline, in the same run), then while ``--concurrency`` audits of long
contexts run at once (one record per request; ``--rounds`` such waves, one after the other). The records are the
test records of RAGTruth with the longest contexts (``--data``, default $RT4CHART_DATA_DIR or shared/data), or
synthetic long contexts when the data folder is missing. A health check that takes long means something holds the
server's event loop: CPU work run on the loop instead of in a worker thread. The target is under 50 ms.
Everything is bounded (waves, polls, timeouts), talks to loopback only, and stops the server at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import httpx

from rt4chart.llm.managed import free_port

from .server_load import start_server

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 50.0


def long_records(n: int, data: Path | None) -> tuple[list[dict], str]:
    """The ``n`` RAGTruth test records with the longest contexts, or ``n`` synthetic ones; and where they came from."""
    folder = data or Path(os.environ.get("RT4CHART_DATA_DIR") or ROOT.parent / "shared" / "data")
    if (folder / "ragtruth").is_dir() or (folder / "jsonl").is_dir():
        from rt4chart.eval.datasets import load_ragtruth

        records = sorted(load_ragtruth("test", root=folder), key=lambda r: len(r.context), reverse=True)[:n]
        return [dict(r.to_record(), id=f"{r.id}-{i}") for i, r in enumerate(records)], f"RAGTruth test ({folder})"
    sentences = [f"Station {k} recorded {k * 7 % 90 + 10} millimetres of rain in week {k % 52 + 1}, and its "
                 f"operator, the {('northern', 'coastal', 'valley')[k % 3]} authority, reported it on day {k % 28 + 1}."
                 for k in range(90)]
    context = " ".join(sentences)  # about 10,000 characters, like RAGTruth's longest
    answer = (f"{sentences[3]} {sentences[40]} Station 41 recorded 999 millimetres of rain. "
              "The coastal authority closed every station in week 60.")
    return [{"id": f"synthetic-{i}", "context": context, "question": "What did the stations record?",
             "answer": answer} for i in range(n)], "synthetic (no data folder found)"


def stop_server(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class Poller(threading.Thread):
    """GET /healthz every ``interval`` s on one connection until stopped (or ``max_polls``); latencies in ms."""

    def __init__(self, url: str, interval: float, max_polls: int) -> None:
        super().__init__(daemon=True)
        self.url, self.interval, self.max_polls = url, interval, max_polls
        self.latencies: list[float] = []
        self.failures = 0
        self.done = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as http:
            while not self.done.is_set() and len(self.latencies) + self.failures < self.max_polls:
                started = time.perf_counter()
                try:
                    ok = http.get("/healthz").status_code == 200
                except httpx.HTTPError:
                    ok = False
                elapsed = time.perf_counter() - started
                if ok:
                    self.latencies.append(1000 * elapsed)
                else:
                    self.failures += 1
                self.done.wait(max(0.0, self.interval - elapsed))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] if ordered else float("nan")


def summary(latencies: list[float], failures: int) -> dict:
    return {"polls": len(latencies), "failures": failures, "p50_ms": round(pct(latencies, 0.5), 2),
            "p95_ms": round(pct(latencies, 0.95), 2), "max_ms": round(max(latencies, default=float("nan")), 2)}


def poll_for(url: str, interval: float, polls: int) -> dict:
    poller = Poller(url, interval, polls)
    poller.start()
    poller.join(timeout=polls * (interval + 30))
    poller.done.set()
    return summary(poller.latencies, poller.failures)


async def waves(url: str, records: list[dict], rounds: int, timeout: float, more=lambda: False,
                max_rounds: int = 100) -> dict:
    """``rounds`` waves of ``len(records)`` concurrent audits, and more while ``more()`` (up to ``max_rounds``);
    per-audit latencies and each wave's wall time."""
    limits = httpx.Limits(max_connections=len(records), max_keepalive_connections=len(records))
    latencies: list[float] = []
    walls: list[float] = []
    errors = 0
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=timeout) as http:
        async def one(rec: dict) -> None:
            nonlocal errors
            started = time.perf_counter()
            try:
                resp = await http.post("/v1/audit", json=rec)
                ok = resp.status_code == 200 and resp.json()["id"] == rec["id"]
            except httpx.HTTPError:
                ok = False
            if ok:
                latencies.append(time.perf_counter() - started)
            else:
                errors += 1

        while len(walls) < rounds or (more() and len(walls) < max_rounds):
            started = time.perf_counter()
            await asyncio.gather(*(one(r) for r in records))
            walls.append(time.perf_counter() - started)
    return {"audits": len(latencies) + errors, "errors": errors, "wave_wall_s": [round(w, 2) for w in walls],
            "audit_p50_s": round(pct(latencies, 0.5), 3), "audit_max_s": round(max(latencies, default=0.0), 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--judge", default="auto", help="server judge (default: auto, the best offline judge)")
    ap.add_argument("--concurrency", type=int, default=16, help="audits in flight at once")
    ap.add_argument("--rounds", type=int, default=3, help="waves of concurrent audits (at least)")
    ap.add_argument("--interval", type=float, default=0.075, help="seconds between health checks")
    ap.add_argument("--polls", type=int, default=40,
                    help="health checks with the server idle, and at least as many under load (more waves if needed)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds one audit request may take")
    ap.add_argument("--data", type=Path, default=None, help="data folder holding ragtruth/")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = ap.parse_args()

    records, source = long_records(args.concurrency, args.data)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_server(port, args.judge)
    try:
        info = httpx.get(f"{url}/v1/info", timeout=30).json()
        asyncio.run(waves(url, records[:1], 1, args.timeout))  # warm-up: lazy model loads, first-call caches
        idle = poll_for(url, args.interval, args.polls)
        poller = Poller(url, args.interval, max_polls=100_000)
        poller.start()
        load = asyncio.run(waves(url, records, args.rounds, args.timeout,
                                 more=lambda: len(poller.latencies) + poller.failures < args.polls))
        poller.done.set()
        poller.join(timeout=60)
        busy = summary(poller.latencies, poller.failures)
    finally:
        stop_server(proc)

    chars = sorted(len(r["context"]) for r in records)
    print(f"judge {info.get('judge')} (W={info['config'].get('window')}, O={info['config'].get('overlap')}), "
          f"{args.concurrency} concurrent audits x {len(load['wave_wall_s'])} waves, records: {source}, "
          f"context {chars[0]:,} to {chars[-1]:,} characters; health every {1000 * args.interval:.0f} ms")
    print()
    print("| /healthz | polls | failures | p50 ms | p95 ms | max ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, s in (("idle (baseline)", idle), (f"{args.concurrency} audits running", busy)):
        print(f"| {name} | {s['polls']} | {s['failures']} | {s['p50_ms']} | {s['p95_ms']} | {s['max_ms']} |")
    print()
    print(f"audits: {load['audits']} ({load['errors']} errors), wave wall time {load['wave_wall_s']} s, "
          f"per audit p50 {load['audit_p50_s']} s, max {load['audit_max_s']} s")
    verdict = "met" if busy["p95_ms"] < TARGET_MS and busy["max_ms"] < TARGET_MS else "NOT met"
    print(f"target: health under {TARGET_MS:.0f} ms under load: {verdict} (p95 {busy['p95_ms']} ms, "
          f"max {busy['max_ms']} ms)")
    if args.json:
        args.json.write_text(json.dumps({"judge": info.get("judge"), "source": source, "idle": idle, "busy": busy,
                                         "load": load, "args": {k: str(v) for k, v in vars(args).items()}},
                                        indent=2) + "\n")


if __name__ == "__main__":
    main()
