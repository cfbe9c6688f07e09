"""The hybrid judge (``rt4chart.judges.hybrid``) with the real local judge and a scripted OpenAI-compatible server on
loopback that answers one-token Yes/No verdicts with log-probabilities: what each request holds, how the fitted
combination decides, where the evidence comes from, and that a failing model never makes a claim entailed."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from rt4chart.testing.openai_server import Reply

from rt4chart.audit.auditor import Auditor
from rt4chart.cli import main
from rt4chart.errors import ConfigError
from rt4chart.judges.combine import FEATURES, Combination, Logistic
from rt4chart.judges.hybrid import HybridJudge
from rt4chart.judges.judge_options import HybridOptions
from rt4chart.judges.llm import Endpoint, build_backend
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
#: the scripted model's P(supported) of each claim
P_YES = {OPENS: 0.95, CHILDREN: 0.04, GARDEN: 0.02, SEATS: 0.7}


def _logistic(threshold: float = 0.5, **coef: float) -> Logistic:
    return Logistic(coef=tuple(coef.get(n, 0.0) for n in FEATURES), intercept=0.0, threshold=threshold)


#: a combination that follows the model alone (risk = 1 - P(supported)); a hallucinated claim the local judge found
#: supported by some sentence is contradicted, else baseless
FOLLOWS_MODEL = Combination(hallucinated=_logistic(llm=1.0),
                            contradicted=_logistic(local_entailed=10.0, local_contradicted=10.0, local_baseless=-10.0),
                            version="test", card={})


@pytest.fixture(scope="module")
def local() -> LocalJudge:
    return LocalJudge()


def claim_of(user: str) -> str:
    return user.rsplit("Claim: ", 1)[1]


def model(req):
    return Reply.yes_no(P_YES[claim_of(req.user)])


def hybrid(server, local: LocalJudge, **kw) -> HybridJudge:
    backend = build_backend(Endpoint(base_url=server.base_url, model="fake-model", cache=False, max_attempts=2,
                                     backoff_base=0.0, backoff_max=0.0))
    return HybridJudge(local, backend, **{"combination": FOLLOWS_MODEL, **kw})


def audit(judge, record=RECORD):
    return asyncio.run(Auditor(judge=judge).audit(record))


def test_local_judge_alone_misses_the_recombined_contradiction(local):
    """The premise of this file: the local judge finds the second claim entailed (its words are all in the
    context), so only a reader of meaning can catch it."""
    result = audit(local)
    assert [c.label for c in result.claims] == [Label.ENTAILED, Label.ENTAILED, Label.BASELESS, Label.ENTAILED]


def test_the_claims_no_rule_decided_are_asked_one_token_with_the_document_first(serve, local):
    """The first claim copies a context sentence and the third shares no word with it: the local judge's rules decide
    them, and the model is asked about the other two, in answer order."""
    server = serve(model)
    result = audit(hybrid(server, local))
    assert [claim_of(r.user) for r in server.requests] == [CHILDREN, SEATS]  # in answer order
    for req in server.requests:
        assert req.body["max_tokens"] == 1 and req.body["logprobs"] is True and req.body["top_logprobs"] == 20
        assert "response_format" not in req.body  # a grammar would distort the label probabilities
        assert req.user.startswith("Document: " + CONTEXT)
    heads = {r.user[:r.user.index("Claim: ")] for r in server.requests}
    assert len(heads) == 1  # the same system prompt and document before every claim: one cached prefix
    labels = [c.label for c in result.claims]
    assert labels == [Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS, Label.ENTAILED]
    assert result.label == Label.CONTRADICTED and result.hallucinated
    children = result.claims[1]
    raw = json.loads(children.raw)
    assert raw["p_supported"] == pytest.approx(0.04, abs=1e-3) and raw["risk"] == pytest.approx(0.96, abs=1e-3)
    assert children.score == pytest.approx(0.96, abs=1e-3) and children.prompt_version == "hybrid@v4/hybrid_supports"
    assert children.reason.startswith("contradicted (LLM P(supported)=0.04")
    # evidence: context text, anchored; a baseless claim has none
    assert children.evidence and all(CONTEXT[e.start:e.end] == e.text for e in children.evidence)
    assert result.claims[2].evidence == ()
    assert result.usage.calls == 2 and result.errors == ()
    for routed, rule in ((result.claims[0], "copy"), (result.claims[2], "unseen")):
        assert json.loads(routed.raw) == {"decided_by": "local", "why": f"its rule decided ({rule})"}
        assert f"the local judge decides: its rule decided ({rule})" in routed.reason
    assert json.loads(result.claims[3].raw)["decided_by"] == "both"


def test_a_long_context_is_the_local_judges_alone(serve, local):
    """Past ``ask_max_words`` words the small model was measured worse than the local judge: it is not asked, and
    every claim says so; with routing off, it is asked."""
    long_context = CONTEXT + " " + " ".join(f"Room {i} on the third floor is for group study." for i in range(15))
    record = {**RECORD, "context": long_context}
    server = serve(model)
    routed = audit(hybrid(server, local), record)
    alone = audit(local, record)
    assert server.requests == [] and routed.usage.calls == 0
    assert [c.label for c in routed.claims] == [c.label for c in alone.claims]
    assert all(json.loads(c.raw)["decided_by"] == "local" and "words (over 120)" in c.reason for c in routed.claims)
    asked = audit(hybrid(server, local, ask_max_words=None), record)
    assert len(server.requests) == asked.usage.calls == 2


def test_the_combination_may_clear_a_locally_flagged_claim(serve, local):
    """A claim the local judge finds baseless is cleared when the combination follows a model sure it is supported;
    its evidence is then the context's nearest sentences. A claim no sentence speaks to (the garden) is the local
    judge's rule's: baseless, whatever the model would say."""
    record = {"id": "nearly", "context": CONTEXT,
              "answer": "The reading room offers free wifi to its visitors. " + GARDEN}
    alone = audit(local, record)
    assert [c.label for c in alone.claims] == [Label.BASELESS, Label.BASELESS]
    server = serve(lambda req: Reply.yes_no(0.97))
    room, garden = audit(hybrid(server, local), record).claims
    assert room.label == Label.ENTAILED and room.evidence
    assert all(CONTEXT[e.start:e.end] == e.text for e in room.evidence)
    assert garden.label == Label.BASELESS and garden.evidence == ()
    assert json.loads(garden.raw)["decided_by"] == "local"


def test_a_local_contradiction_stays_contradicted(serve, local):
    record = {"id": "swap", "context": CONTEXT, "answer": "The city library opens at 10 a.m. on weekdays."}
    alone = audit(local, record)
    assert alone.claims[0].label == Label.CONTRADICTED  # a number swap: the local rule decides
    server = serve(lambda req: Reply.yes_no(0.1))
    result = audit(hybrid(server, local), record)
    assert result.claims[0].label == Label.CONTRADICTED
    assert [e.text for e in result.claims[0].evidence] == [e.text for e in alone.claims[0].evidence]


def test_a_floor_skips_the_claims_the_local_judge_clears(serve, local):
    alone = audit(local)
    floor = sorted(c.score for c in alone.claims)[1]
    server = serve(model)
    audit(hybrid(server, local, floor=floor))
    ruled = {OPENS, GARDEN}  # decided by the local judge's rules: never asked
    assert [claim_of(r.user) for r in server.requests] == [c.text for c in alone.claims
                                                            if c.score >= floor and c.text not in ruled]


def test_a_server_without_logprobs_answers_in_one_word(serve, local):
    server = serve(lambda req: "No" if claim_of(req.user) == CHILDREN else "Yes")
    result = audit(hybrid(server, local))
    assert [c.label for c in result.claims][:2] == [Label.ENTAILED, Label.CONTRADICTED]
    assert json.loads(result.claims[1].raw)["p_supported"] == 0.0


@pytest.mark.parametrize("reply", [Reply.error(500), Reply.drop(), "Maybe."],
                         ids=["http-500", "connection-dropped", "not-yes-or-no"])
def test_a_failing_model_keeps_the_local_verdicts_and_says_so(serve, local, reply):
    server = serve(lambda req: reply)
    result = audit(hybrid(server, local))
    alone = audit(local)
    assert [c.label for c in result.claims] == [c.label for c in alone.claims]  # nothing moved
    for claim in result.claims:
        asked = claim.text not in (OPENS, GARDEN)  # the others are the local judge's rules'
        assert ("LLM check failed, local verdict kept" in claim.reason) == asked
    kind = "judge" if reply == "Maybe." else "backend"  # a failed call is a failed LLM call of the run
    assert result.errors and all(e.kind == kind and "hybrid: the LLM check failed" in e.message
                                 for e in result.errors)


def test_a_server_that_dies_mid_run_leaves_local_verdicts(serve, local):
    """Two records: the server answers the first, then goes away; the second keeps its local verdicts with a
    note, never an entailed verdict from the model's side."""
    server = serve(model)
    judge = hybrid(server, local)
    first = audit(judge)
    server.close()
    second = audit(judge, {**RECORD, "id": "again"})
    assert first.claims[1].label == Label.CONTRADICTED
    assert second.claims[1].label == Label.ENTAILED and "LLM check failed" in second.claims[1].reason
    assert second.claims[1].raw is None
    assert {e.kind for e in second.errors} == {"backend"}


