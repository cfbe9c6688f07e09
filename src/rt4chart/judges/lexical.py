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
  (``rt4chart.text.lexical.one_edit``; the two negation edits not with ``negation=None``), whatever the rules below
  would say;
- **baseless** when the claim states numbers, or capitalised names, that occur nowhere in the evidence text (nor,
  for names, in the question), or when the weighted coverage stays below ``support``;
- **entailed** otherwise; evidence = the matching sentence(s).

Claims are decided one by one, but the answer label is their AND-join over ~9 claims per answer, so each claim
decision must be conservative: the defaults were chosen on the RAGTruth train split by
``scripts/tune_lexical_judge.py`` (docs/results/lexical.md).

``Judgment.score`` is the claim's hallucination risk in [0, 1] (1 - weighted coverage, 1.0 for a number
mismatch). Global hints are not needed: the judge always searches the whole evidence text it is given.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Sequence

from ..text.lexical import capitalised_names, content_word_map, has_negation, one_edit, stem
from ..text.segment import split_sentences
from ..errors import ConfigError
from ..types import Claim, Judgment, Label, Span, Stage

# -- private tokenisation ---------------------------------------------------------------------------------------
# The trained local judge's features (``judges/features.py``) call ``_assess``, ``_index``, ``_words`` and ``_rule``:
# changing what they compute changes that model's inputs, so bump ``features.VERSION`` and retrain it.

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_CANDIDATES = 16  # sentences sharing most content words that the greedy cover considers
_PREFIX = 5  # words match on their stem or, when longer, on their first five letters ("located"/"location")

#: Low-information words: generic verbs, evaluative adjectives and discourse words that paraphrases add freely.
_GENERIC = frozenset(
    """
able additionally addition allow allows also another appear appears aspect aspects available based become
believe best better big called case certain choice claim claimed claiming come comes commonly consider
considered described describe despite different directly does due during each either enjoy enjoyed ensure
especially etc even example experience experienced experiences express expressed feature featured features
feedback felt find finally first found further general generally get given go good great help helps high
highly however important include included includes including instead key known large last later like likely
located location long lot lots make makes making many mention mixed more most much must negative new noted note
notes notable now offer offered offering offers often one overall part particular particularly people place
popular positive possible potential praise praised provide provides providing quite rather really received
recently reference refer related reported reports review reviewer reviewers reviews said say says see seem seems
several show shown shows significant similar since some specific still such suggest suggests take taken tell
therefore thing things though thus time together top two typically use used uses using various variety
way well whether within without work works would year years yet
""".split()
)
_META_START = re.compile(
    r"^\W*(?:okay|ok|yes|no|hello|hi)\b\W*$"
    r"|^\W*(?:sure|certainly|of\s+course|here's|here\s+(?:is|are)|below\s+(?:is|are)|the\s+following|"
    r"i\s+hope|i'm\s+sorry|i\s+am\s+sorry|sorry|unfortunately|let\s+me|i\s+(?:can|could|"
    r"would|will)|i'd|i\s+(?:cannot|can't|could\s+not|couldn't|don't|do\s+not)|as\s+an\s+ai)\b",
    re.IGNORECASE,
)
_META_ANY = re.compile(
    r"\b(?:(?:passages?|context|documents?|articles?|texts?|sources?|information)\s+(?:provided\s+)?(?:does|do|did)"
    r"\s+not|(?:no|not\s+any)\s+(?:direct\s+|specific\s+|explicit\s+|further\s+|additional\s+)?(?:mention|"
    r"information|details?|data|indication)|not\s+(?:mentioned|stated|specified|provided)|i\s+(?:am|'m)\s+"
    r"(?:unable|not\s+able)|(?:i|we)\s+(?:cannot|can't|could\s+not|couldn't|do\s+not|don't)\s+(?:find|provide|"
    r"answer|determine|know|see|give|offer)|cannot\s+be\s+(?:determined|found|answered)|"
    r"unable\s+to\s+(?:answer|provide|find|determine|locate))\b",
    re.IGNORECASE,
)
#: a remark about the sources, the question or the conversation rather than about the world ("Based on the given
#: passages, here's a brief answer to the question:", "If you have any further questions, feel free to ask."), or a
#: header introducing what follows (ending in ":"): such a claim shares no word with the context by nature
_REMARK = re.compile(
    r"\b(?:given|provided|above|following|these|those|the|all|three|two|other)\s+"
    r"(?:passages?|contexts?|documents?|sources?)\b"
    r"|^\W*passages?\s*#?\d"
    r"|^\s*\([^()]*\bpassages?\b[^()]*\)\W*$"
    r"|\b(?:answers?|respond|response)\s+(?:to\s+)?(?:the|your|this)\s+questions?\b"
    r"|\blet\s+me\s+know\b|\bfeel\s+free\b|\bdon'?t\s+hesitate\b|\bhappy\s+to\s+(?:help|assist)\b"
    r"|\bfurther\s+questions\b|\bhope\s+(?:this|that)\s+helps\b"
    r"|:\s*$",
    re.IGNORECASE,
)
_LIST_MARKER = re.compile(r"^\s*(?:\(?\d{1,2}[.)]|[-*•]|\(?[a-z][.)])(?:\s+|$)")
_REFERENCE = re.compile(r"\b(?:passages?|documents?|sources?|articles?|steps?|reviews?|options?|methods?|"
                        r"tips?|ways?|points?)\s*#?\s*\d+\b(?!\.\d)(?:\s*(?:,|and|&|-)\s*\d+\b(?!\.\d))*", re.IGNORECASE)
