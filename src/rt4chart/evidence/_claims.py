"""How the lexical evidence layer reads a text's words and numbers, and a claim on its own.

Words match on a key (``word_key``: the stem, or its first five letters when longer); numbers are normalised as
facts to check (``normalised_numbers``: clock times, fractions, ordinals); a claim's words are weighted (numbers and
names count most, generic words least) once per claim text (``read_claim``). The local judge's features read these
too: changing what they compute changes that model's inputs, so bump ``judges.local.features.VERSION`` and retrain it.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass
from functools import lru_cache

from ._quantities import Quantity, amount_key, bound, converts, quantities
from ._words import NUMBER, NUMBER_WORDS, capitalised_names, clean_number, content_word_map, has_negation

#: where a camelCase word splits ("OutdoorSeating")
CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
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
                        r"tips?|ways?|points?)\s*#?\s*\d+\b(?!\.\d)(?:\s*(?:,|and|&|-)\s*\d+\b(?!\.\d))*",
                        re.IGNORECASE)
_OUT_OF = re.compile(r"\bout\s+of\s+\d+(?:\.\d+)?", re.IGNORECASE)
#: a clock time: "9 am", "2:30 p.m.", "14:00" (``clock_minutes`` reads one)
TIME_OF_DAY = re.compile(r"\b(\d{1,2})(?::(\d{1,2}))?\s*([ap])\.?\s*m\b\.?|\b(\d{1,2}):(\d{1,2})\b", re.IGNORECASE)
_FRACTION = re.compile(r"\b(?:(\d+)\s+)?(\d+)/(\d+)\b")
_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b", re.IGNORECASE)
_SCALED = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s?(?:thousand|million|billion|trillion|bn|m|k)\b", re.IGNORECASE)
_NOT_ONLY = re.compile(r"\bnot\s+(?:only|just|merely)\b", re.IGNORECASE)
MONTHS = frozenset("january february march april may june july august september october november december "
                   "jan feb mar apr jun jul aug sep sept oct nov dec".split())
DAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
#: US state names and their postal codes: records say "CA" where answers say "California".
STATES = dict(
    pair.split(":") for pair in """alabama:al alaska:ak arizona:az arkansas:ar california:ca colorado:co
    connecticut:ct delaware:de florida:fl georgia:ga hawaii:hi idaho:id illinois:il indiana:in iowa:ia kansas:ks
    kentucky:ky louisiana:la maine:me maryland:md massachusetts:ma michigan:mi minnesota:mn mississippi:ms
    missouri:mo montana:mt nebraska:ne nevada:nv ohio:oh oklahoma:ok oregon:or pennsylvania:pa tennessee:tn
    texas:tx utah:ut vermont:vt virginia:va washington:wa wisconsin:wi wyoming:wy""".split()
)


def word_key(word: str) -> str:
    """The key a word matches on: its first ``_PREFIX`` letters when longer (and not a number), else itself."""
    return word[:_PREFIX] if len(word) > _PREFIX and not word[0].isdigit() else word


def clock_minutes(m: re.Match) -> "int | None":
    """Minutes after midnight of a ``TIME_OF_DAY`` match ("2:30 pm": 870), None when it is no valid time."""
    if m.group(4) is not None:
        h, mi = int(m.group(4)), int(m.group(5))
    else:
        h, mi = int(m.group(1)), int(m.group(2) or 0)
        if m.group(3).lower() == "p" and h < 12:
            h += 12
        elif m.group(3).lower() == "a" and h == 12:
            h = 0
    return (h % 24) * 60 + mi if h <= 24 and mi < 60 else None


def normalised_numbers(text: str, *, claim: bool) -> set[str]:
    """Digit numbers of ``text``, normalised: clock times as 24-hour ``H:MM`` (a claim's "9 PM" also matches
    "21:00"; an evidence "21:0" reads "21:00"), fractions as decimals, ordinals as plain numbers. In a claim, list
    markers, "passage 2"-style references and "out of 5" are not facts to check."""
    out: set[str] = set()
    if claim:
        text = _LIST_MARKER.sub(" ", text)
        text = _REFERENCE.sub(" ", text)
        text = _OUT_OF.sub(" ", text)

    def time(m: re.Match) -> str:
        minutes = clock_minutes(m)
        if minutes is not None:
            out.add(f"{minutes // 60}:{minutes % 60:02d}")
        return " "

    text = TIME_OF_DAY.sub(time, text)
    for word, value in (("midnight", "0:00"), ("noon", "12:00")):
        if word in text.lower():
            out.add(value)

    def fraction(m: re.Match) -> str:
        whole, num, den = m.group(1), int(m.group(2)), int(m.group(3))
        if den and num < den <= 16:
            value = (int(whole) if whole else 0) + num / den
            out.add(clean_number(f"{value:.3f}"))
            return " "
        return m.group(0).replace("/", " ")

    text = _FRACTION.sub(fraction, text)
    text = _ORDINAL.sub(r"\1", text)
    for raw in NUMBER.findall(text):
        n = clean_number(raw)
        if n and n != "-":
            out.add(n.lstrip("-") if claim else n)
            if not claim:
                out.add(n.lstrip("-"))
    # one amount written otherwise: a claim's "1.5 million" is 1500000 (not 1.5); the evidence's "1.5 million" is
    # both, its "ten" 10, its "two days" also 48 (hours)
    for q in quantities(text):
        scaled = _SCALED.search(q.text)
        if claim:
            if scaled:
                out.discard(clean_number(scaled.group(1)))
                out |= q.values()
        else:
            out |= q.values()
    return out


def content_forms(text: str) -> dict[str, str]:
    """Stemmed content words -> surface form; camelCase keys ("OutdoorSeating") also give their parts."""
    out = content_word_map(text)
    if CAMEL.search(text):
        for k, v in content_word_map(CAMEL.sub(" ", text)).items():
            out.setdefault(k, v)
    return out


def _weight(word: str, surface: str, names: "set[str] | frozenset[str]") -> float:
    """2, 1 or 1/2 (``assess`` relies on sums of these being exact in any order)."""
    if word[0].isdigit():
        return 2.0
    if surface in names:
        return 2.0
    if word in _GENERIC or surface in _GENERIC or word in MONTHS or word in DAYS:
        return 0.5
    return 1.0


@dataclass(frozen=True)
class ClaimReading:
    """What ``assess`` reads of a claim alone: one claim is read against every chunk and then the whole context, so
    this is worked out once per claim text (``read_claim``). The dicts are read, never changed."""

    meta: bool  # a meta, hedging or refusal sentence
    keys: dict[str, float]  # word key -> weight, in the order the words come
    shown: dict[str, str]  # word key -> the surface form shown for it
    names: frozenset[str]  # capitalised names, lower-cased, without a possessive
    numbers: frozenset[str]  # normalised_numbers(claim, claim=True), meta or not
    negated: bool
    #: the claim's amounts (``Amount``): an evidence sentence that holds the same amount, in whatever form, holds
    #: their words and numbers
    amounts: tuple["Amount", ...] = ()


@dataclass(frozen=True)
class Amount:
    """One amount of a claim: its ``amount_key``, the numbers ``normalised_numbers`` reads in it, and the word keys
    of its words ("seven", "hundred", "dollars"), found wherever the evidence states the same amount; an evidence that
    states another amount of its ``dimension`` does not hold its numbers (no dimension for a bounded amount, "in
    under two weeks", or a share, "half of the plots": another amount may hold it)."""

    key: str
    numbers: frozenset[str]
    words: frozenset[str]
    #: its dimension when its unit converts (a duration, a currency, per cent, a metric unit), else ""
    dimension: str = ""


@lru_cache(maxsize=1024)
def read_claim(claim: str) -> ClaimReading:
    """A claim's meta flag, weighted word keys, names, numbers and polarity (the last 1024 claim texts are kept)."""
    numbers = frozenset(normalised_numbers(claim, claim=True))
    if _META_START.search(claim) or _META_ANY.search(claim):
        return ClaimReading(True, {}, {}, frozenset(), numbers, False)
    # times and references are checked as numbers (or not at all), not as words
    text = TIME_OF_DAY.sub(" ", _REFERENCE.sub(" ", _LIST_MARKER.sub(" ", claim)))
    surface = content_forms(text)
    names = frozenset(n.split("'")[0] for n in capitalised_names(claim))
    keys: dict[str, float] = {}
    shown: dict[str, str] = {}
    for w, s in surface.items():
        k = word_key(w)
        wt = _weight(w, s.split("'")[0], names)
        if wt > keys.get(k, 0.0):
            keys[k] = wt
            shown[k] = s
    found = amounts(text)
    read = tuple(Amount(amount_key(q), frozenset(normalised_numbers(q.text, claim=True)) | {clean_number(
        f"{q.number:.4f}")}, frozenset(word_key(w) for w in content_forms(text[start:end])) & keys.keys(),
        q.dimension if converts(q) and bound(text, q) is None and not (q.dimension == "%" and _SHARE.match(text, start))
        else "") for q, start, end in found)
    # a large count in words is a number to check ("seven hundred thousand"; not "fifty of the residents"); an
    # amount in a unit that converts is checked against the evidence's amounts of that unit (``assess``)
    worded = {clean_number(f"{q.number:.4f}") for q, start, end in found
              if not any(ch.isdigit() for ch in text[start:end]) and _NUMBER_WORD.search(text[start:end])
              and q.number >= 1000}
    return ClaimReading(False, keys, shown, names, numbers | worded, negated(claim), read)


#: a number word that states an amount ("a year", "an hour" state none to check as a number)
_NUMBER_WORD = re.compile(r"\b(?:" + "|".join(w for w in NUMBER_WORDS if w not in ("half", "once", "single"))
                          + r"|dozen|couple|half|quarters?|thirds?)\b", re.IGNORECASE)
#: a share written as a fraction of a group ("half of the plots"): no number to check
_SHARE = re.compile(r"(?:a\s+|one\s+)?(?:half|quarter|third)\b", re.IGNORECASE)
#: "hundreds of", "thousands of", "dozens of": no amount
_VAGUE = re.compile(r"(?:hundred|thousand|million|billion|dozen)s\b", re.IGNORECASE)


def amount_spans(text: str, keys: "Container[str]") -> list[tuple[int, int]]:
    """The characters of the amounts of ``text`` (``amounts``) whose ``amount_key`` is among ``keys`` (an evidence
    text's ``EvidenceIndex.amount_postings``): the words of an amount the evidence writes otherwise ("two dozen" for
    "24")."""
    return [(start, end) for q, start, end in amounts(text) if amount_key(q) in keys]


def amounts(text: str) -> list[tuple[Quantity, int, int]]:
    """The amounts of ``text`` that are read as one key each, with the characters their key stands for: the whole
    amount when its unit converts ("ten dollars", "twelve per cent", "a quarter of a litre"), else its number
    ("seven hundred fifty thousand" of "... people"). Clock times are numbers, not amounts."""
    out = []
    times = [m.span() for m in TIME_OF_DAY.finditer(text)]
    for q in quantities(text):
        if any(a < q.end and q.start < b for a, b in times) or _VAGUE.match(text, q.start):
            continue
        end = q.end
        if not converts(q) and q.dimension not in ("", "year", "day of month"):
            last = q.text.rsplit(None, 1)
            if len(last) == 2 and last[1].isalpha():
                end = q.end - len(last[1])
                while end > q.start and text[end - 1].isspace():
                    end -= 1
        if any(ch.isalnum() for ch in text[q.start:end]):
            out.append((q, q.start, end))
    return out


@lru_cache(maxsize=256)
def question_keys(question: str) -> frozenset[str]:
    """The word keys of a question (one question is read with every claim of its answer)."""
    return frozenset(word_key(w) for w in content_forms(question))


#: a word by which a question speaks of the user's own situation ("My flight lands at 21:40", "I'm 17")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|us|our|ours)\b", re.IGNORECASE)
#: a condition of the user's inside a question: "if I land at 23:40", "when my parcel arrives on May 2"
_CONDITION = re.compile(r"\b(?:if|when|since|as|because|given\s+that|now\s+that)\s+"
                        r"(?=[^,?]*\b(?:i|i'm|my|we|we're|our)\b)[^,?]+", re.IGNORECASE)
_ASKING = re.compile(r"^\W*(?:(?:is|are|was|were|am|can|could|do|does|did|will|would|should|shall|may|might|must|"
                     r"has|have|had|what|when|where|which|who|whom|whose|why|how)\b|[^?]*\?\s*$)", re.IGNORECASE)


@lru_cache(maxsize=256)
def givens(question: str) -> tuple[str, ...]:
    """The parts of a question that state the user's own situation: a sentence or a comma-separated clause in the
    first person that asks nothing ("My order was delivered on March 10.", "I'm 17, can I ...") and a condition
    ("... if I land at 23:40?"). What they state is given: a claim restating it, or computing from it, adds nothing
    the context must hold."""
    out: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", question):
        for part in re.split(r",\s+|;\s+|\s+[—–-]\s+", sentence.strip()):
            if part and _FIRST_PERSON.search(part) and not _ASKING.match(part):
                out.append(part.strip())
            else:
                out.extend(m.group(0).strip() for m in _CONDITION.finditer(part))
    return tuple(out)


def given_numbers(question: str) -> frozenset[str]:
    """The numbers (normalised as ``normalised_numbers`` normalises the evidence's) that the question's ``givens``
    state."""
    return frozenset(n for part in givens(question) for n in normalised_numbers(part, claim=False))


def claim_numbers(claim: str) -> frozenset[str]:
    """``normalised_numbers(claim, claim=True)``, worked out once per claim text."""
    return read_claim(claim).numbers


def is_remark(text: str) -> bool:
    """Whether a claim's text is a remark about the sources or the conversation, or a header (``_REMARK``)."""
    return _REMARK.search(text) is not None


#: an answer's opening or closing words to the reader ("Sure!", "I hope this helps!", "Let me know if you have any
#: further questions.", "Sure, I can help you with that!"): the whole sentence, nothing else in it
_COURTESY = re.compile(
    r"^\W*(?:(?:okay|ok|sure|certainly|of\s+course|absolutely|great)(?:\W+(?:i\s+can|i'd\s+be\s+happy\s+to|"
    r"happy\s+to)\s+help(?:\s+you)?(?:\s+with\s+(?:that|this))?)?"
    r"|(?:i\s+)?hope\s+(?:this|that)\s+helps(?:\s+you)?(?:\s+\w+)?"
    r"|(?:(?:that'?s\s+a|what\s+a)\s+)?(?:great|good|excellent|fair)\s+question"
    r"|(?:thanks|thank\s+you)(?:\s+(?:so|very)\s+much)?(?:\s+for\s+(?:asking|reaching\s+out|your\s+\w+|"
    r"getting\s+in\s+touch|your\s+patience))?"
    r"|(?:i'?m\s+|i\s+am\s+)?(?:happy|glad)\s+to\s+(?:help|assist)(?:\s+with\s+(?:that|this))?"
    r"|(?:hi|hello|hey)(?:\s+there)?"
    r"|(?:have\s+a\s+(?:great|good|nice|lovely)\s+(?:day|trip|stay|visit|one|weekend))"
    r"|(?:enjoy\s+your\s+(?:visit|stay|trip|meal|day))"
    r"|(?:please\s+)?(?:let\s+me\s+know|feel\s+free\s+to\s+ask)\b.*"
    r"|(?:if\s+you\s+have\s+any\s+(?:further|other|more)\s+questions)\b.*)\W*$",
    re.IGNORECASE,
)
#: a line that introduces what follows ("Here is a summary of the article in 85 words:", "Based on the given
#: passages, here's a brief answer to the question:", "Passage 2:", "Therefore, the answer to the question is:")
_INTRO = re.compile(
    r"^\W*(?:(?:sure|certainly|okay|ok|of\s+course)\W+)?(?:here's|here\s+(?:is|are)|below\s+(?:is|are)|"
    r"the\s+following|based\s+on\b[^:]*\bhere(?:'s|\s+(?:is|are))|passages?\s*#?\d+\s*:|"
    r"(?:so|therefore|thus)?,?\s*the\s+answer\s+(?:to\s+(?:the|your)\s+question\s+)?is)",
    re.IGNORECASE,
)


#: a list marker or a citation of a source standing alone ("1.", "b)", "(Passage 3)", "(Reference passage 2)")
_FRAGMENT = re.compile(
    r"^\W*(?:\d{1,2}|[a-z])?\W*$"
    r"|^\W*(?:(?:reference|see|source)\s+)?(?:passages?|documents?|sources?|refs?)?\s*#?\d{1,2}(?:\s*(?:,|and|&)\s*\d{1,2})*"
    r"\W*$",
    re.IGNORECASE,
)


#: the words of a lead-in that announces a list or an answer without saying anything ("You've got several options:",
#: "Here's a quick rundown:"); a lead-in with a word outside them ("You can pay in three ways:") is a claim
_EMPTY_LEAD_IN = frozenset("""
    a an the here here's heres is are there there's you you've youve you have got get a few several some couple of
    two three four main key quick short brief simple options option choices choice ways way things thing points point
    rundown summary overview breakdown details detail steps step answer answers info information what need to know
    how it works this that these those so well okay ok sure basically essentially in short brief gist
    """.split())


def is_empty_lead_in(text: str) -> bool:
    """Whether ``text`` is a lead-in ending in ":" whose words announce what follows and say nothing
    (``_EMPTY_LEAD_IN``)."""
    t = text.strip()
    words = re.findall(r"[a-z']+|\d+", t.lower().replace("’", "'"))
    return t.endswith(":") and bool(words) and all(w in _EMPTY_LEAD_IN for w in words)


@lru_cache(maxsize=1024)
def is_preamble(text: str) -> bool:
    """Whether an answer sentence states nothing about the world and is no claim at all: courtesy ("Sure!", "Great
    question!", "Hope that helps!", "Let me know if ..."), a line ending in ":" that introduces what follows ("Here is
    a summary of the article in 85 words:", "Based on the given passages, here's the answer:", "Passage 2:", "You've
    got several options:"; ``is_empty_lead_in``), or a list marker or
    a source citation standing alone ("1.", "(Passage 3)"). None of them is ever a checkable claim: each is also a
    meta sentence, a remark or a text without word keys (``read_claim``, ``is_remark``)."""
    t = text.strip()
    if _COURTESY.match(t) or is_empty_lead_in(t):
        return True
    reading = read_claim(t)
    if reading.keys and not (reading.meta or is_remark(t)):
        return False
    if _FRAGMENT.match(t):
        return True
    return t.endswith(":") and _INTRO.match(t) is not None


@lru_cache(maxsize=4096)
def negated(text: str) -> bool:
    """Negation polarity, ignoring "not only"/"not just" (which add rather than deny)."""
    return has_negation(_NOT_ONLY.sub(" ", text))
