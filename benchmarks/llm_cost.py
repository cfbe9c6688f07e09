"""Cost and throughput of the LLM judge by granularity and prefilter (issue 3, criterion 4).

Runs N RAGTruth test records (default 200, a seeded sample across QA/Summary/Data2txt) through the full audit
(sentence decomposition -> local -> global, W=25, O=10) against a scripted OpenAI-compatible judge server on
loopback that answers after a fixed latency (default 200 ms). The client and the server speak real HTTP; the
scripted judge decides by word overlap, so labels are meaningless as quality numbers but identical across
settings, which makes the calls and tokens comparable. Tokens are the server's estimate (characters / 4);
completion tokens reflect the scripted replies' length, prompt tokens reflect our prompts.

Per setting it prints calls, prompt and completion tokens per answer, the ratio of calls and prompt tokens to
per-claim mode (the baseline, measured in the same run), and throughput as a fraction of the latency bound
(concurrency / latency requests per second): 1.0 means the client keeps every slot busy.

    python3 -m benchmarks.llm_cost [--records 200] [--latency 0.2] [--concurrency 32]

Run it from the repository root as a module; the scripted server is ``rt4chart.testing.openai_server``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import time
from functools import lru_cache
from pathlib import Path

from rt4chart import Auditor
from rt4chart.eval.datasets import ENV_DATA_DIR, load_ragtruth
from rt4chart.evidence import content_words
from rt4chart.judges.llm import Endpoint, LLMJudgeOptions, build_llm
from rt4chart.testing.openai_server import ChatRequest, FakeOpenAI

_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
REASONING = ("The claim is compared with each sentence of the text; the sentence that shares most of its content "
             "words is the only candidate, and its wording decides the label.")


def _between(text: str, header: str) -> str:
    m = re.search(re.escape(header) + r"\n<<<\n(.*?)\n>>>", text, re.DOTALL)
    return m.group(1) if m else ""


@lru_cache(maxsize=4096)
def _sentences(evidence: str) -> tuple[tuple[str, frozenset[str]], ...]:
    # the scripted server shares the client's process (and GIL): keep it cheap, a regex split is enough here
    parts = (p.strip() for p in _SPLIT.split(evidence))
    return tuple((p, frozenset(content_words(p))) for p in parts if p)


def _judge_claim(claim: str, evidence: str) -> dict:
    words = content_words(claim)
    best, best_cover = None, 0.0
    for text, sentence_words in _sentences(evidence):
        cover = len(words & sentence_words) / max(1, len(words))
        if cover > best_cover:
            best, best_cover = text, cover
    if best is not None and best_cover >= 0.6:
        return {"reasoning": REASONING, "evidence": [best], "verdict": "entailed", "reason": "matching sentence"}
    return {"reasoning": REASONING, "evidence": [], "verdict": "baseless", "reason": "no matching sentence"}


def scripted_judge(req: ChatRequest) -> dict:
    """Answers every prompt of the LLM judge by word overlap; decomposition returns each sentence as one claim."""
    user = req.user
    if "SENTENCE TO DECOMPOSE:" in user:
        return {"claims": [_between(user, "SENTENCE TO DECOMPOSE:")]}
    evidence = _between(user, "CONTEXT CHUNK:") or _between(user, "FULL CONTEXT:")
    if "CLAIMS:\n" in user:
        listed = re.findall(r"^\[(\d+)\] (.+)$", _between(user, "CLAIMS:"), re.MULTILINE)
        return {"verdicts": [{"claim": int(i), **_judge_claim(c, evidence)} for i, c in listed]}
    return _judge_claim(_between(user, "CLAIM:"), evidence)


async def run(records: list[dict], server: FakeOpenAI, granularity: str, prefilter: bool, concurrency: int,
              cache_dir: Path) -> dict:
    endpoint = Endpoint(base_url=server.base_url, model="scripted", cache=False, concurrency=concurrency,
                        price_in=0.15, price_out=0.60, cache_path=cache_dir / "unused")
    judge, decomposer = build_llm(endpoint, LLMJudgeOptions(granularity=granularity))
    auditor = Auditor(judge=judge, decomposer=decomposer, prefilter=prefilter, concurrency=2 * concurrency)
    start_requests = len(server.requests)
    t0, cpu0 = time.perf_counter(), time.process_time()
    results = []
    async for _, res, _ in auditor.audit_many(enumerate(records)):
        results.append(res)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    await judge.aclose()
    errors = [r for r in results if not hasattr(r, "usage")]
    if errors:
        raise SystemExit(f"{len(errors)} records failed: {errors[0]}")
    if sum(r.usage.calls for r in results) != len(server.requests) - start_requests:
        print(f"  note: metered {sum(r.usage.calls for r in results)} calls, server saw "
              f"{len(server.requests) - start_requests}", flush=True)
    n = len(results)
    calls = len(server.requests) - start_requests
    return {
        "results": {r.id: r for r in results},
        "calls": calls,
        "metered_calls": sum(r.usage.calls for r in results),
        "prompt": sum(r.usage.prompt_tokens for r in results) / n,
        "completion": sum(r.usage.completion_tokens for r in results) / n,
        "cost": sum(r.usage.cost_usd for r in results) / n,
        "claims": sum(len(r.claims) for r in results) / n,
        "unverified": sum(c.label.value == "unverified" for r in results for c in r.claims),
        "wall": wall,
        "cpu": cpu,
        "max_in_flight": server.max_in_flight,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=200)
    ap.add_argument("--latency", type=float, default=0.2, help="server latency per request, seconds")
    ap.add_argument("--concurrency", type=int, default=32, help="requests in flight")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="also write the table as JSON here")
    args = ap.parse_args()

    pool = load_ragtruth("test", data_dir=os.environ.get(ENV_DATA_DIR) or None)
    sample = random.Random(args.seed).sample(pool, args.records)
    records = [r.to_record() for r in sample]
    tasks = {t: sum(r["task"] == t for r in records) for t in sorted({r["task"] for r in records})}
    bound = args.concurrency / args.latency
    load0 = f"{os.getloadavg()[0]:.1f}"
    print(f"{len(records)} RAGTruth test records {tasks}; latency {args.latency * 1000:.0f} ms, "
          f"concurrency {args.concurrency}: latency bound {bound:.0f} requests/s")

    settings = [("per-claim", False), ("per-claim", True), ("batched", False), ("batched", True)]
    rows = []
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for granularity, prefilter in settings:
            with FakeOpenAI(scripted_judge, latency=args.latency) as server:
                out = asyncio.run(run(records, server, granularity, prefilter, args.concurrency, Path(tmp)))
            out["setting"] = granularity + (" + prefilter" if prefilter else "")
            rows.append(out)
            print(f"  done {out['setting']}: {out['calls']} calls in {out['wall']:.1f} s", flush=True)

    base = rows[0]
    n = len(records)
    header = ("| setting | calls/answer | prompt tok/answer | completion tok/answer | calls vs per-claim "
              "| prompt tok vs per-claim | $/1k answers (gpt-4o-mini prices) | requests/s | fraction of latency bound "
              "| labels = per-claim |")
    print()
    print(header)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    table = []
    for r in rows:
        same = sum(
            [c.label for c in r["results"][k].claims] == [c.label for c in base["results"][k].claims]
            for k in base["results"]
        ) / n
        rps = r["calls"] / r["wall"]
        row = {
            "setting": r["setting"], "calls_per_answer": r["calls"] / n, "prompt_tokens_per_answer": r["prompt"],
            "completion_tokens_per_answer": r["completion"], "calls_ratio": r["calls"] / base["calls"],
            "prompt_ratio": r["prompt"] / base["prompt"], "usd_per_1k_answers": 1000 * r["cost"],
            "requests_per_s": rps, "fraction_of_bound": rps / bound, "labels_equal": same,
            "unverified_claims": r["unverified"], "metered_calls_equal_server_calls": r["metered_calls"] == r["calls"],
            "max_in_flight": r["max_in_flight"], "wall_s": r["wall"],
            "cpu_ms_per_call": 1000 * r["cpu"] / r["calls"],
        }
        table.append(row)
        print(f"| {row['setting']} | {row['calls_per_answer']:.1f} | {row['prompt_tokens_per_answer']:,.0f} | "
              f"{row['completion_tokens_per_answer']:,.0f} | {row['calls_ratio']:.2f} | {row['prompt_ratio']:.2f} | "
              f"{row['usd_per_1k_answers']:.2f} | {rps:.0f} | {row['fraction_of_bound']:.2f} | {same:.0%} |")
    print()
    print(f"claims/answer {base['claims']:.2f}; unverified claims per setting "
          f"{[r['unverified_claims'] for r in table]}; metered calls == server calls: "
          f"{all(r['metered_calls_equal_server_calls'] for r in table)}; "
          f"max requests in flight {[r['max_in_flight'] for r in table]}")
    print(f"CPU per call (client + scripted server, one process): "
          f"{[round(r['cpu_ms_per_call'], 1) for r in table]} ms; load average before/after: {load0} / "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    if args.json:
        args.json.write_text(json.dumps({"records": n, "tasks": tasks, "latency": args.latency,
                                         "concurrency": args.concurrency, "rows": table}, indent=2))


if __name__ == "__main__":
    main()
