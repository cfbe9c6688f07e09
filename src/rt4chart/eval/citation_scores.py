"""How well a judge checks citations, on ExpertQA's expert labels (``datasets.expertqa``)::

    rt4chart eval citations --judge local -o OUT

Each ExpertQA claim sentence is audited against its answer's passages and its citations checked
(``audit.citations.check_citations``, the answer taken as citing its passages). A sentence is **flagged** (its
citations do not support it) when any of its claims is misattributed, unsupported, contradicted by its cited
passages, uncited or invalid; its **risk** is the highest of its claims' scores against their cited passages (1.0
for a flagged claim that was not read, 0.0 for a claim that needs no citation). Against the expert's labels:
AUROC of the risk and F1 of the flag for Missing vs Complete support (Missing sentences are nearly all uncited, so
this mostly measures finding the claims without a citation), among cited sentences the AUROC of the risk for Partial
or Incomplete vs Complete support, the share flagged for each label, and a **marker-swap probe**: each Complete
sentence the check finds supported, citing one passage, gets its marker moved to another passage of the same answer;
the detection rate is the share then flagged (the other passage may support it too, so this is a lower bound on what
swaps it catches), beside the share of untouched Complete sentences flagged. A sentence whose answer has no passage
text in the release (some systems' evidence is a URL alone) cannot be checked and is left out, counted apart.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Optional, Sequence

import numpy as np

from ..audit.citations import FLAGGED, check_citations
from ..text.markup import citation_markers
from .datasets.expertqa import CitedClaim
from .metrics import answer_prf, auroc

FLAGS = frozenset(FLAGGED)


async def check_one(auditor: Any, claim: CitedClaim) -> dict:
    """One sentence's audit and citation check: its statuses, flag and risk; an answer none of whose passages has
    text in the release cannot be checked (``checked`` False: left out of the metrics)."""
    if not any(p.strip() for p in claim.passages):
        return {"id": claim.id, "support": claim.support, "checked": False, "statuses": [], "flagged": None,
                "risk": None, "passages": [], "note": "no passage of the answer has text in the release"}
    result = await auditor.audit(claim.to_record())
    report = await check_citations(result, claim.passages, auditor.judge, cites=True)
    statuses = [c.status for c in report.claims]
    flagged = any(s in FLAGS for s in statuses) or not statuses
    risks = [c.score if c.score is not None else (1.0 if c.status in FLAGS else 0.0) for c in report.claims]
    return {"id": claim.id, "support": claim.support, "checked": True, "statuses": [s.value for s in statuses],
            "flagged": flagged, "risk": max(risks) if risks else 1.0,
            "passages": sorted({p for c in report.claims for p in c.passages})}


def swapped(claim: CitedClaim, cited: Sequence[int]) -> Optional[CitedClaim]:
    """The claim with its one cited passage's markers moved to the next passage of the answer that has text; None
    when it cites several passages or the answer has no other passage with text."""
    if len(cited) != 1:
        return None
    n = len(claim.passages)
    others = [(cited[0] - 1 + k) % n + 1 for k in range(1, n)]
    target = next((p for p in others if claim.passages[p - 1].strip()), None)
    if target is None:
        return None
    text = claim.claim
    for m in reversed(citation_markers(text)):
        if m.passages == (cited[0],):
            text = text[:m.start] + f"[{target}]" + text[m.end:]
    return CitedClaim(id=f"{claim.id}-swap", question=claim.question, claim=text, passages=claim.passages,
                      support=claim.support)


def _ranked(rows: Sequence[dict]) -> dict:
    """AUROC of the risk for Partial or Incomplete support (positive) vs Complete, among cited sentences."""
    y = np.array([r["support"] != "Complete" for r in rows])
    if y.all() or not y.any():
        return {"auroc": None, "n": len(rows)}
    return {"auroc": round(auroc(y, np.array([r["risk"] for r in rows])), 4), "n": len(rows),
            "positive": int(y.sum())}


def summarize(rows: Sequence[dict], swaps: Sequence[dict]) -> dict:
    """The metrics of the checked sentences of ``rows`` and of the swapped ones ``swaps``."""
    unchecked = sum(not r["checked"] for r in rows)
    rows = [r for r in rows if r["checked"]]
    by = {s: [r for r in rows if r["support"] == s] for s in ("Complete", "Incomplete", "Partial", "Missing")}
    pair = by["Complete"] + by["Missing"]
    y = np.array([r["support"] == "Missing" for r in pair])
    prf = answer_prf(y, [r["flagged"] for r in pair])  # positive: Missing support, predicted: flagged
    out: dict[str, Any] = {
        "sentences": len(rows), "unchecked": unchecked, "counts": {s: len(v) for s, v in by.items()},
        "missing_vs_complete": {"auroc": round(auroc(y, np.array([r["risk"] for r in pair])), 4),
                                **{k: round(getattr(prf, k), 4) for k in ("precision", "recall", "f1")}},
        "flagged_share": {s: round(float(np.mean([r["flagged"] for r in v])), 4) if v else None
                          for s, v in by.items()},
        "missing_cited": sum(bool(r["passages"]) for r in by["Missing"]),
        "incomplete_vs_complete_cited": _ranked([r for r in by["Complete"] + by["Incomplete"] + by["Partial"]
                                                 if r["passages"]]),
        "swap": {"swapped": len(swaps),
                 "detected": round(float(np.mean([r["flagged"] for r in swaps])), 4) if swaps else None,
                 "untouched_complete_flagged": round(float(np.mean([r["flagged"] for r in by["Complete"]])), 4)
                 if by["Complete"] else None}}
    return out


def evaluate(claims: Sequence[CitedClaim], auditor: Any,
             on_result: Optional[Callable[[], None]] = None) -> tuple[list[dict], list[dict], dict]:
    """Check every claim sentence, then the marker-swap probe; returns (rows, swapped rows, metrics)."""

    async def run() -> tuple[list[dict], list[dict]]:
        rows, swaps = [], []
        for c in claims:
            row = await check_one(auditor, c)
            rows.append(row)
            if on_result is not None:
                on_result()
            if c.support == "Complete" and not row["flagged"]:
                s = swapped(c, row["passages"])
                if s is not None:
                    swaps.append(await check_one(auditor, s))
        return rows, swaps

    rows, swaps = asyncio.run(run())
    return rows, swaps, summarize(rows, swaps)
