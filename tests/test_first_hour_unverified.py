"""Issue 42, item 2: an answer no judge confirmed is never reported as not hallucinated.

Its representation is ``hallucinated: null`` with the label ``unverified``; these tests follow it end to end through
the public Python API, ``rt4chart audit`` (JSON and summary), ``audit_frame``, ``rt4chart report``, ``rt4chart
diff``, the pytest plugin and ``rt4chart eval score`` (which counts it as not flagged, docs/evaluation.md).
"""

from __future__ import annotations

import importlib.metadata
import json
from concurrent.futures import ThreadPoolExecutor
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import rt4chart
from rt4chart.cli import main

pytest_plugins = ["pytester"]

LIBRARY = ("The library is open Monday to Friday from 9 am to 6 pm, and on Saturday from 10 am to 2 pm. "
           "It is closed on Sundays.")
#: a sentence with no content word to check against the opening hours: the local judge abstains (the issue's example,
#: "It was founded in 1901.", is baseless since the typed-edit rules of issue 41; a bare "Yes." is no claim at all
#: without a question since issue 61, and the answer is unverified with no claim)
UNCHECKED = "It is what it is."
ISSUE_EXAMPLE = "It was founded in 1901."
GROUNDED = "The library is closed on Sundays."
WRONG = "The library is open Monday to Friday from 9 am to 8 pm."


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _audit(tmp_path: Path, name: str, answers: dict[str, str]) -> tuple[Path, str]:
    """``rt4chart audit`` of one record per id with the offline judge: the results file and the console output."""
    inp = _write_jsonl(tmp_path / f"{name}.in.jsonl",
                       [{"id": rid, "context": LIBRARY, "answer": a} for rid, a in answers.items()])
    out = tmp_path / f"{name}.jsonl"
    # in a thread of its own: the page tests' Playwright keeps an event loop running in this one
    with ThreadPoolExecutor(1) as pool:
        res = pool.submit(CliRunner().invoke, main, ["audit", str(inp), "-o", str(out), "--judge", "local"]).result()
    assert res.exit_code == 0, res.output
    return out, res.output


def _lines(path: Path) -> dict[str, dict]:
    return {obj["id"]: obj for obj in map(json.loads, path.read_text().splitlines())}


def test_python_api_the_issue_example_is_not_called_clean():
    result = rt4chart.audit(context=LIBRARY, answer=UNCHECKED)
    assert result.label == rt4chart.Label.UNVERIFIED
    assert result.hallucinated is None
    assert result.to_json()["hallucinated"] is None
    founded = rt4chart.audit(context=LIBRARY, answer=ISSUE_EXAMPLE)
    assert founded.hallucinated is not False  # never clean: baseless today
    confirmed = rt4chart.audit(context=LIBRARY, answer=GROUNDED)
    assert (confirmed.label, confirmed.hallucinated) == (rt4chart.Label.ENTAILED, False)


def test_cli_json_output_and_summary_table(tmp_path):
    out, console = _audit(tmp_path, "run", {"u": UNCHECKED, "e": GROUNDED, "c": WRONG})
    lines = _lines(out)
    assert {rid: (r["label"], r["hallucinated"]) for rid, r in lines.items()} == {
        "u": ("unverified", None), "e": ("entailed", False), "c": ("contradicted", True)}
    assert re.search(r"needs review\s*│?\s*1 \(unverified\)", console), console
    assert re.search(r"hallucinated\s*│?\s*1 \(33\.3%\)", console), console


def test_audit_frame_keeps_no_unchecked_answer_among_the_clean_ones():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"id": ["u", "e"], "context": [LIBRARY, LIBRARY], "answer": [UNCHECKED, GROUNDED]})
    out = rt4chart.audit_frame(df, judge="local")
    assert out.loc[0, "label"] == "unverified" and out["hallucinated"].isna().tolist() == [True, False]
    assert out.loc[out["hallucinated"] == False, "id"].tolist() == ["e"]  # noqa: E712 - the filter a user writes


