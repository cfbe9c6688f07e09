"""The Judge protocol: the one seam that decides labels (DESIGN.md "Contracts").

It lives beside the auditor that calls it; the judges (``rt4chart.judges``) implement it, and
``rt4chart.judges.base.Judge`` re-exports it for users.

A judge receives a batch of claims and one evidence text and returns one ``Judgment`` per claim, in order.

- ``stage="local"``: ``evidence`` is one context chunk (RT4CHART §3.4). ``local_labels``/``hints`` are None.
- ``stage="global"``: ``evidence`` is the full context C (§3.5). ``local_labels[i]`` is claim i's OR-joined local
  label and ``hints[i]`` its focus chunk text (None for a locally baseless claim: Table 2 gives it no hint). A judge
  may use the hint only to know where to look; evidence quotes must come from ``evidence``.

A judge that knows which sentences it quotes names them in ``Judgment.evidence_ids`` (one tuple per quote: the ids
``rt4chart.text.segment.split_sentences`` gives the sentences of ``evidence``); the auditor then anchors each quote in
those sentences (the context's ids at the global stage; a chunk's it maps by offsets) and searches the text only for
a quote without ids. Ids are optional: never give a guess.

A judge may declare the ``languages`` it reads (ISO 639-1 codes, ``text.language``); the auditor leaves a claim of
an answer in another language ``unverified`` unless the judge found a contradiction by a check that reads no words
(a number or a date). Without the attribute a judge reads every language (the LLM judges).

Judges never fail open: a judgment they cannot make is ``Label.UNVERIFIED`` with a reason (or a ``JudgeError``),
never ``entailed``. How a judge batches its work (one call per claim, one per chunk) is its own business.
Model calls are accounted with ``rt4chart.llm.meter.record_usage``, which the auditor scopes to each record.
The auditor awaits ``judge`` on the event loop, so a judge that computes (rather than waits on a model server)
should run that work in a thread (``asyncio.to_thread``) to keep the loop, and a server on it, responsive.
"""

from __future__ import annotations

from typing import Optional, Protocol, Sequence, runtime_checkable

from ..types import Claim, Judgment, Label, Stage


@runtime_checkable
class Judge(Protocol):
    """Decides entailed / contradicted / baseless for claims against an evidence text."""

    name: str

    async def judge(
        self,
        claims: Sequence[Claim],
        evidence: str,
        *,
        question: Optional[str],
        stage: Stage,
        local_labels: Optional[Sequence[Label]] = None,
        hints: Optional[Sequence[Optional[str]]] = None,
    ) -> list[Judgment]: ...


@runtime_checkable
class SlottedJudge(Protocol):
    """A judge whose model server answers a fixed number of requests at once (a llama.cpp server's slots):
    ``rt4chart.judges.registry.build_auditor`` caps the records in flight at ``records_in_flight`` (None: no cap of
    its own)."""

    records_in_flight: Optional[int]
