"""``rt4chart.io.read_results``: a results file read back strictly, each damage named by file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rt4chart.errors import InputError
from rt4chart.io import read_results

RESULT = {"id": "r1", "label": "entailed", "hallucinated": False, "context": "Paris is in France.",
          "answer": "Paris is in France.", "judge": "lexical", "index": 0,
          "claims": [{"index": 0, "text": "Paris is in France.", "sentence_index": 0, "label": "entailed"}]}
ERROR = {"id": None, "index": 1, "error": {"field": None, "message": "line 2 is not valid JSON", "kind": "input"}}


def _file(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "run.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_results_and_error_lines_are_read_with_their_line_numbers(tmp_path):
    path = _file(tmp_path, json.dumps(RESULT), "", json.dumps(ERROR))
    first, second = read_results(path)
    assert (first.line, first.id, first.result.label.value, first.error) == (1, "r1", "entailed", None)
    assert first.data == RESULT  # the line as written, "index" included
    assert (second.line, second.id, second.result, second.error.message) == (3, None, None, ERROR["error"]["message"])


@pytest.mark.parametrize("line, field, message", [
    ('{"id": "r1", "label": ', None, "is not valid JSON"),
    ("[1, 2]", None, "must be a JSON object"),
    (json.dumps({**RESULT, "id": None}), "id", "is missing"),
    (json.dumps({**RESULT, "id": True}), "id", "must be a string or an integer"),
    (json.dumps({k: v for k, v in RESULT.items() if k != "hallucinated"}), "hallucinated", "Field required"),
    (json.dumps({**RESULT, "label": "wrong"}), "label", "Input should be"),
    (json.dumps({**RESULT, "claims": [{**RESULT["claims"][0], "label": "fine"}]}), "claims.0.label", "Input should be"),
    (json.dumps({"id": "r2", "error": {"kind": "input"}}), "error.message", "Field required"),
])
def test_a_damaged_line_is_named_by_file_line_and_field(tmp_path, line, field, message):
    path = _file(tmp_path, json.dumps(RESULT), line)
    with pytest.raises(InputError) as err:
        list(read_results(path))
    assert err.value.field == field
    assert f"{path} line 2" in str(err.value) and message in str(err.value)


def test_a_pretty_printed_json_array_is_not_a_results_file(tmp_path):
    path = _file(tmp_path, "[", json.dumps(RESULT) + ",", "]")
    with pytest.raises(InputError, match="line 1.*not valid JSON"):
        list(read_results(path))
