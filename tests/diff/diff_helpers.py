"""Hand-made results for the diff tests: two runs whose records fall in every status and change, and runs of n
records with chosen hallucinations (for the rate and flip rules)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional, Sequence

from rt4chart.audit.joins import and_join
from rt4chart.types import AuditResult, ClaimVerdict, Evidence, Label, Span

ENT, CON, NIC = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS
CONTEXT = ("The free trial lasts 14 days from the date of activation. Verified users can extend it once by 7 days. "
           "Support is available by email.")
TRIAL, EXTEND, EMAIL = ("The free trial lasts 14 days from the date of activation.",
                        "Verified users can extend it once by 7 days.", "Support is available by email.")

Claim = tuple  # (text, label, evidence quote or None)


def result(rid: object, answer: str, claims: Sequence[Claim], *, context: str = CONTEXT, judge: str = "lexical",
           question: Optional[str] = "How long is the free trial?") -> dict:
    """A results line: each claim's text is found in the answer and its evidence quote in the context."""
    verdicts = []
    for i, (text, label, quote) in enumerate(claims):
        start = answer.find(text)
        spans = (Span(start=start, end=start + len(text)),) if start >= 0 else ()
        ev = ()
        if quote is not None:
            at = context.index(quote)
            ev = (Evidence(start=at, end=at + len(quote), text=quote, sentence_ids=(0,)),)
        verdicts.append(ClaimVerdict(index=i, text=text, sentence_index=i, label=label, answer_spans=spans,
                                     evidence=ev, reason=f"reason of claim {i}"))
    label = and_join(v.label for v in verdicts)
    out = AuditResult(id=rid, label=label, hallucinated=label.hallucinated, claims=tuple(verdicts), context=context,
                      question=question, answer=answer, judge=judge).to_json()
    return out


def error(rid: object, message: str = "the judge failed") -> dict:
    return {"id": rid, "index": 0, "error": {"field": None, "message": message, "kind": "internal"}}


def write(path: Path, rows: Sequence[dict]) -> Path:
    path.write_text("".join(json.dumps({**row, "index": i}, ensure_ascii=False) + "\n" for i, row in enumerate(rows)),
                    encoding="utf-8")
    return path


SHORT, LONG = "The free trial lasts 14 days.", "The free trial lasts 30 days."
PHONE = "Phone support is free."


def two_runs(folder: Path, *, after_judge: str = "local") -> tuple[Path, Path]:
    """Two runs of ten ids, one per case (the expected status and change are in ``EXPECTED``)."""
    before = [
        result("same", SHORT, [(SHORT, ENT, TRIAL)]),
        result("newly", SHORT, [(SHORT, ENT, TRIAL)]),
        result("fixed", LONG, [(LONG, CON, TRIAL)]),
        result("flip", PHONE, [(PHONE, CON, EMAIL)]),
        result("relabel", f"{LONG} {PHONE}", [(LONG, CON, TRIAL), (PHONE, NIC, None)]),
        result("evidence", SHORT, [(SHORT, ENT, TRIAL)]),
        result("reworded", SHORT, [(SHORT, ENT, TRIAL)]),
        result("errored", SHORT, [(SHORT, ENT, TRIAL)]),
        result("gone", SHORT, [(SHORT, ENT, TRIAL)]),
    ]
    after = [
        result("same", SHORT, [(SHORT, ENT, TRIAL)], judge=after_judge),
        result("newly", LONG, [(LONG, CON, TRIAL)], judge=after_judge),
        result("fixed", SHORT, [(SHORT, ENT, TRIAL)], judge=after_judge),
        result("flip", PHONE, [(PHONE, NIC, None)], judge=after_judge),
        result("relabel", f"{LONG} {PHONE}", [(LONG, CON, TRIAL), (PHONE, ENT, EMAIL)], judge=after_judge),
        result("evidence", SHORT, [(SHORT, ENT, EXTEND)], judge=after_judge),
        result("reworded", SHORT, [("The trial lasts 14 days.", ENT, TRIAL)], judge=after_judge),
        error("errored"),
        result("new <img src=x onerror=alert(1)>", "Email <b>support</b> is free.",
               [("Email <b>support</b> is free.", NIC, None)], judge=after_judge),
        error(None, "line 12 is not valid JSON"),  # no id: reported, never matched
    ]
    return write(folder / "before.jsonl", before), write(folder / "after.jsonl", after)


EXPECTED = {  # id -> (status, change)
    "same": ("not_hallucinated", "unchanged"),
    "newly": ("newly_hallucinated", "answer_changed"),
    "fixed": ("fixed", "answer_changed"),
    "flip": ("still_hallucinated", "label_flip"),
    "relabel": ("still_hallucinated", "claims_changed"),
    "evidence": ("not_hallucinated", "evidence_changed"),
    "reworded": ("not_hallucinated", "claims_changed"),
    "errored": ("errored", None),
    "gone": ("only_before", None),
    "new <img src=x onerror=alert(1)>": ("only_after", None),
}


def rate_runs(folder: Path, n: int, before_bad: int, after_bad: int) -> tuple[Path, Path]:
    """Two runs of the same ``n`` answers, the first ``before_bad`` (``after_bad``) of them contradicted."""
    def run(bad: int) -> list[dict]:
        return [result(f"r{i}", LONG if i < bad else SHORT, [(LONG, CON, TRIAL) if i < bad else (SHORT, ENT, TRIAL)])
                for i in range(n)]
    return write(folder / f"rate_{before_bad}.jsonl", run(before_bad)), write(folder / f"rate_{after_bad}.jsonl",
                                                                                run(after_bad))
