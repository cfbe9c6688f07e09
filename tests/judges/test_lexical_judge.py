"""Decisions of the offline lexical judge on small constructed cases (each would fail under a plausible bug)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from rt4chart import Label
from rt4chart.evidence import EvidenceIndex, Rule, Thresholds, assess, normalised_numbers, rule_of
from rt4chart.judges.lexical import LexicalJudge
from rt4chart.types import Claim, Span

E, C, N, U = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS, Label.UNVERIFIED

MUSEUM = (
    "The Hollis Museum is open from Tuesday to Sunday, 10:00 to 18:00. Admission is free for children under 12. "
    "Photography with flash is not permitted inside the galleries. The museum was founded in 1921 by Ada Hollis."
)
RECORD = '{\n"name": "Rudy\'s Tacos",\n"city": "Goleta",\n"state": "CA",\n"OutdoorSeating": true,\n' \
         '"hours": {\n"Monday": "9:0-21:0",\n"Friday": "9:0-22:30"\n}\n}'


def judge(claim, evidence=MUSEUM, question=None, **kw):
    j = LexicalJudge(**kw).judge_one(claim, evidence, question=question)
    if j.label in (E, C):
        assert j.evidence and all(q in evidence for q in j.evidence), j
    else:
        assert j.evidence == (), j
    return j


def test_supported_claim_is_entailed_with_verbatim_evidence():
    j = judge("The museum was founded in 1921 by Ada Hollis.")
    assert j.label == E
    assert j.evidence == ("The museum was founded in 1921 by Ada Hollis.",)
    assert 0 <= j.score < 0.5


def test_generic_paraphrase_words_do_not_sink_a_supported_claim():
    # "offers", "visitors", "notably" are not in the context, but the facts are
    assert judge("Notably, the museum offers free admission for children under 12.").label == E


@pytest.mark.parametrize("claim", [
    "Based on the passages, I cannot find any information about parking.",
    "Unable to answer based on the given passages.",
    "Sure, I can help you with that!",
    "Here is a summary of the article in 120 words:",
    "5.",
    "(Passage 2)",
])
def test_meta_refusal_and_list_markers_are_unverified_not_baseless(claim):
    j = judge(claim)
    assert j.label == U and j.score is None


def test_claim_restating_the_question_is_unverified():
    j = judge("Wheelchair ramps:", question="Does it have wheelchair ramps?")
    assert j.label == U
    # the same words without the question are unsupported, but as a header they state nothing
    assert judge("Wheelchair ramps").label == N
    assert judge("Wheelchair ramps:").label == U


def test_a_remark_about_the_sources_sharing_no_word_with_them_is_unverified():
    for remark in ("If you have any further questions, please let me know.",
                   "Based on the given passages, here's a brief answer to the question:"):
        j = judge(remark)
        assert j.label == U and j.score is None and "remark" in j.reason
    # a remark that also states something the evidence holds is judged as a claim
    assert judge("Based on the given passages, the museum was founded in 1921 by Ada Hollis.").label == E


def test_unsupported_claim_is_baseless():
    j = judge("The gift shop sells handmade pottery and vintage postcards.")
    assert j.label == N and j.score > 0.5


def test_number_absent_from_evidence():
    # the number matches no number-stating sentence well: baseless
    assert judge("The gift shop has 45 employees.", match=0.9).label == N
    # a sentence about the same fact states another number: contradicted, quoting that sentence
    j = judge("The museum was founded in 1925 by Ada Hollis.")
    assert j.label == C and j.evidence == ("The museum was founded in 1921 by Ada Hollis.",)


def test_clock_times_are_normalised():
    assert judge("Rudy's Tacos is open on Mondays from 9 AM to 9 PM.", RECORD).label == E
    assert judge("On Fridays it closes at 10:30 PM.", RECORD).label == E
    assert judge("On Fridays it closes at 11 PM.", RECORD).label == C


def test_numbers_are_normalised():
    found = normalised_numbers("2 1/2 cups, 1,200 people, the 3rd day, 4:30 pm", claim=True)
    assert {"2.5", "1200", "3", "16:30"} <= found
    # list markers, passage references and rating scales are not facts to check
    assert normalised_numbers("1. As passage 2 says, it has 4.5 out of 5 stars", claim=True) == {"4.5"}


def test_camel_case_keys_and_state_codes_support_a_record_claim():
    j = judge("Rudy's Tacos in Goleta, California offers outdoor seating.", RECORD)
    assert j.label == E


def test_unknown_name_is_baseless():
    j = judge("The museum was founded in 1921 by Ada Hollis and Pierre Lambert.")
    assert j.label == N and "lambert" in j.reason


def test_negation_flip_on_a_full_match_is_contradicted():
    j = judge("Photography with flash is permitted inside the galleries.")
    assert j.label == C and "negation" in j.reason
    assert judge("Photography with flash is permitted inside the galleries.", negation=None).label == E


def test_a_sentence_copied_but_for_one_edit_is_contradicted_with_the_edit_as_span():
    claim = "The museum was founded in 1921 by Ada Lovelace."
    j = judge(claim)  # another name where the sentence has "Hollis": not merely a name missing from the evidence
    assert j.label == C and j.evidence == ("The museum was founded in 1921 by Ada Hollis.",)
    assert [claim[s.start:s.end] for s in j.spans] == ["Lovelace"] and "'Hollis'" in j.reason
    claim = "The Hollis Museum is not open from Tuesday to Sunday."
    j = judge(claim)  # the sentence says more (the hours), so the both-ways negation check does not match it
    assert j.label == C and j.evidence[0].startswith("The Hollis Museum is open") and "negates" in j.reason
    assert claim[j.spans[0].start:j.spans[0].end] == "not"
    assert judge("The museum was founded in 1921 by Ada Hollis.").label == E


def test_not_only_is_not_a_negation():
    ctx = "The festival features jazz concerts and food stalls from local farms."
    assert judge("The festival features not only jazz concerts but also food stalls.", ctx).label == E


def test_empty_evidence_is_baseless():
    assert judge("The museum opens at ten.", "   ").label == N


def test_async_batch_matches_judge_one_and_parameters_are_validated():
    claims = [Claim(index=i, text=t, sentence_index=i, answer_spans=(Span(start=0, end=len(t)),))
              for i, t in enumerate(["Admission is free for children under 12.", "Sure!"])]
    out = asyncio.run(LexicalJudge().judge(claims, MUSEUM, question=None, stage="global"))
    assert [j.label for j in out] == [E, U]
    for bad in ({"support": 0}, {"match": 1.5}, {"negation": 0}, {"max_sentences": 0}):
        with pytest.raises(ValueError):
            LexicalJudge(**bad)


def test_judge_runs_off_the_event_loop(monkeypatch):
    threads = []
    real = LexicalJudge.judge_all

    def judge_all(self, *args):
        threads.append(threading.get_ident())
        return real(self, *args)

    monkeypatch.setattr(LexicalJudge, "judge_all", judge_all)
    claims = [Claim(index=0, text="Admission is free for children under 12.", sentence_index=0,
                    answer_spans=(Span(start=0, end=40),))]

    async def go():
        loop = threading.get_ident()
        out = await LexicalJudge().judge(claims, MUSEUM, question=None, stage="local")
        return loop, out

    loop, out = asyncio.run(go())
    assert [j.label for j in out] == [E]
    assert threads and threads[0] != loop


def test_an_index_judges_as_its_text_and_the_judge_keeps_its_indexes():
    j = LexicalJudge()
    index = EvidenceIndex(MUSEUM)
    claims = ["The museum was founded in 1921 by Ada Hollis.", "The museum was founded in 1925.",
              "Photography with flash is permitted inside the galleries.", "The museum opens at ten."]
    assert j.judge_all(claims, index) == j.judge_all(claims, MUSEUM) == [j.judge_one(c, MUSEUM) for c in claims]
    assert j.index(MUSEUM) is j.index(MUSEUM)
    assert LexicalJudge().index(MUSEUM) is not j.index(MUSEUM)  # each judge holds its own


def test_the_judge_decides_by_the_public_rule_under_its_thresholds():
    j = LexicalJudge(support=0.9, negation=None, names=False, max_sentences=2)
    assert j.thresholds == Thresholds(support=0.9, match=0.05, negation=None, names=False, max_sentences=2)
    assert (j.support, j.negation, j.names, j.max_sentences) == (0.9, None, False, 2)
    index = EvidenceIndex(MUSEUM)
    for claim in ("Photography with flash is permitted inside the galleries.", "The museum was founded by Ada Hollis.",
                  "The museum was founded in 1921 by Ada Lovelace."):
        a = assess(claim, index, None, 2)
        assert j.rule(a) is rule_of(a, j.thresholds)
    assert j.rule(assess("Photography with flash is permitted inside the galleries.", index)) is Rule.ENTAILED
    assert LexicalJudge().rule(assess("Photography with flash is permitted inside the galleries.", index)) \
        is Rule.NEGATION_CONFLICT
