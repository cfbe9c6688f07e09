"""The lexical assessment of one claim against one evidence text (``assess``), and the rule that decides it under
thresholds (``rule_of``).

``assess`` weighs the claim's content words (numbers and names count most, generic words least), finds the evidence
sentences that cover most of that weight (the best sentence, greedily joined by more that cover further words) and
records what the rules need: coverage, numbers and names found nowhere, the best number-stating sentence, and how
closely a sentence of opposite negation matches. No threshold is applied there, so one assessment can be decided
under many thresholds (the lexical judge's tuning does that). ``rule_of`` applies the rules in the lexical judge's
order; ``Rule`` names them. The local judge's features read both, so changing them changes that model's inputs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import Enum
from typing import Optional

from ..errors import ConfigError
from ._claims import DAYS, MONTHS, STATES, given_numbers, negated, question_keys, read_claim, word_key
from ._index import EvidenceIndex
from ._words import stem

_CANDIDATES = 16  # sentences sharing most content words that the greedy cover considers


class Kind(str, Enum):
    """What an assessment found to score: only a ``SCORED`` one has coverage."""

    META = "meta"  # a meta, hedging or refusal sentence
    EMPTY = "empty"  # no content words
    RESTATES = "restates"  # only words of the question
    NO_EVIDENCE = "no-evidence"  # an empty evidence text, or no sentence sharing a content word
    SCORED = "scored"

    def __str__(self) -> str:
        return self.value


class Rule(str, Enum):
    """The rule that decides an assessment (``rule_of``), in the order the rules are tried."""

    UNVERIFIED = "unverified"  # nothing to check: meta, empty, or restating the question
    NO_EVIDENCE = "no-evidence"  # no evidence sentence shares a content word
    NUMBER_CONFLICT = "number-conflict"  # a number found nowhere, and a number-stating sentence that matches
    NEGATION_CONFLICT = "negation-conflict"  # the best sentence has the opposite negation and matches both ways
    NUMBER_MISSING = "number-missing"  # a number found nowhere
    NAME_MISSING = "name-missing"  # a capitalised name found neither in the evidence nor in the question
    ENTAILED = "entailed"  # weighted coverage reaches ``support``
    LOW_COVERAGE = "low-coverage"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Thresholds:
    """The lexical rules' thresholds (the lexical judge's defaults, chosen on RAGTruth train).

    ``support``: weighted coverage a claim needs to be entailed; ``match``: unweighted coverage of the best
    number-stating sentence for a number mismatch to count as a conflict; ``negation``: how closely (coverage both
    ways) a sentence of opposite polarity must match for a negation conflict (None: never); ``names``: whether a
    capitalised name found nowhere decides; ``max_sentences``: how many evidence sentences one claim may join.
    """

    support: float = 0.5
    match: float = 0.05
    negation: Optional[float] = 1.0
    names: bool = True
    max_sentences: int = 3

    def __post_init__(self) -> None:
        for name, value in (("support", self.support), ("match", self.match), ("negation", self.negation)):
            if value is not None and not 0 < value <= 1:
                raise ConfigError(f"{name} must be in (0, 1]")
        if self.max_sentences < 1:
            raise ConfigError("max_sentences must be >= 1")


@dataclass(frozen=True)
class Assessment:
    """Everything the rules need about one claim against one evidence text; no threshold is applied here.
    Sentence numbers (``order``, ``rival``) index the ``EvidenceIndex`` it was made with."""

    kind: Kind
    reason: str = ""
    cover: tuple[float, ...] = ()  # weighted coverage after greedily joining 1, 2, ... sentences
    order: tuple[int, ...] = ()  # the greedily chosen sentences, in pick order
    cover1: float = 0.0  # unweighted coverage of the best single sentence
    missing_numbers: frozenset[str] = frozenset()
    rival: int = -1  # the best-matching sentence that states numbers (for a number conflict)
    rival_cover: float = 0.0  # its unweighted coverage of the claim
    negation_match: float = 0.0  # min(coverage both ways) of the best sentence when its negation differs, else 0
    missing_names: tuple[str, ...] = ()  # capitalised names found neither in the evidence nor in the question
    uncovered: tuple[str, ...] = ()  # the surface forms of the claim's words the chosen sentences do not hold


def assess(claim: str, index: EvidenceIndex, question: Optional[str] = None,
           max_sentences: int = Thresholds.max_sentences, *, given: frozenset[str] = frozenset()) -> Assessment:
    """Assess ``claim`` against the evidence text that ``index`` indexes; no threshold is applied but
    ``max_sentences``, the most sentences the greedy cover joins. ``question``: the claim's words that restate it are
    neither evidence of support nor of fabrication, and the numbers it states of the user's own situation
    (``given_numbers``: "My flight lands at 21:40") are never missing; ``given``: such numbers, for a judge that
    reads no question's words. ``rule_of`` then decides under thresholds."""
    side = read_claim(claim)
    if side.meta:
        return Assessment(Kind.META, "a meta, hedging or refusal sentence states nothing to check against the evidence")
    if not side.keys:
        return Assessment(Kind.EMPTY, "the claim has no content words to check")
    qkeys = question_keys(question) if question else frozenset()
    idx = index
    if not idx.sentences:
        return Assessment(Kind.NO_EVIDENCE, "the evidence text is empty")
    names, keys, shown = side.names, side.keys, side.shown
    # the words of an amount the evidence states in another form ("seven hundred fifty thousand" for "750,000") are
    # in the sentences that state it
    stated = [(idx.amount_postings[a.key], a.words) for a in side.amounts if a.key in idx.amount_postings]
    via: dict[int, set[str]] = {}
    for at, words in stated:
        for i in at:
            via.setdefault(i, set()).update(words)
    postings = dict(idx.postings) if via else idx.postings
    for i, words in via.items():
        for k in words:
            if i not in postings.get(k, ()):
                postings[k] = sorted({*postings.get(k, ()), i})
    sentence_keys = [idx.keys[i] | via[i] if i in via else idx.keys[i] for i in range(len(idx.keys))] if via \
        else idx.keys
    in_evidence = {k for k in keys if k in postings}
    # words the claim merely repeats from the question are neither evidence of support nor of fabrication
    checkable = {k: w for k, w in keys.items() if k in in_evidence or k not in qkeys}
    if not checkable:
        return Assessment(Kind.RESTATES, "the claim only restates the question")
    total = sum(checkable.values())

    counts: Counter[int] = Counter()
    for k in checkable:
        for i in postings.get(k, ()):
            counts[i] += 1
    # a number written otherwise in the evidence ("0.25 l" for "250 ml") is found: its amount's key is there
    found = frozenset(n for a in side.amounts if a.key in idx.amount_postings for n in a.numbers)
    # an amount in words where the evidence states another amount of its unit ("four weeks" against "21 days")
    other = frozenset(n for a in side.amounts if a.dimension in idx.amount_dimensions
                      and a.key not in idx.amount_postings for n in a.numbers)
    if question:
        given = given | given_numbers(question)
    missing = frozenset(n for n in side.numbers | other if n not in idx.all_numbers and n not in found
                        and n not in given)
    if not counts:
        return Assessment(Kind.NO_EVIDENCE, "no evidence sentence shares a content word")

    ck = set(checkable)
    candidates = [i for i, _ in counts.most_common(_CANDIDATES)]
    shared = {i: ck & sentence_keys[i] for i in candidates}

    def gain(i: int, covered: set[str]) -> float:
        # the weights are 2, 1 or 1/2: their sum is exact in any order
        return sum(checkable[k] for k in shared[i] - covered)

    top = max(candidates, key=lambda i: (gain(i, set()), -i))
    order = [top]
    covered = set(shared[top])
    cover = [sum(checkable[k] for k in covered) / total]
    candidates.remove(top)
    while len(order) < max_sentences and len(covered) < len(checkable) and candidates:
        g, pick = max((gain(i, covered), -i) for i in candidates)
        if g == 0:
            break
        pick = -pick
        order.append(pick)
        candidates.remove(pick)
        covered |= shared[pick]
        cover.append(sum(checkable[k] for k in covered) / total)
    cover1 = len(ck & sentence_keys[top]) / len(ck)
    rival, rival_cover = -1, 0.0
    if missing:
        for i in candidates + order:
            c = len(ck & sentence_keys[i]) / len(ck)
            if idx.numbers[i] and (c, -i) > (rival_cover, -rival):
                rival, rival_cover = i, c
    negation_match = 0.0
    top_text = idx.sentences[top].text
    if side.negated != negated(top_text):
        back = len(idx.keys[top] & set(keys)) / max(1, len(idx.keys[top]))
        negation_match = min(cover1, back)
    missing_names = tuple(sorted(
        n for n in names
        if n not in ("am", "pm") and n not in MONTHS and n not in DAYS and n not in idx.lowered
        and stem(n) not in idx.lowered
        and not (n in STATES and STATES[n].upper() in idx.codes)
        and word_key(stem(n)) not in qkeys and word_key(n) not in qkeys
    ))
    return Assessment(
        Kind.SCORED,
        cover=tuple(cover),
        order=tuple(order),
        cover1=cover1,
        missing_numbers=missing,
        rival=rival,
        rival_cover=rival_cover,
        negation_match=negation_match,
        missing_names=missing_names,
        uncovered=tuple(sorted(shown[k] for k in ck - covered)),
    )


def rule_of(a: Assessment, thresholds: Thresholds = Thresholds()) -> Rule:
    """The rule that decides ``a`` under ``thresholds``: the first of ``Rule``'s rules, in order, that applies."""
    t = thresholds
    if a.kind in (Kind.META, Kind.EMPTY, Kind.RESTATES):
        return Rule.UNVERIFIED
    if a.kind == Kind.NO_EVIDENCE or not a.order:
        return Rule.NO_EVIDENCE
    if a.missing_numbers and a.rival >= 0 and a.rival_cover >= t.match:
        return Rule.NUMBER_CONFLICT
    if t.negation is not None and a.negation_match >= t.negation:
        return Rule.NEGATION_CONFLICT
    if a.missing_numbers:
        return Rule.NUMBER_MISSING
    if t.names and a.missing_names:
        return Rule.NAME_MISSING
    if a.cover[min(len(a.cover), t.max_sentences) - 1] >= t.support:
        return Rule.ENTAILED
    return Rule.LOW_COVERAGE
