"""LLM soak under faults and kill -9 (issue 26): RAGTruth records through ``rt4chart audit --judge llm``.

N records from RAGTruth train and test (the longest contexts first, then a seeded sample) are written to a JSONL
file and audited by the real CLI, as a subprocess, against a scripted OpenAI-compatible server on loopback
(``rt4chart.testing.openai_server``). Without a fault the server answers honestly and deterministically (the
word-overlap judge of ``benchmarks/llm_cost.py``: entailed with the best-matching context sentence as the quote,
else baseless). With probability ``--fault-rate`` per request (drawn from seed, prompt hash and attempt number, so a
retry of the same prompt draws again) it injects one of ten faults: 429 with Retry-After, 500, 503, connection
reset (TCP RST), read timeout (a reply slower than the client's ``--timeout``), truncated JSON, schema-violating
JSON, an evidence quote not in the context, empty choices, a wrong content type.

Steps: a fault-free pass on the same records (the reference); then the faulted pass, killed with ``kill -9`` at
``--kills`` seeded points (when the output has a seeded number of lines), each followed by ``--resume``, then
``--retry-errors`` while error rows remain (bounded). Invariants reported:

* one row per input id, 0 duplicates, 0 missing;
* 0 unanchored entailed claims: a claim labelled entailed must carry at least one evidence span whose text is
  exactly ``context[start:end]`` (its final verification anchored a quote in the context);
* records untouched by faults identical to the reference: a record counts as touched when any faulted prompt
  quotes a text of it (its context chunk, full context, or an answer sentence); contexts shared by several
  answers make this conservative. Identical = same record label and the same (text, label, evidence) per claim;
* RSS of the CLI process (VmRSS from /proc, sampled every 0.2 s) at start and end of each segment;
* throughput: records/s and server calls/s over the faulted run's wall time (kills and restarts included).

    python3 -m benchmarks.soak_llm [--records 5000] [--fault-rate 0.05] [--seed 0] [--kills 3] [--json out.json]

Run from the repository root as a module.
Loopback only; every loop is bounded and every subprocess has a deadline.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from benchmarks.llm_cost import scripted_judge
from rt4chart.eval.datasets import ENV_DATA_DIR, load_ragtruth
from rt4chart.testing.openai_server import ChatRequest, FakeOpenAI, Reply

FAULTS = ("429", "500", "503", "reset", "timeout", "truncated", "schema", "bad_quote", "empty_choices",
          "content_type")
BLOCKS = ("CONTEXT CHUNK:", "FULL CONTEXT:", "SENTENCE TO DECOMPOSE:", "ANSWER SENTENCES:")
CLI = [sys.executable, "-c", "from rt4chart.cli import main; main()"]


def _block(user: str, header: str) -> Optional[str]:
    start = user.find(header + "\n<<<\n")
    if start < 0:
        return None
    start += len(header) + 5
    end = user.find("\n>>>", start)
    return user[start:end] if end >= 0 else None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass
class FaultServer:
    """Honest scripted judge plus seeded fault injection; logs every faulted prompt."""

    rate: float
    seed: int
    read_timeout: float
    attempts: dict[str, int] = field(default_factory=dict)
    faulted: list[tuple[str, str]] = field(default_factory=list)  # (fault, prompt user text)
    counts: dict[str, int] = field(default_factory=lambda: {f: 0 for f in FAULTS})
    calls: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, req: ChatRequest) -> Any:
        user = req.user
        key = _digest(json.dumps(req.messages, sort_keys=True))
        with self.lock:
            self.calls += 1
            attempt = self.attempts.get(key, 0)
            self.attempts[key] = attempt + 1
            rng = random.Random(f"{self.seed}:{key}:{attempt}")
            fault = FAULTS[rng.randrange(len(FAULTS))] if rng.random() < self.rate else None
            if fault is not None:
                self.counts[fault] += 1
                self.faulted.append((fault, user))
        honest = scripted_judge(req)
        if fault is None:
            return honest
        if fault == "429":
            return Reply.error(429, "rate limited", retry_after=0.2)
        if fault in ("500", "503"):
            return Reply.error(int(fault), "scripted outage")
        if fault == "reset":
            return Reply.connection_reset()
        if fault == "timeout":
            return Reply(content=json.dumps(honest), delay=self.read_timeout + 0.5)
        if fault == "truncated":
            text = json.dumps(honest)
            return Reply(content=text[: max(1, len(text) // 2)])
        if fault == "schema":
            return {"label": "entailed", "confidence": 1.0}
        if fault == "bad_quote":
            quote = "This sentence was never written in any context of the soak run."
            if "verdicts" in honest:
                return {"verdicts": [{**v, "verdict": "entailed", "evidence": [quote]} for v in honest["verdicts"]]}
            if "verdict" in honest:
                return {**honest, "verdict": "entailed", "evidence": [quote]}
            return honest  # a decomposition prompt has no quote to corrupt
        if fault == "empty_choices":
            return Reply(body={"id": "x", "object": "chat.completion", "created": 0, "model": "soak", "choices": []})
        return Reply(body="<html><body>Bad gateway</body></html>", content_type="text/html")


def select_records(n: int, seed: int) -> list[dict]:
    data_dir = os.environ.get(ENV_DATA_DIR) or None
    pool = load_ragtruth("train", data_dir=data_dir) + load_ragtruth("test", data_dir=data_dir)
    seen: set[str] = set()
    unique = []
    for r in pool:
        if r.id not in seen:
            seen.add(r.id)
            unique.append(r)
    longest = sorted(unique, key=lambda r: -len(r.context))[: max(1, n // 20)]
    chosen = {r.id for r in longest}
    rest = [r for r in unique if r.id not in chosen]
    sample = longest + random.Random(seed).sample(rest, max(0, min(len(rest), n - len(longest))))
    return [{"id": r.id, "context": r.context, "question": r.question, "answer": r.answer} for r in sample[:n]]


def _rss_kb(pid: int) -> Optional[int]:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _lines(path: Path) -> int:
    try:
        with path.open("rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def run_cli(args: list[str], *, kill_at_lines: Optional[int], out: Path, deadline_s: float) -> dict:
    """Run one CLI segment; kill -9 it once ``out`` has ``kill_at_lines`` lines. Returns rc, rss samples, killed."""
    proc = subprocess.Popen(CLI + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rss: list[int] = []
    warm_kb: Optional[int] = None  # the RSS when the segment wrote its first new line (imports and models loaded)
    lines0 = _lines(out)
    if kill_at_lines is not None:
        kill_at_lines = max(kill_at_lines, lines0 + 1)
    killed = False
    t0 = time.monotonic()
    while proc.poll() is None:
        kb = _rss_kb(proc.pid)
        if kb:
            rss.append(kb)
        lines = _lines(out)
        if warm_kb is None and kb and lines > lines0:
            warm_kb = kb
        if kill_at_lines is not None and lines >= kill_at_lines:
            os.kill(proc.pid, signal.SIGKILL)
            killed = True
            break
        if time.monotonic() - t0 > deadline_s:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            raise SystemExit(f"CLI segment ran past {deadline_s:.0f} s: {args}")
        time.sleep(0.2)
    _, err = proc.communicate()
    return {"rc": proc.returncode, "rss_kb": rss, "warm_kb": warm_kb, "killed": killed, "kill_at": kill_at_lines,
            "stderr": (err or "")[-2000:]}


def audit_args(inp: Path, out: Path, base_url: str, opts: argparse.Namespace, *extra: str) -> list[str]:
    return ["audit", str(inp), "-o", str(out), "--judge", "llm", "--base-url", base_url, "--model", "soak",
            "--no-cache", "-q", "--granularity", opts.granularity, "--timeout", str(opts.timeout),
            "--concurrency", str(opts.concurrency), *extra]


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def unanchored_entailed(rows: list[dict], contexts: dict[str, str]) -> int:
    bad = 0
    for row in rows:
        ctx = contexts.get(row.get("id"), "")
        for c in row.get("claims") or []:
            if c.get("label") != "entailed":
                continue
            spans = c.get("evidence") or []
            if not spans or not all(ctx[s["start"]:s["end"]] == s["text"] for s in spans):
                bad += 1
    return bad


def signature(row: dict) -> Any:
    claims = [(c.get("text"), c.get("label"), tuple((s["start"], s["end"]) for s in c.get("evidence") or []))
              for c in row.get("claims") or []]
    return row.get("label"), row.get("error") is not None, claims


def touched_ids(records: list[dict], faulted: list[tuple[str, str]]) -> set[str]:
    texts = set()
    for _, user in faulted:
        for header in BLOCKS:
            b = _block(user, header)
            if b:
                texts.update(line.split("] ", 1)[-1] for line in b.splitlines()) if header == "ANSWER SENTENCES:" \
                    else texts.add(b)
    touched = set()
    for r in records:
        if any(t in r["context"] or t in r["answer"] for t in texts):
            touched.add(r["id"])
    return touched


def soak(opts: argparse.Namespace, records: list[dict], work: Path, log=print) -> dict:
    inp = work / "input.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in records))
    ids = [r["id"] for r in records]
    contexts = {r["id"]: r["context"] for r in records}
    deadline = opts.deadline

    # 1. the fault-free reference
    ref_out = work / "reference.jsonl"
    clean = FaultServer(rate=0.0, seed=opts.seed, read_timeout=opts.timeout)
    with FakeOpenAI(clean, latency=opts.latency) as server:
        t0 = time.monotonic()
        seg = run_cli(audit_args(inp, ref_out, server.base_url, opts), kill_at_lines=None, out=ref_out,
                      deadline_s=deadline)
        ref_wall = time.monotonic() - t0
    if seg["rc"] != 0:
        raise SystemExit(f"reference run failed rc={seg['rc']}: {seg['stderr']}")
    reference = {r["id"]: r for r in read_rows(ref_out)}
    log(f"reference: {len(reference)} rows in {ref_wall:.1f} s, {clean.calls} calls")

    # 2. the faulted run with kills
    out = work / "soak.jsonl"
    faults = FaultServer(rate=opts.fault_rate, seed=opts.seed, read_timeout=opts.timeout)
    rng = random.Random(opts.seed)
    window = range(max(1, len(records) // 10), max(2, len(records) * 9 // 10))  # kill points: 10-90 % of the rows
    kill_points = sorted(rng.sample(window, min(opts.kills, len(window))))
    segments = []
    with FakeOpenAI(faults, latency=opts.latency) as server:
        t0 = time.monotonic()
        for i, point in enumerate(kill_points + [None]):
            extra = ("--resume",) if i > 0 else ()
            seg = run_cli(audit_args(inp, out, server.base_url, opts, *extra), kill_at_lines=point, out=out,
                          deadline_s=deadline)
            seg.update(kind="resume" if i else "first", lines_after=_lines(out))
            segments.append(seg)
            log(f"segment {i}: {'killed at' if seg['killed'] else 'rc=' + str(seg['rc'])} "
                f"{seg['kill_at'] if seg['killed'] else ''} lines={seg['lines_after']}")
            if not seg["killed"] and seg["rc"] != 0:
                raise SystemExit(f"segment {i} failed rc={seg['rc']}: {seg['stderr']}")
        for _ in range(opts.max_retry_rounds):
            if not any("error" in r for r in read_rows(out)):
                break
            seg = run_cli(audit_args(inp, out, server.base_url, opts, "--retry-errors"), kill_at_lines=None,
                          out=out, deadline_s=deadline)
            seg.update(kind="retry-errors", lines_after=_lines(out))
            segments.append(seg)
            log(f"retry-errors: rc={seg['rc']} lines={seg['lines_after']}")
        wall = time.monotonic() - t0

    rows = read_rows(out)
    row_ids = [r.get("id") for r in rows]
    touched = touched_ids(records, faults.faulted)
    untouched = [i for i in ids if i not in touched]
    final = {r["id"]: r for r in rows}
    mismatched = [i for i in untouched if i in final and signature(final[i]) != signature(reference[i])]
    rss = [kb for s in segments for kb in s["rss_kb"]]
    report = {
        "records": len(records),
        "rows": len(rows),
        "ids_missing": len(set(ids) - set(row_ids)),
        "ids_duplicated": len(row_ids) - len(set(row_ids)),
        "ids_unknown": len(set(row_ids) - set(ids)),
        "error_rows": sum("error" in r for r in rows),
        "rows_with_error_notes": sum(bool(r.get("errors")) for r in rows),
        "claims": sum(len(r.get("claims") or []) for r in rows),
        "entailed_claims": sum(c.get("label") == "entailed" for r in rows for c in r.get("claims") or []),
        "unverified_claims": sum(c.get("label") == "unverified" for r in rows for c in r.get("claims") or []),
        "unanchored_entailed": unanchored_entailed(rows, contexts),
        "reference_unanchored_entailed": unanchored_entailed(list(reference.values()), contexts),
        "untouched_records": len(untouched),
        "untouched_mismatched": len(mismatched),
        "mismatched_ids": mismatched[:10],
        "calls": faults.calls,
        "faults_injected": sum(faults.counts.values()),
        "fault_counts": faults.counts,
        "kills": sum(s["killed"] for s in segments),
        "segments": [{k: v for k, v in s.items() if k not in ("rss_kb", "stderr", "warm_kb")} |
                     {"rss_warm_mb": round(s["warm_kb"] / 1024, 1) if s["warm_kb"] else None,
                      "rss_end_mb": round(s["rss_kb"][-1] / 1024, 1) if s["rss_kb"] else None,
                      "rss_max_mb": round(max(s["rss_kb"]) / 1024, 1) if s["rss_kb"] else None}
                     for s in segments],
        "rss_max_mb": round(max(rss) / 1024, 1) if rss else None,
        # growth of the longest segment: RSS at its end minus RSS when it wrote its first line
        "rss_growth_mb": _growth(max(segments, key=lambda s: len(s["rss_kb"]))),
        "wall_s": round(wall, 1),
        "records_per_s": round(len(records) / wall, 2),
        "calls_per_s": round(faults.calls / wall, 1),
        "reference_wall_s": round(ref_wall, 1),
        "reference_calls": clean.calls,
        "reference_records_per_s": round(len(records) / ref_wall, 2),
    }
    return report


def _growth(seg: dict) -> Optional[float]:
    if not seg["rss_kb"] or not seg["warm_kb"]:
        return None
    return round((seg["rss_kb"][-1] - seg["warm_kb"]) / 1024, 1)


def print_report(rep: dict) -> None:
    rows = [
        ("records / rows", f"{rep['records']} / {rep['rows']}"),
        ("ids missing / duplicated / unknown",
         f"{rep['ids_missing']} / {rep['ids_duplicated']} / {rep['ids_unknown']}"),
        ("error rows (after retries)", rep["error_rows"]),
        ("rows with error notes (claims kept)", rep["rows_with_error_notes"]),
        ("claims / entailed / unverified", f"{rep['claims']} / {rep['entailed_claims']} / {rep['unverified_claims']}"),
        ("entailed claims without anchored evidence", rep["unanchored_entailed"]),
        ("records untouched by faults / differing from reference",
         f"{rep['untouched_records']} / {rep['untouched_mismatched']}"),
        ("calls / faults injected", f"{rep['calls']} / {rep['faults_injected']}"),
        ("kill -9", rep["kills"]),
        ("CLI RSS max MB / growth MB (longest segment, first line to end)",
         f"{rep['rss_max_mb']} / {rep['rss_growth_mb']}"),
        ("wall s (kills, resumes, retries)", rep["wall_s"]),
        ("records/s, calls/s", f"{rep['records_per_s']}, {rep['calls_per_s']}"),
        ("reference (no faults): wall s, records/s", f"{rep['reference_wall_s']}, {rep['reference_records_per_s']}"),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    print("faults:", " ".join(f"{k}={v}" for k, v in rep["fault_counts"].items()))
    print("segments (RSS MB at first line / end / max):")
    for s in rep["segments"]:
        print(f"  {s['kind']:<12} killed={s['killed']!s:<5} kill_at={s['kill_at']} lines={s['lines_after']} "
              f"rss {s['rss_warm_mb']}/{s['rss_end_mb']}/{s['rss_max_mb']}")


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=5000)
    ap.add_argument("--fault-rate", type=float, default=0.05, help="probability of a fault per request")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("--granularity", choices=["per-claim", "batched"], default="batched")
    ap.add_argument("--timeout", type=float, default=1.0, help="the client's --timeout (read-timeout faults)")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--latency", type=float, default=0.0, help="server latency per reply, seconds")
    ap.add_argument("--max-retry-rounds", type=int, default=3)
    ap.add_argument("--deadline", type=float, default=3600.0, help="seconds any one CLI segment may run")
    ap.add_argument("--json", type=Path, help="also write the report as JSON here")
    return ap


def main() -> None:
    opts = parser().parse_args()
    records = select_records(opts.records, opts.seed)
    print(f"{len(records)} RAGTruth train+test records (longest context {max(len(r['context']) for r in records)} "
          f"chars); fault rate {opts.fault_rate}, {opts.kills} kills, seed {opts.seed}, {opts.granularity}")
    with tempfile.TemporaryDirectory(prefix="soak-llm-") as tmp:
        rep = soak(opts, records, Path(tmp))
    rep["options"] = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(opts).items()}
    print_report(rep)
    if opts.json:
        opts.json.write_text(json.dumps(rep, indent=2) + "\n")


if __name__ == "__main__":
    main()
