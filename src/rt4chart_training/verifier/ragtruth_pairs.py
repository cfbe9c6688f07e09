"""RAGTruth **train** claims against their premises, labelled from the gold spans, and long-premise neutral pairs
(a claim against the evidence of another source).

Each answer is decomposed as the auditor does offline (``RuleDecomposer``); each claim's premise is
``premise_text(index, premise_sentences(index, claim))`` over the whole context, what the verifier reads at
global verification without a hint. A claim is hallucinated by ``splits.claim_is_hallucinated`` (the label the
local judge trains on): contradiction when a ``contradicted`` (RAGTruth "Conflict") span covers part of it, else
neutral (baseless); a claim no gold span touches is entailed; one that a span touches too little to count is left
out (neither label is sure). Claims with nothing to check (meta sentences, remarks about the sources, no word keys)
are left out too.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

from rt4chart.audit.decompose import RuleDecomposer
from rt4chart.eval.datasets import EvalRecord, GoldSpan
from rt4chart.evidence import EvidenceIndex, is_remark, premise_sentences, premise_text, read_claim

from ..splits import claim_is_hallucinated, covered
from .pairs import Pair

#: entailed claims given a neutral twin against another source's evidence, by default
OTHER_EVIDENCE_SHARE = 0.15


def claim_label(start: int, end: int, spans: Sequence[GoldSpan]) -> Optional[str]:
    """The NLI label of the claim at answer characters ``[start, end)``: contradiction or neutral when
    ``claim_is_hallucinated`` (contradiction when a contradicted span covers any of it), entailment when no span
    touches it, None when spans touch it too little to say."""
    if claim_is_hallucinated(start, end, spans):
        conflicts = [s for s in spans if s.label == "contradicted"]
        return "contradiction" if covered(start, end, conflicts) > 0 else "neutral"
    return "entailment" if covered(start, end, spans) == 0 else None


def checkable(claim: str) -> bool:
    """Whether a claim states something to check: not a meta sentence, not a remark about the sources, and with a
    word key."""
    reading = read_claim(claim)
    return not reading.meta and not is_remark(claim) and bool(reading.keys)


@dataclass
class RagtruthPairs:
    """The pairs, and the claims left out by reason."""

    pairs: list[Pair]
    skipped: dict[str, int] = field(default_factory=dict)


def ragtruth_pairs(records: Iterable[EvalRecord], *, max_words: int = 160, seed: int = 0,
                   other_share: float = OTHER_EVIDENCE_SHARE) -> RagtruthPairs:
    """Claim/premise pairs of RAGTruth train ``records`` (``source`` ``ragtruth/<task>``, ``group`` the record's
    context group), then the other-evidence neutral pairs (``ragtruth/<task>/other-evidence``, see
    ``other_evidence``)."""
    records = list(records)
    decomposer = RuleDecomposer()
    indexes: dict[str, EvidenceIndex] = {}
    pairs: list[Pair] = []
    skipped = {"nothing_to_check": 0, "partly_covered": 0}
    for r in records:
        index = indexes.get(r.group)
        if index is None:
            index = indexes[r.group] = EvidenceIndex(r.context)
        for c in decomposer.decompose_sync(r.answer):
            if not checkable(c.text):
                skipped["nothing_to_check"] += 1
                continue
            span = c.answer_spans[0]
            label = claim_label(span.start, span.end, r.spans)
            if label is None:
                skipped["partly_covered"] += 1
                continue
            premise = premise_text(index, premise_sentences(index, c.text, max_words=max_words))
            pairs.append(Pair(premise, c.text, label, f"ragtruth/{r.task}", r.group))
    task_of = {r.group: r.task for r in records}
    others = other_evidence(pairs, indexes, task_of, share=other_share, seed=seed, max_words=max_words)
    skipped["other_evidence_not_distinct"] = others.skipped["not_distinct"]
    return RagtruthPairs(pairs + others.pairs, skipped)


def other_evidence(pairs: Sequence[Pair], indexes: dict[str, EvidenceIndex], task_of: dict[str, str], *,
                   share: float, seed: int, max_words: int = 160) -> RagtruthPairs:
    """Neutral pairs: a seeded ``share`` of the entailed claims, each against the premise built the same way from
    the context of another source group of the same task (so the premise is as long and as related as a real
    one). A claim is kept only when one of its names or numbers (weight 2 in ``read_claim``) is absent from the
    other context, so that the other evidence cannot state it; its group stays the claim's own."""
    rng = random.Random(seed)
    by_task: dict[str, list[str]] = {}
    for g in sorted(indexes):
        by_task.setdefault(task_of[g], []).append(g)
    out: list[Pair] = []
    not_distinct = 0
    for p in pairs:
        if p.label != "entailment" or rng.random() >= share:
            continue
        groups = by_task[task_of[p.group]]
        if len(groups) < 2:
            continue
        other = groups[rng.randrange(len(groups) - 1)]
        if other == p.group:
            other = groups[-1]
        index = indexes[other]
        specific = [k for k, w in read_claim(p.hypothesis).keys.items() if w >= 2.0]
        if not any(k not in index.postings for k in specific):
            not_distinct += 1
            continue
        premise = premise_text(index, premise_sentences(index, p.hypothesis, max_words=max_words))
        out.append(Pair(premise, p.hypothesis, "neutral", f"{p.source}/other-evidence", p.group))
    return RagtruthPairs(out, {"not_distinct": not_distinct})
