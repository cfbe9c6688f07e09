"""How a trained claim verifier orders the contrast probes (``tests/judges/data/verifier_probes.jsonl``, written
before any verifier was trained on RAG-like pairs and never trained on)::

    python3 -m training.verifier_probes --model-dir runs/verifier [--json OUT] [--record FILE]

Per probe: P(entailment | premise, faithful) and P(entailment | premise, changed); the verifier gets the pair's order
right when the first is higher. Prints the share right per kind and overall. ``--record`` writes the first probe of
each kind with both twins' three probabilities and the count ordered right: the file a test checks the shipped
verifier against (``tests/judges/data/verifier_recorded.json``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Optional

from rt4chart.judges.local.verifier import Verifier

PROBES = Path(__file__).resolve().parents[1] / "tests" / "judges" / "data" / "verifier_probes.jsonl"


def read_probes(path: Path = PROBES) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def order_right(model_dir: Path, probes: list[dict]) -> list[dict]:
    """Each probe with the verifier's two P(entailment) and whether the faithful twin is above the changed one."""
    verifier = Verifier(model_dir, threads=2)
    premises = [p["premise"] for p in probes] * 2
    claims = [p["faithful"] for p in probes] + [p["changed"] for p in probes]
    probs = verifier.probabilities(premises, claims)
    n = len(probes)
    out = []
    for i, p in enumerate(probes):
        faithful, changed = float(probs[i][0]), float(probs[n + i][0])
        out.append({**p, "p_faithful": round(faithful, 4), "p_changed": round(changed, 4),
                    "right": faithful > changed})
    return out


def record(model_dir: Path, rows: list[dict], out: Path) -> None:
    """The first probe of each kind with the verifier's three probabilities for both twins, and how many probes it
    orders right, with the verifier's card version."""
    firsts = list({r["kind"]: r for r in reversed(rows)}.values())[::-1]
    verifier = Verifier(model_dir, threads=1)
    pairs = [(r["premise"], r[twin]) for r in firsts for twin in ("faithful", "changed")]
    probs = verifier.probabilities([p for p, _ in pairs], [c for _, c in pairs])
    doc = {"version": verifier.card.get("version"), "order_right": sum(r["right"] for r in rows),
           "probes": len(rows),
           "pairs": [{"premise": p, "claim": c, "probabilities": [round(float(x), 4) for x in row]}
                     for (p, c), row in zip(pairs, probs)]}
    out.write_text(json.dumps(doc, indent=1) + "\n")


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-dir", required=True, type=Path)
    ap.add_argument("--json", default=None, help="write each probe's probabilities here")
    ap.add_argument("--record", default=None, help="write the recorded probabilities a test checks here")
    args = ap.parse_args(argv)
    rows = order_right(args.model_dir, read_probes())
    if args.record:
        record(args.model_dir, rows, Path(args.record))
    kinds = sorted({r["kind"] for r in rows})
    print("| kind | order right |\n|---|---|")
    for kind in kinds:
        of = [r for r in rows if r["kind"] == kind]
        print(f"| {kind} | {sum(r['right'] for r in of)} of {len(of)} |")
    print(f"| all | {sum(r['right'] for r in rows)} of {len(rows)} |")
    if args.json:
        Path(args.json).write_text("".join(json.dumps(r) + "\n" for r in rows))


if __name__ == "__main__":
    main()