_OUT_OF = re.compile(r"\bout\s+of\s+\d+(?:\.\d+)?", re.IGNORECASE)
_TIME = re.compile(r"\b(\d{1,2})(?::(\d{1,2}))?\s*([ap])\.?\s*m\b\.?|\b(\d{1,2}):(\d{1,2})\b", re.IGNORECASE)
_NUM = re.compile(r"(?<![\w.])[-+]?\$?\d[\d,]*(?:\.\d+)?%?")
_FRACTION = re.compile(r"\b(?:(\d+)\s+)?(\d+)/(\d+)\b")
_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b", re.IGNORECASE)
_NOT_ONLY = re.compile(r"\bnot\s+(?:only|just|merely)\b", re.IGNORECASE)
_MONTHS = frozenset("january february march april may june july august september october november december "
                    "jan feb mar apr jun jul aug sep sept oct nov dec".split())
_DAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
#: US state names and their postal codes: records say "CA" where answers say "California".
_STATES = dict(
    pair.split(":") for pair in """alabama:al alaska:ak arizona:az arkansas:ar california:ca colorado:co
    connecticut:ct delaware:de florida:fl georgia:ga hawaii:hi idaho:id illinois:il indiana:in iowa:ia kansas:ks
    kentucky:ky louisiana:la maine:me maryland:md massachusetts:ma michigan:mi minnesota:mn mississippi:ms
    missouri:mo montana:mt nebraska:ne nevada:nv ohio:oh oklahoma:ok oregon:or pennsylvania:pa tennessee:tn
    texas:tx utah:ut vermont:vt virginia:va washington:wa wisconsin:wi wyoming:wy""".split()
)


def _key(word: str) -> str:
    return word[:_PREFIX] if len(word) > _PREFIX and not word[0].isdigit() else word


def _clean_number(raw: str) -> str:
    n = raw.replace(",", "").replace("$", "").rstrip("%").lstrip("+")
    if "." in n:
        n = n.rstrip("0").rstrip(".")
    return n


def _numbers(text: str, *, claim: bool) -> set[str]:
    """Digit numbers of ``text``, normalised: clock times as 24-hour ``H:MM`` (a claim's "9 PM" also matches
    "21:00"; an evidence "21:0" reads "21:00"), fractions as decimals, ordinals as plain numbers. In a claim, list
    markers, "passage 2"-style references and "out of 5" are not facts to check."""
    out: set[str] = set()
    if claim:
        text = _LIST_MARKER.sub(" ", text)
        text = _REFERENCE.sub(" ", text)
        text = _OUT_OF.sub(" ", text)

    def time(m: re.Match) -> str:
        if m.group(4) is not None:
            h, mi = int(m.group(4)), int(m.group(5))
        else:
            h, mi = int(m.group(1)), int(m.group(2) or 0)
            if m.group(3).lower() == "p" and h < 12:
                h += 12
            elif m.group(3).lower() == "a" and h == 12:
                h = 0
        if h <= 24 and mi < 60:
            out.add(f"{h % 24}:{mi:02d}")
        return " "

    text = _TIME.sub(time, text)
    for word, value in (("midnight", "0:00"), ("noon", "12:00")):
        if word in text.lower():
            out.add(value)

    def fraction(m: re.Match) -> str:
        whole, num, den = m.group(1), int(m.group(2)), int(m.group(3))
        if den and num < den <= 16:
            value = (int(whole) if whole else 0) + num / den
            out.add(_clean_number(f"{value:.3f}"))
            return " "
        return m.group(0).replace("/", " ")

    text = _FRACTION.sub(fraction, text)
    text = _ORDINAL.sub(r"\1", text)
    for raw in _NUM.findall(text):
        n = _clean_number(raw)
        if n and n != "-":
            out.add(n.lstrip("-") if claim else n)
            if not claim:
                out.add(n.lstrip("-"))
    return out


