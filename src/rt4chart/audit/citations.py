"""Citation checking: does the passage an answer's claim cites support it (ALCE's citation recall and precision,
Gao et al. 2023, read per claim).

The context is a list of passages and the answer cites them by inline markers ("[1]", "[2][3]", "[1, 3]": marker n =
the n-th passage; ``text.markup`` finds them and the decomposer keeps each claim's in ``Claim.citations``), or by
citation objects given beside the answer (a model API's: ``io.read_citations`` reads them into ``Record.citations``,
``attach_citations`` gives each to the claims it covers). A claim
is judged again against its cited passages alone, by the judge that audited the answer:

- ``supported``: its cited passages entail it;
- ``contradicted_by_cited``: its cited passages contradict it, and so the audit found (a claim the whole context
  entails or leaves baseless is never contradicted by a part of it);
- ``misattributed``: the context entails it, its cited passages do not (whatever a judge reads in them alone);
- ``unsupported``: it cites passages, and neither they nor the context support it;
- ``uncited``: it has no citation while the answer cites passages elsewhere (and the audit did not call it a
  remark: a claim the audit left ``unverified`` needs none, ``not_needed``);
- ``invalid``: a marker names no passage (a number beyond the list, or a passage with no text).

Per answer: citation recall (the share of claims needing a citation whose cited passages jointly entail them) and
precision (the share of citations that are relevant: a citation of a supported claim is irrelevant when its passage
alone does not entail the claim and the other cited passages still do; every citation of a claim that is not
supported counts as not relevant), their F1, and the counts of each status.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Optional, Sequence

from ..io import join_context, passage_bounds
from ..types import AuditResult, Citation, Claim, ClaimVerdict, Judgment, Label


class CitationStatus(str, Enum):
    SUPPORTED = "supported"
    MISATTRIBUTED = "misattributed"
    UNSUPPORTED = "unsupported"
    CONTRADICTED_BY_CITED = "contradicted_by_cited"
    UNCITED = "uncited"
    INVALID = "invalid"
    NOT_NEEDED = "not_needed"


#: the statuses that flag a claim's citation (all but supported and not needed), in the order above: what
#: ``audit --fail-on`` accepts and what the ExpertQA evaluation counts as flagged
FLAGGED = tuple(s for s in CitationStatus if s not in (CitationStatus.SUPPORTED, CitationStatus.NOT_NEEDED))


@dataclass(frozen=True)
class ClaimCitation:
    """One claim's citation check: the passages it cites (numbered from 1, as written), its status, and which of
    the cited passages are relevant (ALCE's precision)."""

    claim: int
    passages: tuple[int, ...]
    status: CitationStatus
    relevant: tuple[int, ...] = ()
    reason: str = ""
    #: the judge's score of the claim against its cited passages together (its risk: higher = less supported);
    #: None when they were not read (no citation, an invalid marker, or a judge that gives no score)
    score: Optional[float] = None
    #: the passages (numbered from 1) that hold the evidence the audit gave for the claim: the ones that decided it
    evidence_passages: tuple[int, ...] = ()

    def to_json(self) -> dict:
        return {"claim": self.claim, "passages": list(self.passages), "status": self.status.value,
                "relevant": list(self.relevant), "reason": self.reason, "score": self.score,
                "evidence_passages": list(self.evidence_passages)}


@dataclass(frozen=True)
class CitationReport:
    """The citation check of one answer."""

    claims: tuple[ClaimCitation, ...]

    def count(self, status: CitationStatus) -> int:
        return sum(c.status is status for c in self.claims)

    @property
    def needing(self) -> list[ClaimCitation]:
        """The claims that need a citation (all but ``not_needed``)."""
        return [c for c in self.claims if c.status is not CitationStatus.NOT_NEEDED]

    @property
    def recall(self) -> Optional[float]:
        need = self.needing
        return sum(c.status is CitationStatus.SUPPORTED for c in need) / len(need) if need else None

    @property
    def precision(self) -> Optional[float]:
        cited = sum(len(c.passages) for c in self.claims)
        return sum(len(c.relevant) for c in self.claims) / cited if cited else None

    @property
    def f1(self) -> Optional[float]:
        p, r = self.precision, self.recall
        if p is None or r is None:
            return None
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_json(self) -> dict:
        def rounded(x: Optional[float]) -> Optional[float]:
            return None if x is None else round(x, 4)

        return {"recall": rounded(self.recall), "precision": rounded(self.precision), "f1": rounded(self.f1),
                "claims_needing": len(self.needing), "citations": sum(len(c.passages) for c in self.claims),
                "counts": {s.value: self.count(s) for s in CitationStatus},
                "claims": [c.to_json() for c in self.claims]}


def attach_citations(claims: Sequence[Claim], citations: Sequence[Citation]) -> list[Claim]:
    """``claims`` with the citations given apart from the answer's text (``Record.citations``) added to the ones
    their text carried: a citation cites the claims whose answer spans it overlaps; one that overlaps none (a point
    after a sentence, as OpenAI's file citations are) cites the claim that ends nearest before it, or else the first
    claim after it."""
    spanned = [(i, c.answer_spans) for i, c in enumerate(claims) if c.answer_spans]
    extra: dict[int, list[Citation]] = {}
    for cit in citations:
        hit = [i for i, spans in spanned if any(sp.start < max(cit.end, cit.start + 1) and cit.start < sp.end
                                                for sp in spans)]
        if not hit:
            before = [(end, i) for i, spans in spanned if (end := max(sp.end for sp in spans)) <= cit.start]
            hit = [max(before)[1]] if before else [i for i, _ in spanned[:1]]
        for i in hit:
            extra.setdefault(i, []).append(cit)
    return [c.model_copy(update={"citations": tuple(sorted((*c.citations, *extra[i]), key=lambda x: x.start))})
            if i in extra else c for i, c in enumerate(claims)]


def evidence_passages(verdict: ClaimVerdict, bounds: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """The passages (numbered from 1) that the verdict's evidence lies in, given where each lies in the joined
    context (``io.passage_bounds``)."""
    return tuple(n for n, (start, end) in enumerate(bounds, 1)
                 if any(ev.start < end and start < ev.end for ev in verdict.evidence))


def _claim(verdict: ClaimVerdict) -> Claim:
    return Claim(index=verdict.index, text=verdict.text, sentence_index=verdict.sentence_index,
                 answer_spans=verdict.answer_spans, citations=verdict.citations)


async def _judged(judge: Any, claim: Claim, evidence: str, question: Optional[str]) -> Judgment:
    """The judge's judgment of ``claim`` against one evidence text (a global pass)."""
    return (await judge.judge([claim], evidence, question=question, stage="global"))[0]


async def check_citations(result: AuditResult, passages: Sequence[str], judge: Any, *,
                          cites: Optional[bool] = None) -> CitationReport:
    """Check the citations of ``result`` (an audit of an answer whose context is ``passages``, joined) with
    ``judge`` (the one that audited it): each cited claim against its cited passages together, and, for ALCE's
    precision, a claim citing several against each passage alone and against the others. ``cites``: whether the
    answer cites its passages, so that a claim without a citation is ``uncited`` (default: it has a marker)."""
    n = len(passages)
    cites_any = any(v.citations for v in result.claims) if cites is None else cites
    bounds = passage_bounds(passages)
    out: list[ClaimCitation] = []
    for v in result.claims:
        deciding = evidence_passages(v, bounds)
        cited = tuple(dict.fromkeys(p for c in v.citations for p in c.passages))
        if any(not 1 <= p <= n or not passages[p - 1].strip() for p in cited):
            bad = ", ".join(str(p) for p in cited if not 1 <= p <= n)
            empty = ", ".join(str(p) for p in cited if 1 <= p <= n and not passages[p - 1].strip())
            out.append(ClaimCitation(v.index, cited, CitationStatus.INVALID,
                                     reason=f"a marker names passage {bad}; the context has {n}" if bad else
                                     f"the cited passage {empty} has no text", evidence_passages=deciding))
            continue
        if not cited:
            needed = cites_any and v.label is not Label.UNVERIFIED
            out.append(ClaimCitation(v.index, (), CitationStatus.UNCITED if needed else CitationStatus.NOT_NEEDED,
                                     reason="no citation" if needed else "", evidence_passages=deciding))
            continue
        claim = _claim(v)
        judged = await _judged(judge, claim, join_context([passages[p - 1] for p in cited]), result.question)
        relevant: tuple[int, ...] = ()
        if judged.label is Label.ENTAILED:
            status, reason, relevant = CitationStatus.SUPPORTED, "the cited passages entail it", cited
            if len(cited) > 1:
                keep = []
                for p in cited:
                    alone = (await _judged(judge, claim, passages[p - 1], result.question)).label
                    others = (await _judged(judge, claim, join_context([passages[q - 1] for q in cited if q != p]),
                                            result.question)).label
                    if alone is Label.ENTAILED or others is not Label.ENTAILED:
                        keep.append(p)
                relevant = tuple(keep)
        elif v.label is Label.ENTAILED:
            # the whole context entails it, so no passage of it contradicts it: the support lies elsewhere
            held = ", ".join(str(p) for p in deciding if p not in cited)
            status, reason = CitationStatus.MISATTRIBUTED, "the context entails it, the cited passages do not" + (
                f" (the evidence is in passage {held})" if held else "")
        elif judged.label is Label.CONTRADICTED and v.label is Label.CONTRADICTED:
            status, reason = CitationStatus.CONTRADICTED_BY_CITED, "the cited passages contradict it"
        else:
            status, reason = CitationStatus.UNSUPPORTED, f"neither the cited passages nor the context support it " \
                                                         f"(audit: {v.label.value})"
        out.append(ClaimCitation(v.index, cited, status, relevant, reason, judged.score, deciding))
    return CitationReport(tuple(out))
