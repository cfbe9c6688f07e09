"""LLMJudge and LLMDecomposer against scripted replies: structured output, re-asks, fail-closed policy, settings."""

from __future__ import annotations

import json

import pytest
from rt4chart.testing.openai_server import Reply, scripted

from rt4chart.errors import BackendError, ConfigError, JudgeError
from rt4chart.judges.base import Judge
from rt4chart.judges.llm import Endpoint, LLMDecomposer, LLMJudge, LLMJudgeOptions, build_llm
from rt4chart.audit.decompose import Decomposer
from rt4chart.llm.backend import OpenAIBackend
from rt4chart.types import Claim, Label, Span

CHUNK = "The free trial lasts 14 days from the date of activation. Eligible users may request one extension."
CLAIM = Claim(index=0, text="The free trial lasts 14 days.", sentence_index=0, answer_spans=(Span(start=0, end=29),))
CLAIM2 = Claim(index=1, text="The trial costs $5.", sentence_index=1, answer_spans=(Span(start=30, end=49),))


def v(label="entailed", evidence=("The free trial lasts 14 days",), **extra):
    return json.dumps({**extra, "reasoning": "r", "evidence": list(evidence), "verdict": label, "reason": "why"})


def make(server, granularity="per-claim", **kw) -> LLMJudge:
    backend = OpenAIBackend(server.base_url, "m", backoff_base=0.0, backoff_max=0.0, **kw)
    return LLMJudge(backend, granularity=granularity)


async def local(judge, claims=(CLAIM,)):
    return await judge.judge(list(claims), CHUNK, question=None, stage="local")


def test_llm_judge_and_decomposer_satisfy_the_protocols(tmp_path):
    judge, decomposer = build_llm(Endpoint(base_url="http://127.0.0.1:9/v1", model="m", cache_path=tmp_path / "c"))
    assert isinstance(judge, Judge) and isinstance(decomposer, Decomposer)


async def test_valid_reply_gives_anchored_evidence_raw_and_prompt_version(serve):
    reply = v(evidence=["the free  trial lasts\n14 days"])  # whitespace and case differ from the chunk
    server = serve(scripted(reply))
    (j,) = await local(make(server))
    assert j.label is Label.ENTAILED and j.reason == "why"
    assert j.evidence == ("The free trial lasts 14 days",)  # the chunk's own characters
    assert j.raw == reply and j.prompt_version == "llm@v2/local"
    user = server.requests[0].user
    assert user.index(CHUNK) < user.index("CLAIM:\n<<<\n" + CLAIM.text)  # shared chunk before the varying claim
    assert "(none: this task has no question)" in user


async def test_malformed_json_is_reasked_once_then_succeeds(serve):
    server = serve(scripted('{"verdict": "entailed", oops', v()))
    (j,) = await local(make(server))
    assert j.label is Label.ENTAILED
    first, second = server.requests
    assert not first.is_reask and second.is_reask
    assert second.messages[-2] == {"role": "assistant", "content": '{"verdict": "entailed", oops'}
    assert "not valid JSON" in second.last_user


async def test_reply_in_prose_or_fence_is_parsed(serve):
    server = serve(scripted("Sure! ```json\n" + v() + "\n```", "Here you go: " + v() + " Hope it helps."))
    (a,) = await local(make(server))
    (b,) = await local(make(server))
    assert a.label is b.label is Label.ENTAILED and len(server.requests) == 2


async def test_quote_not_in_evidence_is_reasked_then_unverified_with_raw(serve):
    bad = v(evidence=["The free trial lasts 30 days"])
    server = serve(scripted(bad, bad))
    (j,) = await local(make(server))
    assert j.label is Label.UNVERIFIED
    assert "do not occur in the chunk" in j.reason and "30 days" in j.reason
    assert j.raw == bad and j.prompt_version == "llm@v2/local"
    assert "30 days" in server.requests[1].last_user  # the re-ask names the bad quote
    assert len(server.requests) == 2  # exactly one re-ask


async def test_entailed_without_evidence_is_not_accepted(serve):
    server = serve(scripted(v(evidence=[]), v(evidence=["  "])))
    (j,) = await local(make(server))
    assert j.label is Label.UNVERIFIED and "at least one evidence quote" in j.reason


async def test_baseless_drops_quotes(serve):
    server = serve(scripted(v("baseless", evidence=["whatever the model says"])))
    (j,) = await local(make(server))
    assert j.label is Label.BASELESS and j.evidence == ()


async def test_unknown_verdict_word_is_not_guessed(serve):
    reply = json.dumps({"reasoning": "r", "evidence": [], "verdict": "mostly entailed", "reason": "x"})
    server = serve(scripted(reply, reply))
    (j,) = await local(make(server))
    assert j.label is Label.UNVERIFIED and "schema" in j.reason