def _words(text: str) -> dict[str, str]:
    """Stemmed content words -> surface form; camelCase keys ("OutdoorSeating") also give their parts."""
    out = content_word_map(text)
    if _CAMEL.search(text):
        for k, v in content_word_map(_CAMEL.sub(" ", text)).items():
            out.setdefault(k, v)
    return out


# -- evidence index -----------------------------------------------------------------------------------------------


class _Index:
    """Word keys and numbers of each sentence of an evidence text, with an inverted index for linear-time lookup."""

    def __init__(self, text: str) -> None:
        self.sentences = split_sentences(text)
        self.texts = tuple(s.text for s in self.sentences)
        self.keys: list[frozenset[str]] = []
        self.numbers: list[frozenset[str]] = []
        self.postings: dict[str, list[int]] = {}
        for i, s in enumerate(self.sentences):
            ks, numbers = _sentence_index(s.text)
            self.keys.append(ks)
            self.numbers.append(numbers)
            for k in ks:
                self.postings.setdefault(k, []).append(i)
        self.all_numbers = frozenset().union(*self.numbers) if self.numbers else frozenset()
        self.lowered = text.lower()
        self.codes = frozenset(re.findall(r"\b[A-Z]{2}\b", text))


@lru_cache(maxsize=8192)
def _sentence_index(sentence: str) -> tuple[frozenset[str], frozenset[str]]:
    """The word keys and numbers of one sentence: the chunks of a context and the context itself hold the same
    sentences, and each text is indexed on its own."""
    return frozenset(_key(w) for w in _words(sentence)), frozenset(_numbers(sentence, claim=False))


@lru_cache(maxsize=64)
def _index(text: str) -> _Index:
    return _Index(text)


# -- assessment (threshold-free) and decision -------------------------------------------------------------------


@dataclass(frozen=True)
class _Assessment:
    """Everything the decision needs about one claim against one evidence text; no threshold is applied here."""

    kind: str  # "meta" | "empty" | "restates" | "no-evidence" | "scored"
    reason: str = ""
    cover: tuple[float, ...] = ()  # weighted coverage after greedily joining 1, 2, ... sentences
    order: tuple[int, ...] = ()  # the greedily chosen sentences, in pick order
    cover1: float = 0.0  # unweighted coverage of the best single sentence
    missing_numbers: frozenset[str] = frozenset()
    rival: int = -1  # the best-matching sentence that states numbers (for a number conflict)
    rival_cover: float = 0.0  # its unweighted coverage of the claim
    negation_match: float = 0.0  # min(coverage both ways) of the best sentence when its negation differs, else 0
    missing_names: tuple[str, ...] = ()  # capitalised names found neither in the evidence nor in the question
    uncovered: tuple[str, ...] = ()


def _weight(word: str, surface: str, names: "set[str] | frozenset[str]") -> float:
    """2, 1 or 1/2 (``_assess`` relies on sums of these being exact in any order)."""
    if word[0].isdigit():
        return 2.0
    if surface in names:
        return 2.0
    if word in _GENERIC or surface in _GENERIC or word in _MONTHS or word in _DAYS:
        return 0.5
    return 1.0


@dataclass(frozen=True)
class _Claim:
    """What ``_assess`` reads of a claim alone: one claim is read against every chunk and then the whole context, so
    this is worked out once per claim text (``_claim``). The dicts are read, never changed."""

    meta: bool  # a meta, hedging or refusal sentence
    keys: dict[str, float]  # word key -> weight, in the order the words come
    shown: dict[str, str]  # word key -> the surface form shown for it
    names: frozenset[str]  # capitalised names, lower-cased, without a possessive
    numbers: frozenset[str]  # _numbers(claim, claim=True), meta or not
    negated: bool


