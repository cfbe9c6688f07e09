"""The Ray engine on a real local cluster (``ray.init`` in this process): the same rows as the local engine, error
rows included, exactly one row per input row when a worker dies, ``--resume`` of a JSONL file and of a Parquet
folder, and one LLM rate limit for all workers."""

from __future__ import annotations

import functools
import json
import os
import time

import pytest
from click.testing import CliRunner
from ray_helpers import KillOnceJudge, local_lines, ragtruth_records, read_lines, untimed, write_jsonl

pytest.importorskip("ray.data", reason="the Ray engine needs pip install 'rt4chart[ray]'")
import ray  # noqa: E402
pq = pytest.importorskip("pyarrow.parquet")

from rt4chart.cli import main  # noqa: E402
from rt4chart.ray import audit_dataset, audit_files, read_records  # noqa: E402

pytestmark = pytest.mark.usefixtures("ray_local")

BAD_ROWS = [
    {"id": "a", "context": "The free trial lasts 14 days.", "answer": "The free trial lasts 30 days."},
    "{not json",
    {"id": "b", "context": ["Paris is in France.", "Rome is in Italy."], "answer": "Rome is in Italy."},
    {"id": "c", "context": "Rome is in Italy."},
    [1, 2],
    {"context": "No id here.", "answer": "No id."},
    {"id": "d", "context": "", "answer": "Empty context."},
    {"id": "e", "context": "Rome is in Italy.", "question": 5, "answer": "Rome is in Italy."},
    {"id": "a", "context": "Rome is in Italy.", "answer": "A repeated id, in another batch."},
    {"id": 7, "context": "Oslo is in Norway.", "answer": "Oslo is in Sweden."},
]


def test_ray_rows_equal_the_local_engine_on_200_ragtruth_answers_lexical(tmp_path, ragtruth_available):
    src = write_jsonl(tmp_path / "in.jsonl", ragtruth_records(200))
    local = local_lines(src, tmp_path / "local.jsonl")
    summary = audit_files(str(src), str(tmp_path / "ray.jsonl"), judge="lexical", workers=2)
    assert read_lines(tmp_path / "ray.jsonl") == local
    assert (summary.records, summary.ok, summary.errors) == (200, 200, 0)
    assert len({line["id"] for line in local}) == 200 and any(line["hallucinated"] for line in local)


@pytest.mark.slow
def test_ray_rows_equal_the_local_engine_on_200_ragtruth_answers_default_judge(tmp_path, ragtruth_available):
    # `auto` resolves to the trained local judge offline; each worker runs its tagger on one thread, the local
    # engine on its default pool: the verdicts do not depend on it
    src = write_jsonl(tmp_path / "in.jsonl", ragtruth_records(200))
    local = local_lines(src, tmp_path / "local.jsonl", judge="auto")
    audit_files(str(src), str(tmp_path / "ray.jsonl"), judge="auto", workers=2)
    assert read_lines(tmp_path / "ray.jsonl") == local
    assert {line["judge"] for line in local} == {"local"}


