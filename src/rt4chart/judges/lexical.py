"""A fast offline heuristic judge that needs no model (``--judge lexical``).

It is an honest baseline, not an NLI model. For each claim it finds the evidence sentences that share the most
content words with it (the best sentence, greedily joined by up to two more that cover further content words, for
claims that combine facts) and decides:

- **contradicted** when a well-matching sentence (coverage >= ``match``) states different numbers than the claim,
  or has the opposite negation polarity; evidence = that sentence;
- **baseless** when the claim names numbers or capitalised names that occur nowhere in the evidence text, or when
  content-word coverage stays below ``support``;
- **entailed** otherwise; evidence = the matching sentence(s).

``Judgment.score`` is the claim's hallucination risk in [0, 1] (1 - coverage, 1.0 for a number/name mismatch).
Global hints are not needed: the judge always searches the whole evidence text it is given.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Optional, Sequence

from ..text.lexical import capitalised_names, content_word_map, content_words, has_negation, numbers, stem
from ..text.segment import split_sentences
from ..types import Claim, Judgment, Label, Stage


class _Index:
    """Content words of each sentence of an evidence text, with an inverted index for linear-time lookup."""

    def __init__(self, text: str) -> None:
        self.sentences = split_sentences(text)
        self.words = [content_words(s.text) for s in self.sentences]
        self.postings: dict[str, list[int]] = {}
        for i, ws in enumerate(self.words):
            for w in ws:
                self.postings.setdefault(w, []).append(i)
        self.all_words = set(self.postings)
        self.all_numbers = numbers(text)
        lowered = text.lower()
        self.lowered = lowered

    def best(self, claim_words: set[str], k: int = 2) -> list[tuple[int, int]]:
        counts: Counter[int] = Counter()
        for w in claim_words:
            for i in self.postings.get(w, ()):
                counts[i] += 1
        return counts.most_common(k)


@lru_cache(maxsize=64)
def _index(text: str) -> _Index:
    return _Index(text)


class LexicalJudge:
    """Content-word coverage judge with number, negation and name checks. See the module docstring."""

    name = "lexical"

    def __init__(self, *, support: float = 0.75, match: float = 0.5, max_sentences: int = 3) -> None:
        if not (0 < match <= support <= 1):
            raise ValueError("need 0 < match <= support <= 1")
        if max_sentences < 1:
            raise ValueError("max_sentences must be >= 1")
        self.support = support
        self.match = match
        self.max_sentences = max_sentences

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
        return [self.judge_one(c.text, evidence, question=question) for c in claims]

    def judge_one(self, claim: str, evidence: str, *, question: Optional[str] = None) -> Judgment:
        surface = content_word_map(claim)
        words = set(surface)
        if question:
            # words the claim merely repeats from the question are not evidence of support by themselves
            qwords = content_words(question)
        else:
            qwords = set()
        if not words:
            return Judgment(label=Label.UNVERIFIED, reason="the claim has no content words to check", score=None)
        idx = _index(evidence)
        if not idx.sentences:
            return Judgment(label=Label.BASELESS, reason="the evidence text is empty", score=1.0)
        best = idx.best(words, k=8)
        if not best:
            return Judgment(label=Label.BASELESS, reason="no evidence sentence shares a content word", score=1.0)
        top_i, top_n = best[0]
        top = idx.sentences[top_i]
        cover1 = top_n / len(words)
        chosen = [top_i]
        covered = words & idx.words[top_i]
        # greedy cover: a claim may join facts from a few sentences (a record's fields, two adjacent sentences)
        candidates = [i for i, _ in best[1:]]
        while len(chosen) < self.max_sentences and len(covered) < len(words) and candidates:
            gain, pick = max((len((words & idx.words[i]) - covered), i) for i in candidates)
            if gain == 0:
                break
            chosen.append(pick)
            candidates.remove(pick)
            covered |= words & idx.words[pick]
        coverage = len(covered) / len(words)
        quotes = tuple(idx.sentences[i].text for i in sorted(chosen))

        claim_numbers = numbers(claim)
        top_numbers = numbers(top.text)
        missing_numbers = claim_numbers - idx.all_numbers
        if missing_numbers and cover1 >= self.match and top_numbers and not claim_numbers <= top_numbers:
            return Judgment(
                label=Label.CONTRADICTED,
                evidence=(top.text,),
                reason=f"the closest sentence states {', '.join(sorted(top_numbers))}, "
                f"the claim {', '.join(sorted(missing_numbers))}",
                score=1.0,
            )
        if cover1 >= self.support and has_negation(claim) != has_negation(top.text):
            return Judgment(
                label=Label.CONTRADICTED,
                evidence=(top.text,),
                reason="the closest sentence has the opposite negation",
                score=0.9,
            )
        if missing_numbers:
            return Judgment(
                label=Label.BASELESS,
                reason=f"numbers not found in the evidence: {', '.join(sorted(missing_numbers))}",
                score=1.0,
            )
        unseen = {n for n in capitalised_names(claim) if n not in idx.lowered and stem(n) not in idx.lowered}
        unseen -= qwords
        if unseen:
            return Judgment(
                label=Label.BASELESS,
                reason=f"names not found in the evidence: {', '.join(sorted(unseen))}",
                score=1.0,
            )
        if coverage >= self.support:
            return Judgment(
                label=Label.ENTAILED,
                evidence=quotes,
                reason=f"{coverage:.0%} of the claim's content words occur in the evidence sentence(s)",
                score=round(1.0 - coverage, 4),
            )
        uncovered = sorted(surface[w] for w in words - covered)[:8]
        return Judgment(
            label=Label.BASELESS,
            reason=f"only {coverage:.0%} of the content words are supported; missing: {', '.join(uncovered)}",
            score=round(1.0 - coverage, 4),
        )
