"""The hybrid judge's combination card (``rt4chart/judges/models/hybrid_combination.json``): collect one-token
verdicts on training data, then fit the two logistic models and choose their thresholds.

    M=$(../shared/models/get_qwen2.5-coder-1.5b-instruct.sh); B=$(../shared/models/build_llama_server.sh)
    $B -m "$M" --port 8088 -t 2 -c 8192 --alias judge &
    python -m training.hybrid_combination collect --base-url http://127.0.0.1:8088/v1 -o runs/hybrid-rows.jsonl
    python -m training.hybrid_combination refeature runs/hybrid-rows.jsonl -o runs/hybrid-rows-now.jsonl
    python -m training.hybrid_combination fit runs/hybrid-rows-now.jsonl

``collect`` audits, with the hybrid judge, the RAGTruth validation slice (``splits.validation_records``: answers no
local model was trained on; ``--ragtruth N`` per task) and pairs of the NLI sets the data README allows for training
(``--nli N`` per set), and appends one row per claim: its features (``rt4chart.judges.combine``) and gold label.
Resumable: records already in the output are skipped. ``refeature`` recomputes the rows' features with the code as
it is now (after a change of the local judge or of the features), reusing their P(supported). ``fit`` fits
``hallucinated`` (every row) and ``contradicted`` (hallucinated rows with a contradicted/baseless gold label) with
scikit-learn, chooses each threshold on out-of-fold predictions (grouped by context, 5 folds) and writes the card
with its metrics. No RAGTruth test answer, paper example or hand-made case is read.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import random
from pathlib import Path
from typing import Any, Iterator, Optional

from .splits import claim_is_hallucinated, data_dir, validation_records

#: (dataset folder, split file) of the NLI sets that may train a shipped model (data README)
NLI_TRAIN = (("snli", "dev"), ("cad_snli", "original_train"), ("conjnli", "adversarial_train"),
             ("taxinli", "mnli_train"), ("fever_nli_dev", "dev"))
CARD_VERSION = "1.0"


def _nli_dir() -> Path:
    root = Path(data_dir() or Path.cwd().parent / "shared" / "data")
    return root / "nli"


def nli_records(per_set: int, seed: int = 7) -> Iterator[dict[str, Any]]:
    """``per_set`` pairs of each training NLI set (seeded sample), as audit records with their gold label."""
    for name, split in NLI_TRAIN:
        path = _nli_dir() / name / f"{split}.jsonl.gz"
        with gzip.open(path, "rt") as f:
            rows = [json.loads(line) for line in f]
        random.Random(seed).shuffle(rows)
        for k, row in enumerate(rows[:per_set]):
            gold = {"entailment": "entailed", "contradiction": "contradicted"}.get(row["label"], "baseless")
            yield {"id": f"{name}-{k}", "context": row["premise"], "answer": row["hypothesis"], "source": name,
                   "group": f"{name}-{k}", "gold": gold}


def ragtruth_records(per_task: int, seed: int = 7) -> Iterator[dict[str, Any]]:
    records = validation_records()
    random.Random(seed).shuffle(records)
    taken: dict[str, int] = {}
    for r in records:
        if taken.get(r.task, 0) >= per_task:
            continue
        taken[r.task] = taken.get(r.task, 0) + 1
        yield {"id": f"ragtruth-{r.id}", "context": r.context, "answer": r.answer, "source": f"ragtruth-{r.task}",
               "group": r.group, "gold_spans": [(s.start, s.end, s.label) for s in r.spans]}


def _gold(rec: dict[str, Any], claim: dict[str, Any]) -> Optional[str]:
    """A claim's gold label: the NLI pair's, or from RAGTruth's spans (``splits.claim_is_hallucinated``; a span
    labelled a conflict makes it contradicted)."""
    if "gold" in rec:
        return rec["gold"]
    from rt4chart.types import Span

    start, end = claim["answer_spans"][0]["start"], claim["answer_spans"][-1]["end"]
    spans = rec["gold_spans"]
    if not claim_is_hallucinated(start, end, [Span(start=s, end=e) for s, e, _ in spans]):
        return "entailed"
    hit = [lab.lower() for s, e, lab in spans if min(end, e) > max(start, s)]
    return "contradicted" if any("conflict" in lab or "contradict" in lab for lab in hit) else "baseless"


class _Default(dict):
    """Stored answers; a claim the decomposer now cuts otherwise gets 0.5 (its record is skipped anyway)."""

    def __missing__(self, key: str) -> float:
        return 0.5


class _Stored:
    """A chat backend that answers the one-token question from the P(supported) a collect run stored (by claim),
    so that ``refeature`` recomputes every feature through the judge's own code without calling a model."""

    model = "stored"

    def __init__(self) -> None:
        self.answers: dict[str, float] = {}

    async def complete(self, messages: Any, *, schema: Any = None, prompt_version: Any = None,
                       logprobs: int = 0) -> Any:
        import math

        from rt4chart.llm.backend import Completion

        claim = messages[-1]["content"].rsplit("Claim: ", 1)[1]
        p = min(max(self.answers[" ".join(claim.split())], 1e-6), 1 - 1e-6)
        return Completion(text="Yes", top_logprobs=(("Yes", math.log(p)), ("No", math.log(1 - p))))


