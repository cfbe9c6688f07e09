"""The input formats' table (``rt4chart.io.FORMATS``): detection by extension then first bytes, and a new format as
one table entry that every command's ``--format``, the input check, the Ray folder listing and the docs follow."""

import csv
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from rt4chart import InputError
from rt4chart.cli import main
from rt4chart.io.input_check import tabular
from rt4chart.io import FORMATS, InputFormat, Row, detect_format, extensions, format_names, parse_rows

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name, data, fmt", [
    ("a.jsonl", b'{"id": 1}\n', "jsonl"),
    ("a.ndjson", b'{"id": 1}\n', "jsonl"),
    ("a.json", b'[{"id": 1}]', "json"),
    ("a.json", b'{"id": 1}\n{"id": 2}\n', "jsonl"),   # JSON lines with a .json name
    ("a.jsonl", b'[{"id": 1}]', "jsonl"),             # the extension decides
    ("a.csv", b"id,context\n1,x\n", "csv"),
    ("a.parquet", b"not parquet", "parquet"),
    ("-", b"\xef\xbb\xbf  [{}]", "json"),             # stdin: a byte-order mark and blanks before the array
    ("-", b'{"id": 1}', "jsonl"),
    ("-", b"", "jsonl"),
    ("-", b"PAR1....", "parquet"),
    ("records.txt", b"id,context\n", "csv"),          # nothing else matches: the table's last
])
def test_a_files_format_is_its_extensions_then_its_first_bytes(name, data, fmt):
    assert detect_format(name, data) == fmt


def test_an_unknown_format_names_the_formats_there_are():
    with pytest.raises(InputError, match="use parquet, json, jsonl, csv"):
        list(parse_rows(b"{}", "a.jsonl", "xml"))


def _tsv(data: bytes, name: str, where: str):
    reader = csv.DictReader(io.StringIO(data.decode("utf-8"), newline=""), delimiter="\t")
    for index, item in enumerate(reader):
        yield Row(index, dict(item))


@pytest.fixture
def tsv(monkeypatch):
    """A format added the one way there is: an entry in the table."""
    table = dict(FORMATS)
    table["tsv"] = InputFormat("tsv", (".tsv", ".tab"), True, _tsv)
    monkeypatch.setattr("rt4chart.io.formats.FORMATS", table)
    monkeypatch.setattr("rt4chart.io.FORMATS", table)
    monkeypatch.setattr("rt4chart.io.input_check.FORMATS", table)
    return table["tsv"]


def test_a_new_format_is_one_table_entry(tsv, tmp_path):
    assert "tsv" in format_names() and ".tab" in extensions()
    assert detect_format("answers.tsv", b"id\tcontext") == "tsv" and tabular("answers.TSV", None)
    records = tmp_path / "answers.tsv"
    records.write_text("id\tcontext\tanswer\nr1\tThe museum opens at 9 am.\tThe museum opens at 9 am.\n"
                       "r2\tThe museum opens at 9 am.\t\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, ["audit", str(records), "-o", str(out), "--judge", "lexical", "-q"])
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert result.exit_code == 1, result.output  # the second row has no answer: an error line, the batch goes on
    assert [line["id"] for line in lines] == ["r1", "r2"] and lines[0]["label"] == "entailed"
    assert lines[1]["error"]["field"] == "answer"
    for command in (["audit"], ["triage", "route"], ["calibrate"]):
        shown = CliRunner().invoke(main, [*command, "--help"], terminal_width=200).output
        assert "tsv" in shown, command
    copied = tmp_path / "copy.tsv"
    copied.write_bytes(records.read_bytes())
    given = CliRunner().invoke(main, ["audit", str(copied), "--format", "tsv", "-o", str(tmp_path / "o2.jsonl"),
                                      "--judge", "lexical", "-q"])
    assert given.exit_code == 1 and "Invalid value" not in given.output


def test_the_docs_list_every_format_with_its_extensions():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("## Input formats", 1)[1].split("\n## ", 1)[0]
    rows = {m.group(1): re.findall(r"`(\.[a-z]+)`", m.group(2))
            for m in re.finditer(r"^\| `([a-z]+)` \| (.*?) \|", section, re.M)}
    assert rows == {name: list(fmt.extensions) for name, fmt in FORMATS.items()}


def test_a_folder_is_read_for_every_formats_files(tsv, tmp_path):
    pytest.importorskip("ray")
    from rt4chart.ray._read import list_inputs

    for name in ("a.tab", "b.jsonl", "c.txt", "_d.tsv"):
        (tmp_path / name).write_text("x", encoding="utf-8")
    assert [Path(p).name for p in list_inputs(str(tmp_path))] == ["a.tab", "b.jsonl"]
