"""``rt4chart triage``: routing through the CLI (default and explicit subcommand)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from rt4chart.cli import triage as gate_cli


def _write(tmp_path, records):
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


CTX = "The trial lasts 14 days."
RECORDS = [
    {"id": "copy", "context": CTX, "question": "How long?", "answer": "The trial lasts 14 days."},
    {"id": "half", "context": CTX, "question": "How long?", "answer": "The trial lasts 30 days."},
    {"id": "made", "context": CTX, "question": "How long?",
     "answer": "Premium members get unlimited rocket rides in Paris."},
    {"id": "same", "context": CTX, "answer": "Trial lasts 14 days."},
]


def test_triage_input_routes_with_the_default_gate(tmp_path):
    path = _write(tmp_path, RECORDS)
    res = CliRunner().invoke(gate_cli.triage_group, [str(path), "--review", "0.25", "--accept", "0.5"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["copy", "half", "made", "same"]
    routes = {r["id"]: r["route"] for r in rows}
    assert routes["made"] == "review"
    assert sorted(routes.values()) == ["accept", "accept", "review", "verify"]
    assert all(0.0 <= r["risk"] <= 1.0 for r in rows)


def test_triage_route_subcommand_writes_a_file_and_never_accepts_invalid_records(tmp_path):
    path = _write(tmp_path, RECORDS + [{"id": "broken", "answer": "no context here"}])
    out = tmp_path / "routes.jsonl"
    res = CliRunner().invoke(gate_cli.triage_group,
                             ["route", str(path), "--accept", "1.0", "--gate", "z", "-o", str(out)])
    assert res.exit_code == 1
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    broken = rows["broken"]
    assert broken["route"] == "verify" and broken["risk"] is None and "context" in broken["error"]
    assert {rows[k]["route"] for k in ("copy", "half", "made", "same")} == {"accept"}
    assert rows["copy"]["risk"] == 0.0 and rows["made"]["risk"] == 1.0


def test_triage_names_a_row_with_an_unreadable_id_by_position_and_refuses_a_repeated_id(tmp_path):
    path = tmp_path / "in.jsonl"
    lines = [json.dumps(RECORDS[0]).encode(), b'{"id": "bad\xff", "context": "The trial lasts 14 days."}',
             json.dumps({**RECORDS[1], "id": "copy"}).encode(), json.dumps(RECORDS[2]).encode()]
    path.write_bytes(b"\n".join(lines) + b"\n")  # the second row's id is not valid UTF-8 (it crashed the writer)
    out = tmp_path / "routes.jsonl"
    res = CliRunner().invoke(gate_cli.triage_group, ["route", str(path), "--accept", "1.0", "-o", str(out)])
    assert res.exit_code == 1, res.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["copy", "#1", "copy", "made"]
    assert "not valid UTF-8" in rows[1]["error"] and "duplicate id" in rows[2]["error"]
    assert [r["route"] for r in rows] == ["accept", "verify", "verify", "accept"]


def test_triage_refuses_to_write_its_results_over_its_input(tmp_path):
    path = _write(tmp_path, RECORDS)
    before = path.read_text()
    res = CliRunner().invoke(gate_cli.triage_group, ["route", str(path), "--gate", "z", "-o", str(path)])
    assert res.exit_code == 2 and "would overwrite it" in res.output
    assert path.read_text() == before


def test_triage_reads_records_whose_fields_have_other_names(tmp_path):
    names = {"id": "doc_id", "context": "passage", "question": "query", "answer": "response"}
    renamed = _write(tmp_path, [{names[k]: v for k, v in r.items()} for r in RECORDS])
    options = [opt for k, v in names.items() for opt in (f"--{k}-field", v)]
    (tmp_path / "std").mkdir()
    standard = CliRunner().invoke(gate_cli.triage_group, [str(_write(tmp_path / "std", RECORDS)), "--accept", "0.5"])
    res = CliRunner().invoke(gate_cli.triage_group, [str(renamed), "--accept", "0.5", *options])
    assert res.exit_code == 0, res.output
    assert res.stdout == standard.stdout  # the same ids, risks and routes
    # without the options, every record lacks its context: sent to verify, named by the id field it does have
    res = CliRunner().invoke(gate_cli.triage_group, [str(renamed), "--accept", "0.5", "--id-field", "doc_id"])
    assert res.exit_code == 1
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["copy", "half", "made", "same"]
    assert all(r["route"] == "verify" and r["risk"] is None and "context" in r["error"] for r in rows)
