"""``rt4chart diff`` on real RAGTruth test results of two judges: its counts against a count made here, directly
from the two results files (issue 28, acceptance 1)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from rt4chart.cli import main
from rt4chart.eval.datasets import load_ragtruth
from rt4chart.eval.runner import limit_records

HALLUCINATED = {"contradicted", "baseless"}


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _read(path: Path) -> tuple[dict[str, dict], dict[str, dict]]:
    results, errors = {}, {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        (errors if "error" in row else results)[str(row["id"])] = row
    return results, errors


def _expected(before: Path, after: Path) -> tuple[Counter, Counter]:
    """Status and change counts made without rt4chart: both judges read the claims of the same rule decomposer, so
    claims pair by position."""
    (old, old_err), (new, new_err) = _read(before), _read(after)
    status: Counter = Counter()
    claims: Counter = Counter()
    for key in {**old, **old_err, **new, **new_err}:
        if (key in old or key in old_err) != (key in new or key in new_err):
            status["only_before" if key in old or key in old_err else "only_after"] += 1
            continue
        if key in old_err or key in new_err:
            status["errored"] += 1
            continue
        b, a = old[key], new[key]
        was, now = b["hallucinated"], a["hallucinated"]  # None: unverified, no judge confirmed it
        status["newly_hallucinated" if now is True and was is not True else "still_hallucinated" if now is True
               else "needs_review" if now is None else "fixed" if was is True else "not_hallucinated"] += 1
        status["hallucinated_then_unverified"] += was is True and now is None  # leaves the rate, is not fixed
        assert [c["text"] for c in b["claims"]] == [c["text"] for c in a["claims"]], key
        labels = [(cb["label"], ca["label"]) for cb, ca in zip(b["claims"], a["claims"])]
        quotes = [(sorted(e["text"] for e in cb["evidence"]), sorted(e["text"] for e in ca["evidence"]))
                  for cb, ca in zip(b["claims"], a["claims"])]
        flips = [(x, y) for x, y in labels if x != y]
        claims["flipped"] += len(flips)
        claims["worse"] += sum(x not in HALLUCINATED and y in HALLUCINATED for x, y in flips)
        claims["better"] += sum(x in HALLUCINATED and y not in HALLUCINATED for x, y in flips)
        claims["paired"] += len(labels)
        if b["answer"] != a["answer"]:
            status["answer_changed"] += 1
        elif any({x, y} == HALLUCINATED for x, y in flips) or {b["label"], a["label"]} == HALLUCINATED:
            status["label_flip"] += 1
        elif flips or b["label"] != a["label"]:
            status["claims_changed"] += 1
        elif any(x != y for x, y in quotes):
            status["evidence_changed"] += 1
        else:
            status["unchanged"] += 1
    return status, claims


@pytest.mark.slow
def test_diff_of_two_judges_on_ragtruth_test_matches_a_direct_count(tmp_path, ragtruth_root):
    records = [r.to_record() for r in limit_records(load_ragtruth("test", root=ragtruth_root), 63)]
    before_in = _write(tmp_path / "before_in.jsonl", records[:60])
    after_rows = records[3:]
    after_rows[7] = {**after_rows[7], "answer": ""}  # an error line in the later run only: "errored"
    after_in = _write(tmp_path / "after_in.jsonl", after_rows)
    runner = CliRunner()
    res = runner.invoke(main, ["audit", str(before_in), "-o", str(tmp_path / "lexical.jsonl"), "--judge", "lexical",
                               "-q"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["audit", str(after_in), "-o", str(tmp_path / "local.jsonl"), "--judge", "local", "-q"])
    assert res.exit_code == 1, res.output  # one record failed: the empty answer

    res = runner.invoke(main, ["diff", str(tmp_path / "lexical.jsonl"), str(tmp_path / "local.jsonl"),
                               "--json", str(tmp_path / "diff.json"), "-q"])
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "diff.json").read_text())
    status, claims = _expected(tmp_path / "lexical.jsonl", tmp_path / "local.jsonl")
    assert doc["counts"] == {name: status[name] for name in doc["counts"]}
    assert set(status) - set(doc["counts"]) <= {"hallucinated_then_unverified"}
    assert {k: doc["claims"][k] for k in claims} == dict(claims)
    assert (status["only_before"], status["only_after"], status["errored"]) == (3, 3, 1)
    # the two judges disagree somewhere, so the comparison is not vacuous
    assert status["newly_hallucinated"] + status["fixed"] > 0 and claims["flipped"] > 0
    both = [r for r in doc["records"] if r["change"] is not None]
    rate = doc["rate"]
    assert rate["records"] == len(both) == 56
    net = status["newly_hallucinated"] - status["fixed"] - status["hallucinated_then_unverified"]
    assert rate["change"] == pytest.approx(net / 56, abs=1e-6)
