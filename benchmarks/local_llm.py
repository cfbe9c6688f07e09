#!/usr/bin/env python3
"""Meaning checks offline: the local judge, the LLM judge and the hybrid judge with a small local model, on the same
answers, in the same run.

    M=$(../shared/models/get_qwen2.5-coder-1.5b-instruct.sh); B=$(../shared/models/build_llama_server.sh)
    $B -m "$M" --host 127.0.0.1 --port 8098 -t 2 -c 8192 --alias judge &
    python3 -m benchmarks.local_llm --base-url http://127.0.0.1:8098/v1 --model judge -o runs/local-llm

Four inputs: a fixed RAGTruth test slice of 60 answers (20 per task, ``SLICE``: drawn once with
``random.Random(2026)``, before any judge ran on them), the paper's running example
(``examples/paper_example.jsonl``), the 19 meaning-level cases (``benchmarks.meaning_cases``) and the 101 everyday
records (``benchmarks.everyday_cases``). Judges: ``local``, ``hybrid`` (one-token verdicts on every claim, the
fitted combination) and ``llm --granularity batched``; ``--llm-answers N`` gives the LLM judge only the first N
answers of each task (it takes minutes per answer on 2 CPU threads), and its speed ratio is taken on those same
answers. Every record is audited alone (one at a time, no response cache), and each judge's results are appended to
``OUT/<judge>-<input>.jsonl`` as they come, so a killed run resumes. ``--no-slice`` skips the RAGTruth slice.

Prints (and writes to ``OUT/table.md``) per judge: answer and span F1 on the slice, the cases right, the everyday
records right (exact answer label) and their faithful ones entailed, the paper example's claim labels and seconds,
seconds per slice answer (median, p90), LLM calls, prompt tokens evaluated (sent less cached by the server's prefix
cache), cached tokens and completion tokens per answer (medians), and the share of LLM-judged claims whose reply was
unusable.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
from pathlib import Path
from typing import Any, Optional

from rt4chart.audit.auditor import Auditor
from rt4chart.audit.calibration import scored_decision
from rt4chart.eval.datasets import ENV_DATA_DIR, load_ragtruth
from rt4chart.eval.metrics import answer_prf, span_prf
from rt4chart.judges.registry import build_auditor

from .everyday_cases import RECORDS as EVERYDAY
from .meaning_cases import CASES

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "examples" / "paper_example.jsonl"
#: the fixed slice of RAGTruth test answers: 20 per task, drawn with random.Random(2026), in id order
SLICE = {
    "qa": ["12447", "12517", "13206", "13911", "14470", "14848", "14890", "15008", "15206", "15275", "15466", "15675",
           "15726", "15782", "16510", "16848", "16881", "16894", "17254", "17518"],
    "summary": ["26", "47", "334", "412", "449", "845", "929", "1236", "1479", "2239", "2248", "2470", "3768", "3874",
                "4067", "4079", "4477", "4577", "5016", "5018"],
    "data2txt": ["6234", "6253", "6714", "7019", "7092", "7097", "7236", "7256", "7265", "7315", "7510", "8214",
                 "8571", "8674", "8766", "9545", "9938", "10111", "10814", "11523"],
}
PAPER_LABELS = ["contradicted", "contradicted", "entailed", "entailed", "baseless"]


def slice_records(per_task: Optional[int] = None) -> list[Any]:
    """The slice's ``EvalRecord``s, tasks interleaved (qa, summary, data2txt, qa, ...); ``per_task``: the first N ids
    of each task only."""
    wanted = {t: ids[:per_task] if per_task else ids for t, ids in SLICE.items()}
    by_id = {r.id: r for r in load_ragtruth("test", data_dir=os.environ.get(ENV_DATA_DIR) or None)}
    rows = [[by_id[i] for i in ids] for ids in wanted.values()]
    return [r for group in zip(*rows) for r in group]


def case_records() -> list[dict]:
    return [{"id": f"case-{i}", "context": context, "answer": claim, "expected": label.value}
            for i, (_, context, claim, label) in enumerate(CASES)]


def everyday_records() -> list[dict]:
    return [{"id": r.id, "context": r.context, "answer": r.answer, "expected": r.label.value} for r in EVERYDAY]


async def audit_all(auditor: Auditor, records: list[dict], path: Path) -> list[dict]:
    """Audit ``records`` one at a time, appending each result line to ``path``; ids already there are reused."""
    done: dict[str, dict] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # the torn last line of a killed run
            done[str(row["id"])] = row
    with path.open("a") as out:
        for rec in records:
            if str(rec["id"]) in done:
                continue
            result = (await auditor.audit({k: v for k, v in rec.items() if k != "expected"})).to_json()
            out.write(json.dumps(result) + "\n")
            out.flush()
            done[str(rec["id"])] = result
    return [done[str(r["id"])] for r in records]


def llm_claims(row: dict, judge: str) -> tuple[int, int]:
    """(claims the LLM judged, claims whose LLM reply was unusable) in one result."""
    judged = bad = 0
    for c in row["claims"]:
        reason = c.get("reason") or ""
        if judge.startswith("hybrid"):
            failed = "LLM check failed" in reason
            judged += failed or (c.get("prompt_version") or "").startswith("hybrid")
            bad += failed
        elif judge.startswith("llm"):
            judged += 1
            bad += c["label"] == "unverified"
    return judged, bad


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=10)[int(q * 10) - 1] if len(values) > 1 else values[0]


def summarize(judge: str, rows: list[dict], gold: list[Any], cases: list[dict], expected: list[str],
              paper: dict, everyday: list[dict]) -> dict:
    secs = [r["usage"]["seconds"] for r in rows] or [float("nan")]
    rows_or_none = rows or [{"usage": {"calls": 0, "prompt_tokens": 0, "cached_tokens": 0, "completion_tokens": 0}}]
    judged = [llm_claims(r, judge) for r in rows + cases + [paper] + everyday]
    want = {r["id"]: r["expected"] for r in everyday_records()}
    faithful = [r for r in everyday if want[r["id"]] == "entailed"]
    return {
        "judge": judge, "answers": len(rows),
        "answer_f1": answer_prf([g.hallucinated for g in gold], [scored_decision(r) for r in rows]).f1 if rows
        else float("nan"),
        "span_f1": span_prf([[(s.start, s.end) for s in g.spans] for g in gold],
                            [[(s["start"], s["end"]) for s in r["spans"]] for r in rows]).f1 if rows
        else float("nan"),
        "cases_right": sum(c["claims"][0]["label"] == e for c, e in zip(cases, expected) if c["claims"]),
        "everyday_right": sum(r["label"] == want[r["id"]] for r in everyday), "everyday": len(everyday),
        "everyday_faithful": sum(r["label"] == "entailed" for r in faithful), "faithful": len(faithful),
        "everyday_median_s": statistics.median(r["usage"]["seconds"] for r in everyday) if everyday
        else float("nan"),
        "paper": [c["label"] for c in paper["claims"]], "paper_label": paper["label"],
        "paper_seconds": paper["usage"]["seconds"],
        "median_s": statistics.median(secs), "p90_s": pct(secs, 0.9), "mean_s": statistics.fmean(secs),
        "calls": statistics.median(r["usage"]["calls"] for r in rows_or_none),
        "evaluated": statistics.median(r["usage"]["prompt_tokens"] - r["usage"]["cached_tokens"]
                                       for r in rows_or_none),
        "cached": statistics.median(r["usage"]["cached_tokens"] for r in rows_or_none),
        "completion": statistics.median(r["usage"]["completion_tokens"] for r in rows_or_none),
        "llm_claims": sum(j for j, _ in judged), "unusable": sum(b for _, b in judged),
    }


def render(rows: list[dict], ratio_note: str) -> str:
    head = ("| judge | answers | answer F1 | span F1 | cases right (of 19) | everyday right | everyday faithful "
            "entailed | everyday s/record | paper example (claims; s) | s/answer median | p90 | LLM calls/answer | "
            "prompt tokens evaluated | cached tokens | completion tokens | unusable replies |")
    lines = [head, "|" + "---|" * 16]
    for s in rows:
        paper = ", ".join(lab[:3] for lab in s["paper"])
        unusable = f"{s['unusable']} of {s['llm_claims']}" if s["llm_claims"] else "-"
        lines.append(f"| {s['judge']} | {s['answers']} | {s['answer_f1']:.3f} | {s['span_f1']:.3f} | "
                     f"{s['cases_right']} | {s['everyday_right']}/{s['everyday']} | "
                     f"{s['everyday_faithful']}/{s['faithful']} | {s['everyday_median_s']:.2f} | "
                     f"{paper}; {s['paper_seconds']:.1f} | {s['median_s']:.1f} | "
                     f"{s['p90_s']:.1f} | {s['calls']:g} | {s['evaluated']:g} | {s['cached']:g} | "
                     f"{s['completion']:g} | {unusable} |")
    return "\n".join(lines) + "\n\n" + ratio_note + "\n"


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--judges", default="local,hybrid,llm")
    ap.add_argument("--llm-answers", type=int, default=None,
                    help="the LLM judge audits only the first N slice answers of each task (default: all)")
    ap.add_argument("--floor", type=float, default=None, help="the hybrid judge's routing floor (default: its own)")
    ap.add_argument("--no-slice", action="store_true", help="the cases, the everyday set and the paper example only")
    ap.add_argument("--combination", default=None, help="the hybrid judge's combination card (default: shipped)")
    ap.add_argument("--prompt-version", choices=("llm@v2", "llm@v3", "v2", "v3"), default=None,
                    help="the LLM judge's prompts (default: its own, llm@v2; v2 and v3 are the old spellings)")
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    paper = json.loads(PAPER.read_text().splitlines()[0])
    cases = case_records()
    summaries, times = [], {}
    for judge in args.judges.split(","):
        options: dict[str, Any] = {"concurrency": 1}
        if judge in ("llm", "hybrid"):
            options.update(base_url=args.base_url, model=args.model, cache=False, timeout=900.0)
        if judge == "llm":
            options["granularity"] = "batched"
        if judge == "llm":
            options["decomposition"] = "rule"  # the same claims as the other two judges
            if args.prompt_version:
                options["prompt_version"] = args.prompt_version
        if judge == "hybrid":
            options.update({k: v for k, v in (("floor", args.floor), ("combination", args.combination))
                            if v is not None})
        auditor = build_auditor(judge, **options)
        gold = [] if args.no_slice else slice_records(args.llm_answers if judge == "llm" else None)
        records = [g.to_record() for g in gold]
        rows = asyncio.run(audit_all(auditor, records, out / f"{judge}-slice.jsonl"))
        case_rows = asyncio.run(audit_all(auditor, cases, out / f"{judge}-cases.jsonl"))
        [paper_row] = asyncio.run(audit_all(auditor, [paper], out / f"{judge}-paper.jsonl"))
        everyday_rows = asyncio.run(audit_all(auditor, everyday_records(), out / f"{judge}-everyday.jsonl"))
        name = judge + (f" {args.prompt_version}" if judge == "llm" and args.prompt_version else "") + \
            (f" (floor {args.floor:g})" if judge == "hybrid" and args.floor is not None else "")
        summaries.append(summarize(name, rows, gold, case_rows, [c["expected"] for c in cases], paper_row,
                                   everyday_rows))
        times[judge] = {r["id"]: r["usage"]["seconds"] for r in rows}
        print(f"{judge}: done", flush=True)
    note = ""
    if "llm" in times and "hybrid" in times:
        same = [i for i in times["llm"] if i in times["hybrid"]]
        llm_s = statistics.median(times["llm"][i] for i in same)
        hyb_s = statistics.median(times["hybrid"][i] for i in same)
        note = (f"On the {len(same)} answers both LLM-backed judges audited: median {llm_s:.1f} s per answer for "
                f"llm --granularity batched, {hyb_s:.1f} s for hybrid ({llm_s / hyb_s:.1f}x).")
    table = render(summaries, note)
    (out / "table.md").write_text(table)
    (out / "summary.json").write_text(json.dumps(summaries, indent=2, default=str))
    print(table)


if __name__ == "__main__":
    main()
