"""The auditor anchors evidence from the judges' sentence ids (``Judgment.evidence_ids``), by text only without."""

from __future__ import annotations

import asyncio

from rt4chart.audit.auditor import Auditor
from rt4chart.text.align import anchor, rebase_ids
from rt4chart.text.segment import split_sentences
from rt4chart.types import Judgment, Label

OPENS = "The museum opens at 9 a.m. on weekdays."
CTX = f"{OPENS} The cafe sells cakes and coffee. {OPENS} Entry is free on Sundays for every visitor."
ANSWER = "The museum opens at 9 a.m. on weekdays."


class QuotingJudge:
    """Says every claim is entailed by ``OPENS``, naming the sentence ``pick`` occurrences into the evidence text it
    reads (its own split of that text), or no sentence (``pick=None``)."""

    name = "quoting"

    def __init__(self, pick=1):
        self.pick = pick
        self.seen: list[str] = []

    async def judge(self, claims, evidence, *, question, stage, local_labels=None, hints=None):
        self.seen.append(evidence)
        own = [s.index for s in split_sentences(evidence) if s.text == OPENS]
        ids = ((own[min(self.pick, len(own) - 1)],),) if own and self.pick is not None else ()
        return [Judgment(label=Label.ENTAILED, evidence=(OPENS,), evidence_ids=ids) for _ in claims]


def _evidence(judge, context=CTX, **kw):
    result = asyncio.run(Auditor(judge=judge, **kw).audit({"id": 1, "context": context, "answer": ANSWER}))
    (claim,) = result.claims
    assert claim.label is Label.ENTAILED
    (ev,) = claim.evidence
    assert context[ev.start:ev.end] == ev.text == OPENS
    return ev


def test_the_id_picks_the_occurrence_of_a_sentence_the_context_holds_twice():
    second = CTX.index(OPENS, 1)
    ev = _evidence(QuotingJudge(pick=1))
    assert (ev.start, ev.sentence_ids) == (second, (2,))
    ev = _evidence(QuotingJudge(pick=0))
    assert (ev.start, ev.sentence_ids) == (0, (0,))


def test_a_quote_without_ids_is_found_by_text_first_occurrence():
    ev = _evidence(QuotingJudge(pick=None))
    assert (ev.start, ev.sentence_ids) == (0, (0,))


def test_chunk_ids_are_mapped_to_the_context_ids_when_a_chunk_judgment_is_final():
    """Without global verification a chunk's judgment is final: its ids number the chunk's own sentences, and the
    auditor maps them to the context's. With W=4, O=3 the second chunk is sentences 1-4 and holds both occurrences;
    its own sentence 2 is the context's 3 (unmapped, 2 would name the cafe and the text search the first one)."""
    context = "Tickets are sold at the door. " + CTX

    class SecondChunkOnly(QuotingJudge):
        async def judge(self, claims, evidence, *, question, stage, local_labels=None, hints=None):
            if not evidence.startswith(OPENS):
                return [Judgment(label=Label.BASELESS) for _ in claims]
            return await super().judge(claims, evidence, question=question, stage=stage)

    judge = SecondChunkOnly(pick=1)
    ev = _evidence(judge, context, window=4, overlap=3, global_verification=False)
    assert len(judge.seen) == 1 and split_sentences(judge.seen[0])[2].text == OPENS
    assert (ev.start, ev.sentence_ids) == (context.index(OPENS, context.index(OPENS) + 1), (3,))


def test_anchor_falls_back_to_text_when_the_ids_do_not_hold_the_quote():
    sentences = split_sentences(CTX)
    found, missing = anchor([OPENS], CTX, sentences, ids=[(1,)])  # sentence 1 is the cafe: a wrong id
    assert missing == [] and found[0].sentence_ids == (0,)
    found, _ = anchor([OPENS], CTX, sentences, ids=[(99,)])  # no such sentence
    assert found[0].sentence_ids == (0,)
    # two quotes of the same text from two sentences are two evidence spans
    found, _ = anchor([OPENS, OPENS], CTX, sentences, ids=[(0,), (2,)])
    assert [e.sentence_ids for e in found] == [(0,), (2,)]


def test_rebase_ids_maps_by_offsets():
    sentences = split_sentences(CTX)
    start = sentences[2].start
    own = split_sentences(CTX[start:])
    assert rebase_ids((0,), own, start, sentences) == (2,)
    assert rebase_ids((0, 1), own, start, sentences) == (2, 3)
    assert rebase_ids((5,), own, start, sentences) == ()
