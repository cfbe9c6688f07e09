"""A value the user gives in the question, checked against a bound the evidence states.

"My flight lands at 23:40. Can I still catch the shuttle?" against "The shuttle runs every 30 minutes until 23:00":
the user's 23:40 is past the evidence's "until 23:00", so "Yes, landing at 23:40 you can still catch a shuttle" says
otherwise, and "landing at 21:40 you can" is what the evidence gives. ``window(claim, index, question)`` reads:

- the **given** value: a clock time or an amount that the question's ``givens`` state ("my flight lands at 21:40",
  "I'm 17", "I need it for 14 days"), the one the claim restates, or the only one when the claim states none;
- the **bound** of the same kind in the evidence sentence that shares most words with the claim: an end ("until
  23:00", "before 6 pm", "up to 10 days", "at most", "under", "18 or younger") or a start ("from 6:00", "after",
  "at least 18", "over $50", "18 or older");
- what the claim **asserts** of the user: possible ("you can", "you'll still make it", "you're eligible") or not
  ("you can't", "too late", "no longer").

The given value inside the bounds and a claim saying it is possible (or outside and not possible) holds: entailed,
when the claim's other words are supported (the lexical rules, ``assess``; otherwise the judge decides). The other
way round: contradicted, the reason saying what was compared ("the question's 23:40 is after 23:00 ('until
23:00')"). No given value, no bound of its kind, or a claim that asserts neither: None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from ._assess import Rule, assess, rule_of
from ._dates import dates
from ._claims import TIME_OF_DAY, clock_minutes, givens, negated
from ._index import EvidenceIndex
from ._quantities import quantities
from ._words import content_words

#: words before a value that make it the end of what is allowed ("until 23:00", "up to 10 days")
_END_BEFORE = r"until|till|til|through|before|by|no\s+later\s+than|up\s+to|at\s+most|at\s+the\s+latest|under|" \
              r"below|less\s+than|fewer\s+than|no\s+more\s+than|not\s+more\s+than|maximum(?:\s+of)?|max\.?|within"
#: words before a value that make it the start ("from 6:00", "at least 18")
_START_BEFORE = r"from|after|starting(?:\s+at|\s+from)?|since|as\s+of|opens?\s+at|at\s+least|over|above|more\s+than|" \
                r"minimum(?:\s+of)?|min\.?|no\s+less\s+than|not\s+less\s+than|aged"
#: words after a value ("18 or older", "6 pm onwards")
_END_AFTER = r"or\s+(?:younger|under|less|fewer|below|earlier)|at\s+the\s+latest|at\s+most|max(?:imum)?"
_START_AFTER = r"or\s+(?:older|over|more|above|later)|onwards|and\s+(?:up|over|above|older)|or\s+after|plus|\+"
#: bounds that exclude the value itself ("under 18", "before 6 pm", "over $50")
_STRICT = re.compile(r"^(?:before|under|below|less\s+than|fewer\s+than|over|above|more\s+than|after)$", re.IGNORECASE)
_BEFORE = re.compile(rf"(?:^|\W)(?P<end>{_END_BEFORE})\s+$|(?:^|\W)(?P<start>{_START_BEFORE})\s+$", re.IGNORECASE)
_AFTER = re.compile(rf"^\s*(?:(?P<end>{_END_AFTER})|(?P<start>{_START_AFTER}))", re.IGNORECASE)
#: a range written with a dash or "to": "6:00-23:00", "9 am to 5 pm"
_RANGE = re.compile(r"^\s*(?:-|–|—|to)\s*$", re.IGNORECASE)
#: the claim says the user can ("you can", "will still make it", "eligible") ...
_CAN = re.compile(r"\b(?:can(?:not|'t|’t)?|could(?:n't)?|may|will\s+(?:still\s+)?be\s+able|are\s+able|is\s+able|"
                  r"still|in\s+time|make\s+it|eligible|allowed|qualify|qualifies|fine|ok|okay)\b", re.IGNORECASE)
#: ... or cannot ("too late", "no longer", "miss")
_CANNOT = re.compile(r"\b(?:too\s+(?:late|early|young|old|long)|no\s+longer|miss(?:es|ed)?|ineligible|"
                     r"not\s+eligible)\b", re.IGNORECASE)
_DAY = 24 * 60


@dataclass(frozen=True)
class Value:
    """A time (minutes after midnight, dimension "time") or an amount (``Quantity`` value and dimension)."""

    value: float
    dimension: str
    text: str


@dataclass(frozen=True)
class Bound:
    """A bound the evidence states: its value, whether it ends or starts the allowed range, whether it excludes
    the value itself, its words, and its sentence."""

    value: Value
    end: bool
    strict: bool
    words: str
    sentence: int


@dataclass(frozen=True)
class Checked:
    """``window``'s result: whether the claim holds, why, and the evidence sentence read."""

    holds: bool
    reason: str
    sentences: tuple[int, ...]


def values(text: str) -> list[tuple[Value, int, int]]:
    """The clock times and amounts ``text`` states, with their offsets (a time's or a date's digits are no
    amounts)."""
    out: list[tuple[Value, int, int]] = []
    spans = [(d.start, d.end) for d in dates(text)]  # a date's day and year are no amounts
    for m in TIME_OF_DAY.finditer(text):
        minutes = clock_minutes(m)
        if minutes is not None:
            out.append((Value(float(minutes), "time", m.group(0).strip(" .")), m.start(), m.end()))
            spans.append((m.start(), m.end()))
    for q in quantities(text):
        if not any(s <= q.start < e for s, e in spans) and q.dimension not in ("year", "day of month"):
            out.append((Value(q.value, q.dimension, q.text), q.start, q.end))
    return sorted(out, key=lambda v: v[1])


