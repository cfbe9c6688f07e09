"""Load test of `rt4chart serve`: N requests at C concurrent against the offline judge on loopback, with the
Python API called directly in the same run as the baseline.

    python benchmarks/server_load.py                       # 2,000 requests, 32 concurrent, lexical judge
    python benchmarks/server_load.py -n 500 -c 8 --json out.json

The server runs in its own process (uvicorn, one worker, as `rt4chart serve` starts it) so that the load
generator does not share its interpreter. Each request is one record from examples/records.jsonl (cycled). The
baseline audits the same records with ``Auditor.audit`` at the same concurrency in this process. Reported:
p50/p99 latency, throughput, errors, and the server/direct ratios.

    python3 -m benchmarks.server_load --soak 60 --clients 64     # soak: mixed requests for 60 s, 64 clients

Soak mode starts the server with the default judge and a bearer token, and sends ``POST /v1/audit`` requests of six
kinds in a fixed mix: half are valid, each a distinct RAGTruth test record ($RT4CHART_DATA_DIR or shared/data); a
twelfth each are over the body limit (by Content-Length; chunked), over the record limit, malformed JSON, wrong
field types, and without the right token. Reported per kind: status codes, timeouts and transport errors, p50/p99
latency; the valid audits per second; the number of 5xx responses (the acceptance: none); and the server's RSS
(/proc/PID/status) at the start and end. Bounded by time and a request cap, loopback only; the server is stopped at
the end. Exit status 1 on any 5xx.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
from rt4chart.llm.managed import free_port

ROOT = Path(__file__).resolve().parents[1]


def _records() -> list[dict]:
    lines = (ROOT / "examples" / "records.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]



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


def start_server(port: int, judge: str, token: str | None = None) -> subprocess.Popen:
    code = ("import uvicorn; from rt4chart.server import ServerSettings, create_app; "
            f"uvicorn.run(create_app(ServerSettings(judge={judge!r}, gate=False, token={token!r})), host='127.0.0.1', "
            f"port={port}, log_level='warning', access_log=False)")
    proc = subprocess.Popen([sys.executable, "-c", code], env=dict(os.environ, PYTHONWARNINGS="ignore"))
    deadline = time.monotonic() + 120
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
    raise SystemExit("the server did not start within 120 s")


# --- soak: valid, oversize, malformed and unauthorized requests mixed, for a fixed time ------------------------------

SOAK_KINDS = ("valid", "oversize_body", "oversize_chunked", "oversize_records", "malformed_json", "wrong_types",
              "unauthorized")
SOAK_MIX = ("valid",) * 6 + SOAK_KINDS[1:]  # request i is SOAK_MIX[i % 12]: half valid, a twelfth each of the others
MAX_BODY_BYTES, MAX_RECORDS = 2_000_000, 100  # ServerSettings' defaults, which the soak server keeps


def _ragtruth_records() -> tuple[list[dict], str]:
    """The RAGTruth test records (all 2,700 answers), shuffled with a fixed seed so the three tasks interleave."""
    import random

    from rt4chart.eval.datasets import ENV_DATA_DIR, load_ragtruth

    records = [r.to_record() for r in load_ragtruth("test", data_dir=os.environ.get(ENV_DATA_DIR) or None)]
    random.Random(0).shuffle(records)
    return records, f"RAGTruth test ({len(records)} records, shuffled with seed 0)"


def _rss_kb(pid: int) -> int:
    """Resident set size of a process in kB (``VmRSS`` in /proc/PID/status); -1 where it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return -1


