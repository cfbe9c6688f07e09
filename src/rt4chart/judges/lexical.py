"""A fast offline heuristic judge that needs no model (``--judge lexical``).

It is an honest baseline, not an NLI model. For each claim it weighs the claim's content words (numbers and names
count most, generic words such as "offers" or "described" least), finds the evidence sentences that cover most of
that weight (the best sentence, greedily joined by up to ``max_sentences - 1`` more that cover further words, for
claims that combine facts or a record's fields) and decides, in this order:

- **unverified** when there is nothing to check: a meta or hedging sentence ("Here is a summary…", "I cannot
  find…", "Sure!"), a list marker, a claim whose only content words restate the question, or a remark about the
  sources or the conversation that shares no word with the evidence ("If you have any further questions, feel free
  to ask."; ``is_remark``). UNVERIFIED does not flag the answer (DESIGN.md "Contracts") and is never turned into
  entailed;
- **contradicted** when the claim states a number (clock times, fractions and ordinals normalised) found nowhere in
  the evidence and the best-matching number-stating sentence covers >= ``match`` of its content words, or when a
  sentence of opposite negation polarity matches it both ways (coverage >= ``negation``); evidence = that sentence.
  Also when it copies an evidence sentence but for one edit, another name, number word or closed-class word
  ("tall" for "wide") in one place, a negation the sentence does not have, or none where it has one
  (``rt4chart.evidence.one_edit``; the two negation edits not with ``negation=None``), whatever the rules below
  would say;
- **baseless** when the claim states numbers, or capitalised names, that occur nowhere in the evidence text (nor,
  for names, in the question), or when the weighted coverage stays below ``support``;
- **entailed** otherwise; evidence = the matching sentence(s).

Claims are decided one by one, but the answer label is their AND-join over ~9 claims per answer, so each claim
decision must be conservative: the defaults were chosen on the RAGTruth train split by
``python -m training.experiments.tune_lexical_judge`` (docs/history.md).

The evidence work (index, assessment, rules, one-edit copies) is ``rt4chart.evidence``; this module turns its
``Rule`` into a ``Judgment``. ``Judgment.score`` is the claim's hallucination risk in [0, 1] (1 - weighted
coverage, 1.0 for a number mismatch). Global hints are not needed: the judge always searches the whole evidence text
it is given. The work runs in a worker thread (``asyncio.to_thread``), so a server's event loop stays free while a
batch of claims is judged.
"""

from __future__ import annotations

import asyncio
from dataclasses import fields
from functools import lru_cache
from typing import Optional, Sequence, Union

from ..evidence import (
    Assessment, EvidenceIndex, Kind, Rule, Thresholds, assess, derive, is_remark, normalised_numbers, one_edit,
    premise, read_as, restated,
)
from ..evidence import rule_of as _rule_of
from ..types import Claim, Judgment, Label, Span, Stage
from .judge_options import LexicalOptions

#: evidence texts whose index a judge keeps: the answers to one context come one after another in a batch or an
#: eval, and a context's chunks and the context itself are judged in turn
INDEXES = 64