@lru_cache(maxsize=1024)
def _claim(claim: str) -> _Claim:
    numbers = frozenset(_numbers(claim, claim=True))
    if _META_START.search(claim) or _META_ANY.search(claim):
        return _Claim(True, {}, {}, frozenset(), numbers, False)
    # times and references are checked as numbers (or not at all), not as words
    surface = _words(_TIME.sub(" ", _REFERENCE.sub(" ", _LIST_MARKER.sub(" ", claim))))
    names = frozenset(n.split("'")[0] for n in capitalised_names(claim))
    keys: dict[str, float] = {}
    shown: dict[str, str] = {}
    for w, s in surface.items():
        k = _key(w)
        wt = _weight(w, s.split("'")[0], names)
        if wt > keys.get(k, 0.0):
            keys[k] = wt
            shown[k] = s
    return _Claim(False, keys, shown, names, numbers, _negated(claim))


@lru_cache(maxsize=256)
def question_keys(question: str) -> frozenset[str]:
    """The word keys of a question (one question is read with every claim of its answer)."""
    return frozenset(_key(w) for w in _words(question))


def claim_numbers(claim: str) -> frozenset[str]:
    """``_numbers(claim, claim=True)``, worked out once per claim text."""
    return _claim(claim).numbers


def is_remark(text: str) -> bool:
    """Whether a claim's text is a remark about the sources or the conversation, or a header (``_REMARK``)."""
    return _REMARK.search(text) is not None


def evidence_numbers(evidence: str) -> frozenset[str]:
    """Every number of an evidence text, normalised as ``claim_numbers`` normalises a claim's."""
    return _index(evidence).all_numbers


