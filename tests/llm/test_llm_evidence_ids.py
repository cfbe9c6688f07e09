"""The LLM judge's quotes get sentence ids only when a quote is found once in the text it read; otherwise the
auditor finds them by text (the fallback)."""

from __future__ import annotations

import asyncio
import json

from rt4chart.testing.openai_server import scripted

from rt4chart.audit.auditor import Auditor
from rt4chart.judges.llm import LLMJudge
from rt4chart.llm.backend import OpenAIBackend
from rt4chart.llm.verdicts import Shown, quote_ids
from rt4chart.text.segment import split_sentences
from rt4chart.types import Claim, Label, Span

OPENS = "The museum opens at 9 a.m. on weekdays."
CHUNK = f"{OPENS} The cafe sells cakes. Entry is free on Sundays. {OPENS}"
CLAIM = Claim(index=0, text="Entry is free on Sundays.", sentence_index=0, answer_spans=(Span(start=0, end=25),))


def v2(*quotes: str) -> str:
    return json.dumps({"reasoning": "r", "evidence": list(quotes), "verdict": "entailed", "reason": "why"})


def make(server, version="llm@v2") -> LLMJudge:
    return LLMJudge(OpenAIBackend(server.base_url, "m", backoff_base=0.0, backoff_max=0.0), prompt_version=version)


def test_a_quote_found_once_gets_the_ids_of_its_sentences(serve):
    server = serve(scripted(v2("entry is  free on Sundays", "cakes. Entry")))
    (j,) = asyncio.run(make(server).judge([CLAIM], CHUNK, question=None, stage="local"))
    assert j.evidence == ("Entry is free on Sundays", "cakes. Entry")  # the chunk's own characters
    assert j.evidence_ids == ((2,), (1, 2))


def test_a_quote_found_twice_gets_none_and_the_auditor_finds_it_by_text(serve):
    server = serve(scripted(v2(OPENS)))
    (j,) = asyncio.run(make(server).judge([CLAIM], CHUNK, question=None, stage="global"))
    assert j.label is Label.ENTAILED and j.evidence == (OPENS,) and j.evidence_ids == ()
    judge = make(serve(lambda req: v2(OPENS)))  # every call, local and global, quotes the repeated sentence
    result = asyncio.run(Auditor(judge=judge).audit({"id": 1, "context": CHUNK, "answer": CLAIM.text}))
    (claim,) = result.claims
    assert claim.label is Label.ENTAILED
    assert [(e.start, e.sentence_ids) for e in claim.evidence] == [(0, (0,))]  # text search: the first occurrence


def test_v3_cited_sentences_get_their_ids(serve):
    reply = json.dumps({"reason": "r", "verdict": "entailed", "sentences": [2]})
    (j,) = asyncio.run(make(serve(scripted(reply)), "llm@v3").judge([CLAIM], CHUNK, question=None, stage="local"))
    assert j.evidence == ("Entry is free on Sundays.",) and j.evidence_ids == ((2,),)


def test_quote_ids_by_occurrence():
    shown = Shown(CHUNK, CHUNK, tuple(split_sentences(CHUNK)))
    assert quote_ids(["The cafe sells cakes.", OPENS, "not there"], shown) == ((1,), (), ())
    assert quote_ids([OPENS], shown) == ()
