#!/usr/bin/env python3
"""Judges on the everyday set (``benchmarks.everyday_cases``): measured, never tuned to.

    python3 -m benchmarks.everyday --judges local,lexical [--set everyday|meaning3] [-o DIR]
    python3 -m benchmarks.everyday --judges local,hybrid --base-url http://127.0.0.1:8098/v1 --model judge

Every record is audited alone (one at a time) through ``rt4chart.Auditor``; ``run(judge, records)`` takes a judge
name or any Judge object (the hybrid judge, say). Prints a markdown table per judge: answer labels right (exact),
claim labels right (on the records whose claim count is the expected one), the share of faithful records (expected
entailed) judged entailed, accuracy per kind and the median milliseconds per record; with ``-o DIR`` the per-record
rows go to ``DIR/everyday-<judge>.jsonl`` and the tables to ``DIR/everyday.md``. ``--set meaning3`` reads the
fresh meaning set instead (``benchmarks.meaning3_cases``: its six kinds in the per-kind table), written to
``DIR/meaning3-<judge>.jsonl`` and ``DIR/meaning3.md``. ``--base-url`` and ``--model`` point the llm and hybrid
judges at a model server (no response cache).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from rt4chart import Auditor, Judge
from rt4chart.judges.registry import auditor_for

from . import assistant_cases, everyday4_cases, meaning3_cases
from .everyday_cases import KINDS, RECORDS, Everyday

#: the sets ``--set`` names: (records, kinds in the per-kind table's order)
SETS = {"everyday": (RECORDS, KINDS), "meaning3": (meaning3_cases.RECORDS, meaning3_cases.KINDS),
        "assistant": (assistant_cases.RECORDS, assistant_cases.KINDS),
        "everyday4": (everyday4_cases.RECORDS, everyday4_cases.KINDS)}


async def _audit_all(auditor: Auditor, records: Sequence[Everyday]) -> list[dict]:
    rows = []
    for rec in records:
        record = {"id": rec.id, "context": rec.context, "question": rec.question, "answer": rec.answer}
        start = time.perf_counter()
        result = (await auditor.audit(record)).to_json()
        seconds = time.perf_counter() - start
        claims = [c["label"] for c in result["claims"]]
        expected_claims = [lab.value for lab in rec.claims]
        rows.append({
            "id": rec.id, "kind": rec.kind, "expected": rec.label.value, "label": result["label"],
            "right": result["label"] == rec.label.value,
            "expected_claims": expected_claims, "claims": claims,
            # None when the judge's claims are not the expected ones in number: no claim-by-claim comparison
            "claims_right": sum(a == b for a, b in zip(claims, expected_claims))
            if len(claims) == len(expected_claims) else None,
            "reasons": [c.get("reason") for c in result["claims"]],
            "scores": [c.get("score") for c in result["claims"]],
            "seconds": seconds,
        })
    return rows


def run(judge: Union[str, Judge], records: Sequence[Everyday] = RECORDS, **options: Any) -> list[dict]:
    """Audit ``records`` one at a time with ``judge`` (a name for ``build_auditor``, with ``options``, or a Judge
    object, ``Auditor``'s ``options``); one row per record, with its wall-clock ``seconds``."""
    auditor = auditor_for(judge, concurrency=1, **options)
    return asyncio.run(_audit_all(auditor, records))


def summarize(rows: Sequence[dict], kinds: Sequence[str] = KINDS) -> dict:
    """Counts over ``rows``; the per-kind accuracy in the order of ``kinds``, then any other kind in the rows."""
    kinds = list(kinds) + [k for k in dict.fromkeys(r["kind"] for r in rows) if k not in kinds]
    matched = [r for r in rows if r["claims_right"] is not None]
    faithful = [r for r in rows if r["expected"] == "entailed"]
    per_kind = {}
    for kind in kinds:
        of_kind = [r for r in rows if r["kind"] == kind]
        if of_kind:
            per_kind[kind] = (sum(r["right"] for r in of_kind), len(of_kind))
    return {
        "records": len(rows), "right": sum(r["right"] for r in rows),
        "claims_right": sum(r["claims_right"] for r in matched),
        "claims_compared": sum(len(r["expected_claims"]) for r in matched),
        "records_claims_matched": len(matched),
        "faithful": len(faithful), "faithful_entailed": sum(r["label"] == "entailed" for r in faithful),
        "kinds": per_kind,
        "median_ms": 1000 * statistics.median(r["seconds"] for r in rows) if rows else float("nan"),
    }


def _share(a: int, b: int) -> str:
    return f"{a} of {b} ({100 * a / b:.0f} %)" if b else "-"


def render(name: str, s: dict) -> str:
    lines = [f"### {name}", "", "| measure | value |", "|---|---|",
             f"| answer label right (exact) | {_share(s['right'], s['records'])} |",
             f"| claim labels right (records with the expected claim count: {s['records_claims_matched']}) | "
             f"{_share(s['claims_right'], s['claims_compared'])} |",
             f"| faithful records judged entailed | {_share(s['faithful_entailed'], s['faithful'])} |",
             f"| median ms per record | {s['median_ms']:.0f} |", "", "| kind | right |", "|---|---|"]
    lines += [f"| {kind} | {_share(*s['kinds'][kind])} |" for kind in s["kinds"]]
    return "\n".join(lines) + "\n"


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--judges", default="local,lexical", help="comma-separated judge names")
    ap.add_argument("--set", default="everyday", choices=sorted(SETS),
                    help="which set: the everyday set (default), the fresh meaning set (meaning3), answers as "
                         "assistants write them (assistant) or the claim verifier's fresh set (everyday4)")
    ap.add_argument("--base-url", default=None, help="the model server of the llm and hybrid judges")
    ap.add_argument("--model", default=None, help="the model name of the llm and hybrid judges")
    ap.add_argument("-o", "--out", default=None, help="a folder for <set>-<judge>.jsonl and <set>.md")
    ap.add_argument("--model-dir", default=None, help="the local and hybrid judges' model folder (default: shipped)")
    args = ap.parse_args(argv)
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    records, kinds = SETS[args.set]
    tables = []
    model = {"base_url": args.base_url, "model": args.model, "cache": False} if args.base_url else {}
    for judge in args.judges.split(","):
        local = {"model_dir": args.model_dir} if args.model_dir and judge in ("local", "hybrid") else {}
        rows = run(judge, records, **(model if judge in ("llm", "hybrid") else {}), **local)
        if out:
            (out / f"{args.set}-{judge}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        tables.append(render(judge, summarize(rows, kinds)))
        print(tables[-1], flush=True)
    if out:
        (out / f"{args.set}.md").write_text("\n".join(tables))


if __name__ == "__main__":
    main()
