"""Hashes of what the offline judges, the hybrid judge and the gate predict on the 2,700 RAGTruth test answers, to
show that a change that should not change a prediction did not (docs/history.md, Consolidations).

    python3 -m benchmarks.prediction_hashes --out /tmp/hashes [--limit N] [--code OTHER_CHECKOUT]

It runs the documented commands: ``rt4chart eval run --dataset ragtruth --split test --judge lexical`` and
``--judge local`` (``--no-baselines --bootstrap 1``: only the predictions matter here), ``rt4chart triage route``
over the same records with the shipped gate and with ``--gate z``, and ``rt4chart audit --judge hybrid`` over the
first ``--hybrid-records`` of them against a scripted model (``rt4chart.testing.openai_server``): its P(yes) for a
request is a function of the request's text, so the hybrid's results change exactly when its requests or its
combination do. Printed per system: the sha256 of ``predictions.jsonl`` (label, score, spans and evidence spans of
every answer), of ``results.jsonl`` with its timing fields (``seconds``) removed (every claim's label, reason, score,
spans and evidence), and of the triage output. Two runs of the same code give the same hashes (checked), so a
different hash is a changed prediction. ``--code DIR`` runs the commands with ``DIR/src`` first on the path: the
hashes of another checkout (a ``git worktree`` of the commit before a change), from the same scripted model.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from rt4chart.testing.openai_server import ChatRequest, FakeOpenAI, Reply

from rt4chart.eval.datasets import ENV_DATA_DIR, load_ragtruth

TIMING = frozenset({"seconds"})


def _strip(value, drop=TIMING):
    if isinstance(value, dict):
        return {k: _strip(v, drop) for k, v in value.items() if k not in drop}
    if isinstance(value, list):
        return [_strip(v, drop) for v in value]
    return value


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def results_sha256(path: Path, drop: frozenset = TIMING) -> str:
    """sha256 of the results, one canonical JSON line per record, the fields in ``drop`` (timing) removed."""
    h = hashlib.sha256()
    for line in path.read_text(encoding="utf-8").splitlines():
        h.update(json.dumps(_strip(json.loads(line), drop), sort_keys=True, ensure_ascii=False).encode() + b"\n")
    return h.hexdigest()


_ENV: dict[str, str] = dict(os.environ)


def _run(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "rt4chart.cli", *args], check=True, env=_ENV)


def scripted_yes(request: ChatRequest) -> Reply:
    """P(yes) from the sha256 of the request's messages: the same request gets the same verdict, any other request
    another one."""
    digest = hashlib.sha256(json.dumps(request.messages, sort_keys=True).encode()).digest()
    return Reply.yes_no(int.from_bytes(digest[:4], "big") / 2 ** 32)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for the runs (created)")
    ap.add_argument("--limit", type=int, help="only the first N test records (a quick look; not the documented run)")
    ap.add_argument("--hybrid-records", type=int, default=300, help="test records the hybrid judge audits")
    ap.add_argument("--code", type=Path, help="a checkout whose src/ the commands run (default: the installed one)")
    args = ap.parse_args(argv)
    if args.code is not None:
        _ENV["PYTHONPATH"] = os.pathsep.join([str(args.code.resolve() / "src"), os.environ.get("PYTHONPATH", "")])
    args.out.mkdir(parents=True, exist_ok=True)
    data_dir = os.environ.get(ENV_DATA_DIR) or None
    records = load_ragtruth("test", data_dir=data_dir)
    limit = ["--limit", str(args.limit)] if args.limit else []
    if args.limit:
        records = records[: args.limit]
    rows = args.out / "test-records.jsonl"
    with rows.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps({"id": r.id, "context": r.context, "question": r.question, "answer": r.answer}) + "\n")
    table = []
    for judge in ("lexical", "local"):
        run = args.out / judge
        _run("eval", "run", "--dataset", "ragtruth", "--split", "test", "--judge", judge, "-o", str(run), "-q",
             "--no-baselines", "--bootstrap", "1", *limit)
        table.append((f"{judge} predictions.jsonl", file_sha256(run / "predictions.jsonl")))
        table.append((f"{judge} results.jsonl (no timing)", results_sha256(run / "results.jsonl")))
    for name, gate in (("gate (shipped)", "default"), ("gate z", "z")):
        out = args.out / f"triage-{gate}.jsonl"
        _run("triage", "route", str(rows), "--gate", gate, "-o", str(out))
        table.append((f"{name} triage route", file_sha256(out)))
    hybrid_in, hybrid_out = args.out / "hybrid-records.jsonl", args.out / "hybrid.jsonl"
    hybrid_in.write_text("".join(rows.read_text(encoding="utf-8").splitlines(keepends=True)[:args.hybrid_records]),
                         encoding="utf-8")
    with FakeOpenAI(scripted_yes, total_slots=2) as server:
        _run("audit", str(hybrid_in), "-o", str(hybrid_out), "-q", "--judge", "hybrid", "--base-url", server.base_url,
             "--model", "scripted", "--no-cache")
        if server.errors:
            raise SystemExit(f"the scripted model failed: {server.errors[0]}")
    # the judge fingerprint holds the scripted server's URL, whose port changes from run to run
    table.append(("hybrid (scripted model) results", results_sha256(hybrid_out, TIMING | {"judge_fingerprint"})))
    print(f"{len(records)} records")
    for name, digest in table:
        print(f"{name:34} {digest}")
    (args.out / "hashes.json").write_text(json.dumps(dict(table), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