def test_bad_rows_are_the_local_engines_error_rows(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", BAD_ROWS)
    local = local_lines(src, tmp_path / "local.jsonl")
    audit_files(str(src), str(tmp_path / "ray.jsonl"), judge="lexical", workers=2, batch_size=2)
    ray_rows = read_lines(tmp_path / "ray.jsonl")
    assert ray_rows == local
    errors = {line["index"]: line["error"] for line in ray_rows if "error" in line}
    assert sorted(errors) == [1, 3, 4, 5, 6, 7, 8]
    assert "line 2 is not valid JSON" in errors[1]["message"] and errors[3]["field"] == "answer"
    assert errors[8]["field"] == "id" and "duplicate id" in errors[8]["message"]  # row 0 was in another batch


def test_a_folder_of_jsonl_csv_and_parquet_files_is_numbered_in_path_order(tmp_path):
    import pyarrow as pa

    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    first = [BAD_ROWS[0], BAD_ROWS[2]]
    write_jsonl(folder / "a.jsonl", first)
    (folder / "b.csv").write_text("id,context,answer\n7,Oslo is in Norway.,Oslo is in Sweden.\n8,Oslo.,\n")
    pq.write_table(pa.Table.from_pylist([{"id": "p", "context": ["Rome is in Italy.", "Oslo."], "answer": "Oslo."}]),
                   folder / "sub" / "c.parquet")
    (folder / "_SUCCESS").write_text("")
    (folder / ".hidden.jsonl").write_text("{not json\n")
    audit_files(str(folder), str(tmp_path / "ray.jsonl"), judge="lexical", workers=2, batch_size=1)
    ray_rows = read_lines(tmp_path / "ray.jsonl")
    expected = []
    for name in ("a.jsonl", "b.csv", "sub/c.parquet"):
        for line in local_lines(folder / name, tmp_path / "local.jsonl"):
            expected.append({**line, "index": len(expected)})
    assert ray_rows == expected
    assert [r["id"] for r in ray_rows] == ["a", "b", "7", "8", "p"]  # CSV ids stay strings, as locally
    assert ray_rows[3]["error"]["field"] == "answer"


def test_a_dataset_of_records_with_other_column_names(tmp_path):
    from rt4chart.io import FieldMap

    rows = [{"qid": 1, "passage": "The free trial lasts 14 days.", "reply": "The free trial lasts 30 days."},
            {"qid": 2, "passage": "Rome is in Italy.", "reply": None},
            {"qid": 3, "passage": "Oslo is in Norway.", "reply": "Oslo is in Norway."},
            {"qid": 1, "passage": "Oslo is in Norway.", "reply": "Oslo is in Sweden."}]

    local = local_lines(write_jsonl(tmp_path / "in.jsonl", rows), tmp_path / "local.jsonl",
                        fields=FieldMap(id="qid", context="passage", answer="reply"))
    out = audit_dataset(ray.data.from_items(rows), "lexical", id="qid", context="passage", answer="reply", workers=2)
    got = out.take_all()
    assert [r["index"] for r in got] == list(range(len(rows)))
    assert [untimed(json.loads(r["result"])) for r in got] == local
    assert [r["label"] for r in got] == [line.get("label") for line in local]
    assert [r["error_field"] for r in got] == [None, "reply", None, "qid"]
    assert [r["label"] for r in got] == ["contradicted", None, "entailed", None]


def test_a_worker_killed_mid_batch_loses_and_repeats_nothing(tmp_path, ragtruth_available):
    src = write_jsonl(tmp_path / "in.jsonl", ragtruth_records(40))
    local = local_lines(src, tmp_path / "local.jsonl")
    marker = tmp_path / "killed"
    judge = functools.partial(KillOnceJudge, str(marker))  # each worker makes its own judge
    out = audit_dataset(read_records(str(src), rows_per_block=4), judge, workers=2, batch_size=4)
    rows = out.take_all()
    assert marker.exists(), "no worker was killed"
    pid = int(marker.read_text())
    assert pid != os.getpid()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert [r["index"] for r in rows] == list(range(40))
    # a Judge object carries no judge fingerprint (only a named judge's settings are known): all else is the same
    without_fingerprint = [{**line, "config": {k: v for k, v in line["config"].items() if k != "judge_fingerprint"}}
                 for line in local]
    assert all("judge_fingerprint" in line["config"] for line in local)
    assert [untimed(json.loads(r["result"])) for r in rows] == without_fingerprint


def test_resume_a_killed_jsonl_run_appends_exactly_the_missing_rows(tmp_path, ragtruth_available):
    src = write_jsonl(tmp_path / "in.jsonl", [*ragtruth_records(30), *BAD_ROWS[1:5]])
    full = local_lines(src, tmp_path / "local.jsonl")
    out = tmp_path / "ray.jsonl"
    audit_files(str(src), str(out), judge="lexical", workers=2)
    kept = out.read_text().splitlines()[:12]
    out.write_text("".join(x + "\n" for x in kept) + kept[12 - 1][:40])  # a prefix, then a torn line
    summary = audit_files(str(src), str(out), judge="lexical", workers=2, resume=True)
    assert read_lines(out) == full
    assert (summary.skipped, summary.records) == (12, len(full) - 12)


def test_resume_a_parquet_folder_keeps_complete_files_and_redoes_the_rest(tmp_path, ragtruth_available):
    src = write_jsonl(tmp_path / "in.jsonl", [*ragtruth_records(20), *BAD_ROWS[1:4]])
    full = local_lines(src, tmp_path / "local.jsonl")
    folder = tmp_path / "out.parquet"
    audit_files(str(src), str(folder), judge="lexical", workers=2, rows_per_file=5)
    files = sorted(folder.glob("*.parquet"))
    assert len(files) == 5
    files[1].unlink()  # its rows were never written
    files[3].rename(str(files[3]) + ".tmp")  # a file a killed run left unfinished
    with pytest.raises(Exception, match="already holds Parquet files"):
        audit_files(str(src), str(folder), judge="lexical", workers=2)
    summary = audit_files(str(src), str(folder), judge="lexical", workers=2, resume=True, rows_per_file=5)
    assert summary.records == 10 and not list(folder.glob("*.tmp"))
    table = pq.read_table(folder).sort_by("index")
    assert table.column("index").to_pylist() == list(range(len(full)))
    assert [untimed(json.loads(x)) for x in table.column("result").to_pylist()] == full
    assert table.column("error_field").to_pylist()[20:] == [None, None, "answer"]
    assert "line 21 is not valid JSON" in table.column("error").to_pylist()[20]


def test_cli_engine_ray(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", BAD_ROWS)
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, ["audit", str(src), "-o", str(out), "--engine", "ray", "--workers", "2",
                                       "--judge", "lexical", "-q"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output  # some rows are bad
    assert read_lines(out) == local_lines(src, tmp_path / "local.jsonl")
    for args, message in ((["--engine", "ray"], "needs -o/--output"),
                          (["-o", str(out), "--engine", "ray", "--retry-errors"], "--engine local only"),
                          (["-o", str(out), "--workers", "2"], "need --engine ray"),
                          (["-o", str(tmp_path / "x.parquet")], "only --engine ray writes")):
        result = CliRunner().invoke(main, ["audit", str(src), *args, "--judge", "lexical", "-q"])
        assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output
    result = CliRunner().invoke(main, ["audit", str(tmp_path / "missing"), "-o", str(out), "--engine", "ray", "-q"])
    assert result.exit_code == 2 and "input not found" in " ".join(result.output.split())
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "broken.json").write_text('[{"id": 1,')  # a file no row of which can be read
    result = CliRunner().invoke(main, ["audit", str(tmp_path / "in"), "-o", str(out), "--engine", "ray",
                                       "--judge", "lexical", "-q"])
    assert result.exit_code == 2 and "broken.json: not valid JSON" in " ".join(result.output.split()), result.output


def test_cli_engine_ray_stops_on_an_llm_configuration_error(tmp_path, serve):
    from rt4chart.testing.openai_server import Reply

    server = serve(lambda req: Reply.error(401))
    src = write_jsonl(tmp_path / "in.jsonl", BAD_ROWS[:3])
    result = CliRunner().invoke(main, ["audit", str(src), "-o", str(tmp_path / "out.jsonl"), "--engine", "ray",
                                       "--judge", "llm", "--base-url", server.base_url, "--model", "m",
                                       "--no-cache", "-q"])
    assert result.exit_code == 2 and "the LLM endpoint rejected the request" in result.output, result.output


def test_one_llm_rate_limit_for_all_workers_and_the_response_cache(tmp_path, serve):
    from paper_server import RECORD, paper_judge

    arrivals: list[float] = []

    def timed(req):
        arrivals.append(time.monotonic())
        return paper_judge(req)

    server = serve(timed)
    records = [{**RECORD, "id": f"copy-{i}"} for i in range(4)]
    ds = ray.data.from_items(records)
    rpm = 300  # one request start every 0.2 s, for the whole cluster
    options = dict(base_url=server.base_url, model="fake-model", window=2, overlap=1, granularity="batched",
                   api_key="test-key")
    started = time.monotonic()
    rows = audit_dataset(ds, "llm", workers=2, batch_size=1, rpm=rpm, cache=False, **options).take_all()
    assert [r["label"] for r in rows] == ["contradicted"] * 4
    times = sorted(arrivals)
    n = len(times)
    assert n >= 16
    # with a limit per worker, two workers would make these requests in about half the time
    assert times[-1] - times[0] >= 0.8 * (n - 1) * 60 / rpm, (n, times[-1] - times[0])
    assert time.monotonic() - started >= (n - 1) * 60 / rpm
    cache = tmp_path / "cache.sqlite3"
    audit_dataset(ds, "llm", workers=2, batch_size=1, cache_path=str(cache), **options).take_all()
    calls = len(server.requests)
    again = audit_dataset(ds, "llm", workers=2, batch_size=1, cache_path=str(cache), **options).take_all()
    assert len(server.requests) == calls  # every reply came from the cache
    assert [json.loads(r["result"])["usage"]["calls"] for r in again] == [0] * 4


def test_first_hour_ray_engine_says_input_mistakes_once_for_the_whole_input(tmp_path):
    """Issue 42 item 4 with --engine ray: a missing column and an empty input are one error (exit 2), as with the
    local engine, before any row is audited."""
    out = tmp_path / "out.jsonl"
    csv = tmp_path / "answers.csv"
    csv.write_text("id,passage,response\n" + "".join(f"{i},The shop opens at 9.,It opens at 9.\n" for i in range(3)))
    result = CliRunner().invoke(main, ["audit", str(csv), "-o", str(out), "--engine", "ray", "--judge", "lexical",
                                       "-q"])
    text = " ".join(result.output.split())
    # one error of rt4chart's (a line of its own that opens with "error:"); Ray's driver may print a line of its own
    # about an earlier test's killed worker into the same stream at any time ("(raylet) ... system error: ..."),
    # which is Ray's, not rt4chart's message
    assert result.exit_code == 2 and [line.startswith("error:") for line in result.output.splitlines()].count(True) \
        == 1, result.output
    assert "the columns 'context' and 'answer' (columns found: id, passage, response)" in text
    assert "--context-field and --answer-field" in text and not out.exists()
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    result = CliRunner().invoke(main, ["audit", str(empty), "-o", str(out), "--engine", "ray", "--judge", "lexical",
                                       "-q"])
    assert result.exit_code == 2 and "holds no records" in result.output, result.output
    result = CliRunner().invoke(main, ["audit", str(empty), "-o", str(out), "--engine", "ray", "--judge", "lexical",
                                       "-q", "--allow-empty"])
    assert result.exit_code == 0 and out.read_text() == "", result.output