def _assess(claim: str, evidence: str, question: Optional[str], max_sentences: int) -> _Assessment:
    side = _claim(claim)
    if side.meta:
        return _Assessment("meta", "a meta, hedging or refusal sentence states nothing to check against the evidence")
    if not side.keys:
        return _Assessment("empty", "the claim has no content words to check")
    qkeys = question_keys(question) if question else frozenset()
    idx = _index(evidence)
    if not idx.sentences:
        return _Assessment("no-evidence", "the evidence text is empty")
    names, keys, shown = side.names, side.keys, side.shown
    in_evidence = {k for k in keys if k in idx.postings}
    # words the claim merely repeats from the question are neither evidence of support nor of fabrication
    checkable = {k: w for k, w in keys.items() if k in in_evidence or k not in qkeys}
    if not checkable:
        return _Assessment("restates", "the claim only restates the question")
    total = sum(checkable.values())

    counts: Counter[int] = Counter()
    for k in checkable:
        for i in idx.postings.get(k, ()):
            counts[i] += 1
    missing = frozenset(n for n in side.numbers if n not in idx.all_numbers)
    if not counts:
        return _Assessment("no-evidence", "no evidence sentence shares a content word")

    ck = set(checkable)
    candidates = [i for i, _ in counts.most_common(_CANDIDATES)]
    shared = {i: ck & idx.keys[i] for i in candidates}

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
    cover1 = len(ck & idx.keys[top]) / len(ck)
    rival, rival_cover = -1, 0.0
    if missing:
        for i in candidates + order:
            c = len(ck & idx.keys[i]) / len(ck)
            if idx.numbers[i] and (c, -i) > (rival_cover, -rival):
                rival, rival_cover = i, c
    negation_match = 0.0
    top_text = idx.sentences[top].text
    if side.negated != _negated(top_text):
        back = len(idx.keys[top] & set(keys)) / max(1, len(idx.keys[top]))
        negation_match = min(cover1, back)
    missing_names = tuple(sorted(
        n for n in names
        if n not in ("am", "pm") and n not in _MONTHS and n not in _DAYS and n not in idx.lowered and stem(n) not in idx.lowered
        and not (n in _STATES and _STATES[n].upper() in idx.codes)
        and _key(stem(n)) not in qkeys and _key(n) not in qkeys
    ))
    return _Assessment(
        "scored",
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


@lru_cache(maxsize=4096)
def _negated(text: str) -> bool:
    """Negation polarity, ignoring "not only"/"not just" (which add rather than deny)."""
    return has_negation(_NOT_ONLY.sub(" ", text))


class LexicalJudge:
    """Weighted content-word coverage judge with number and negation checks. See the module docstring.

    ``support``: weighted coverage a claim needs to be entailed; ``match``: unweighted coverage of the best
    number-stating sentence for a number mismatch to count as a contradiction; ``negation``: how closely (coverage
    both ways) a sentence of opposite polarity must match for a negation contradiction (None: never);
    ``names``: whether a capitalised name found nowhere in the evidence (nor in the question) makes a claim
    baseless; ``max_sentences``: how many evidence sentences one claim may join.
    """

    name = "lexical"

    def __init__(
        self,
        *,
        support: float = 0.5,
        match: float = 0.05,
        negation: Optional[float] = 1.0,
        names: bool = True,
        max_sentences: int = 3,
    ) -> None:
        for name, value in (("support", support), ("match", match), ("negation", negation)):
            if value is not None and not 0 < value <= 1:
                raise ConfigError(f"{name} must be in (0, 1]")
        if max_sentences < 1:
            raise ConfigError("max_sentences must be >= 1")
        self.support = support
        self.match = match
        self.negation = negation
        self.names = names
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
        """Judge one claim against ``evidence`` (the question only tells which words restate it)."""
        a = _assess(claim, evidence, question, self.max_sentences)
        if a.kind == "no-evidence" and is_remark(claim):
            return Judgment(label=Label.UNVERIFIED, score=None, reason="a remark about the sources or the "
                            "conversation, or a header, sharing no word with the evidence: nothing to check")
        judgment = self._decide(a, evidence)
        if judgment.label in (Label.ENTAILED, Label.BASELESS):
            sentences = _index(evidence).texts
            edit = one_edit(claim, sentences)
            if edit is not None and (self.negation is not None or edit.kind not in ("negation", "affirmation")):
                return Judgment(label=Label.CONTRADICTED, evidence=(sentences[edit.sentence],), score=1.0,
                                spans=(Span(start=edit.start, end=edit.end),), reason=edit.describe())
        return judgment

    def _rule(self, a: _Assessment) -> str:
        """Which rule decides ``a`` under this judge's thresholds (the tuning script calls this directly)."""
        if a.kind in ("meta", "empty", "restates"):
            return "unverified"
        if a.kind == "no-evidence" or not a.order:
            return "no-evidence"
        if a.missing_numbers and a.rival >= 0 and a.rival_cover >= self.match:
            return "number-conflict"
        if self.negation is not None and a.negation_match >= self.negation:
            return "negation-conflict"
        if a.missing_numbers:
            return "number-missing"
        if self.names and a.missing_names:
            return "name-missing"
        if a.cover[min(len(a.cover), self.max_sentences) - 1] >= self.support:
            return "entailed"
        return "low-coverage"

    def _decide(self, a: _Assessment, evidence: str) -> Judgment:
        rule = self._rule(a)
        if rule == "unverified":
            return Judgment(label=Label.UNVERIFIED, reason=a.reason, score=None)
        if rule == "no-evidence":
            return Judgment(label=Label.BASELESS, reason=a.reason or "no evidence sentence shares a content word",
                            score=1.0)
        sentences = _index(evidence).sentences
        top = sentences[a.order[0]].text
        if rule == "number-conflict":
            rival = sentences[a.rival].text
            return Judgment(
                label=Label.CONTRADICTED,
                evidence=(rival,),
                reason=f"the closest sentence stating numbers has {', '.join(sorted(_numbers(rival, claim=False))[:6])}"
                f", the claim {', '.join(sorted(a.missing_numbers))}",
                score=1.0,
            )
        if rule == "negation-conflict":
            return Judgment(
                label=Label.CONTRADICTED, evidence=(top,), reason="the closest sentence has the opposite negation",
                score=0.9,
            )
        if rule == "number-missing":
            return Judgment(
                label=Label.BASELESS,
                reason=f"numbers not found in the evidence: {', '.join(sorted(a.missing_numbers))}",
                score=1.0,
            )
        if rule == "name-missing":
            return Judgment(
                label=Label.BASELESS, reason=f"names not found in the evidence: {', '.join(a.missing_names)}",
                score=1.0,
            )
        k = min(len(a.cover), self.max_sentences)
        coverage = a.cover[k - 1]
        if rule == "entailed":
            return Judgment(
                label=Label.ENTAILED,
                evidence=tuple(sentences[i].text for i in sorted(a.order[:k])),
                reason=f"{coverage:.0%} of the claim's weighted content words occur in the evidence sentence(s)",
                score=round(1.0 - coverage, 4),
            )
        return Judgment(
            label=Label.BASELESS,
            reason=f"only {coverage:.0%} of the weighted content words are supported; "
            f"missing: {', '.join(a.uncovered[:8])}",
            score=round(1.0 - coverage, 4),
        )