def test_the_shipped_combination_card_loads_and_is_documented():
    card = Combination.load()
    assert 0.0 < card.threshold < 1.0 and 0.0 < card.contradicted.threshold < 1.0
    assert set(card.card["hallucinated"]["coef"]) == set(FEATURES)
    assert card.card["fitted_on"]["rows"] > 0 and "metrics" in card.card
    # a model that is sure a claim is supported, on a short document the local judge also clears: entailed
    from rt4chart.judges.combine import features
    from rt4chart.types import Judgment

    clear = Judgment(label=Label.ENTAILED, evidence=("x",), score=0.05)
    assert card.hallucinated(features(0.99, clear, "The shop opens at nine.", "The shop opens at 9 a.m.")) \
        < card.threshold
    # ... and sure it is not, on the same: hallucinated
    assert card.hallucinated(features(0.01, clear, "The shop opens at nine.", "The shop opens at 9 a.m.")) \
        >= card.threshold


def test_a_bad_card_is_a_config_error(tmp_path: Path):
    bad = tmp_path / "card.json"
    bad.write_text(json.dumps({"version": "x", "hallucinated": {"coef": {}}}))
    with pytest.raises(ConfigError, match="not valid"):
        Combination.load(bad)
    with pytest.raises(ConfigError, match="no hybrid combination card"):
        Combination.load(tmp_path / "missing.json")


