"""The report's Python side: loading results files, summaries, safe embedding, the `rt4chart report` command."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from report_helpers import crafted_result

from rt4chart.report import load_results, normalize, render_html, summarize, write_html
from rt4chart.report._html import embed_json


def _data(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="rt4-data">(.*?)</script>', html, re.S)
    assert m, "no data block"
    return json.loads(m.group(1))


def test_normalize_drops_raw_replies_and_keeps_the_contract():
    entry = normalize(crafted_result())
    assert entry["id"] == "crafted" and entry["label"] == "contradicted" and len(entry["claims"]) == 3
    assert all("raw" not in c for c in entry["claims"])
    assert entry["claims"][0]["evidence"][0]["text"] == entry["context"][:len(entry["context"]) // 3]
    err = normalize({"id": 7, "index": 3, "error": {"field": "answer", "message": "is empty", "kind": "input"}})
    assert err == {"id": 7, "index": 3, "error": {"field": "answer", "message": "is empty", "kind": "input"}}
    assert normalize([1, 2], 5)["error"]["kind"] == "parse"
    assert normalize({"label": "entailed"}, 2)["error"]["kind"] == "parse"  # no answer: not a result


def test_load_results_turns_damaged_lines_into_error_entries(tmp_path: Path):
    path = tmp_path / "results.jsonl"
    error = {"id": "b", "index": 4, "error": {"field": "context", "message": "is missing", "kind": "input"}}
    lines = [json.dumps(crafted_result("a").to_json()), "", "{not json", json.dumps(error), json.dumps("just a string")]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    entries = load_results(path)
    assert [e.get("id") for e in entries] == ["a", None, "b", None]
    assert entries[1]["error"]["kind"] == "parse" and "line 3" in entries[1]["error"]["message"]
    assert entries[2]["error"]["message"] == "is missing"
    assert entries[3]["index"] == 5


def test_summarize_counts_labels_claims_tasks_errors_and_usage():
    entries = [normalize(crafted_result(1, task="qa")), normalize(crafted_result(2, task="summary")),
               normalize({"id": 3, "index": 2, "error": {"message": "boom", "kind": "internal"}}),
               {**normalize(crafted_result(4)), "label": "entailed", "hallucinated": False, "config": {}}]
    s = summarize(entries)
    assert (s["records"], s["results"], s["errors"], s["hallucinated"]) == (4, 3, 1, 2)
    assert s["labels"] == {"contradicted": 2, "baseless": 0, "unverified": 0, "entailed": 1}
    assert s["claim_labels"] == {"contradicted": 3, "baseless": 3, "unverified": 0, "entailed": 3}
    assert s["tasks"] == ["qa", "summary"] and s["task_counts"] == {"qa": 1, "summary": 1}
    assert s["usage"]["calls"] == 9 and abs(s["usage"]["cost_usd"] - 0.03) < 1e-9
    assert s["judges"] == ["crafted"]


@given(st.text())
def test_embedded_json_round_trips_and_cannot_close_the_script(text):
    embedded = embed_json({"t": text})
    assert json.loads(embedded) == {"t": text}
    low = embedded.lower()
    assert "</" not in low and "<!--" not in low and "<script" not in low


def test_render_html_escapes_every_untrusted_text():
    evil = "</script><script>alert(1)</script><!-- & <img src=x onerror=alert(2)>"
    result = crafted_result(evil, context=f"Alpha is one. {evil} Gamma is three.", answer=f"Alpha {evil} is nine.")
    html = render_html([result], title=f"T {evil}", source=evil)
    assert "<script>alert" not in html and "<img src=x" not in html and "<!-- &" not in html
    assert html.count("</script>") == html.count("<script")  # only our own script elements close
    assert "T &lt;/script&gt;" in html
    data = _data(html)
    assert data["records"][0]["id"] == evil and evil in data["records"][0]["context"]
    assert not re.search(r"""(src|href)=["']?https?:""", html)  # nothing is fetched from the network


def test_write_html_survives_lone_surrogates(tmp_path: Path):
    result = crafted_result("s", context="Alpha \udc80 one. Beta is two. Gamma is three.")
    path = write_html([result], tmp_path / "r.html")
    html = path.read_bytes().decode("utf-8")  # valid UTF-8
    assert _data(html)["records"][0]["context"].startswith("Alpha \udc80")


def test_report_command_writes_the_html(tmp_path: Path):
    from rt4chart.cli import main

    src = tmp_path / "results.jsonl"
    src.write_text(json.dumps(crafted_result("x").to_json()) + "\n{bad\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["report", str(src), "-o", str(tmp_path / "out.html"), "--title", "Mine"])
    assert result.exit_code == 0, result.output
    assert "2 records, 1 hallucinated, 1 error" in result.output
    html = (tmp_path / "out.html").read_text(encoding="utf-8")
    assert "<title>Mine</title>" in html and len(_data(html)["records"]) == 2
    default = CliRunner().invoke(main, ["report", str(src)])
    assert default.exit_code == 0 and (tmp_path / "results.html").exists()
    missing = CliRunner().invoke(main, ["report", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code != 0 and "cannot read results file" in missing.output
