"""Load test of `rt4chart serve`: N requests at C concurrent against the offline judge on loopback, with the
Python API called directly in the same run as the baseline.

    python benchmarks/server_load.py                       # 2,000 requests, 32 concurrent, lexical judge
    python benchmarks/server_load.py -n 500 -c 8 --json out.json

The server runs in its own process (uvicorn, one worker, as `rt4chart serve` starts it) so that the load
generator does not share its interpreter. Each request is one record from examples/records.jsonl (cycled). The
baseline audits the same records with ``Auditor.audit`` at the same concurrency in this process. Reported:
p50/p99 latency, throughput, errors, and the server/direct ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def _records() -> list[dict]:
    lines = (ROOT / "examples" / "records.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _proc_cpu(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc); NaN elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _stats(latencies: list[float], wall: float, errors: int) -> dict:
    return {
        "requests": len(latencies) + errors, "errors": errors, "wall_s": round(wall, 3),
        "throughput_rps": round(len(latencies) / wall, 1),
        "p50_ms": round(1000 * _pct(latencies, 0.50), 2), "p99_ms": round(1000 * _pct(latencies, 0.99), 2),
        "mean_ms": round(1000 * statistics.fmean(latencies), 2) if latencies else None,
    }


async def _drive(n: int, concurrency: int, call, server_pid: int = 0) -> dict:
    """Run ``call(i)`` for i in range(n) with ``concurrency`` workers; ``call`` returns True on success.

    CPU time per request (this process, and the server's) does not depend on what else runs on the machine."""
    latencies: list[float] = []
    errors = 0
    counter = iter(range(n))

    async def worker() -> None:
        nonlocal errors
        for i in counter:
            t = time.perf_counter()
            try:
                ok = await call(i)
            except Exception:  # noqa: BLE001 - any failure counts as an error in a load test
                ok = False
            if ok:
                latencies.append(time.perf_counter() - t)
            else:
                errors += 1

    started, cpu0, srv0 = time.perf_counter(), time.process_time(), _proc_cpu(server_pid) if server_pid else 0.0
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    out = _stats(latencies, time.perf_counter() - started, errors)
    out["this_process_cpu_ms_per_request"] = round(1000 * (time.process_time() - cpu0) / n, 3)
    if server_pid:
        out["server_cpu_ms_per_request"] = round(1000 * (_proc_cpu(server_pid) - srv0) / n, 3)
    return out


async def bench_server(url: str, pid: int, records: list[dict], n: int, concurrency: int) -> dict:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as http:
        for rec in records:  # warm-up: connections, caches
            (await http.post("/v1/audit", json=rec)).raise_for_status()

        async def call(i: int) -> bool:
            resp = await http.post("/v1/audit", json=records[i % len(records)])
            return resp.status_code == 200 and resp.json()["id"] == records[i % len(records)]["id"]

        audit = await _drive(n, concurrency, call, pid)

        async def ping(i: int) -> bool:  # the transport alone: what HTTP + uvicorn + this client cost
            return (await http.get("/healthz")).status_code == 200

        return {"audit": audit, "healthz": await _drive(n, concurrency, ping, pid)}


async def bench_direct(records: list[dict], n: int, concurrency: int, judge: str) -> dict:
    from rt4chart.judges.registry import build_auditor

    auditor = build_auditor(judge)
    for rec in records:
        await auditor.audit(rec)

    async def call(i: int) -> bool:
        result = await auditor.audit(records[i % len(records)])
        return result.id == records[i % len(records)]["id"]

    return await _drive(n, concurrency, call)


def _fast_loop() -> bool:
    """True when uvicorn can use uvloop and httptools (``uvicorn[standard]``), its fast event loop and parser."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("uvloop", "httptools"))


def start_server(port: int, judge: str) -> subprocess.Popen:
    code = ("import uvicorn; from rt4chart.server import ServerSettings, create_app; "
            f"uvicorn.run(create_app(ServerSettings(judge={judge!r}, gate=False)), host='127.0.0.1', port={port}, "
            "log_level='warning', access_log=False)")
    proc = subprocess.Popen([sys.executable, "-c", code], env=dict(os.environ, PYTHONWARNINGS="ignore"))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        if proc.poll() is not None:
            raise SystemExit("the server exited during startup")
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start within 60 s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--requests", type=int, default=2000)
    ap.add_argument("-c", "--concurrency", type=int, default=32)
    ap.add_argument("--judge", default="lexical")
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    args = ap.parse_args()
    records = _records()
    port = _port()
    proc = start_server(port, args.judge)
    try:
        http = asyncio.run(bench_server(f"http://127.0.0.1:{port}", proc.pid, records, args.requests, args.concurrency))
    finally:
        proc.terminate()
        proc.wait(30)
    direct = asyncio.run(bench_direct(records, args.requests, args.concurrency, args.judge))
    server = http["audit"]
    out = {
        "requests": args.requests, "concurrency": args.concurrency, "judge": args.judge, "cpus": os.cpu_count(),
        "server": server, "direct": direct, "healthz": http["healthz"], "uvloop_httptools": _fast_loop(),
        "throughput_ratio_server_over_direct": round(server["throughput_rps"] / direct["throughput_rps"], 3),
        "p50_ratio_server_over_direct": round(server["p50_ms"] / direct["p50_ms"], 2),
        "cpu_ratio_server_over_direct": round(
            server["server_cpu_ms_per_request"] / direct["this_process_cpu_ms_per_request"], 2),
    }
    print(f"{args.requests} requests, {args.concurrency} concurrent, judge={args.judge}, {os.cpu_count()} CPUs, "
          f"uvloop+httptools: {out['uvloop_httptools']}")
    print("| path | p50 ms | p99 ms | req/s | errors | server CPU ms/req | client CPU ms/req |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    rows = (("HTTP POST /v1/audit (uvicorn, loopback)", server), ("Python API Auditor.audit (same process)", direct),
            ("HTTP GET /healthz (transport only)", http["healthz"]))
    for name, s in rows:
        srv = s.get("server_cpu_ms_per_request", s["this_process_cpu_ms_per_request"] if s is direct else "")
        cli = s["this_process_cpu_ms_per_request"] if s is not direct else "-"
        print(f"| {name} | {s['p50_ms']} | {s['p99_ms']} | {s['throughput_rps']} | {s['errors']} | {srv} | {cli} |")
    print(f"throughput server/direct = {out['throughput_ratio_server_over_direct']}, "
          f"p50 server/direct = {out['p50_ratio_server_over_direct']}, "
          f"CPU per audit server/direct = {out['cpu_ratio_server_over_direct']}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    if server["errors"] or direct["errors"] or http["healthz"]["errors"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