def test_registry_slots_and_fingerprint(serve):
    with pytest.raises(ConfigError, match="is required.*--gguf PATH"):
        make_judge("hybrid")
    server = serve(model, total_slots=2)
    judge, decomposer = make_judge("hybrid", base_url=server.base_url, model="m", concurrency=8)
    assert isinstance(judge, HybridJudge) and decomposer is None and judge.floor == 0.0
    assert judge.records_in_flight == 2
    assert getattr(judge.backend, "inner", judge.backend).concurrency == 2
    auditor = build_auditor("hybrid", base_url=server.base_url, model="m", concurrency=8)
    assert auditor.config.concurrency == 2  # one answer per server slot: its document stays cached
    a = build_auditor("hybrid", base_url=server.base_url, model="m")
    b = build_auditor("hybrid", base_url=server.base_url, model="m", floor=0.2)
    c = build_auditor("local")
    assert len({a.fingerprint, b.fingerprint, c.fingerprint}) == 3
    with pytest.raises(ConfigError, match="--decomposition holistic configures the LLM judge"):
        make_judge("hybrid", base_url=server.base_url, model="m", decomposition="holistic")
    with pytest.raises(ConfigError, match="--floor configures the hybrid judge, but the judge here is local"):
        make_judge("local", floor=0.0)
    with pytest.raises(ConfigError, match="--granularity batched configures the LLM judge"):
        make_judge("hybrid", base_url=server.base_url, model="m", granularity="batched")


def test_the_hybrid_judge_is_built_from_its_options_object_and_cuts_as_the_audit_does(serve, tmp_path: Path):
    server = serve(model)
    card = tmp_path / "card.json"
    card.write_text(json.dumps({**Combination.load().card, "version": "refitted"}))
    auditor = build_auditor("hybrid", base_url=server.base_url, model="m", window=10, overlap=3, floor=0.2,
                            combination=str(card), no_tagger=True)
    judge = auditor.judge
    assert isinstance(judge, HybridJudge) and (judge.window, judge.overlap) == (10, 3)  # the audit's W and O
    assert judge.floor == 0.2 and judge.combination.version == "refitted"
    assert not judge.local.semantic  # --no-tagger reaches its local judge
    options = HybridOptions(floor=0.1, no_tagger=True)
    direct = HybridJudge.from_options(options, judge.backend)
    assert (direct.window, direct.overlap, direct.floor) == (25, 10, 0.1) and not direct.local.semantic


def test_cli_audit_with_the_hybrid_judge(serve, tmp_path: Path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = serve(model)
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(RECORD) + "\n")
    out = tmp_path / "out.jsonl"
    run = CliRunner().invoke(main, ["audit", str(src), "-o", str(out), "--judge", "hybrid", "--base-url",
                                    server.base_url, "--model", "fake-model", "--no-cache", "-q"])
    assert run.exit_code == 0, run.output
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["judge"] == "hybrid" and row["usage"]["calls"] == 2
    assert [json.loads(c["raw"])["decided_by"] for c in row["claims"]] == ["local", "both", "local", "both"]
    assert all(math.isfinite(json.loads(c["raw"])["p_supported"]) for c in row["claims"]
               if json.loads(c["raw"])["decided_by"] == "both")
    assert row["config"]["judge_fingerprint"]
