"""The LLM judge's ``v3`` prompts (``--prompt-version llm@v3``) against scripted replies: the chunk or context is
shown as numbered sentences, replies cite sentence numbers, and rt4chart turns them into evidence quotes (the
sentences' own text); a number that names no sentence, or an entailed/contradicted verdict without one, is re-asked
once and then ``unverified``. The ``v2`` prompts stay the default and unchanged."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from rt4chart.testing.openai_server import Reply, scripted
from paper_server import CONTEXT as PAPER_CONTEXT
from paper_server import RECORD as PAPER_RECORD
from paper_server import S as PAPER_S
from paper_server import paper_judge, section

from rt4chart.audit.auditor import Auditor
from rt4chart.cli import main
from rt4chart.errors import ConfigError
from rt4chart.judges.llm import Endpoint, LLMJudge, LLMJudgeOptions, build_llm
from rt4chart.judges.registry import build_auditor
from rt4chart.llm.backend import OpenAIBackend
from rt4chart.text.segment import split_sentences
from rt4chart.types import Claim, Label, Span

S = ["The free trial lasts 14 days from the date of activation.", "Eligible users may request one extension.",
     "The extension adds 7 days.", "Support is open on weekdays."]
CHUNK = " ".join(S[:2]) + "\n" + " ".join(S[2:])
TRIAL, EXTENSION, PHONE = "The free trial lasts 14 days.", "The extension adds 10 days.", "Support answers by phone."
CLAIMS = [Claim(index=i, text=t, sentence_index=i, answer_spans=(Span(start=0, end=len(t)),))
          for i, t in enumerate((TRIAL, EXTENSION, PHONE))]
#: what the scripted model says of each claim: its verdict and the sentences it cites, by their text
SAYS = {TRIAL: ("entailed", [S[0]]), EXTENSION: ("contradicted", [S[1], S[2]]), PHONE: ("baseless", [])}


def numbered(user: str) -> dict[str, int]:
    """The numbers of the sentences the prompt shows, by their text."""
    block = section(user, "CONTEXT CHUNK:" if "CONTEXT CHUNK:" in user else "FULL CONTEXT:")
    return {text: int(n) for n, text in re.findall(r"^\[(\d+)\] (.+)$", block, re.MULTILINE)}


def cite(user: str, verdict: str, texts: list[str], **extra) -> dict:
    number = numbered(user)
    if not all(t in number for t in texts):
        verdict, texts = "baseless", []  # a chunk without the sentences the model relies on
    return {**extra, "reason": f"scripted {verdict}", "verdict": verdict, "sentences": [number[t] for t in texts]}


def model(req) -> dict:
    """Replies to per-claim and batched v3 prompts from ``SAYS``."""
    if "CLAIMS:" in req.user:
        listed = re.findall(r"^\[(\d+)\] (.+)$", req.block("CLAIMS:"), re.MULTILINE)
        return {"verdicts": [cite(req.user, *SAYS[c], claim=int(i)) for i, c in listed]}
    return cite(req.user, *SAYS[req.block("CLAIM:")])


def make(server, granularity="per-claim", **kw) -> LLMJudge:
    backend = OpenAIBackend(server.base_url, "m", backoff_base=0.0, backoff_max=0.0, **kw)
    return LLMJudge(backend, granularity=granularity, prompt_version="llm@v3")


def reply(verdict="entailed", sentences=(0,), **extra) -> str:
    return json.dumps({**extra, "reason": "why", "verdict": verdict, "sentences": list(sentences)})


@pytest.mark.parametrize("granularity", ["per-claim", "batched"])
async def test_cited_numbers_become_the_sentences_exact_text(serve, granularity):
    server = serve(model)
    out = await make(server, granularity).judge(CLAIMS, CHUNK, question=None, stage="local")
    assert [j.label for j in out] == [Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS]
    assert [j.evidence for j in out] == [(S[0],), (S[1], S[2]), ()]
    assert all(q in CHUNK for j in out for q in j.evidence)  # found in the text by construction
    name = "local" if granularity == "per-claim" else "local_batched"
    assert {j.prompt_version for j in out} == {f"llm@v3/{name}"} and out[0].reason == "scripted entailed"
    req = server.requests[0]
    assert req.block("CONTEXT CHUNK:") == "\n".join(f"[{i}] {s}" for i, s in enumerate(S))
    schema = req.response_format["json_schema"]
    if granularity == "per-claim":
        assert schema["name"] == "CitedVerdict" and list(schema["schema"]["properties"]) == [
            "reason", "verdict", "sentences"]
    else:
        assert schema["name"] == "BatchCitedReply3" and len(server.requests) == 1
        assert schema["schema"]["properties"]["verdicts"]["minItems"] == 3
    assert req.user.rstrip().endswith(">>>") and req.user.index("CONTEXT CHUNK:") < req.user.index("CLAIM")
    assert "reasoning" not in json.dumps(schema)


async def test_a_number_out_of_range_is_reasked_then_unverified(serve):
    server = serve(scripted(reply(sentences=[1, 7]), reply(sentences=[9])))
    (j,) = await make(server).judge(CLAIMS[:1], CHUNK, question=None, stage="local")
    assert j.label is Label.UNVERIFIED and "has no sentence [9] (they are numbered 0 to 3)" in j.reason
    assert j.raw == reply(sentences=[9]) and j.prompt_version == "llm@v3/local"
    first, second = server.requests
    assert not first.is_reask and second.is_reask
    assert "has no sentence [7]" in second.last_user and "numbers in square brackets" in second.last_user


async def test_a_reask_that_cites_properly_is_accepted(serve):
    server = serve(scripted(reply(sentences=[4]), reply("contradicted", [2])))
    (j,) = await make(server).judge(CLAIMS[1:2], CHUNK, question=None, stage="local")
    assert j.label is Label.CONTRADICTED and j.evidence == (S[2],) and len(server.requests) == 2


@pytest.mark.parametrize("verdict", ["entailed", "contradicted"])
async def test_a_verdict_without_numbers_is_reasked_then_unverified(serve, verdict):
    server = serve(lambda req: reply(verdict, []))
    (j,) = await make(server).judge(CLAIMS[:1], CHUNK, question=None, stage="local")
    assert j.label is Label.UNVERIFIED and "needs the number of at least one sentence of the chunk" in j.reason
    assert len(server.requests) == 2


async def test_baseless_drops_its_numbers_even_out_of_range(serve):
    server = serve(lambda req: reply("baseless", [0, 99]))
    (j,) = await make(server).judge(CLAIMS[:1], CHUNK, question=None, stage="local")
    assert j.label is Label.BASELESS and j.evidence == () and len(server.requests) == 1


async def test_batched_keeps_good_verdicts_and_fails_only_bad_ones(serve):
    both = json.dumps({"verdicts": [json.loads(reply(claim=0)), json.loads(reply("contradicted", [5], claim=1))]})
    server = serve(scripted(both, both))
    out = await make(server, "batched").judge(CLAIMS[:2], CHUNK, question=None, stage="local")
    assert out[0].label is Label.ENTAILED and out[0].evidence == (S[0],)
    assert out[1].label is Label.UNVERIFIED and "claim [1]: the chunk has no sentence [5]" in out[1].reason
    assert len(server.requests) == 2


FAILURES = {
    "http-500": lambda req: Reply.error(500),
    "truncated": lambda req: Reply(reply()[:20], finish_reason="length"),
    "prose": lambda req: "The claim is entailed by sentence 0.",
    "v2-reply": lambda req: json.dumps({"reasoning": "r", "evidence": [S[0]], "verdict": "entailed", "reason": "r"}),
    "out-of-range": lambda req: (json.dumps({"verdicts": [json.loads(reply(sentences=[40], claim=i)) for i in (0, 1)]})
                                 if "CLAIMS:" in req.user else reply(sentences=[40])),
    "no-numbers": lambda req: (json.dumps({"verdicts": [json.loads(reply(sentences=[], claim=i)) for i in (0, 1)]})
                               if "CLAIMS:" in req.user else reply(sentences=[])),
}


@pytest.mark.parametrize("granularity", ["per-claim", "batched"])
@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("stage", ["local", "global"])
async def test_no_failure_ever_yields_entailed(serve, failure, granularity, stage):
    server = serve(FAILURES[failure])
    kw = {} if stage == "local" else {"local_labels": [Label.ENTAILED, Label.BASELESS], "hints": [S[0], None]}
    out = await make(server, granularity, max_attempts=2).judge(CLAIMS[:2], CHUNK, question="q?", stage=stage, **kw)
    assert [j.label for j in out] == [Label.UNVERIFIED, Label.UNVERIFIED]
    assert all(j.reason for j in out)


async def test_global_prompts_name_the_focus_chunk_by_its_sentence_numbers(serve):
    server = serve(lambda req: reply("baseless", []))
    judge = make(server)
    claims = [CLAIMS[0], CLAIMS[1], CLAIMS[2].model_copy(update={"index": 2})]
    focus = CHUNK[CHUNK.index(S[1]):CHUNK.index(S[2]) + len(S[2])]  # a chunk of sentences 1 and 2
    await judge.judge(claims, CHUNK, question="How long?", stage="global",
                      local_labels=[Label.BASELESS, Label.CONTRADICTED, Label.ENTAILED], hints=[None, focus, S[3]])
    users = {r.block("CLAIM:"): r.user for r in server.requests}
    nic, con, ent = users[TRIAL], users[EXTENSION], users[PHONE]
    assert "focus" not in nic.lower() and "no location hint" in nic
    assert "looked contradicted when checked against the focus sentences [1] to [2] of the context" in con
    assert "looked entailed when checked against the focus sentences [3] of the context" in ent
    for user in (nic, con, ent):
        assert user.count(S[1]) == 1 and "FOCUS CHUNK" not in user  # the focus chunk is not repeated
        assert user.index("FULL CONTEXT:") < user.index("QUESTION:\n<<<\nHow long?") < user.index("CLAIM:")

    server = serve(lambda req: json.dumps({"verdicts": [json.loads(reply("baseless", [], claim=i))
                                                        for i in range(3)]}))
    await make(server, "batched").judge(claims, CHUNK, question=None, stage="global",
                                        local_labels=[Label.BASELESS, Label.CONTRADICTED, Label.ENTAILED],
                                        hints=[None, focus, "a hint that is not in the context"])
    (req,) = server.requests
    assert ("LOCAL RESULTS:\nclaim 0: LOCAL baseless: no location hint; search the whole context from scratch.\n"
            "claim 1: LOCAL contradicted: focus sentences [1] to [2].\n"
            "claim 2: LOCAL baseless: no location hint") in req.user
    assert req.user.index("LOCAL RESULTS:") < req.user.index("CLAIMS:") and "FOCUS CHUNKS" not in req.user


def paper_judge_v3(req) -> dict:
    """The paper example's scripted judge (``paper_server``) with its evidence quotes turned into the numbers of
    the sentences the v3 prompt shows."""
    out = paper_judge(req)
    if "CONTEXT CHUNK:" not in req.user and "FULL CONTEXT:" not in req.user:
        return out  # a decomposition

    def v3(v: dict) -> dict:
        extra = {"claim": v["claim"]} if "claim" in v else {}
        return cite(req.user, v["verdict"], v["evidence"], **extra)

    return {"verdicts": [v3(v) for v in out["verdicts"]]} if "verdicts" in out else v3(out)


@pytest.mark.parametrize("granularity", ["per-claim", "batched"])
def test_paper_example_end_to_end_with_v3_prompts(serve, tmp_path, monkeypatch, granularity):
    """``rt4chart audit --judge llm --prompt-version llm@v3`` on the paper's running example: Table 1's labels, and
    every evidence span is a context sentence at its exact offsets."""
    server = serve(paper_judge_v3)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(PAPER_RECORD) + "\n")
    args = ["audit", str(src), "--judge", "llm", "--base-url", server.base_url, "--model", "fake-model", "-W", "2",
            "-O", "1", "--granularity", granularity, "--decomposition", "sentence", "--prompt-version", "llm@v3",
            "--no-cache", "-q", "-o", str(tmp_path / "out.jsonl")]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    (rec,) = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [c["label"] for c in rec["claims"]] == ["contradicted", "contradicted", "entailed", "entailed", "baseless"]
    assert [e["text"] for e in rec["claims"][3]["evidence"]] == [PAPER_S[0], PAPER_S[1], PAPER_S[3]]
    for claim in rec["claims"]:
        for e in claim["evidence"]:
            assert PAPER_CONTEXT[e["start"]:e["end"]] == e["text"] and e["text"] in PAPER_S
    verdicts = [r for r in server.requests if "CONTEXT" in r.user]
    assert verdicts and all(r.response_format["json_schema"]["name"].startswith(("CitedVerdict", "BatchCitedReply"))
                            for r in verdicts)


async def test_auditor_chunks_are_numbered_from_zero_each(serve):
    """With W=2, O=1 each chunk numbers its own sentences from 0, and the evidence comes back anchored in C."""
    server = serve(model)
    context = " ".join(S)
    answer = " ".join((TRIAL, EXTENSION, PHONE))
    result = await Auditor(judge=make(server), window=2, overlap=1).audit({"id": 1, "context": context,
                                                                          "answer": answer})
    assert [c.label for c in result.claims] == [Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS]
    assert [[e.text for e in c.evidence] for c in result.claims] == [[S[0]], [S[1], S[2]], []]
    chunks = [r.block("CONTEXT CHUNK:") for r in server.requests if "CONTEXT CHUNK:" in r.user]
    assert f"[0] {S[1]}\n[1] {S[2]}" in chunks and f"[0] {S[2]}\n[1] {S[3]}" in chunks
    assert [s.text for s in split_sentences(context)] == S


def test_v2_is_the_default_and_v3_is_selected_by_settings(tmp_path):
    endpoint = Endpoint(base_url="http://127.0.0.1:9/v1", model="m", cache_path=tmp_path / "c")
    assert LLMJudgeOptions().prompt_version == "llm@v2"
    judge, decomposer = build_llm(endpoint)
    assert judge.prompt_version.name == "llm@v2" and judge.version == "v2"  # the stable id: the template files'
    assert {p.version for p in judge.prompts.values()} == {"v2"} and judge.config["prompt_version"] == "llm@v2"
    judge, decomposer = build_llm(endpoint, LLMJudgeOptions(prompt_version="llm@v3"))
    assert judge.prompt_version.name == "llm@v3" and judge.version == "v3"
    assert {p.version for p in judge.prompts.values()} == {"v3"}
    assert judge.config["prompts"] == sorted(f"{n}.v3" for n in ("local", "local_batched", "global_nic",
                                                                  "global_ent", "global_con", "global_batched"))
    assert decomposer.prompt.id == "decompose_sentence.v2"  # decomposition is the same in both
    with pytest.raises(ConfigError, match="prompt_version"):
        LLMJudgeOptions(prompt_version="v9")
    with pytest.raises(ConfigError, match="prompt version"):
        LLMJudge(judge.backend, prompt_version="v1")


def test_prompt_version_changes_the_fingerprint_and_needs_the_llm_judge():
    llm = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "cache": False}
    v2, v3 = build_auditor("llm", **llm), build_auditor("llm", prompt_version="llm@v3", **llm)
    assert v2.fingerprint != v3.fingerprint
    assert build_auditor("llm", prompt_version="llm@v3", **llm).fingerprint == v3.fingerprint
    assert build_auditor("llm", prompt_version="llm@v2", **llm).fingerprint != v2.fingerprint  # an option given
    with pytest.warns(DeprecationWarning, match="'v3' is now spelled 'llm@v3'"):
        # the old spelling names the same prompts: the same fingerprint, so results from before still match
        assert build_auditor("llm", prompt_version="v3", **llm).fingerprint == v3.fingerprint
    with pytest.raises(ConfigError, match="--prompt-version llm@v3 configures the LLM judge"):
        build_auditor("lexical", prompt_version="llm@v3")
    with pytest.raises(ConfigError, match="the judge here is hybrid"):
        build_auditor("hybrid", prompt_version="llm@v3", **llm)
    res = CliRunner().invoke(main, ["audit", "-", "--judge", "lexical", "--prompt-version", "llm@v3"], input="")
    assert res.exit_code == 2 and "--prompt-version llm@v3" in res.output