async def test_500_beyond_budget_is_unverified_with_reason(serve):
    server = serve(lambda req: Reply.error(500, "internal boom"))
    (j,) = await local(make(server, max_attempts=3))
    assert j.label is Label.UNVERIFIED
    assert "after 3 attempt(s)" in j.reason and "HTTP 500" in j.reason
    assert "internal boom" in j.reason and j.raw is None  # the reason, never the error body
    assert len(server.requests) == 3


async def test_timeout_is_unverified(serve):
    server = serve(lambda req: Reply(v(), delay=1.0))
    (j,) = await local(make(server, timeout=0.1, max_attempts=2))
    assert j.label is Label.UNVERIFIED and "timed out" in j.reason


async def test_auth_error_raises(serve):
    server = serve(lambda req: Reply.error(401, "invalid api key"))
    with pytest.raises(BackendError, match="401"):
        await local(make(server))


FAILURES = {
    "http-500": lambda req: Reply.error(500),
    "http-429": lambda req: Reply.error(429, retry_after=0),
    "drop": lambda req: Reply.drop(),
    "empty": lambda req: "",
    "truncated": lambda req: Reply(v()[:40], finish_reason="length"),
    "prose": lambda req: "The claim is entailed.",
    "ungrounded": lambda req: v(evidence=["not in the chunk at all"]),
}


@pytest.mark.parametrize("granularity", ["per-claim", "batched"])
@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("stage", ["local", "global"])
async def test_no_failure_ever_yields_entailed(serve, failure, granularity, stage):
    server = serve(FAILURES[failure])
    judge = make(server, granularity, max_attempts=2)
    kw = {} if stage == "local" else {"local_labels": [Label.ENTAILED, Label.BASELESS], "hints": [CHUNK, None]}
    out = await judge.judge([CLAIM, CLAIM2], CHUNK, question="q?", stage=stage, **kw)
    assert [j.label for j in out] == [Label.UNVERIFIED, Label.UNVERIFIED]
    assert all(j.reason for j in out)


async def test_batched_keeps_good_verdicts_and_fails_only_bad_ones(serve):
    good = json.loads(v(claim=0))
    bad = json.loads(v("contradicted", evidence=["costs $9"], claim=1))
    reply = json.dumps({"verdicts": [good, bad]})
    server = serve(scripted(reply, reply))
    out = await local(make(server, "batched"), [CLAIM, CLAIM2])
    assert out[0].label is Label.ENTAILED and out[0].prompt_version == "llm@v2/local_batched"
    assert out[1].label is Label.UNVERIFIED and "claim [1]" in out[1].reason
    assert len(server.requests) == 2
    assert "[0] The free trial lasts 14 days.\n[1] The trial costs $5." in server.requests[0].user


async def test_batched_missing_claim_is_reasked(serve):
    only_first = json.dumps({"verdicts": [json.loads(v(claim=0))]})
    both = json.dumps({"verdicts": [json.loads(v(claim=0)), json.loads(v("baseless", evidence=[], claim=1))]})
    server = serve(scripted(only_first, both))
    out = await local(make(server, "batched"), [CLAIM, CLAIM2])
    assert [j.label for j in out] == [Label.ENTAILED, Label.BASELESS]
    assert "[1] have no verdict" in server.requests[1].last_user


async def test_global_prompts_follow_table_2(serve):
    server = serve(lambda req: v("baseless", evidence=[]))
    judge = make(server)
    claims = [CLAIM, CLAIM2, CLAIM.model_copy(update={"index": 2})]
    await judge.judge(
        claims, CHUNK, question="How long?", stage="global",
        local_labels=[Label.BASELESS, Label.CONTRADICTED, Label.ENTAILED], hints=[None, "HINT-CON", "HINT-ENT"],
    )
    users = sorted((r.user for r in server.requests), key=lambda u: ("HINT-CON" in u, "HINT-ENT" in u))
    nic, ent, con = users
    assert "FOCUS CHUNK" not in nic and "HINT" not in nic
    assert "FOCUS CHUNK:\n<<<\nHINT-CON\n>>>" in con and "looked contradicted" in con
    assert "FOCUS CHUNK:\n<<<\nHINT-ENT\n>>>" in ent and "looked entailed" in ent
    assert all("QUESTION:\n<<<\nHow long?\n>>>" in u and u.index(CHUNK) < u.index("CLAIM:") for u in users)


async def test_judge_rejects_mismatched_hints(serve):
    server = serve(lambda req: v())
    with pytest.raises(ConfigError):
        await make(server).judge([CLAIM], CHUNK, question=None, stage="global", local_labels=[], hints=[])


# -- decomposer ----------------------------------------------------------------------------------------------
ANSWER = "The trial lasts 14 days and it is free. Thanks for asking!"


