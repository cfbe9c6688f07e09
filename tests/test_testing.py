"""The pytest plugin (``rt4chart.testing``): ``assert_grounded`` with its claim table, ``--rt4chart-judge`` and the
``rt4chart_auditor`` fixture, run through pytester (issue 28, acceptance 4)."""

from __future__ import annotations

import asyncio
import importlib.metadata
from pathlib import Path

import pytest

from rt4chart import Auditor, ConfigError
from rt4chart.judges.lexical import LexicalJudge
from rt4chart.judges.registry import build_auditor
from rt4chart.testing import assert_grounded, claim_table, risk

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
CONTEXT = "The free trial lasts 14 days from the date of activation. Support is available by email."
GOOD = "The free trial lasts 14 days."
BAD = "The free trial lasts 30 days. Support is available by phone and fax."

SAMPLE = f'''
from rt4chart.testing import assert_grounded

CONTEXT = {CONTEXT!r}


def test_grounded_answer():
    assert_grounded({GOOD!r}, CONTEXT, question="How long is the trial?")


def test_hallucinated_answer():
    assert_grounded({BAD!r}, CONTEXT, question="How long is the trial?")


def test_the_fixture_is_the_session_auditor(rt4chart_auditor, pytestconfig):
    assert rt4chart_auditor.judge.name == pytestconfig.getoption("rt4chart_judge")
    assert_grounded({GOOD!r}, CONTEXT, judge=rt4chart_auditor)
'''


def _plugin_args() -> list[str]:
    """``-p rt4chart.testing`` unless the installed package already registers the plugin (loading it twice is an
    error): an editable install made before the entry point existed does not. The inner session runs without
    pytest-asyncio (unconfigured there, it warns, and this session's warnings are errors) and without a cache."""
    registered = any(ep.value == "rt4chart.testing" for ep in importlib.metadata.entry_points(group="pytest11"))
    return ([] if registered else ["-p", "rt4chart.testing"]) + ["-p", "no:asyncio", "-p", "no:cacheprovider"]


def test_the_entry_point_is_declared():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["pytest11"] == {"rt4chart": "rt4chart.testing"}


def test_sample_file_with_a_passing_and_a_failing_assertion(pytester):
    pytester.makepyfile(test_sample=SAMPLE)
    # the lexical judge named (the default is the local judge: tests/test_newcomer_defaults.py), for its exact table
    result = pytester.runpytest(*_plugin_args(), "--rt4chart-judge", "lexical")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*test_hallucinated_answer*",
        "*AssertionError: answer not grounded (contradicted, judge lexical): 2 of 2 claims not entailed*",
        "*#  label*claim*evidence / reason*",
        "*1  contradicted  The free trial lasts 30 days.  *\u201cThe free trial lasts 14 days from the date of act*",
        "*2  baseless*Support is available by phone and fax.*",
    ])
    assert "test_grounded_answer" not in "\n".join(line for line in result.outlines if "FAILED" in line)
    assert not any("def assert_grounded" in line for line in result.outlines)  # the helper's frame is hidden


def test_the_judge_option_reaches_the_fixture_and_assert_grounded(pytester):
    pytester.makepyfile(test_sample=SAMPLE)
    result = pytester.runpytest(*_plugin_args(), "--rt4chart-judge", "local")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*answer not grounded (*, judge local)*"])
    bad = pytester.runpytest(*_plugin_args(), "--rt4chart-judge", "nonsense")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--rt4chart-judge*invalid choice*"])


def test_assert_grounded_returns_the_result_and_raises_with_a_claim_table():
    result = assert_grounded(GOOD, CONTEXT, judge="lexical")
    assert result.label.value == "entailed" and risk(result) == 0.0
    with pytest.raises(AssertionError) as err:
        assert_grounded(BAD, CONTEXT, judge="lexical")
    assert str(err.value).splitlines()[1:] == claim_table(build_auditor_result(BAD)).splitlines()
    relaxed = assert_grounded(BAD + " The trial lasts 14 days.", CONTEXT, judge="lexical", max_risk=0.7)
    assert risk(relaxed) == pytest.approx(2 / 3)
    with pytest.raises(AssertionError, match="no claim to check"):
        assert_grounded("...", CONTEXT, judge="lexical", max_risk=1.0)
    with pytest.raises(ConfigError, match="max_risk"):
        assert_grounded(GOOD, CONTEXT, max_risk=1.5)


def build_auditor_result(answer: str):
    return asyncio.run(build_auditor("lexical").audit({"id": 1, "context": CONTEXT, "answer": answer}))


def test_judge_as_an_object_an_auditor_or_a_list_context():
    assert assert_grounded(GOOD, [CONTEXT, "Other passage."], judge=LexicalJudge()).judge == "lexical"
    auditor = Auditor(judge=LexicalJudge())
    assert assert_grounded(GOOD, CONTEXT, judge=auditor).label.value == "entailed"


async def test_assert_grounded_inside_an_async_test():
    assert assert_grounded(GOOD, CONTEXT, judge="lexical").label.value == "entailed"


def test_doctests():
    import doctest

    import rt4chart.testing

    failures, tried = doctest.testmod(rt4chart.testing)
    assert tried > 0 and failures == 0
