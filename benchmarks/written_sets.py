#!/usr/bin/env python3
"""Judges on the fresh written sets (``benchmarks/data/``): measured once, never tuned to.

    python3 -m benchmarks.written_sets --set fresh72 --judges local,lexical [-o DIR] [--model-dir DIR]
    python3 -m benchmarks.written_sets --set fresh71 --judges local,lexical [-o DIR]

- ``fresh72`` (issue 72): 199 records of assistant answers of 1-6 sentences over paragraphs, passage lists and long
  contexts, 40 % faithful, the verifier's kinds;
- ``fresh71`` (issue 71): 80 records of support answers with openers and fillers, "Yes"/"No", list lead-ins, dates
  computed from the user's own situation, citation markers over passage lists (a quarter citing the wrong passage),
  and 20 records in German, Spanish, French and Chinese.

Each set was written from its issue's kinds and the labelling rules alone, by writers who read neither the judges'
code nor the training corpus, and read again blind by a second reader: a record is kept when both gave every
sentence the same label (a citation status the two read differently is marked ``citation_agreed: false`` and not
counted). A record: the item format of ``training.written_corpus`` (``sentences`` with ``text``, ``label`` and, for a
marked sentence, ``citation``); ``none`` sentences state nothing and are no claims.

Prints per judge: the answer label right (exact), the faithful answers kept (judged entailed), by kind, shape and
language, the median ms per record; for fresh71 also: faithful answers flagged or unverified at a claim inside a
``none`` sentence, date answers right, citation statuses as labelled, misattributed found, non-English claims
entailed. With ``-o DIR``: the per-record rows (``DIR/<set>-<judge>.jsonl``) and the tables (``DIR/<set>.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Optional, Sequence

from rt4chart.judges.registry import auditor_for

DATA = Path(__file__).parent / "data"
SETS = ("fresh72", "fresh71")


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]


def answer_label(item: dict) -> str:
    labels = {s["label"] for s in item["sentences"]}
    return next((lab for lab in ("contradicted", "baseless") if lab in labels), "entailed")


def _spans(answer: str, sentences: Sequence[dict]) -> list[tuple[int, int]]:
    out, pos = [], 0
    for s in sentences:
        k = answer.find(s["text"], pos)
        out.append((k, k + len(s["text"])))
        pos = k + len(s["text"])
    return out


async def _audit(auditor, items: Sequence[dict]) -> list[dict]:
    rows = []
    for it in items:
        start = time.perf_counter()
        result = (await auditor.audit({"id": it["id"], "context": it["context"], "question": it.get("question") or None,
                                       "answer": it["answer"]})).to_json()
        seconds = time.perf_counter() - start
        spans = _spans(it["answer"], it["sentences"])
        claims = []
        for c in result["claims"]:
            at = [(sp["start"], sp["end"]) for sp in c["answer_spans"]]
            inside = [n for n, (s, e) in enumerate(spans) if any(a < e and s < b for a, b in at)]
            claims.append({"text": c["text"], "label": c["label"], "reason": c.get("reason"), "sentences": inside})
        checked = {c["claim"]: c["status"] for c in (result.get("citation_check") or {}).get("claims", ())}
        rows.append({"id": it["id"], "kind": it["kind"], "shape": it["context_shape"],
                     "language": it.get("language", "en"), "expected": answer_label(it), "label": result["label"],
                     "right": result["label"] == answer_label(it), "claims": claims,
                     "citations": {str(i): checked.get(i) for i in range(len(result["claims"]))},
                     "seconds": seconds})
    return rows


def run(judge: str, items: Sequence[dict], **options: Any) -> list[dict]:
    auditor = auditor_for(judge, concurrency=1, **options)
    return asyncio.run(_audit(auditor, items))


def _share(a: int, b: int) -> str:
    return f"{a} of {b} ({100 * a / b:.0f} %)" if b else "-"


def summarize(rows: Sequence[dict], items: Sequence[dict]) -> dict:
    by_id = {it["id"]: it for it in items}
    out: dict[str, Any] = {"records": len(rows), "right": sum(r["right"] for r in rows)}
    faithful = [r for r in rows if r["expected"] == "entailed"]
    out["faithful"], out["faithful_kept"] = len(faithful), sum(r["label"] == "entailed" for r in faithful)
    for key in ("kind", "shape", "language"):
        groups: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in rows:
            groups[r[key]][0] += r["right"]
            groups[r[key]][1] += 1
        out[key] = dict(sorted(groups.items()))
    out["median_ms"] = 1000 * statistics.median(r["seconds"] for r in rows) if rows else float("nan")
    # the fillers: a faithful answer flagged or left unverified at a claim that lies in a sentence stating nothing
    filler = 0
    for r in faithful:
        sents = by_id[r["id"]]["sentences"]
        if any(c["label"] != "entailed" and any(sents[n]["label"] == "none" for n in c["sentences"])
               for c in r["claims"]):
            filler += 1
    out["faithful_with_none"] = sum(any(s["label"] == "none" for s in by_id[r["id"]]["sentences"]) for r in faithful)
    out["faithful_flagged_at_none"] = filler
    dates = [r for r in rows if r["kind"] == "date"]
    out["dates"] = (sum(r["right"] for r in dates), len(dates))
    # citation statuses: each labelled (agreed) sentence against the status of the claims inside it
    same = total = mis = mis_found = 0
    for r in rows:
        sents = by_id[r["id"]]["sentences"]
        for n, s in enumerate(sents):
            if "citation" not in s or not s.get("citation_agreed", True):
                continue
            got = {r["citations"][str(i)] for i, c in enumerate(r["claims"]) if n in c["sentences"]} - {None}
            total += 1
            same += got == {s["citation"]}
            if s["citation"] == "misattributed":
                mis += 1
                mis_found += "misattributed" in got
    out["citations"], out["misattributed"] = (same, total), (mis_found, mis)
    foreign = [c for r in rows if r["language"] != "en" for c in r["claims"]]
    out["foreign_entailed"] = (sum(c["label"] == "entailed" for c in foreign), len(foreign))
    return out


def render(name: str, judge: str, s: dict) -> str:
    lines = [f"### {name}: {judge}", "", "| measure | value |", "|---|---|",
             f"| answer label right (exact) | {_share(s['right'], s['records'])} |",
             f"| faithful answers kept (entailed) | {_share(s['faithful_kept'], s['faithful'])} |",
             f"| median ms per record | {s['median_ms']:.0f} |"]
    if name == "fresh71":
        lines += [f"| faithful answers flagged or unverified at a filler (of those with one) | "
                  f"{_share(s['faithful_flagged_at_none'], s['faithful_with_none'])} |",
                  f"| date answers right | {_share(*s['dates'])} |",
                  f"| citation statuses as labelled | {_share(*s['citations'])} |",
                  f"| misattributed found | {_share(*s['misattributed'])} |",
                  f"| non-English claims entailed | {_share(*s['foreign_entailed'])} |"]
    for key in ("shape", "language", "kind"):
        if len(s[key]) > 1:
            lines += ["", f"| {key} | right |", "|---|---|"]
            lines += [f"| {k} | {_share(*v)} |" for k, v in s[key].items()]
    return "\n".join(lines) + "\n"


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", default="fresh72", choices=SETS)
    ap.add_argument("--judges", default="local,lexical", help="comma-separated judge names")
    ap.add_argument("-o", "--out", default=None, help="a folder for <set>-<judge>.jsonl and <set>.md")
    ap.add_argument("--model-dir", default=None, help="the local judge's model folder (default: shipped)")
    args = ap.parse_args(argv)
    items = load(args.set)
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    tables = []
    for judge in args.judges.split(","):
        local = {"model_dir": args.model_dir} if args.model_dir and judge in ("local", "hybrid") else {}
        rows = run(judge, items, **local)
        if out:
            (out / f"{args.set}-{judge}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                                                  for r in rows))
        tables.append(render(args.set, judge, summarize(rows, items)))
        print(tables[-1], flush=True)
    if out:
        (out / f"{args.set}.md").write_text("\n".join(tables))


if __name__ == "__main__":
    main()
