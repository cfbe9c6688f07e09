"""``rt4chart diagnose`` end to end: offline on examples/facets.jsonl, and with --base-url against the scripted
OpenAI-compatible server (three modes, LLM facets, LLM judge)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from facets_helpers import BM25S_MISSING, question_of, schema_name

pytest.importorskip("bm25s", reason=BM25S_MISSING)
from click.testing import CliRunner

from rt4chart.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "facets.jsonl"


@pytest.fixture(autouse=True)
def no_endpoint(monkeypatch):
    for var in ("RT4CHART_BASE_URL", "RT4CHART_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def run(*args):
    return CliRunner().invoke(main, ["diagnose", *args], catch_exceptions=False)


def test_offline_run_writes_json_and_html(tmp_path):
    result = run(str(EXAMPLES), "-o", str(tmp_path), "-q")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    n = sum(1 for line in EXAMPLES.read_text().splitlines() if line.strip())
    assert summary["questions"] == n and summary["errors"] == 0 and summary["generation"] is False
    assert sum(summary["by_type"]["all"].values()) == summary["facets"] >= n
    lines = (tmp_path / "diagnoses.jsonl").read_text().splitlines()
    assert len(lines) == n
    first = json.loads((tmp_path / "json" / "born-first.json").read_text())
    assert first["decomposer"] == "rule" and first["generation"] is False
    assert [f["facet"]["text"] for f in first["facets"]] == ["When was Arthur Conan Doyle born?",
                                                             "When was Artur Schnitzler born?"]
    assert all(len(f["cells"]) == len(first["chunks"]) == 3 for f in first["facets"])
    assert all(f["answer"] is not None and f["generation"] is None for f in first["facets"])
    page = (tmp_path / "html" / "born-first.html").read_text()
    assert "Facet diagnostics" in page and page.count("<td class=cell") == 6
    index = (tmp_path / "index.html").read_text()
    assert 'href="html/born-first.html"' in index
    no_answer = json.loads((tmp_path / "json" / "no-answer.json").read_text())
    assert no_answer["facets"][0]["category"] == "unaddressed" and no_answer["claims"] == []


def test_usage_errors_exit_2(tmp_path):
    assert run("-o", str(tmp_path)).exit_code == 2  # neither INPUT nor --dataset


def test_bad_rows_are_skipped_with_their_error_and_the_others_diagnosed(tmp_path):
    good = json.loads(EXAMPLES.read_text().splitlines()[0])
    rows = [good, [1, 2], "text", {**good, "id": "bad-gold", "gold_spans": "oops"},
            {**good, "id": "far-gold", "gold_spans": [[0, 10_000]]}, {**good, "id": "int-q", "question": 5}]
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = CliRunner().invoke(main, ["diagnose", str(path), "-o", str(tmp_path / "o")])
    assert result.exit_code == 1, result.output
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["questions"] == 1 and summary["errors"] == 5
    errors = "\n".join(summary["errors_list"])
    assert "record '#1': must be a JSON object, got list" in errors
    assert "record '#2': must be a JSON object, got str" in errors
    assert "record 'bad-gold', field 'gold_spans'" in errors
    assert f"record 'far-gold', field 'gold_spans': span [0, 10000] is not a non-empty range inside the answer " \
        f"({len(good['answer'])} characters)" in errors
    assert "record 'int-q', field 'question': must be a string, got int" in errors
    # the terminal shows the messages whole: rich must not read "[start, end]" as markup
    assert "[start, end] pairs" in " ".join(result.output.split())


def test_a_context_without_latin_terms_is_diagnosed(tmp_path):
    path = tmp_path / "cjk.jsonl"
    path.write_text(json.dumps({"id": "cjk", "context": "東京は日本の首都です。",
                                "question": "What is the capital of Japan?", "answer": "Tokyo."}) + "\n")
    result = run(str(path), "-o", str(tmp_path / "o"), "-q")
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["questions"] == 1


def test_records_without_question_are_reported_and_exit_1(tmp_path):
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"id": "ok", "question": "When was the tower built?", "context": "It was built in 1889.",
                                "answer": "It was built in 1889.", "gold_spans": [[0, 5]]}) + "\n"
                    + json.dumps({"id": "noq", "context": "x", "answer": "y"}) + "\n")
    result = run(str(data), "-o", str(tmp_path / "o"))
    assert result.exit_code == 1
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["questions"] == 1 and summary["errors"] == 1 and summary["gold"]["answers"] == 1
    assert "question" in summary["errors_list"][0]


def _generic(req):
    name = schema_name(req)
    if name == "FacetsReply":
        return {"reasoning": "one step", "facets": [question_of(req)]}
    if name == "AnswerReply":
        return {"answer": "It is stated in the sources.", "answerable": "(Strict RAG)" not in req.system}
    if name == "SentenceClaimsReply":
        sentence = re.findall(r"<<<\n(.*?)\n>>>", req.user, re.DOTALL)[-1]
        return {"claims": [sentence]}
    if name == "VerdictReply":
        return {"reasoning": "-", "evidence": [], "verdict": "baseless", "reason": "not stated"}
    raise AssertionError(f"unexpected request {name}")


def test_base_url_runs_the_three_modes(serve, tmp_path):
    server = serve(_generic)
    result = run(str(EXAMPLES), "-o", str(tmp_path), "-q", "--base-url", server.base_url, "--model", "fake-model",
                 "--no-cache", "--limit", "2")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["generation"] is True and summary["questions"] == 2
    d = json.loads((tmp_path / "json" / "born-first.json").read_text())
    assert d["decomposer"] == "llm" and d["judge"] == "llm" and d["generation"] is True
    (facet,) = d["facets"]
    assert set(facet["generation"]["answers"]) == {"strict", "soft", "llm_only"}
    assert facet["generation"]["answers"]["strict"]["abstained"] is True
    assert facet["category"] == "evidence_failure"  # the judge supports nothing
    assert d["usage"]["calls"] > 0
    systems = [r.system for r in server.requests if schema_name(r) == "AnswerReply"]
    for mode in ("(Strict RAG)", "(Soft RAG)", "(LLM-only)"):
        assert sum(mode in s for s in systems) == 2  # one facet per question, two questions


def test_endpoint_configuration_error_exits_2(serve, tmp_path):
    from rt4chart.testing.openai_server import Reply

    server = serve(lambda req: Reply.error(401, "invalid api key"))
    result = run(str(EXAMPLES), "-o", str(tmp_path), "--base-url", server.base_url, "--model", "m", "--no-cache")
    assert result.exit_code == 2
    assert "401" in result.output


@pytest.mark.slow
def test_ragtruth_dataset_route(tmp_path):
    from rt4chart.errors import InputError
    from rt4chart.eval.datasets import load_ragtruth

    try:
        load_ragtruth("test", "qa")
    except InputError:
        pytest.skip("RAGTruth data not found")
    result = run("--dataset", "ragtruth", "--task", "qa", "--limit", "3", "-o", str(tmp_path), "-q")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["questions"] == 3 and summary["gold"]["answers"] == 3


def test_without_minilm_the_summary_says_relevance_is_bm25_only(tmp_path, monkeypatch):
    import rt4chart.text.embed as embed

    monkeypatch.setattr(embed, "encoder_available", lambda: False)
    result = run(str(EXAMPLES), "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "summary.json").read_text())["relevance_method"] == "bm25"
    assert "BM25 only" in result.output
