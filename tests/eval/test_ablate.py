"""``rt4chart eval ablate`` (``rt4chart.eval.studies.ablate``): grid and variant parsing, the settings planned,
pairing (every setting scored on the same records with the same resamples), resume after a kill, and ``--estimate``;
on a hand-written RAGTruth folder whose contexts are long enough for W and O to matter."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from rt4chart.cli import main
from rt4chart.errors import ConfigError
from rt4chart.eval.studies.ablate import DEFAULT, Setting, parse_grid, parse_variants, plan
from rt4chart.judges.runtime import model_dir

FACTS = ["The museum opened in {y}.", "It has {f} floors.", "The cafe sits on the roof.",
         "Entry is free on Sundays.", "The curator is Ada Lind.", "A garden lies behind it."]


def _row(rid: str, task_type: str, context: str, output: str, spans: list[tuple[int, int, str]]) -> dict:
    labels = [{"start": s, "end": e, "text": output[s:e], "label_type": t} for s, e, t in spans]
    return {"id": rid, "query": "what is said?", "context": context, "output": output, "task_type": task_type,
            "quality": "good", "model": "m", "temperature": 0.7, "hallucination_labels": json.dumps(labels),
            "dataset": "test"}


@pytest.fixture()
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Three sources per task, QA and Summary (six-sentence contexts), four answers each: faithful, baseless,
    contradicted, and one that joins facts from three sentences (a window of one sentence splits them)."""
    jdir = tmp_path / "data" / "ragtruth" / "jsonl"
    jdir.mkdir(parents=True)
    n = 0
    for task_type, fname in (("QA", "qa"), ("Summary", "summary")):
        rows = []
        for src in range(3):
            y, f = 1990 + src, src + 3
            ctx = " ".join(s.format(y=y, f=f) for s in FACTS)
            answers = [
                (f"The museum opened in {y}. It has {f} floors.", []),
                (f"The museum opened in {y}. It was designed by Zaha Hadid.", [(len(f"The museum opened in {y}. "),
                                                                                 None, "Evident Baseless Info")]),
                (f"The museum opened in {y}. It has {f + 6} floors.", [(len(f"The museum opened in {y}. "), None,
                                                                        "Evident Conflict")]),
                (f"The museum that opened in {y} has {f} floors and a garden behind it.", []),
            ]
            for text, spans in answers:
                rows.append(_row(str(n), task_type, ctx, text, [(s, len(text), t) for s, _, t in spans]))
                n += 1
        with gzip.open(jdir / f"test_{fname}.jsonl.gz", "wt", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in rows)
    with gzip.open(jdir / "test_data2txt.jsonl.gz", "wt", encoding="utf-8"):
        pass  # the loader reads all three task files; this split has no Data2txt answer
    monkeypatch.setenv("RT4CHART_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RT4CHART_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return tmp_path / "data"


# ---------------------------------------------------------------------------------------------------------------
# Parsing and planning


def test_parse_grid() -> None:
    assert parse_grid("W=5,10,25,50;O=0,5,10") == {"W": (5, 10, 25, 50), "O": (0, 5, 10)}
    assert parse_grid(" w = 3 ; global=on,OFF ") == {"W": (3,), "global": (True, False)}
    assert parse_grid("O=5,5") == {"O": (5,)}
    for bad, message in (("X=1", "unknown key 'X'"), ("W=5;W=6", "W is given twice"), ("W=", "not KEY=V1"),
                         ("W=five", "'five' is not a whole number >= 1"), ("W=0", "'0' is not a whole number >= 1"),
                         ("O=-1", "'-1' is not a whole number >= 0"), ("global=maybe", "'maybe' is not on or off"),
                         ("W 5", "not KEY=V1"), ("", "--grid is empty"), (";", "--grid is empty")):
        with pytest.raises(ConfigError, match=message):
            parse_grid(bad)


def test_parse_variants() -> None:
    assert parse_variants("no-global, prefilter,no-global") == ("no-global", "prefilter")
    assert parse_variants("none") == () and parse_variants("") == ()
    with pytest.raises(ConfigError, match="unknown variant 'global'"):
        parse_variants("no-global,global")


def test_plan_skips_overlaps_not_smaller_than_the_window_and_llm_only_variants() -> None:
    settings, skipped = plan(parse_grid("W=5,10,25;O=5,10"), ("no-global", "holistic", "batched", "prefilter"),
                             judge="lexical")
    names = [s.name for s in settings]
    assert names == ["default", "W10-O5", "W25-O5", "no-global", "prefilter"]  # (25, 10) is the default: once
    assert settings[0] == DEFAULT and settings[1] == Setting("W10-O5", window=10, overlap=5)
    reasons = dict(skipped)
    assert reasons["W5-O5"].startswith("O=5 >= W=5") and reasons["W10-O10"].startswith("O=10 >= W=10")
    assert reasons["holistic"] == "needs the LLM decomposer; the lexical judge reads claims from the rule decomposer"
    assert reasons["batched"] == "batches the LLM judge's calls; the lexical judge makes none"
    llm, llm_skipped = plan(parse_grid("W=25;O=10;global=on,off"), ("no-global", "holistic", "batched"), judge="llm")
    assert [s.name for s in llm] == ["default", "no-global", "holistic", "batched"] and not llm_skipped
    assert llm[2].auditor_options()["decomposition"] == "holistic"
    assert llm[3].auditor_options()["granularity"] == "batched"
    with pytest.raises(ConfigError, match="every W/O pair has O >= W"):
        plan(parse_grid("W=5;O=5,10"), (), judge="lexical")


def test_cli_usage_errors(data_dir: Path, tmp_path: Path) -> None:
    base = ["eval", "ablate", "--judge", "lexical", "-o", str(tmp_path / "a"), "-q"]
    for extra, message in ((["--grid", "W=5;Z=1"], "unknown key 'Z'"), (["--variants", "holistic,fast"],
                           "unknown variant 'fast'"), (["--grid", "W=5;O=5"], "every W/O pair has O >= W"),
                           (["--tokenizer", "x.json"], "configure --estimate")):
        res = CliRunner().invoke(main, base + extra)
        assert res.exit_code == 2 and message in res.output, res.output
    assert not (tmp_path / "a").exists()
    res = CliRunner().invoke(main, base + ["--estimate"])
    assert res.exit_code == 2 and "the lexical judge calls no model" in res.output


# ---------------------------------------------------------------------------------------------------------------
# Runs


def _ablate(out: Path, *extra: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["eval", "ablate", "--judge", "lexical", "--grid", "W=1,2;O=0,1;global=on,off",
                                    "--variants", "no-global,prefilter,batched", "--bootstrap", "50", "-o", str(out),
                                    *extra])
    return res.exit_code, res.output


def test_every_setting_is_scored_on_the_same_records_with_paired_deltas(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "ab"
    code, output = _ablate(out)
    assert code == 0, output
    report = json.loads((out / "metrics.json").read_text())
    names = list(report["systems"])
    assert names == ["default", "W1-O0", "W1-O0 no-global", "W2-O0", "W2-O0 no-global", "W2-O1", "W2-O1 no-global",
                     "no-global", "prefilter"]
    assert {"setting": "W1-O1", "reason": "O=1 >= W=1: chunks must overlap by less than their size"} in \
        report["skipped"]
    assert any(s["setting"] == "batched" for s in report["skipped"])
    assert report["paired"] == {"reference": "default", "records": 24, "scored": 24, "left_out": 0,
                                "left_out_ids": []}
    for name in names:
        sys_ = report["systems"][name]
        assert sys_["answer"]["overall"]["n"] == 24
        assert (name == "default") == ("deltas" not in sys_)
        assert sys_["usage"]["answers"] == 24 and sys_["usage"]["calls_per_answer"] == 0.0
        assert sys_["usage"]["wall_seconds_per_answer"] > 0
        results = (out / name.replace(" ", "_") / "results.jsonl").read_text().splitlines()
        assert [json.loads(line)["config"]["window"] for line in results] == [sys_["setting"]["window"]] * 24
    d = report["systems"]["W1-O0 no-global"]["deltas"]["overall"]["answer_f1"]
    assert d[0] == pytest.approx(report["systems"]["W1-O0 no-global"]["answer"]["overall"]["f1"]
                                 - report["systems"]["default"]["answer"]["overall"]["f1"])
    # what the lexical judge does with these settings, measured: with global verification on it judges each claim
    # against the whole context and reads no local label or hint, so W, O and the prefilter change nothing; with it
    # off, a window of one sentence cannot see the two facts that the fourth answer of each source joins
    same = {n: report["systems"][n]["same_as_reference"] for n in names}
    assert same["W1-O0"] == same["W2-O1"] == same["prefilter"] == same["no-global"] == 1.0
    assert same["W1-O0 no-global"] < 1.0
    table = (out / "table.md").read_text()
    assert "| W1-O0 no-global | 1 | 0 | off |" in table and "skipped batched: batches the LLM judge's calls" in table
    assert output.count("| default |") == 1


def test_a_record_missing_from_one_setting_leaves_every_setting(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "ab"
    assert _ablate(out, "-q")[0] == 0
    results = out / "W2-O1" / "results.jsonl"
    lines = results.read_text().splitlines()
    lost = json.loads(lines[5])
    lines[5] = json.dumps({"id": lost["id"], "index": lost["index"], "error": {"message": "judge failed",
                                                                             "kind": "backend"}})
    results.write_text("\n".join(lines) + "\n")
    code, output = _ablate(out, "-q", "--resume")
    assert code == 1, output  # a setting has a failed record
    report = json.loads((out / "metrics.json").read_text())
    assert report["paired"]["scored"] == 23 and report["paired"]["left_out_ids"] == [lost["id"]]
    assert {s["answer"]["overall"]["n"] for s in report["systems"].values()} == {23}
    assert len(report["systems"]["W2-O1"]["record_errors"]) == 1


def test_resume_checks_that_the_folder_holds_the_same_ablation(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "ab"
    assert _ablate(out, "-q")[0] == 0
    code, output = _ablate(out, "-q")
    assert code == 2 and "--resume" in output
    res = CliRunner().invoke(main, ["eval", "ablate", "--judge", "lexical", "--grid", "W=3;O=1", "-o", str(out),
                                    "-q", "--resume"])
    assert res.exit_code == 2 and "holds another ablation (settings" in res.output


DRIVER = '''
import asyncio, os
import rt4chart.judges.registry as registry
from rt4chart.judges.lexical import LexicalJudge

class Slow(LexicalJudge):
    async def judge(self, claims, evidence, **kw):
        await asyncio.sleep(float(os.environ["SLOW_DELAY"]))
        return await super().judge(claims, evidence, **kw)

registry.make_judge = lambda name="auto", **options: (Slow(), None)
from rt4chart.cli import main
main(prog_name="rt4chart")
'''


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_a_killed_ablation_resumes_without_losing_or_repeating_a_row(data_dir: Path, tmp_path: Path) -> None:
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    args = ["eval", "ablate", "--judge", "lexical", "--grid", "W=2;O=0,1", "--variants", "no-global",
            "--bootstrap", "50", "--concurrency", "2", "-q"]
    env = {**os.environ, "SLOW_DELAY": "0.05"}
    out = tmp_path / "killed"
    log = tmp_path / "killed.log"
    with log.open("wb") as err:
        proc = subprocess.Popen([sys.executable, str(driver), *args, "-o", str(out)], env=env,
                                stdout=subprocess.DEVNULL, stderr=err)
        second = out / "W2-O1" / "results.jsonl"  # the third setting: default, W2-O0, W2-O1, no-global
        deadline = time.monotonic() + 300  # a loaded machine starts Python slowly
        while time.monotonic() < deadline and proc.poll() is None and _lines(second) < 5:
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert 5 <= _lines(second) < 24, f"the kill should land inside the third setting; log: {log.read_text()[-2000:]}"
    assert not (out / "no-global" / "results.jsonl").exists() and not (out / "metrics.json").exists()
    with second.open("ab") as fh:
        fh.write(b'{"id": "torn", "lab')  # a torn write on top

    res = subprocess.run([sys.executable, str(driver), *args, "-o", str(out), "--resume"], env=env,
                         capture_output=True, timeout=300)
    assert res.returncode == 0, res.stderr.decode()[-2000:]
    fresh = tmp_path / "fresh"
    res = subprocess.run([sys.executable, str(driver), *args, "-o", str(fresh)], env=env, capture_output=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr.decode()[-2000:]
    for folder in ("default", "W2-O0", "W2-O1", "no-global"):
        rows = [json.loads(line) for line in (out / folder / "results.jsonl").read_text().splitlines()]
        assert [r["index"] for r in rows] == list(range(24)), folder  # every record once, in order
        again = [json.loads(line) for line in (fresh / folder / "results.jsonl").read_text().splitlines()]
        assert [(r["id"], r["label"], r["spans"]) for r in rows] == [(r["id"], r["label"], r["spans"]) for r in again]
    killed, clean = (json.loads((d / "metrics.json").read_text()) for d in (out, fresh))
    for name in clean["systems"]:
        for kind in ("answer", "span", "ranking", "deltas"):
            assert killed["systems"][name].get(kind) == clean["systems"][name].get(kind), (name, kind)


def test_estimate_of_every_setting_without_a_model(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "est"
    res = CliRunner().invoke(main, ["eval", "ablate", "--judge", "llm", "--model", "gpt-4o-mini", "--estimate",
                                    "--tokenizer", str(model_dir() / "local_tagger_tokenizer.json"), "--grid",
                                    "W=2;O=0,1", "-o", str(out)])
    assert res.exit_code == 0, res.output
    est = json.loads((out / "estimate.json").read_text())
    settings = est["settings"]
    assert list(settings) == ["default", "W2-O0", "W2-O1", "no-global", "holistic", "batched", "prefilter"]
    assert not (out / "ablation.json").exists()  # nothing was audited
    calls = {name: s["calls"] for name, s in settings.items()}
    assert calls["batched"] < calls["default"] and calls["holistic"] < calls["default"]
    assert calls["no-global"] < calls["default"] and calls["W2-O1"] > calls["W2-O0"] > calls["default"]
    assert settings["default"]["by_prompt"]["local"]["calls"] == settings["default"]["by_prompt"]["decompose_sentence"][
        "calls"] * 1  # six-sentence contexts are one 25-sentence chunk; one claim per answer sentence here
    assert all(s["cost_usd"] > 0 for s in settings.values())
    assert "No model was called" in res.output and "list price for gpt-4o-mini" in res.output
