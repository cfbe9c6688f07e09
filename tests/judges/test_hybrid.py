"""The hybrid judge (``rt4chart.judges.hybrid``) with the real local judge and a scripted OpenAI-compatible server on
loopback: which claims reach the model, what the prompt holds, how replies combine with the local verdicts, and that
a failing model never makes a claim entailed."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_openai import Reply

from rt4chart.audit.auditor import Auditor
from rt4chart.cli import main
from rt4chart.errors import ConfigError
from rt4chart.judges.hybrid import HybridJudge
from rt4chart.judges.llm import LLMSettings, build_backend
from rt4chart.judges.local import LocalJudge
from rt4chart.judges.registry import build_auditor, make_judge
from rt4chart.types import Label

CONTEXT = ("The city library opens at 9 a.m. on weekdays. Entry costs 5 euros for adults. Children under 12 enter "
           "for free. The reading room on the second floor has 40 seats.")
OPENS = "The city library opens at 9 a.m. on weekdays."
CHILDREN = "Children under 12 pay 5 euros to enter."
GARDEN = "The building has a rooftop garden with palm trees."
SEATS = "The reading room has 40 seats for adults."
RECORD = {"id": "library", "context": CONTEXT, "answer": " ".join([OPENS, CHILDREN, GARDEN, SEATS])}
#: what the scripted model says of each claim: (verdict, premise sentences cited, by their text)
SAYS = {OPENS: ("supported", [OPENS]), CHILDREN: ("contradicted", ["Children under 12 enter for free."]),
        SEATS: ("not_stated", [])}


@pytest.fixture(scope="module")
def local() -> LocalJudge:
    return LocalJudge()


def premise_of(user: str) -> dict[int, str]:
    block = re.search(r"PREMISE:\n<<<\n(.*?)\n>>>", user, re.DOTALL).group(1)
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^\[(\d+)\] (.*)$", block, re.MULTILINE)}


def claims_of(user: str) -> list[str]:
    block = re.search(r"CLAIMS?:\n<<<\n(.*?)\n>>>", user, re.DOTALL).group(1)
    return [re.sub(r"^\[\d+\] ", "", line) for line in block.splitlines()]


def check(user: str, claim: str) -> dict:
    verdict, cited = SAYS[claim]
    number = {text: n for n, text in premise_of(user).items()}
    return {"reason": f"checked {claim[:20]}", "verdict": verdict, "sentences": [number[t] for t in cited]}


def batched_model(req):
    return {"verdicts": [{"claim": i, **check(req.user, c)} for i, c in enumerate(claims_of(req.user))]}


def per_claim_model(req):
    [claim] = claims_of(req.user)
    return check(req.user, claim)


def hybrid(server, local: LocalJudge, **kw) -> HybridJudge:
    """A hybrid judge on ``server`` that asks about every claim the local judge finds supported (floor 0)."""
    backend = build_backend(LLMSettings(base_url=server.base_url, model="fake-model", cache=False, max_attempts=2,
                                        backoff_base=0.0, backoff_max=0.0))
    return HybridJudge(local, backend, **{"floor": 0.0, **kw})


def audit(judge, record=RECORD):
    return asyncio.run(Auditor(judge=judge).audit(record))


def test_local_judge_alone_misses_the_recombined_contradiction(local):
    """The premise of this file: the local judge finds the second claim entailed (its words are all in the
    context), so only a reader of meaning can catch it."""
    result = audit(local)
    assert [c.label for c in result.claims] == [Label.ENTAILED, Label.ENTAILED, Label.BASELESS, Label.ENTAILED]


def test_one_call_for_the_routed_claims_with_their_premise(serve, local):
    server = serve(batched_model)
    result = audit(hybrid(server, local))
    assert len(server.requests) == 1  # batched: one call for the answer
    user = server.requests[0].user
    # the garden claim shares no word with the context: baseless without a call
    assert claims_of(user) == [OPENS, CHILDREN, SEATS]
    premise = premise_of(user)
    assert premise and all(text in CONTEXT for text in premise.values())  # context sentences, verbatim
    assert list(premise.values()) == sorted(premise.values(), key=CONTEXT.index)  # in context order
    # prefix-cache order: instructions, then the premise, the claims last
    assert user.index("PREMISE:") < user.index("CLAIMS:")
    assert server.requests[0].response_format["type"] == "json_schema"
    labels = [c.label for c in result.claims]
    assert labels == [Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS, Label.ENTAILED]
    assert result.label == Label.CONTRADICTED and result.hallucinated
    children = result.claims[1]
    # the cited premise sentence became the evidence, anchored in the context
    assert [e.text for e in children.evidence] == ["Children under 12 enter for free."]
    ev = children.evidence[0]
    assert CONTEXT[ev.start:ev.end] == ev.text
    assert children.reason.startswith("LLM contradicted:") and children.score >= local.threshold
    assert children.prompt_version == "hybrid_batched.v3" and json.loads(children.raw)["verdict"] == "contradicted"
    # "not stated" does not overturn a local entailed verdict (POLICY), and says so
    assert result.claims[3].label == Label.ENTAILED and "LLM not stated" in result.claims[3].reason
    assert result.claims[2].evidence == () and result.claims[2].raw is None
    assert result.usage.calls == 1 and result.errors == ()


def test_clearly_supported_claims_are_not_asked_about(serve, local):
    alone = audit(local)
    floor = sorted(c.score for c in alone.claims if c.label == Label.ENTAILED)[1]  # above the lowest-scored one
    server = serve(batched_model)
    result = audit(hybrid(server, local, floor=floor))
    asked = claims_of(server.requests[0].user)
    assert asked == [c.text for c in alone.claims if c.label == Label.ENTAILED and c.score >= floor]
    assert len(asked) == 2 and result.claims[1].label == Label.CONTRADICTED


def test_the_model_never_clears_a_claim_the_local_judge_flagged(serve, local):
    record = {"id": "nearly", "context": CONTEXT, "answer": "The reading room has 40 seats and a cafe with a view of "
              "the harbour."}
    alone = audit(local, record)
    assert alone.claims[0].label == Label.BASELESS and alone.claims[0].score < local.threshold + 0.25
    server = serve(lambda req: {"verdicts": [{"claim": 0, "reason": "it has 40 seats", "verdict": "supported",
                                              "sentences": [0]}]})
    result = audit(hybrid(server, local), record)
    assert len(server.requests) == 1  # near the threshold: asked about
    assert result.claims[0].label == Label.BASELESS and result.claims[0].evidence == ()
    assert "LLM supported" in result.claims[0].reason


def test_per_claim_calls_share_the_premise_prefix(serve, local):
    server = serve(per_claim_model)
    result = audit(hybrid(server, local, granularity="per-claim"))
    assert len(server.requests) == 3
    users = [r.user for r in server.requests]
    heads = {u[:u.index("CLAIM:")] for u in users}
    assert len(heads) == 1  # the same instructions and premise before every claim: one cached prefix
    assert [c.label for c in result.claims] == [Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS, Label.ENTAILED]
    assert result.claims[1].prompt_version == "hybrid_claim.v3"


@pytest.mark.parametrize("reply", [Reply.error(500), Reply.drop(), "I think they are all fine."],
                         ids=["http-500", "connection-dropped", "not-json"])
def test_a_failing_model_keeps_the_local_verdicts_and_says_so(serve, local, reply):
    server = serve(lambda req: reply)
    result = audit(hybrid(server, local))
    alone = audit(local)
    assert [c.label for c in result.claims] == [c.label for c in alone.claims]  # nothing moved
    for claim, own in zip(result.claims, alone.claims):
        if claim.text == GARDEN:
            assert claim.reason == own.reason  # never asked
        else:
            assert "LLM check failed, local verdict kept" in claim.reason
    [note] = result.errors
    assert note.kind == "judge" and "hybrid: the LLM check failed" in note.message


def test_a_reply_that_skips_claims_is_asked_again_then_kept_local(serve, local):
    server = serve(lambda req: {"verdicts": [{"claim": 0, "reason": "ok", "verdict": "supported", "sentences": [0]}]})
    result = audit(hybrid(server, local))
    assert len(server.requests) == 2 and server.requests[1].is_reask
    assert all(c.label != Label.UNVERIFIED for c in result.claims)
    assert result.claims[1].label == Label.ENTAILED and "LLM check failed" in result.claims[1].reason
    assert len(result.errors) == 1


def test_a_server_that_dies_mid_run_leaves_local_verdicts(serve, local):
    """Two records: the server answers the first, then goes away; the second keeps its local verdicts with a
    note, never an entailed verdict from the model's side."""
    server = serve(batched_model)
    judge = hybrid(server, local)
    first = audit(judge)
    server.close()
    second = audit(judge, {**RECORD, "id": "again"})
    assert first.claims[1].label == Label.CONTRADICTED
    assert second.claims[1].label == Label.ENTAILED and "LLM check failed" in second.claims[1].reason
    assert second.claims[1].evidence and not second.claims[1].reason.startswith("LLM supported")
    assert [e.kind for e in second.errors] == ["judge"]


