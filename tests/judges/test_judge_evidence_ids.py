"""The offline judges and the hybrid name the sentences their evidence quotes (``Judgment.evidence_ids``): ids of the
evidence text's sentences as ``split_sentences`` numbers them, so at global verification the context's."""

from __future__ import annotations

import asyncio
import json

import pytest
from rt4chart.testing.openai_server import Reply

from rt4chart.audit.auditor import Auditor
from rt4chart.judges.combine import FEATURES, Combination, Logistic
from rt4chart.judges.hybrid import HybridJudge
from rt4chart.judges.lexical import LexicalJudge
from rt4chart.judges.llm import Endpoint, build_backend
from rt4chart.judges.local import LocalJudge
from rt4chart.text.segment import split_sentences
from rt4chart.types import Claim, Judgment, Label, Span

CONTEXT = ("The city library opens at 9 a.m. on weekdays. Entry costs 5 euros for adults. Children under 12 enter "
           "for free. The reading room on the second floor has 40 seats. The city library opens at 9 a.m. on "
           "weekdays.")
CLAIMS = ["The city library opens at 9 a.m. on weekdays.", "Entry costs 7 euros for adults.",
          "Children under 12 enter for free.", "The reading room offers free wifi to its visitors.",
          "The building has a rooftop garden with palm trees."]


def claims(texts=CLAIMS) -> list[Claim]:
    return [Claim(index=i, text=t, sentence_index=i, answer_spans=(Span(start=0, end=len(t)),))
            for i, t in enumerate(texts)]


def assert_ids_name_the_quotes(judgments: list[Judgment], text: str = CONTEXT) -> int:
    """Every quote with ids is the text of the sentence its id names; returns how many quotes had ids."""
    sentences = split_sentences(text)
    named = 0
    for j in judgments:
        assert len(j.evidence_ids) in (0, len(j.evidence))
        for quote, ids in zip(j.evidence, j.evidence_ids):
            if ids:
                s, e = sentences[ids[0]].start, sentences[ids[-1]].end
                assert quote in text[s:e]
                named += 1
    return named


@pytest.fixture(scope="module")
def local() -> LocalJudge:
    return LocalJudge()


def test_the_lexical_judge_names_its_evidence_sentences():
    judgments = LexicalJudge().judge_all(CLAIMS, CONTEXT)
    assert judgments[0].label is Label.ENTAILED and judgments[1].label is Label.CONTRADICTED
    assert all(j.evidence_ids for j in judgments if j.evidence)
    assert assert_ids_name_the_quotes(judgments) >= 2
    assert judgments[1].evidence_ids == ((1,),)


@pytest.mark.parametrize("stage", ["local", "global"])
def test_the_local_judge_names_its_evidence_sentences(local, stage):
    judgments = asyncio.run(local.judge(claims(), CONTEXT, question=None, stage=stage))
    assert judgments[0].label is Label.ENTAILED and judgments[1].label is Label.CONTRADICTED
    assert all(j.evidence_ids for j in judgments if j.evidence)
    assert assert_ids_name_the_quotes(judgments) >= 3
    assert judgments[1].evidence_ids == ((1,),)


def test_the_local_premises_are_quotes_with_their_ids(local):
    for quotes, ids in local.premises(claims(), CONTEXT, None, 2):
        assert len(quotes) == len(ids) <= 2
        assert all(split_sentences(CONTEXT)[i].text == q for q, (i,) in zip(quotes, ids))


def test_an_audit_keeps_the_sentences_the_local_judge_named(local):
    """The context holds its first sentence twice: the evidence is anchored where the judge's id points."""
    result = asyncio.run(Auditor(judge=local).audit({"id": 1, "context": CONTEXT, "answer": " ".join(CLAIMS[:3])}))
    sentences = split_sentences(CONTEXT)
    for verdict in result.claims:
        for ev in verdict.evidence:
            assert ev.sentence_ids and all(sentences[i].text in ev.text or ev.text in sentences[i].text
                                           for i in ev.sentence_ids)


def _logistic(**coef: float) -> Logistic:
    return Logistic(coef=tuple(coef.get(n, 0.0) for n in FEATURES), intercept=0.0, threshold=0.5)


def test_the_hybrid_passes_on_the_local_ids_and_gives_its_premise_ids(serve, local):
    """A claim the combination clears keeps the local judge's evidence and ids, or (a locally baseless one) gets the
    premise's sentences with theirs."""
    server = serve(lambda req: Reply.yes_no(0.97))
    backend = build_backend(Endpoint(base_url=server.base_url, model="fake-model", cache=False, max_attempts=2,
                                     backoff_base=0.0, backoff_max=0.0))
    follows = Combination(hallucinated=_logistic(llm=1.0), contradicted=_logistic(local_entailed=10.0),
                          version="test", card={})
    hybrid = HybridJudge(local, backend, combination=follows, ask_max_words=None, rules_decide=False)
    cs = claims(CLAIMS[:3])
    alone = asyncio.run(local.judge(cs, CONTEXT, question=None, stage="global"))
    judgments = asyncio.run(hybrid.judge(cs, CONTEXT, question=None, stage="global"))
    assert all(json.loads(j.raw)["decided_by"] == "both" for j in judgments)
    assert all(j.label is Label.ENTAILED and j.evidence and j.evidence_ids for j in judgments)
    assert assert_ids_name_the_quotes(judgments) >= 3
    assert judgments[0].evidence_ids == alone[0].evidence_ids and judgments[2].evidence_ids == alone[2].evidence_ids
    # a locally baseless claim the combination clears: the premise's sentences and their ids
    cs = claims(CLAIMS[3:])
    alone = asyncio.run(local.judge(cs, CONTEXT, question=None, stage="global"))
    room = asyncio.run(hybrid.judge(cs, CONTEXT, question=None, stage="global"))[0]
    assert alone[0].label is Label.BASELESS and alone[0].evidence == ()
    assert room.label is Label.ENTAILED and room.evidence_ids
    assert assert_ids_name_the_quotes([room]) == len(room.evidence) >= 1