class LexicalJudge:
    """Weighted content-word coverage judge with number and negation checks. See the module docstring.

    ``support``: weighted coverage a claim needs to be entailed; ``match``: unweighted coverage of the best
    number-stating sentence for a number mismatch to count as a contradiction; ``negation``: how closely (coverage
    both ways) a sentence of opposite polarity must match for a negation contradiction (None: never);
    ``names``: whether a capitalised name found nowhere in the evidence (nor in the question) makes a claim
    baseless; ``max_sentences``: how many evidence sentences one claim may join (``rt4chart.evidence.Thresholds``).
    The judge keeps the index of the last ``INDEXES`` evidence texts it was given.
    """

    name = "lexical"
    #: the languages it reads (its stopwords, stems and negations are English): the auditor leaves a claim of an
    #: answer in another language unverified but for a number or date that differs (``audit.auditor.unread``)
    languages = ("en",)

    def __init__(
        self,
        *,
        support: float = 0.5,
        match: float = 0.05,
        negation: Optional[float] = 1.0,
        names: bool = True,
        max_sentences: int = 3,
    ) -> None:
        self.thresholds = Thresholds(support=support, match=match, negation=negation, names=names,
                                     max_sentences=max_sentences)
        self._indexes = lru_cache(maxsize=INDEXES)(EvidenceIndex)

    @classmethod
    def from_options(cls, options: LexicalOptions) -> "LexicalJudge":
        """The judge for ``options`` (``--support``, ``--match``; None: the default)."""
        given = {f.name: getattr(options, f.name) for f in fields(options)}
        return cls(**{k: v for k, v in given.items() if v is not None})

    def index(self, evidence: str) -> EvidenceIndex:
        """The index of an evidence text (the judge keeps the last ``INDEXES``)."""
        return self._indexes(evidence)

    @property
    def support(self) -> float:
        return self.thresholds.support

    @property
    def match(self) -> float:
        return self.thresholds.match

    @property
    def negation(self) -> Optional[float]:
        return self.thresholds.negation

    @property
    def names(self) -> bool:
        return self.thresholds.names

    @property
    def max_sentences(self) -> int:
        return self.thresholds.max_sentences

    async def judge(
        self,
        claims: Sequence[Claim],
        evidence: str,
        *,
        question: Optional[str],
        stage: Stage,
        local_labels: Optional[Sequence[Label]] = None,
        hints: Optional[Sequence[Optional[str]]] = None,
    ) -> list[Judgment]:
        return await asyncio.to_thread(self.judge_all, [c.text for c in claims], evidence, question)

    def judge_all(self, claims: Sequence[str], evidence: Union[str, EvidenceIndex],
                  question: Optional[str] = None) -> list[Judgment]:
        """Judge claim texts against one evidence text (indexed once), in order."""
        index = self.index(evidence) if isinstance(evidence, str) else evidence
        return [self.judge_one(c, index, question=question) for c in claims]

    def judge_one(self, claim: str, evidence: Union[str, EvidenceIndex], *,
                  question: Optional[str] = None) -> Judgment:
        """Judge one claim against ``evidence``, a text or its index (the question only tells which words restate
        it)."""
        index = self.index(evidence) if isinstance(evidence, str) else evidence
        derived = derive(claim, index, question)
        if derived is not None:
            return derived.judgment(index)
        a = assess(claim, index, question, self.thresholds.max_sentences)
        if a.kind == Kind.NO_EVIDENCE and is_remark(claim):
            return Judgment(label=Label.UNVERIFIED, score=None, reason="a remark about the sources or the "
                            "conversation, or a header, sharing no word with the evidence: nothing to check")
        judgment = self._decide(a, index, claim)
        if judgment.label is Label.ENTAILED:
            _, read = restated(claim, index)
            if read:
                judgment = judgment.model_copy(update={"reason": f"{judgment.reason}; {read_as(read)}"})
        if judgment.label in (Label.ENTAILED, Label.BASELESS):
            edit = one_edit(claim, index.edits)
            if edit is not None and (self.negation is not None or edit.kind not in ("negation", "affirmation")):
                return Judgment(label=Label.CONTRADICTED, evidence=(index.texts[edit.sentence],), score=1.0,
                                evidence_ids=((edit.sentence,),),
                                spans=(Span(start=edit.start, end=edit.end),), reason=edit.describe())
        return judgment

    def rule(self, a: Assessment) -> Rule:
        """Which rule decides ``a`` under this judge's thresholds (``rt4chart.evidence.rule_of``)."""
        return _rule_of(a, self.thresholds)

    def _decide(self, a: Assessment, index: EvidenceIndex, claim: str) -> Judgment:
        rule = self.rule(a)
        if rule == Rule.UNVERIFIED:
            return Judgment(label=Label.UNVERIFIED, reason=a.reason, score=None)
        if rule == Rule.NO_EVIDENCE:
            return Judgment(label=Label.BASELESS, reason=a.reason or "no evidence sentence shares a content word",
                            score=1.0)
        texts = index.texts
        top = texts[a.order[0]]
        if rule == Rule.NUMBER_CONFLICT:
            at = index.contradicting(claim, a.rival)
            rival = texts[at]
            numbers = ", ".join(sorted(normalised_numbers(rival, claim=False))[:6])
            return Judgment(
                label=Label.CONTRADICTED,
                evidence=(rival,),
                evidence_ids=((at,),),
                reason=f"the closest sentence stating numbers has {numbers}, the claim "
                f"{', '.join(sorted(a.missing_numbers))}",
                score=1.0, rule=rule.value,
            )
        if rule == Rule.NEGATION_CONFLICT:
            return Judgment(
                label=Label.CONTRADICTED, evidence=(top,), evidence_ids=((a.order[0],),),
                reason="the closest sentence has the opposite negation",
                score=0.9,
            )
        if rule == Rule.NUMBER_MISSING:
            return Judgment(
                label=Label.BASELESS,
                reason=f"numbers not found in the evidence: {', '.join(sorted(a.missing_numbers))}",
                score=1.0,
            )
        if rule == Rule.NAME_MISSING:
            return Judgment(
                label=Label.BASELESS, reason=f"names not found in the evidence: {', '.join(a.missing_names)}",
                score=1.0,
            )
        k = min(len(a.cover), self.max_sentences)
        coverage = a.cover[k - 1]
        if rule == Rule.ENTAILED:
            # best first (the greedy cover's order), and never a sentence that says otherwise
            # (with the negation check off, as an ablation reads words alone, the cover's order as it is)
            order = index.supporting(claim, a.order) if self.negation is not None else list(a.order)
            quotes, ids = premise(texts, order[:k])
            return Judgment(
                label=Label.ENTAILED,
                evidence=quotes,
                evidence_ids=ids,
                reason=f"{coverage:.0%} of the claim's weighted content words occur in the evidence sentence(s)",
                score=round(1.0 - coverage, 4),
            )
        return Judgment(
            label=Label.BASELESS,
            reason=f"only {coverage:.0%} of the weighted content words are supported; "
            f"missing: {', '.join(a.uncovered[:8])}",
            score=round(1.0 - coverage, 4),
        )
