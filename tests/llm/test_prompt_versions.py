"""The prompt-version namespace (``rt4chart.llm.prompt_versions``): names resolve, old spellings resolve with one
deprecation message, unknown names fail listing the known ones, ``--prompt-version`` takes both spellings, the
verdicts carry the namespaced name while the response cache keeps its template ids, and results written before
(``global_nic.v2``) still load."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import warnings
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner
from paper_server import paper_judge

from rt4chart.cli import main
from rt4chart.errors import ConfigError
from rt4chart.io import read_results
from rt4chart.llm.prompt_versions import DEFAULT_LLM, PROMPT_VERSIONS, lookup, names, record_name, resolve
from rt4chart.report._data import load_results

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "paper_example.jsonl"
PROMPTS = resources.files("rt4chart.llm").joinpath("prompts")

#: the sha256 of every template file of a frozen version: a change to one is a new version, not an edit
FROZEN = {
    "global_batched.v2.txt": "257ddba6406f56af0e3b4d7e0a1b0a12ccffbd1e061397529d1b197f36c326a1",
    "global_con.v2.txt": "df82aeac34985654e96f3f5d2834771464a886c2bfbadbb9ca2644a8e5ac0d99",
    "global_ent.v2.txt": "2e36145621679da8fd73833488a623f1aab602f70de9527dc1007cbdeae54314",
    "global_nic.v2.txt": "c6aeb58ebb749c30216a8617432c31f998b05f4b7922bf8cad9d0a319448676d",
    "local.v2.txt": "93faf4cccbf87003e619517c0fc5879bad8ca1988be57a5db74356245c4da814",
    "local_batched.v2.txt": "b01de5a6a52a48f9e94b57ced1a3ce874bcd90aef5e74b9883e78b3ba0594146",
    "hybrid_supports.v4.txt": "1497b67ed10c875c08b7327cd21b913e1bf2fef735ea57b3c7b1e55938a356d6",
}


def test_the_registry_names_each_version_once_with_its_judge_and_templates():
    assert names() == ["llm@v2", "llm@v3", "hybrid@v4"] and names("llm") == ["llm@v2", "llm@v3"]
    assert DEFAULT_LLM == "llm@v2" and PROMPT_VERSIONS["llm@v2"].frozen and not PROMPT_VERSIONS["llm@v3"].frozen
    for name, version in PROMPT_VERSIONS.items():
        assert name == f"{version.judge}@{version.stable_id}"
        for template in version.templates:  # every template a version's verdicts name is shipped
            assert PROMPTS.joinpath(f"{template}.{version.stable_id}.txt").is_file()
        assert lookup(name) == (version, None)


def test_a_frozen_versions_templates_are_unchanged():
    frozen = {f"{t}.{v.stable_id}.txt" for v in PROMPT_VERSIONS.values() if v.frozen for t in v.templates}
    assert frozen == set(FROZEN)
    assert {f: hashlib.sha256(PROMPTS.joinpath(f).read_bytes()).hexdigest() for f in frozen} == FROZEN


@pytest.mark.parametrize("old, new", [("v2", "llm@v2"), ("v3", "llm@v3"), ("hybrid_supports.v4", "hybrid@v4")])
def test_an_old_spelling_resolves_with_a_deprecation_message_naming_the_new_one(old, new):
    version, message = lookup(old)
    assert version.name == new and f"'{old}' is now spelled '{new}'" in message
    with pytest.warns(DeprecationWarning, match=f"now spelled '{new}'") as caught:
        assert resolve(old) is PROMPT_VERSIONS[new]
    assert len(caught) == 1 and caught[0].filename == __file__  # pointed at the caller
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert resolve(new) is PROMPT_VERSIONS[new]  # the new name is silent


def test_an_unknown_name_or_another_judges_fails_listing_the_known_names():
    with pytest.raises(ConfigError, match=r"unknown prompt version 'v9': known versions are llm@v2, llm@v3, "
                                          r"hybrid@v4 \(old spellings: v2, v3, hybrid_supports.v4\)"):
        lookup("v9")
    with pytest.raises(ConfigError, match="known versions are llm@v2, llm@v3 "):
        lookup("llm@v9", judge="llm")
    with pytest.raises(ConfigError, match="hybrid@v4 is the hybrid judge's; the llm judge's are llm@v2, llm@v3"):
        lookup("hybrid@v4", judge="llm")


def test_old_record_names_read_in_the_new_spelling():
    assert record_name("global_nic.v2") == "llm@v2/global_nic"
    assert record_name("local_batched.v3") == "llm@v3/local_batched"
    assert record_name("hybrid_supports.v4") == "hybrid@v4/hybrid_supports"
    for kept in ("llm@v2/local", None, "", "decompose_sentence.v2", "local.v9", "trees@3+tagger@1"):
        assert record_name(kept) == kept


def _audit(server, tmp_path, name, *extra):
    args = ["audit", str(EXAMPLE), "--judge", "llm", "--base-url", server.base_url, "--model", "fake-model",
            "-W", "2", "-O", "1", "--decomposition", "sentence", "-q", "-o", str(tmp_path / name), *extra]
    return CliRunner().invoke(main, args)


def test_prompt_version_takes_the_name_and_the_old_spelling_and_records_carry_the_name(serve, tmp_path,
                                                                                       monkeypatch):
    server = serve(paper_judge)
    monkeypatch.setenv("RT4CHART_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    new = _audit(server, tmp_path, "new.jsonl", "--prompt-version", "llm@v2")
    assert new.exit_code == 0, new.output
    assert "deprecated" not in new.output
    calls = len(server.requests)
    (rec,) = [json.loads(line) for line in (tmp_path / "new.jsonl").read_text().splitlines()]
    assert [c["prompt_version"] for c in rec["claims"]] == [
        "llm@v2/global_con", "llm@v2/global_con", "llm@v2/global_ent", "llm@v2/global_nic", "llm@v2/global_nic"]

    old = _audit(server, tmp_path, "old.jsonl", "--prompt-version", "v2")
    assert old.exit_code == 0, old.output
    notes = [line for line in old.output.splitlines() if line.startswith("deprecated:")]
    assert notes == ["deprecated: --prompt-version v2 is the old spelling of llm@v2; pass --prompt-version llm@v2 "
                     "(the old spelling will be removed)"]
    # the same prompts under either spelling: every reply comes from the cache, whose keys keep the template ids
    assert len(server.requests) == calls
    assert (tmp_path / "old.jsonl").read_text().splitlines()[0].count("llm@v2/") == 5
    with sqlite3.connect(tmp_path / "cache" / "llm-cache.sqlite3") as db:
        cached = {row[0] for row in db.execute("SELECT DISTINCT prompt_version FROM replies")}
    assert cached and all("@" not in p and p.endswith(".v2") for p in cached)

    default = _audit(server, tmp_path, "default.jsonl")
    assert default.exit_code == 0 and len(server.requests) == calls  # llm@v2 is the default

    unknown = _audit(server, tmp_path, "x.jsonl", "--prompt-version", "v9")
    assert unknown.exit_code == 2 and "known versions are llm@v2, llm@v3" in unknown.output


def test_results_written_before_the_names_still_load(serve, tmp_path, monkeypatch):
    """A results file from before carries template ids (``global_con.v2``): the readers of ``diff``, ``report`` and
    ``--baseline`` take it as it is, and ``diff`` finds no change against the same audit under the new names."""
    server = serve(paper_judge)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert _audit(server, tmp_path, "new.jsonl", "--no-cache").exit_code == 0
    new = (tmp_path / "new.jsonl").read_text()
    old = new.replace('"llm@v2/global_con"', '"global_con.v2"').replace('"llm@v2/global_ent"', '"global_ent.v2"') \
        .replace('"llm@v2/global_nic"', '"global_nic.v2"')
    assert "llm@v2/" not in old
    (tmp_path / "old.jsonl").write_text(old)
    (line,) = read_results(tmp_path / "old.jsonl")
    assert [record_name(c.prompt_version) for c in line.result.claims] == [
        c["prompt_version"] for c in json.loads(new)["claims"]]
    assert load_results(tmp_path / "old.jsonl")[0]["id"] == line.id
    diff = CliRunner().invoke(main, ["diff", str(tmp_path / "old.jsonl"), str(tmp_path / "new.jsonl"), "--json", "-"])
    assert diff.exit_code == 0, diff.output
    report = CliRunner().invoke(main, ["report", str(tmp_path / "old.jsonl"), "-o", str(tmp_path / "r.html")])
    assert report.exit_code == 0, report.output
