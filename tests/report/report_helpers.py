"""Helpers for the report tests: audit results of examples/ with the offline judge, and synthetic results."""

from __future__ import annotations

import asyncio
import copy
import json
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

from rt4chart.types import AuditResult, ClaimVerdict, Evidence, Label, Span, Usage

ROOT = Path(__file__).resolve().parents[2]


def example_results() -> list[dict]:
    """examples/records.jsonl audited by the Auditor with the lexical judge, as `rt4chart audit` writes them."""
    return copy.deepcopy(_example_results())


@lru_cache(maxsize=1)
def _example_results() -> list[dict]:
    from rt4chart.judges.registry import build_auditor

    auditor = build_auditor("lexical")
    records = [json.loads(line) for line in (ROOT / "examples" / "records.jsonl").read_text().splitlines() if line]

    async def run() -> list[dict]:
        return [(await auditor.audit(r)).to_json() for r in records]

    # Its own thread: Playwright's sync API keeps an event loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(run())).result()


def crafted_result(rid: object = "crafted", *, context: str = "", answer: str = "", task: str = "qa") -> AuditResult:
    """One contradicted, one baseless and one entailed claim, with evidence, over any context/answer text.

    The answer is split in three equal parts (one claim each); the evidence of the first and last claims are the
    first and last thirds of the context.
    """
    context = context or "Alpha is one. Beta is two. Gamma is three."
    answer = answer or "Alpha is nine. Delta is four. Gamma is three."
    a, c = len(answer) // 3, len(context) // 3
    labels = (Label.CONTRADICTED, Label.BASELESS, Label.ENTAILED)
    claims = []
    for i, label in enumerate(labels):
        start, end = i * a, (len(answer) if i == 2 else (i + 1) * a)
        ev = ()
        if label != Label.BASELESS:
            cs, ce = (0, c) if i == 0 else (2 * c, len(context))
            ev = (Evidence(start=cs, end=ce, text=context[cs:ce], sentence_ids=(i,)),)
        claims.append(ClaimVerdict(
            index=i, text=answer[start:end], sentence_index=i, label=label, local_label=label,
            chunk_labels=(label, Label.BASELESS), focus_chunk=0 if ev else None,
            answer_spans=(Span(start=start, end=end),), evidence=ev, reason=f"reason <{label.value}>",
            score=0.5, raw="raw model reply"))
    return AuditResult(id=rid, label=Label.CONTRADICTED, hallucinated=True, claims=tuple(claims),
                       spans=(Span(start=0, end=2 * a),), context=context, question="Q <b>?</b>", answer=answer,
                       judge="crafted", config={"task": task}, usage=Usage(calls=3, prompt_tokens=100,
                                                                           completion_tokens=20, cost_usd=0.01))
