"""A new judge is one module and one registry line (docs/design.md, "Adding a judge"): the example judge below is
that module, registered by one line, and runs end to end through ``build_auditor`` and ``rt4chart.audit``; the
command line's ``--judge`` help and the server's OpenAPI schema list the judges and their options from the
registry."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Optional

import pytest

import rt4chart
from rt4chart import ConfigError
from rt4chart.judges.registry import JUDGE_TABLE, JUDGES, JudgeEntry, build_auditor, judge_help, make_judge

# --- the example judge (docs/design.md shows these lines) ---
import re
from dataclasses import dataclass

from rt4chart.types import Judgment


@dataclass(frozen=True)
class ExampleOptions:
    """``ignore_case``: compare the claim's words with the evidence's without case."""

    ignore_case: bool = False


class ExampleJudge:
    """A claim is entailed when the evidence holds every one of its words, else baseless."""

    name = "example"

    def __init__(self, options: ExampleOptions) -> None:
        self.options = options

    def words(self, text: str) -> set[str]:
        return set(re.findall(r"\w+", text.lower() if self.options.ignore_case else text))

    async def judge(self, claims, evidence, *, question, stage, local_labels=None, hints=None):
        held = self.words(evidence)
        return [Judgment(label="entailed", evidence=(evidence,)) if self.words(c.text) <= held
                else Judgment(label="baseless") for c in claims]


def build_example(options: ExampleOptions, **_) -> tuple[ExampleJudge, None]:
    return ExampleJudge(options), None
# --- end of the example judge ---

HELP = "every word of the claim in the evidence"
REGISTRY_LINE = f'"example": JudgeEntry((ExampleOptions,), build_example, help="{HELP}"),'
DESIGN = Path(__file__).parents[2] / "docs" / "design.md"
CONTEXT = "The free trial lasts 14 days from the date of activation."


@pytest.fixture
def example(monkeypatch):
    # the one registry line (in rt4chart/judges/registry.py it is a line of the JUDGE_TABLE literal: REGISTRY_LINE)
    monkeypatch.setitem(JUDGE_TABLE, "example", JudgeEntry((ExampleOptions,), build_example, help=HELP))


def test_the_example_judge_runs_end_to_end_with_its_typed_option(example):
    aud = build_auditor("example", ignore_case=True)
    assert isinstance(aud.judge, ExampleJudge) and aud.judge.options == ExampleOptions(ignore_case=True)
    result = rt4chart.audit(CONTEXT, "The Free Trial lasts 14 days.", judge="example", ignore_case=True)
    assert [v.label for v in result.claims] == ["entailed"]
    result = rt4chart.audit(CONTEXT, "The Free Trial lasts 14 days.", judge="example")  # "Free" is not "free"
    assert [v.label for v in result.claims] == ["baseless"]
    result = rt4chart.audit(CONTEXT, "The free trial lasts 30 days.", judge="example", ignore_case=True)
    assert [v.label for v in result.claims] == ["baseless"]


def test_the_example_judge_refuses_foreign_options_and_others_refuse_its_own(example):
    with pytest.raises(ConfigError, match="--threshold configures the local judge, but the judge here is example"):
        build_auditor("example", threshold=0.3)
    with pytest.raises(ConfigError, match="ignore_case configures the example judge, but the judge here is lexical"):
        build_auditor("lexical", ignore_case=True)
    with pytest.raises(ConfigError, match="unknown judge option: ignore_cas$"):
        build_auditor("example", ignore_cas=True)
    assert build_auditor("example", threads=2).judge.name == "example"  # a resource every judge may be given


def test_without_its_registry_line_the_judge_is_unknown():
    with pytest.raises(ConfigError, match="unknown judge 'example'"):
        build_auditor("example")
    with pytest.raises(ConfigError, match="unknown judge option: ignore_case"):
        build_auditor("lexical", ignore_case=True)


def test_judge_help_lists_the_example_judge_once_registered(example):
    # the command line's --judge choices and help are taken from the table at import: shown here through judge_help
    assert f"example = {HELP} [ignore_case]" in judge_help()


def test_design_md_shows_the_example_judge_and_its_registry_line():
    source = Path(__file__).read_text()
    module = source.split("# --- the example judge (docs/design.md shows these lines) ---\n")[1]
    module = module.split("# --- end of the example judge ---")[0]
    module = module.strip()
    section = DESIGN.read_text().split("## Adding a judge")[1]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks[0].strip() == module
    assert REGISTRY_LINE in blocks[1]
    assert len([line for line in module.splitlines() if line.strip()]) <= 25  # about twenty lines of code


def test_audit_help_lists_the_judges_and_their_options_from_the_registry():
    from rt4chart.cli import main

    audit = main.commands["audit"]
    judge = next(p for p in audit.params if p.name == "judge_name")
    assert judge.type.choices == JUDGES
    flags = {p.name: max(p.opts, key=len) for p in audit.params}
    assert judge.help == judge_help(only={p.name for p in audit.params})
    for name, entry in JUDGE_TABLE.items():
        own = [flags[key] for key in entry.own_fields if key in flags]
        assert f"{name} = {entry.help}" + (f" [{', '.join(own)}]" if own else "") in judge.help
    assert {"--threshold", "--no-tagger", "--model-dir", "--floor", "--combination", "--granularity",
            "--prompt-version", "--decomposition"} <= {flags[k] for e in JUDGE_TABLE.values() for k in e.own_fields
                                                      if k in flags}


def test_the_openapi_schema_lists_the_judges_and_their_options_from_the_registry():
    pytest.importorskip("fastapi")
    from rt4chart.server import ServerSettings, create_app

    schemas = create_app(ServerSettings(judge="lexical"), auditor=object()).openapi()["components"]["schemas"]
    assert schemas["JudgeName"]["enum"] == list(JUDGES)
    judges = schemas["JudgeOptions"]["properties"]
    assert list(judges) == list(JUDGE_TABLE)
    for name, entry in JUDGE_TABLE.items():
        fields = [f.name for cls in entry.options for f in dataclasses.fields(cls)]
        assert list(judges[name]["properties"]) == fields
        assert judges[name]["description"] == entry.help


def test_a_judge_option_is_one_dataclass_field(monkeypatch):
    """One field added to a judge's option dataclass gives the option its command-line flag (with its help), its
    place in the server's schema (with its help) and its refusal by every other judge, by its flag."""
    import click
    from click.testing import CliRunner

    from rt4chart.cli._options import judge_options
    from rt4chart.options import option
    from rt4chart.server._models import judge_schemas

    @dataclass(frozen=True)
    class WiderOptions(ExampleOptions):
        min_words: Optional[int] = option(None, "example judge: claims shorter than this are left baseless", low=1)

    monkeypatch.setitem(JUDGE_TABLE, "example", JudgeEntry((WiderOptions,), build_example, help=HELP))

    @click.command()
    @judge_options
    def command(**kw):
        click.echo(repr(kw["min_words"]))

    help_text = CliRunner().invoke(command, ["--help"]).output
    assert "--min-words" in help_text and "claims shorter than this" in help_text
    assert CliRunner().invoke(command, ["--min-words", "3"]).output.strip() == "3"
    assert CliRunner().invoke(command, ["--min-words", "0"]).exit_code == 2  # its range, from the field
    prop = judge_schemas()["JudgeOptions"]["properties"]["example"]["properties"]["min_words"]
    assert prop["description"] == "example judge: claims shorter than this are left baseless"
    assert build_auditor("example", min_words=3).judge.options.min_words == 3
    for other in ("lexical", "local", "llm", "hybrid"):
        with pytest.raises(ConfigError, match=f"--min-words configures the example judge, but the judge here is "
                                              f"{other}"):
            make_judge(other, min_words=3, base_url="http://127.0.0.1:9/v1", model="m")
