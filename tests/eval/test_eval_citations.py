"""ExpertQA's loader and ``rt4chart eval citations`` on a small file in the release's layout."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from click.testing import CliRunner

from rt4chart.cli import main
from rt4chart.eval.citation_scores import swapped
from rt4chart.eval.datasets.expertqa import load_expertqa

P1 = "The museum opens at nine in the morning. It is closed on Mondays."
P2 = "Tickets cost twelve euros for adults. Children under ten enter free."


def _claim(text: str, support: str, cited: list[int]) -> dict:
    passages = {1: P1, 2: P2}
    return {"claim_string": text, "support": support,
            "evidence": [f"[{n}] https://example.org/{n}\n\n{passages[n]}" for n in cited]}


def _write(root: Path) -> Path:
    folder = root / "expertqa"
    folder.mkdir(parents=True)
    row = {"question": "What should visitors know?", "annotator_id": "a", "metadata": {},
           "answers": {"rr_sphere_gpt4": {
               "answer_string": "...", "attribution": ["[1] https://example.org/1", "[2] https://example.org/2"],
               "claims": [_claim("The museum opens at nine in the morning [1].", "Complete", [1]),
                          _claim("Tickets cost twelve euros for adults [2].", "Complete", [2]),
                          _claim("The museum has a rooftop cinema.", "Missing", [])]}}}
    with gzip.open(folder / "rand_val.jsonl.gz", "wt") as fh:
        fh.write(json.dumps(row) + "\n")
    return root


def test_each_claim_is_a_record_with_the_answers_passages_numbered_by_marker(tmp_path):
    claims = load_expertqa(root=_write(tmp_path))
    assert [c.support for c in claims] == ["Complete", "Complete", "Missing"]
    assert claims[0].passages == (P1, P2) and claims[0].to_record()["context"] == [P1, P2]
    moved = swapped(claims[0], [1])
    assert moved is not None and moved.claim == "The museum opens at nine in the morning [2]."


def test_eval_citations_writes_the_rows_the_swaps_and_the_metrics(tmp_path):
    root = _write(tmp_path / "data")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["eval", "citations", "--path", str(root), "--judge", "lexical", "-o", str(out),
                                    "-q"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines()]
    assert [r["flagged"] for r in rows] == [False, False, True]  # the third has no citation
    assert rows[0]["statuses"] == ["supported"] and rows[2]["statuses"] == ["uncited"]
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["missing_vs_complete"]["auroc"] == 1.0 and metrics["flagged_share"]["Complete"] == 0.0
    assert metrics["swap"]["swapped"] == 2 and metrics["swap"]["detected"] == 1.0  # each moved to the other passage