def _bad_requests(token: str) -> dict[str, list[dict]]:
    """Request variants (keyword arguments of ``httpx.AsyncClient.post``) for each kind but ``valid``."""
    auth = {"authorization": f"Bearer {token}"}
    rec = {"id": "x", "context": "The free trial lasts 14 days.", "answer": "The free trial lasts 30 days."}
    big = {"id": "big", "context": "word " * (MAX_BODY_BYTES // 5 + 10), "answer": "A word."}
    big_bytes = json.dumps(big).encode()

    async def chunked():  # no Content-Length: the limit is enforced while reading
        for i in range(0, len(big_bytes), 65536):
            yield big_bytes[i:i + 65536]

    json_h = {"content-type": "application/json", **auth}
    return {
        "oversize_body": [dict(content=big_bytes, headers=json_h)],
        "oversize_chunked": [dict(content=chunked, headers=json_h)],
        "oversize_records": [dict(json={"records": [dict(rec, id=i) for i in range(MAX_RECORDS + 1)]}, headers=auth)],
        "malformed_json": [dict(content=b'{"id": 1, "context": "a", "answer": ', headers=json_h),
                           dict(content=b'{"context": "\xff\xfe", "answer": "b"}', headers=json_h),
                           dict(content=b"", headers=json_h), dict(content=b"[1, 2, 3]", headers=json_h),
                           dict(content=b"not json at all", headers=json_h)],
        "wrong_types": [dict(json={"context": 5, "answer": "a"}, headers=auth),
                        dict(json={"context": "c", "answer": ["a"]}, headers=auth),
                        dict(json={"records": "not a list"}, headers=auth),
                        dict(json={"id": {"nested": 1}, "context": "c", "answer": "a"}, headers=auth),
                        dict(json={"context": "c", "answer": "   "}, headers=auth),
                        dict(json={"records": [rec, {"context": None, "answer": 1}]}, headers=auth)],
        "unauthorized": [dict(json=rec), dict(json=rec, headers={"authorization": "Bearer wrong-token"}),
                         dict(json=rec, headers={"authorization": f"Basic {token}"})],
    }


async def soak(url: str, pid: int, token: str, records: list[dict], seconds: float, clients: int,
               max_requests: int, timeout: float) -> dict:
    """``clients`` workers send requests from ``SOAK_MIX`` until ``seconds`` have passed (or ``max_requests`` were
    started); each valid request is the next distinct record. Statuses, latencies and transport failures per kind."""
    from collections import Counter

    bad = _bad_requests(token)
    auth = {"authorization": f"Bearer {token}"}
    statuses: dict[str, Counter] = {k: Counter() for k in SOAK_KINDS}
    latencies: dict[str, list[float]] = {k: [] for k in SOAK_KINDS}
    failures: dict[str, Counter] = {k: Counter() for k in SOAK_KINDS}  # timeouts and other transport errors
    wrong_ids = 0
    valid_records = iter(records)
    counter = iter(range(max_requests))
    rss: list[int] = []
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=timeout) as http:
        warm = records[-1]  # warm-up (lazy model loads): a record the soak itself does not send first
        (await http.post("/v1/audit", json=warm, headers=auth)).raise_for_status()
        rss_start = _rss_kb(pid)
        started, srv0 = time.perf_counter(), _proc_cpu(pid)
        stop_at = started + seconds

        async def worker() -> None:
            nonlocal wrong_ids
            for i in counter:
                if time.perf_counter() >= stop_at:
                    return
                kind = SOAK_MIX[i % len(SOAK_MIX)]
                if kind == "valid":
                    rec = next(valid_records, None)
                    if rec is None:
                        return
                    kwargs = dict(json=rec, headers=auth)
                else:
                    variants = bad[kind]
                    kwargs = variants[(i // len(SOAK_MIX)) % len(variants)]
                    if callable(kwargs.get("content")):  # a fresh body iterator for each request
                        kwargs = dict(kwargs, content=kwargs["content"]())
                t = time.perf_counter()
                try:
                    resp = await http.post("/v1/audit", **kwargs)
                except httpx.TimeoutException:
                    failures[kind]["timeout"] += 1
                    continue
                except httpx.HTTPError as exc:
                    failures[kind][type(exc).__name__] += 1
                    continue
                latencies[kind].append(time.perf_counter() - t)
                statuses[kind][resp.status_code] += 1
                if kind == "valid" and resp.status_code == 200 and resp.json().get("id") != rec["id"]:
                    wrong_ids += 1

        async def sample_rss() -> None:
            while time.perf_counter() < stop_at:
                rss.append(_rss_kb(pid))
                await asyncio.sleep(1.0)

        sampler = asyncio.ensure_future(sample_rss())
        await asyncio.gather(*(worker() for _ in range(clients)))
        wall = time.perf_counter() - started
        sampler.cancel()
        rss_end, srv_cpu = _rss_kb(pid), _proc_cpu(pid) - srv0
    kinds = {}
    for k in SOAK_KINDS:
        lat = latencies[k]
        kinds[k] = {"responses": len(lat), "statuses": {str(s): n for s, n in sorted(statuses[k].items())},
                    "failures": dict(failures[k]),
                    "p50_ms": round(1000 * _pct(lat, 0.5), 1) if lat else None,
                    "p99_ms": round(1000 * _pct(lat, 0.99), 1) if lat else None,
                    "max_ms": round(1000 * max(lat), 1) if lat else None}
    ok = statuses["valid"][200]
    return {"wall_s": round(wall, 1), "kinds": kinds, "valid_ok": ok, "valid_wrong_ids": wrong_ids,
            "valid_audits_per_s": round(ok / wall, 2),
            "requests": sum(v["responses"] + sum(v["failures"].values()) for v in kinds.values()),
            "server_5xx": sum(n for c in statuses.values() for s, n in c.items() if s >= 500),
            "server_cpu_s": round(srv_cpu, 1),
            "rss_kb": {"start": rss_start, "end": rss_end, "max": max(rss + [rss_start, rss_end])},
            "rss_mib_every_10_s": [round(kb / 1024) for kb in rss[::10]]}


def main_soak(args: argparse.Namespace) -> None:
    import secrets

    judge = args.judge or "auto"
    records, source = _ragtruth_records()
    token = secrets.token_urlsafe(24)
    port = free_port()
    proc = start_server(port, judge, token)
    rss_boot = _rss_kb(proc.pid)
    try:
        info = httpx.get(f"http://127.0.0.1:{port}/v1/info", headers={"authorization": f"Bearer {token}"},
                         timeout=60).json()
        out = asyncio.run(soak(f"http://127.0.0.1:{port}", proc.pid, token, records, args.soak, args.clients,
                               args.max_requests, args.timeout))
    finally:
        proc.terminate()
        proc.wait(60)
    out = {"seconds": args.soak, "clients": args.clients, "judge": info.get("judge"), "records": source,
           "cpus": os.cpu_count(), "limits": info.get("limits"), "rss_kb_after_startup": rss_boot, **out}
    print(f"soak: {args.soak:g} s, {args.clients} clients, judge {out['judge']} (server default), token auth, "
          f"limits {out['limits']}, valid records: {source}, {os.cpu_count()} CPUs")
    print(f"wall {out['wall_s']} s, {out['requests']} requests, server CPU {out['server_cpu_s']} s")
    print()
    print("| kind | responses | status codes | timeouts / transport errors | p50 ms | p99 ms | max ms |")
    print("|---|---:|---|---|---:|---:|---:|")
    for k, v in out["kinds"].items():
        codes = ", ".join(f"{s}: {n}" for s, n in v["statuses"].items()) or "-"
        fails = ", ".join(f"{s}: {n}" for s, n in v["failures"].items()) or "0"
        print(f"| {k} | {v['responses']} | {codes} | {fails} | {v['p50_ms']} | {v['p99_ms']} | {v['max_ms']} |")
    print()
    r = out["rss_kb"]
    print(f"valid audits: {out['valid_ok']} distinct records audited ({out['valid_audits_per_s']} audits/s), "
          f"{out['valid_wrong_ids']} with a wrong id; 5xx responses: {out['server_5xx']}")
    print(f"server RSS: {rss_boot / 1024:.0f} MiB after startup, {r['start'] / 1024:.0f} MiB after warm-up (soak "
          f"start), {r['end'] / 1024:.0f} MiB at the end, {r['max'] / 1024:.0f} MiB max (sampled every second); every "
          f"10 s: {out['rss_mib_every_10_s']} MiB")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    if out["server_5xx"] or out["valid_wrong_ids"]:
        raise SystemExit(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--requests", type=int, default=2000)
    ap.add_argument("-c", "--concurrency", type=int, default=32)
    ap.add_argument("--judge", default=None, help="server judge [default: lexical; with --soak, the server's default]")
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    ap.add_argument("--soak", type=float, metavar="SECONDS", help="soak mode: mixed requests for SECONDS")
    ap.add_argument("--clients", type=int, default=64, help="soak: concurrent clients")
    ap.add_argument("--max-requests", type=int, default=100_000, help="soak: cap on requests started")
    ap.add_argument("--timeout", type=float, default=600.0, help="soak: client timeout per request, seconds")
    args = ap.parse_args()
    if args.soak:
        main_soak(args)
        return
    args.judge = args.judge or "lexical"
    records = _records()
    port = free_port()
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