def test_report_counts_and_marks_needs_review(tmp_path):
    out, _ = _audit(tmp_path, "run", {"u": UNCHECKED, "e": GROUNDED})
    page = tmp_path / "report.html"
    res = CliRunner().invoke(main, ["report", str(out), "-o", str(page)])
    assert res.exit_code == 0, res.output
    assert "2 records, 0 hallucinated, 0 errors, 1 need review (unverified)" in res.output
    html = page.read_text()
    assert '"needs_review": 1' in html or '"needs_review":1' in html
    assert '"needs review"' in html  # the badge and the summary box (render.js, report.js)


def test_report_page_shows_the_needs_review_badge(tmp_path, chromium):
    out, _ = _audit(tmp_path, "run", {"u": UNCHECKED, "e": GROUNDED})
    page_path = tmp_path / "report.html"
    assert CliRunner().invoke(main, ["report", str(out), "-o", str(page_path)]).exit_code == 0
    page = chromium.new_page()
    page.goto(page_path.as_uri())
    assert page.locator(".badge.review").all_inner_texts() == ["needs review"]
    assert "needs review" in page.locator("#summary").inner_text().lower()  # the page upper-cases its labels
    page.close()


def test_diff_gives_needs_review_not_not_hallucinated(tmp_path):
    before, _ = _audit(tmp_path, "before", {"a": GROUNDED, "b": WRONG, "c": GROUNDED})
    after, _ = _audit(tmp_path, "after", {"a": UNCHECKED, "b": UNCHECKED, "c": GROUNDED})
    report = tmp_path / "diff.json"
    res = CliRunner().invoke(main, ["diff", str(before), str(after), "--json", str(report)])
    assert res.exit_code == 0, res.output
    doc = json.loads(report.read_text())
    status = {r["id"]: r["status"] for r in doc["records"]}
    assert status == {"a": "needs_review", "b": "needs_review", "c": "not_hallucinated"}  # b is not "fixed"
    assert doc["counts"]["needs_review"] == 2 and doc["counts"]["fixed"] == 0
    assert doc["records"][0]["hallucinated"] == {"before": False, "after": None}
    # a file written before (unverified with hallucinated false) reads the same
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps({**r, "hallucinated": r["hallucinated"] is True}) + "\n"
                           for r in _lines(after).values()))
    res = CliRunner().invoke(main, ["diff", str(before), str(old), "--json", str(report)])
    assert res.exit_code == 0, res.output
    assert json.loads(report.read_text())["counts"]["needs_review"] == 2


def _plugin_args() -> list[str]:
    registered = any(ep.value == "rt4chart.testing" for ep in importlib.metadata.entry_points(group="pytest11"))
    return ([] if registered else ["-p", "rt4chart.testing"]) + ["-p", "no:asyncio", "-p", "no:cacheprovider"]


def test_pytest_plugin_fails_on_an_unchecked_answer_by_default(pytester):
    pytester.makepyfile(test_unchecked=f'''
from rt4chart.testing import assert_grounded


def test_unchecked():
    assert_grounded({UNCHECKED!r}, {LIBRARY!r}, judge="local", max_risk=1.0)
''')
    result = pytester.runpytest(*_plugin_args())
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*needs review: no judge confirmed it (1 of 1 claims unverified*"])
    result = pytester.runpytest(*_plugin_args(), "--rt4chart-allow-unverified")
    result.assert_outcomes(passed=1)


def test_eval_scores_an_unverified_answer_as_not_flagged(tmp_path):
    out, _ = _audit(tmp_path, "run", {"u": UNCHECKED, "e": GROUNDED, "c": WRONG})
    gold = _write_jsonl(tmp_path / "gold.jsonl", [
        {"id": "u", "context": LIBRARY, "answer": UNCHECKED, "hallucinated": True},
        {"id": "e", "context": LIBRARY, "answer": GROUNDED, "hallucinated": False},
        {"id": "c", "context": LIBRARY, "answer": WRONG, "hallucinated": True}])
    res = CliRunner().invoke(main, ["eval", "score", "--dataset", "jsonl", "--path", str(gold), "-p", str(out),
                                    "--name", "local", "--no-baselines", "--bootstrap", "10", "-o",
                                    str(tmp_path / "m")])
    assert res.exit_code == 0, res.output
    system = json.loads((tmp_path / "m" / "metrics.json").read_text())["systems"]["local"]
    assert system["unverified"] == 1
    answer = system["answer"]["overall"]
    assert (answer["precision"], answer["recall"]) == (1.0, 0.5)  # the unverified hallucination is a miss
