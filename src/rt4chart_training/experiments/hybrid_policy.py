"""How the hybrid judge's verdicts combine with the local judge's: chosen on held-out RAGTruth train answers (the
validation slice no model was trained on) and on samples of the shared NLI sets, never on RAGTruth test, the paper
example or the hand-made cases.

    M=$(../shared/models/get_qwen2.5-coder-1.5b-instruct.sh); B=$(../shared/models/build_llama_server.sh)
    $B -m "$M" --host 127.0.0.1 --port 8098 -t 2 -c 8192 --alias judge &
    python3 -m rt4chart_training.experiments.hybrid_policy --base-url http://127.0.0.1:8098/v1 --model judge \\
        -o runs/hybrid-policy

Audits every dev record twice, with the local judge and with the hybrid judge under ``ALL`` (the LLM's verdict
decides every claim it is asked about), one record at a time, appending to ``OUT/<judge>-<set>.jsonl`` (a killed
run resumes where it stopped). Then replays each candidate policy on the recorded verdicts (a claim's local
judgment and, when it was routed, the LLM's check of it) and prints, per dev set, answer-level precision, recall and
F1 of "hallucinated", and for the NLI sets the three-way accuracy.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import random
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from rt4chart.audit.auditor import Auditor
from rt4chart.judges.hybrid import POLICY, HybridJudge
from rt4chart.judges.llm import LLMSettings, build_backend
from rt4chart.judges.local import LocalJudge
from rt4chart.types import Label

from ..splits import validation_records

E, C, N = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS
VERDICTS = ("supported", "contradicted", "not_stated")
#: every routed claim takes the LLM's verdict
ALL = {**{(lab, "supported"): E for lab in (E, C, N)}, **{(lab, "contradicted"): C for lab in (E, C, N)},
       **{(lab, "not_stated"): N for lab in (E, C, N)}}
#: the first draft: the LLM also clears locally baseless claims it finds supported
RESCUE = {(E, "supported"): E, (E, "contradicted"): C, (N, "supported"): E, (N, "contradicted"): C,
          (C, "contradicted"): C}
CANDIDATES: dict[str, Optional[Mapping[tuple[Label, str], Label]]] = {
    "local only": None,
    "all: the LLM decides routed claims": ALL,
    "rescue and contradict": RESCUE,
    "rescue and contradict, not stated -> baseless": {**RESCUE, (E, "not_stated"): N},
    "support only (rescues baseless)": {(N, "supported"): E},
    "contradictions only (the shipped POLICY)": POLICY,
}
#: routing floors replayed: claims scored under the floor keep their local verdict without a call
FLOORS = (0.0, 0.1, 0.15, 0.2, 0.3)
#: NLI dev sets sampled (folder, file): measurement sets, never trained on
NLI = (("snli", "dev"), ("taxinli", "mnli_dev"), ("anli", "r1_dev"), ("healthver", "dev"), ("conjnli", "dev"))
NLI_LABEL = {"entailment": E, "contradiction": C, "neutral": N}


def nli_records(root: Path, per_set: int, seed: int) -> dict[str, list[dict]]:
    """``per_set`` pairs of each NLI dev set, balanced over the three labels (seeded), as audit records."""
    out = {}
    for folder, split in NLI:
        rows = [json.loads(line) for line in gzip.open(root / folder / f"{split}.jsonl.gz", "rt")]
        rng = random.Random(seed)
        picked = []
        for label in NLI_LABEL:
            pool = [r for r in rows if r["label"] == label]
            picked += rng.sample(pool, per_set // 3)
        out[f"nli-{folder}"] = [{"id": f"{folder}-{i}", "context": r["premise"], "answer": r["hypothesis"],
                                 "gold": r["label"]} for i, r in enumerate(picked)]
    return out


def ragtruth_records(per_task: int, seed: int) -> list[dict]:
    """``per_task`` answers of each task from the validation slice of RAGTruth train (seeded)."""
    rng = random.Random(seed)
    held = validation_records()
    out = []
    for task in ("qa", "summary", "data2txt"):
        for r in rng.sample([r for r in held if r.task == task], per_task):
            out.append({**r.to_record(), "gold": bool(r.hallucinated)})
    return out


async def run(auditor: Auditor, records: Iterable[dict], path: Path) -> list[dict]:
    """Audit ``records`` one at a time, appending each result to ``path``; ids already there are kept."""
    done = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line torn by a kill
            done[row["id"]] = row
    with path.open("a") as f:
        for rec in records:
            if rec["id"] in done:
                continue
            result = await auditor.audit({k: v for k, v in rec.items() if k != "gold"})
            row = {**result.to_json(), "gold": rec["gold"]}
            f.write(json.dumps(row) + "\n")
            f.flush()
            done[rec["id"]] = row
    return [done[r["id"]] for r in records]


def replay(local: Mapping[str, Any], hybrid: Mapping[str, Any], policy, floor: float = 0.0) -> list[Label]:
    """The claim labels of one record under ``policy`` (None: the local judge's), asking the LLM only about claims
    whose local score is at least ``floor``."""
    out = []
    for lc, hc in zip(local["claims"], hybrid["claims"]):
        label = Label(lc["label"])
        asked = (hc.get("prompt_version") or "").startswith("hybrid") and hc.get("raw")
        if policy is not None and asked and (lc.get("score") or 0.0) >= floor:
            verdict = json.loads(hc["raw"]).get("verdict")
            label = policy.get((label, verdict), label)
        out.append(label)
    return out


def score(rows: list[tuple[bool, bool]]) -> tuple[float, float, float]:
    tp = sum(g and p for g, p in rows)
    fp = sum(p and not g for g, p in rows)
    fn = sum(g and not p for g, p in rows)
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    return prec, rec, 2 * prec * rec / (prec + rec) if prec + rec else 0.0


def asked(local: list[dict], hybrid: list[dict], floor: float) -> float:
    """The share of claims the LLM would be asked about with routing floor ``floor``."""
    n = sum(len(r["claims"]) for r in local)
    hit = sum((hc.get("prompt_version") or "").startswith("hybrid") and bool(hc.get("raw"))
              and (lc.get("score") or 0.0) >= floor
              for lr, hr in zip(local, hybrid) for lc, hc in zip(lr["claims"], hr["claims"]))
    return hit / max(n, 1)


def table(sets: Mapping[str, tuple[list[dict], list[dict]]], floor: float = 0.0) -> str:
    lines = [f"routing floor {floor:g}: claims asked " + ", ".join(
        f"{name} {asked(*pair, floor):.0%}" for name, pair in sets.items()), "",
             "| policy | " + " | ".join(f"{name} P / R / F1" + (" / acc" if name.startswith("nli") else "")
                                        for name in sets) + " |",
             "|---|" + "---|" * len(sets)]
    for pname, policy in CANDIDATES.items():
        cells = []
        for name, (local, hybrid) in sets.items():
            pairs, right = [], 0
            for lr, hr in zip(local, hybrid):
                labels = replay(lr, hr, policy, floor)
                predicted = any(lab.hallucinated for lab in labels)
                gold = lr["gold"] if isinstance(lr["gold"], bool) else lr["gold"] != "entailment"
                pairs.append((gold, predicted))
                if not isinstance(lr["gold"], bool) and len(labels) == 1:
                    right += labels[0] is NLI_LABEL[lr["gold"]]
            p, r, f = score(pairs)
            cell = f"{p:.2f} / {r:.2f} / {f:.2f}"
            if name.startswith("nli"):
                cell += f" / {right / len(local):.2f}"
            cells.append(cell)
        lines.append(f"| {pname} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--granularity", choices=("batched", "per-claim"), default="batched")
    ap.add_argument("--ragtruth", type=int, default=10, help="validation answers per task")
    ap.add_argument("--nli", type=int, default=15, help="pairs per NLI dev set (a multiple of 3)")
    ap.add_argument("--nli-dir", default="../shared/data/nli")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    local = LocalJudge()
    settings = LLMSettings(base_url=args.base_url, model=args.model, cache=False, timeout=600)
    hybrid = HybridJudge(local, build_backend(settings), granularity=args.granularity, floor=0.0,
                         policy=ALL)
    sets = {"ragtruth-val": ragtruth_records(args.ragtruth, args.seed),
            **nli_records(Path(args.nli_dir), args.nli, args.seed)}
    results = {}
    for name, records in sets.items():
        got_local = asyncio.run(run(Auditor(judge=local, concurrency=1), records, out / f"local-{name}.jsonl"))
        got_hybrid = asyncio.run(run(Auditor(judge=hybrid, concurrency=1), records,
                                     out / f"hybrid-{args.granularity}-{name}.jsonl"))
        results[name] = (got_local, got_hybrid)
        print(f"{name}: {len(records)} records", flush=True)
    report = "\n\n".join(table(results, floor) for floor in FLOORS)
    (out / f"policies-{args.granularity}.md").write_text(report + "\n")
    print(report)


if __name__ == "__main__":
    main()