def bounds(text: str, sentence: int = 0) -> list[Bound]:
    """The bounds a sentence states: a value after an end or start word, or before "or older"-like words; the two
    ends of a range ("6:00-23:00")."""
    found = values(text)
    out = []
    ranged: set[int] = set()
    for k, (v, start, end) in enumerate(found):
        if k + 1 < len(found) and _RANGE.match(text[end:found[k + 1][1]]) and found[k + 1][0].dimension == \
                v.dimension:
            nxt = found[k + 1][0]
            out.append(Bound(v, False, False, f"{v.text}-{nxt.text}", sentence))
            out.append(Bound(nxt, True, False, f"{v.text}-{nxt.text}", sentence))
            ranged |= {k, k + 1}
        if k in ranged:
            continue
        before = _BEFORE.search(text[max(0, start - 30):start])
        after = _AFTER.match(text[end:end + 20])
        hit = before or after
        if hit is not None:
            words = (hit.group("end") or hit.group("start")).strip()
            out.append(Bound(v, bool(hit.group("end")), bool(_STRICT.match(words)),
                             f"{words} {v.text}" if before else f"{v.text} {words}", sentence))
    return out


def _comparable(given: Value, bound: Value) -> Optional[float]:
    """The given value in the bound's unit, or None when they measure different things (a bare number given for an
    age read in years: "I'm 17" against "18 years or older")."""
    if given.dimension == bound.dimension:
        return given.value
    if given.dimension == "" and bound.dimension == "mo" and bound.value % 12 == 0:
        return given.value * 12
    return None


def _given(claim: str, index: EvidenceIndex, question: str) -> list[Value]:
    """The values the question gives that the claim restates, or all it gives when the claim states none of their
    kind but the evidence's own ("you'll miss it: the last one leaves at 23:00")."""
    offered = [v for part in givens(question) for v, _, _ in values(part)]
    if not offered:
        return []
    stated = [v for v, _, _ in values(claim)]
    restated = [v for v in offered if any(s.dimension == v.dimension and s.value == v.value for s in stated)]
    if restated:
        return restated
    theirs = [(v.value, v.dimension) for text in index.readings for v, _, _ in values(text)]
    kinds = {v.dimension for v in offered}
    return [] if any(s.dimension in kinds and (s.value, s.dimension) not in theirs for s in stated) else offered


def _asserts(claim: str) -> Optional[bool]:
    """Whether the claim says the user can (True), cannot (False), or neither (None)."""
    if _CANNOT.search(claim):
        return False
    if _CAN.search(claim):
        return not negated(claim)
    return None


def _supported(claim: str, index: EvidenceIndex, question: str) -> bool:
    """Whether the claim's words are supported, the question's words and values given (``assess`` decided by the
    lexical judge's rules): the bound decides its value, not the rest of what it says."""
    return rule_of(assess(claim, index, question)) == Rule.ENTAILED


def _inside(given: float, found: list[Bound], time: bool) -> tuple[bool, Bound]:
    """Whether ``given`` lies within the bounds, and the bound it breaks (or the first one)."""
    start = next((b for b in found if not b.end), None)
    for b in found:
        value, at = b.value.value, given
        if time and b.end:
            # an end after midnight ("until 1:00") ends the next day when the range starts earlier
            lower = start.value.value if start is not None else 12 * 60
            if value < lower:
                value += _DAY
                if at < lower:
                    at += _DAY
        ok = (at < value if b.strict else at <= value) if b.end else (at > value if b.strict else at >= value)
        if not ok:
            return False, b
    return True, found[0]


def window(claim: str, index: EvidenceIndex, question: Optional[str]) -> Optional[Checked]:
    """Check the value the question gives of the user's situation against the evidence's bound of its kind (see the
    module docstring): holds, broken, or None."""
    if not question:
        return None
    asserts = _asserts(claim)
    if asserts is None:
        return None
    given = _given(claim, index, question)
    if len(given) != 1:
        return None
    mine = content_words(claim)
    ranked = []
    for i, text in enumerate(index.readings):
        found = [b for b in bounds(text, i) if _comparable(given[0], b.value) is not None]
        if found:
            ranked.append((len(mine & content_words(text)), -i, found))
    if not ranked:
        return None
    shared, _, found = max(ranked, key=lambda r: (r[0], r[1]))
    if sum(1 for r in ranked if r[0] == shared) > 1 or shared == 0 and len(ranked) > 1:
        return None  # the claim's words do not tell which bound it speaks of
    value = _comparable(given[0], found[0].value)
    if value is None:
        return None
    inside, bound = _inside(value, found, given[0].dimension == "time")
    where = "within" if inside else "outside"
    said = f"the question's {given[0].text} is {where} what the evidence allows ('{bound.words}')"
    if inside == asserts:
        if not _supported(claim, index, question):
            return None
        return Checked(True, f"{said}, as the claim states", (bound.sentence,))
    return Checked(False, f"{said}, so the claim's {'yes' if asserts else 'no'} does not hold", (bound.sentence,))