def test_supported_never_overturns_a_local_contradiction(serve, local):
    record = {"id": "swap", "context": CONTEXT, "answer": "The city library opens at 10 a.m. on weekdays."}
    alone = audit(local, record)
    assert alone.claims[0].label == Label.CONTRADICTED  # a number swap: the local rule decides
    server = serve(lambda req: {"verdicts": [{"claim": 0, "reason": "same", "verdict": "supported",
                                              "sentences": [0]}]})
    result = audit(hybrid(server, local), record)
    assert len(server.requests) == 1
    assert result.claims[0].label == Label.CONTRADICTED
    assert [e.text for e in result.claims[0].evidence] == [e.text for e in alone.claims[0].evidence]


def test_registry_and_fingerprint(serve):
    with pytest.raises(ConfigError, match="model name is required"):
        make_judge("hybrid")
    server = serve(batched_model)
    judge, decomposer = make_judge("hybrid", base_url=server.base_url, model="m", threshold=0.5)
    assert isinstance(judge, HybridJudge) and decomposer is None
    assert judge.granularity == "batched" and judge.threshold == 0.5
    a = build_auditor("hybrid", base_url=server.base_url, model="m")
    b = build_auditor("hybrid", base_url=server.base_url, model="m", granularity="per-claim")
    c = build_auditor("local")
    assert len({a.fingerprint, b.fingerprint, c.fingerprint}) == 3
    with pytest.raises(ConfigError, match="needs the LLM judge"):
        make_judge("hybrid", base_url=server.base_url, model="m", decomposition="holistic")
    with pytest.raises(ConfigError, match="--floor route the hybrid judge's claims, but the judge here is local"):
        make_judge("local", floor=0.0)
    routed, _ = make_judge("hybrid", base_url=server.base_url, model="m", floor=0.0, margin=1.0)
    assert (routed.floor, routed.margin) == (0.0, 1.0)
    d = build_auditor("hybrid", base_url=server.base_url, model="m", floor=0.0)
    assert d.fingerprint != a.fingerprint  # routing changes verdicts: --baseline re-audits


def test_cli_audit_with_the_hybrid_judge(serve, tmp_path: Path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = serve(batched_model)
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(RECORD) + "\n")
    out = tmp_path / "out.jsonl"
    run = CliRunner().invoke(main, ["audit", str(src), "-o", str(out), "--judge", "hybrid", "--base-url",
                                    server.base_url, "--model", "fake-model", "--no-cache", "-q"])
    assert run.exit_code == 0, run.output
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["judge"] == "hybrid" and row["label"] == "contradicted" and row["usage"]["calls"] == 1
    assert row["config"]["judge_fingerprint"]
