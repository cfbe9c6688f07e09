"""The one factory that builds an Auditor from options (CLI, server, eval run, diagnose and rt4chart.audit)."""

import re

import pytest

from rt4chart import Auditor, ConfigError, RuleDecomposer
from rt4chart.judges.lexical import LexicalJudge
from rt4chart.judges.llm import LLMDecomposer, LLMJudge
from rt4chart.judges.judge_options import LexicalOptions
from rt4chart.judges.registry import JUDGE_TABLE, JudgeChoice, build_auditor, make_judge, option_info_of

LLM = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "cache": False}


def test_audit_options_reach_the_auditor():
    aud = build_auditor("lexical", window=5, overlap=1, global_verification=False, prefilter=True, concurrency=3)
    assert isinstance(aud, Auditor) and isinstance(aud.judge, LexicalJudge)
    assert (aud.config.window, aud.config.overlap, aud.config.global_verification, aud.config.prefilter) == (
        5, 1, False, True)
    assert aud.config.concurrency == 3 and isinstance(aud.decomposer, RuleDecomposer)


def test_defaults_are_the_papers():
    aud = build_auditor("lexical")
    assert (aud.config.window, aud.config.overlap, aud.config.global_verification, aud.config.prefilter) == (
        25, 10, True, False)
    assert aud.config.concurrency == 8


def test_llm_options_build_the_llm_judge_and_decomposer_on_one_backend():
    aud = build_auditor("llm", concurrency=3, api_key="sk-test", granularity="batched", **LLM)
    assert isinstance(aud.judge, LLMJudge) and isinstance(aud.decomposer, LLMDecomposer)
    backend = aud.judge.backend
    assert backend is aud.decomposer.backend
    assert (backend.base_url, backend.model, backend.api_key) == ("http://127.0.0.1:9/v1", "m", "sk-test")
    assert backend.concurrency == 3  # the records' limit is the LLM's request limit
    assert aud.judge.granularity == "batched"


def test_auto_is_the_llm_judge_only_with_an_endpoint_given():
    assert build_auditor("auto", **LLM).judge.name == "llm"
    assert build_auditor("auto", model="m", cache=False).judge.name == "llm"
    assert build_auditor("auto").judge.name in ("local", "lexical")


def test_decomposition():
    assert isinstance(build_auditor("llm", decomposition="rule", **LLM).decomposer, RuleDecomposer)
    assert build_auditor("llm", decomposition="holistic", **LLM).decomposer.mode == "holistic"
    assert isinstance(build_auditor("lexical", decomposition="rule").decomposer, RuleDecomposer)
    with pytest.raises(ConfigError, match="--decomposition holistic configures the LLM judge, but the judge here is "
                       "lexical"):
        build_auditor("lexical", decomposition="holistic")


@pytest.mark.parametrize("options, message", [
    ({"threshold": 0.3}, "--threshold configures the local judge"),
    ({"no_tagger": True}, "--no-tagger configures the local judge"),
    ({"threshold": 0.0, "no_tagger": True}, "--threshold and --no-tagger configure the local judge"),
])
def test_a_local_option_with_another_judge_is_an_error(options, message):
    with pytest.raises(ConfigError, match=message):
        build_auditor("lexical", **options)


def test_unknown_judge_and_bad_window():
    with pytest.raises(ConfigError, match="unknown judge 'nope'"):
        build_auditor("nope")
    with pytest.raises(ConfigError, match="overlap"):
        build_auditor("lexical", window=3, overlap=3)


def test_make_judge_is_what_build_auditor_uses():
    judge, decomposer = make_judge("lexical")
    assert isinstance(judge, LexicalJudge) and decomposer is None


def test_options_are_checked_once_into_a_judge_choice_and_reach_the_judge_as_its_typed_object():
    choice = JudgeChoice.choose("lexical", support=0.4, match=None)
    assert choice.name == "lexical" and dict(choice.options) == {"support": 0.4}  # None: not given
    assert choice.typed() == (LexicalOptions(support=0.4),)
    judge, _ = make_judge(choice)
    assert isinstance(judge, LexicalJudge) and judge.support == 0.4
    with pytest.raises(ConfigError, match="--threshold configures the local judge, but the judge here is lexical"):
        choice.with_options(threshold=0.3)  # checked again when more are given
    with pytest.raises(TypeError, match="JudgeChoice"):
        make_judge(choice, support=0.5)
    # the auditor built from a choice is the one built from the same keywords, fingerprint included
    a, b = build_auditor(choice, window=7, overlap=2), build_auditor("lexical", support=0.4, window=7, overlap=2)
    assert a.fingerprint == b.fingerprint and a.judge.support == b.judge.support == 0.4
    assert JudgeChoice.choose("auto", base_url="http://127.0.0.1:9/v1").name == "llm"


_VALUES = {"support": 0.4, "match": 0.1,
           "threshold": 0.3, "no_tagger": True, "model_dir": "models", "floor": 0.2, "combination": "card.json",
           "prompt_version": "llm@v3", "decomposition": "holistic", "granularity": "batched"}


_OWN = sorted({key for entry in JUDGE_TABLE.values() for key in entry.own_fields})


@pytest.mark.parametrize("key", _OWN)
def test_each_judge_that_does_not_read_an_option_refuses_it_by_its_flag(key):
    """The judges' option dataclasses (``JUDGE_TABLE``) say which judge reads which option; every other judge refuses
    each of them, naming its flag and the judge that reads it, and the flag is one that ``rt4chart audit`` has."""
    from click.testing import CliRunner

    from rt4chart.cli import main

    flag = option_info_of(key).flag
    assert flag and flag in CliRunner().invoke(main, ["audit", "--help"]).output
    for name, entry in JUDGE_TABLE.items():
        if key in entry.fields:
            continue
        with pytest.raises(ConfigError, match=re.escape(flag) + ".* the .*judge, but the judge here is " + name):
            make_judge(name, **{key: _VALUES[key]})