async def _refeature(args: argparse.Namespace) -> None:
    from rt4chart.audit.auditor import Auditor
    from rt4chart.judges.combine import FEATURES, Combination, Logistic
    from rt4chart.judges.hybrid import HybridJudge
    from rt4chart.judges.local import LocalJudge

    rows = [json.loads(line) for line in Path(args.rows).read_text().splitlines() if line.strip()]
    by_record: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_record.setdefault(r["record"], []).append(r)
    records = {r["id"]: r for r in [*ragtruth_records(10**6), *nli_records(args.nli)] if r["id"] in by_record}
    zero = Logistic(coef=tuple(0.0 for _ in FEATURES), intercept=0.0, threshold=0.5)
    backend = _Stored()
    auditor = Auditor(judge=HybridJudge(LocalJudge(), backend, combination=Combination(zero, zero, "refeature", {}),
                                        ask_max_words=None, rules_decide=False))  # every claim's features
    skipped = 0
    with Path(args.out).open("w") as f:
        for rid, old in by_record.items():
            backend.answers = {" ".join(r["claim"].split()): r["p_supported"] for r in old}
            backend.answers = _Default(backend.answers)
            rec = records[rid]
            row = (await auditor.audit({"id": rid, "context": rec["context"], "answer": rec["answer"]})).to_json()
            if [" ".join(c["text"].split()) for c in row["claims"]] != [" ".join(o["claim"].split()) for o in old]:
                skipped += 1  # the decomposer cuts this answer otherwise now: its stored answers do not apply
                continue
            for c, o in zip(row["claims"], old):
                f.write(json.dumps({**o, "features": json.loads(c["raw"])["features"]}) + "\n")
    print(f"{len(by_record) - skipped} records refeatured, {skipped} skipped (claims changed)")


async def _collect(args: argparse.Namespace) -> None:
    from rt4chart.audit.auditor import Auditor
    from rt4chart.eval.hybrid_card import collecting
    from rt4chart.judges.hybrid import HybridJudge
    from rt4chart.judges.llm import Endpoint, build_backend
    from rt4chart.judges.local import LocalJudge

    judge = HybridJudge(LocalJudge(), build_backend(Endpoint(base_url=args.base_url, model=args.model,
                                                             cache=False, timeout=600.0, concurrency=1)))
    collecting(judge)  # every claim is asked: routing is the judge's, not the data's
    auditor = Auditor(judge=judge)
    out = Path(args.out)
    done = {json.loads(line)["record"] for line in out.read_text().splitlines()} if out.exists() else set()
    records = [*ragtruth_records(args.ragtruth), *nli_records(args.nli)]
    random.Random(1).shuffle(records)  # sources interleaved, so a run cut short still samples all of them
    with out.open("a") as f:
        for n, rec in enumerate(records):
            if rec["id"] in done:
                continue
            result = (await auditor.audit({"id": rec["id"], "context": rec["context"], "answer": rec["answer"]}))
            row = result.to_json()
            for c in row["claims"]:
                raw = json.loads(c["raw"]) if c.get("raw") and c["raw"].startswith("{") else None
                if raw is None or "features" not in raw:
                    continue
                f.write(json.dumps({"record": rec["id"], "source": rec["source"], "group": rec["group"],
                                    "claims": len(row["claims"]), "claim": c["text"], "gold": _gold(rec, c),
                                    "p_supported": raw["p_supported"], "features": raw["features"],
                                    "seconds": row["usage"]["seconds"]}) + "\n")
            f.flush()
            print(f"{n + 1}/{len(records)} {rec['id']} {row['usage']['seconds']:.1f}s", flush=True)


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--base-url", required=True)
    c.add_argument("--model", default="judge")
    c.add_argument("--ragtruth", type=int, default=20, help="validation answers per task")
    c.add_argument("--nli", type=int, default=60, help="pairs per NLI training set")
    c.add_argument("-o", "--out", required=True)
    r = sub.add_parser("refeature", help="recompute the features of collected rows (the local judge's, the "
                       "lexical ones) with the code as it is now, reusing their stored P(supported)")
    r.add_argument("rows")
    r.add_argument("--nli", type=int, default=60, help="as collected")
    r.add_argument("-o", "--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("rows")
    f.add_argument("--card", default=None, help="where to write the card (default: the shipped models folder)")
    args = ap.parse_args(argv)
    if args.command == "collect":
        asyncio.run(_collect(args))
    elif args.command == "refeature":
        asyncio.run(_refeature(args))
    else:
        from .hybrid_fit import fit

        fit(Path(args.rows), Path(args.card) if args.card else None, version=CARD_VERSION)


if __name__ == "__main__":
    main()