def decomposer(server, mode="sentence") -> LLMDecomposer:
    return LLMDecomposer(OpenAIBackend(server.base_url, "m", backoff_base=0.0), decomposition=mode)


async def test_sentence_decomposition_one_call_per_sentence_with_pointers(serve):
    def handler(req):
        sentence = req.block("SENTENCE TO DECOMPOSE:")
        if sentence.startswith("Thanks"):
            return {"claims": []}
        return {"claims": ["The trial lasts 14 days.", "The trial is free."]}

    server = serve(handler)
    claims = await decomposer(server).decompose(ANSWER, question="How long is the trial?")
    assert [(c.index, c.text, c.sentence_index) for c in claims] == [
        (0, "The trial lasts 14 days.", 0), (1, "The trial is free.", 0)
    ]
    assert claims[0].answer_spans == (Span(start=0, end=39),)
    assert len(server.requests) == 2
    assert all(ANSWER in r.user and "How long" not in r.user for r in server.requests)  # answer only


async def test_holistic_decomposition_checks_sentence_numbers(serve):
    bad = {"claims": [{"sentence": 7, "claim": "x"}]}
    good = {"claims": [{"sentence": 0, "claim": "The trial lasts 14 days."}, {"sentence": 0, "claim": "It is free."}]}
    server = serve(scripted(bad, good))
    claims = await decomposer(server, "holistic").decompose(ANSWER)
    assert [c.text for c in claims] == ["The trial lasts 14 days.", "It is free."]
    assert "[0] The trial lasts 14 days and it is free.\n[1] Thanks for asking!" in server.requests[0].user
    assert "[7] do not exist" in server.requests[1].last_user


async def test_decomposition_failures_raise(serve):
    server = serve(lambda req: "no json here")
    with pytest.raises(JudgeError, match="unusable after one re-ask"):
        await decomposer(server, "holistic").decompose(ANSWER)
    server = serve(lambda req: Reply.error(503))
    d = LLMDecomposer(OpenAIBackend(server.base_url, "m", backoff_base=0.0, max_attempts=2))
    with pytest.raises(BackendError, match="decomposition"):
        await d.decompose(ANSWER)


# -- settings ------------------------------------------------------------------------------------------------
def test_settings_from_env_and_overrides():
    env = {"RT4CHART_BASE_URL": "http://gpu:8000/v1", "RT4CHART_MODEL": "qwen", "OPENAI_API_KEY": "sk-secret"}
    s = Endpoint.from_env(env, concurrency=None, timeout=9.0)
    assert (s.base_url, s.model, s.api_key, s.concurrency, s.timeout) == (
        "http://gpu:8000/v1", "qwen", "sk-secret", 8, 9.0
    )
    assert Endpoint.from_env(env, model="llama").model == "llama"
    assert Endpoint.from_env({"RT4CHART_MODEL": "gpt-4o-mini"}).base_url == "https://api.openai.com/v1"
    assert "sk-secret" not in repr(s) and "api_key" not in s.describe()
    assert (s.temperature, s.seed, s.cache) == (0.0, 0, True)


@pytest.mark.parametrize(
    "kw", [dict(model=""), dict(concurrency=0), dict(rpm=-1), dict(timeout=0), dict(price_in=-1.0)]
)
def test_bad_endpoint_raises_config_error(kw):
    with pytest.raises(ConfigError):
        Endpoint(**{"base_url": "http://x/v1", "model": "m", **kw})


@pytest.mark.parametrize("kw", [dict(granularity="per-chunk"), dict(decomposition="x"), dict(prompt_version="v1")])
def test_bad_llm_judge_options_raise_config_error(kw):
    with pytest.raises(ConfigError):
        LLMJudgeOptions(**kw)


def test_options_of_the_llm_judge_are_not_endpoint_fields():
    """The endpoint says how to reach a model; the judge's options how the LLM judge uses it: no field in both."""
    import dataclasses

    endpoint = {f.name for f in dataclasses.fields(Endpoint)}
    options = {f.name for f in dataclasses.fields(LLMJudgeOptions)}
    assert options == {"granularity", "prompt_version", "decomposition"} and not endpoint & options


def test_build_llm_shares_one_backend(tmp_path):
    judge, dec = build_llm(Endpoint(base_url="http://x/v1", model="gpt-4o-mini", cache_path=tmp_path / "c.db"))
    assert judge.backend is dec.backend and (tmp_path / "c.db").exists()
    judge, dec = build_llm(Endpoint(base_url="http://x/v1", model="m", cache=False),
                           LLMJudgeOptions(decomposition="holistic"))
    assert isinstance(judge.backend, OpenAIBackend) and dec.name == "llm-holistic"
