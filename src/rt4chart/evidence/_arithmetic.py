"""Amounts a claim derives from the evidence by arithmetic a reader checks by hand.

"Pro costs ten dollars more per month than Basic" against "Basic costs $9 a month; Pro costs $19": the claim's ten
dollars is the difference of two prices the evidence states, not a price of its own. ``derive(claim, index)`` finds
such a claim and computes what it states from the evidence:

- a **difference** ("ten dollars more than", "25 years older than", "two hours longer than", "costs $4 less"): the
  gap between two amounts of the same dimension (two years for "older"/"newer"), and which side is larger;
- a **total** ("in total", "altogether", "combined", "together"): the sum of the amounts of that dimension;
- a **rate times a quantity** ("Parking for five hours costs $30" against "$6 per hour");
- an **end time** (a start time plus a duration: "opens at 10 am and stays open for six hours" -> "closes at 4 pm");
- a **computed amount** ("the 3% fee comes to £120 on £4,000", "£800 earns 800 points, 300 left over"): an amount
  the evidence and the question never state, in a claim that says it computed ("comes to", "works out", "so",
  "left over", ...), that one operation (+, -, x, /, a per cent of) gives from two amounts they state (the claim's
  own other amounts among them): right -> entailed; an amount no such operation gives stays with the judge;
- a **comparison** between entities whose values the evidence gives ("Both the Danube and the Rhine are longer
  than 1,000 km", "X and Y were not born in the same city": ``compare.compare``);
- a **bound** the user's own value (the question's "my flight lands at 23:40") meets or breaks ("until 23:00":
  ``bounds.window``);
- a **date** computed from a start date (the question's "My order was delivered on March 10", or the evidence's) plus
  the evidence's duration ("within 30 days of delivery" -> "until April 9"; ``dates.deadline``).

Right -> ``Derivation(holds=True)`` with the sentences it read; wrong -> ``holds=False``, the reason saying what it
computed ("19 - 9 = 10, not 12"). Anything else (no such wording, amounts it cannot pair) -> None: the judge decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations
from typing import Optional

from ._bounds import window
from ._entities import compare
from ._claims import TIME_OF_DAY, clock_minutes
from ._dates import deadline
from ..types import Judgment, Label
from ._index import EvidenceIndex, premise
from ._quantities import Quantity, quantities
from ._words import clean_number, content_words

_MORE = ("more", "higher", "longer", "older", "later", "bigger", "larger", "heavier", "taller", "dearer", "greater",
         "extra", "above", "over", "after")
_LESS = ("less", "fewer", "lower", "shorter", "younger", "newer", "earlier", "smaller", "lighter", "cheaper",
         "below", "under", "before")
#: an amount then a comparative: "ten dollars more per month than", "25 years older than", "$4 cheaper than"
_DIFFERENCE = re.compile(rf"\b(?P<word>{'|'.join(_MORE + _LESS)})\b(?:\s+\w+){{0,3}}?\s+(?:than|before|after)\b"
                         r"|\bdifference\s+(?:of|is|was)\b|\bapart\b", re.IGNORECASE)
_MONEY_AND_UNITS = frozenset(("$", "€", "£", "¥", "%", "h", "mo", "ml", "g", "metre"))
_TOTAL = re.compile(r"\b(?:in\s+total|altogether|combined|together(?!\s+with)|total\s+of|sum\s+of|in\s+all)\b",
                    re.IGNORECASE)
#: a rate: "$6 per hour", "£12 a night", "€3/day", "2 euros for each hour"
_RATE = re.compile(r"(?:\s+(?:per|a|an|each|every|for\s+each)\s+|\s*/\s*)(?P<unit>hour|day|night|week|month|year|"
                   r"minute|person|adult|child|ticket|item|kg|km|mile|session|class|lesson|visit)s?\b",
                   re.IGNORECASE)
_END = re.compile(r"\b(?:closes?|ends?|finish(?:es)?|stops?|shuts?|is\s+over|until|till|returns?|arrives?|lands?|"
                  r"due|deadline|expires?)\b", re.IGNORECASE)
_UNIT_HOURS = {"minute": 1 / 60, "hour": 1.0, "day": 24.0, "week": 168.0, "night": 24.0}


@dataclass(frozen=True)
class Derivation:
    """What ``derive`` computed: whether the claim's amount is right, why, and the evidence sentences it read."""

    holds: bool
    reason: str
    sentences: tuple[int, ...]

    def judgment(self, index: EvidenceIndex, *, risk: Optional[float] = None) -> Judgment:
        """The judgment it makes against ``index``'s text: entailed or contradicted, quoting the sentences it read,
        ``rule`` "arithmetic"; ``risk`` the score (default 0 when it holds, 1 when not)."""
        quotes, ids = premise(index.texts, self.sentences)
        return Judgment(label=Label.ENTAILED if self.holds else Label.CONTRADICTED, evidence=quotes, evidence_ids=ids,
                        reason=self.reason, score=risk if risk is not None else 0.0 if self.holds else 1.0,
                        rule="arithmetic")


def _num(x: float) -> str:
    return clean_number(f"{x:.3f}")


def _shown(gap: float, stated: Quantity, years: bool) -> str:
    """A gap in the base unit shown in the unit the claim wrote (5000 metres for "6 km" -> "5 km")."""
    if years:
        return f"{_num(gap)} years"
    unit = stated.text[len(stated.text.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")):]
    per = stated.number / stated.value if stated.value else 1.0
    return f"{_num(gap * per)} {unit}".strip() if unit and stated.dimension not in ("$", "€", "£", "¥") \
        else _num(gap * per)


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def _located(index: EvidenceIndex) -> list[tuple[int, Quantity]]:
    return [(i, q) for i, text in enumerate(index.readings) for q in quantities(text)]


def _near_words(text: str, q: Quantity, width: int = 60) -> set[str]:
    left = text[max(0, q.start - width):q.start]
    left = re.split(r"[;,.]|\b(?:and|but|while|whereas)\b", left)[-1]
    right = re.split(r"[;,.]|\b(?:and|but|while|whereas)\b", text[q.end:q.end + width // 2])[0]
    return content_words(left + " " + right)


def _difference(claim: str, m: re.Match, index: EvidenceIndex) -> Optional[Derivation]:
    stated = [q for q in quantities(claim) if q.end <= m.start() + 1 or m.group("word") is None]
    if len(stated) != 1:
        return None
    d = stated[0]
    years = d.dimension == "mo"  # "25 years older": a gap between two years
    pool = [(i, q) for i, q in _located(index)
            if (q.dimension == "year" if years else q.dimension == d.dimension and d.dimension)]
    value = d.value / 12 if years else d.value
    pairs = [(a, b) for a, b in combinations(pool, 2) if not _same(a[1].value, b[1].value)]
    if not pairs or len(pairs) > 6:
        return None
    left_words = content_words(claim[:d.start])
    right_words = content_words(claim[m.end():]) if m.group("word") else set()
    word = (m.group("word") or "").lower()
    for (ia, a), (ib, b) in pairs:
        gap = abs(a.value - b.value)
        if not _same(gap, value):
            continue
        if word and left_words and right_words:
            near_a = _near_words(index.readings[ia], a)
            near_b = _near_words(index.readings[ib], b)
            a_left = len(near_a & left_words) - len(near_a & right_words)
            b_left = len(near_b & left_words) - len(near_b & right_words)
            if a_left != b_left:
                mine, other = (a, b) if a_left > b_left else (b, a)
                larger = mine.value > other.value
                if years:
                    larger = not larger  # older: the earlier year
                if (word in _MORE) != larger:
                    return Derivation(False, f"the evidence has {mine.text} and {other.text}: the claim's comparison "
                                      f"goes the other way", tuple(sorted({ia, ib})))
        hi, lo = (a, b) if a.value > b.value else (b, a)
        return Derivation(True, f"{hi.text} - {lo.text} = {_shown(gap, d, years)}, as the claim states",
                          tuple(sorted({ia, ib})))
    # no pair gives the claim's gap: the pair whose amounts the claim's two sides name is what the evidence gives
    def named(pair: tuple[tuple[int, Quantity], tuple[int, Quantity]]) -> bool:
        (ia, a), (ib, b) = pair
        near_a, near_b = _near_words(index.readings[ia], a), _near_words(index.readings[ib], b)
        if not (left_words and right_words):
            return bool(near_a & (left_words | right_words)) and bool(near_b & (left_words | right_words))
        return bool(near_a & left_words and near_b & right_words or near_a & right_words and near_b & left_words)

    pairs = [p for p in pairs if named(p)]
    if not pairs:
        return None
    ranked = sorted(pairs, key=lambda p: -len((_near_words(index.readings[p[0][0]], p[0][1])
                                               | _near_words(index.readings[p[1][0]], p[1][1]))
                                              & (left_words | right_words)))
    (ia, a), (ib, b) = ranked[0]
    hi, lo = (a, b) if a.value > b.value else (b, a)
    gap = hi.value - lo.value
    return Derivation(False, f"{hi.text} - {lo.text} = {_shown(gap, d, years)}, not {d.text}",
                      tuple(sorted({ia, ib})))


def _total(claim: str, index: EvidenceIndex) -> Optional[Derivation]:
    stated = quantities(claim)
    if len(stated) != 1 or not stated[0].dimension or stated[0].dimension in ("year", "day of month"):
        return None
    d = stated[0]
    pool = [(i, q) for i, q in _located(index)
            if q.dimension == d.dimension or not q.dimension and d.dimension not in _MONEY_AND_UNITS]
    if len(pool) < 2 or len(pool) > 6 or any(_same(q.value, d.value) for _, q in pool):
        return None
    total = sum(q.value for _, q in pool)
    shown = " + ".join(q.text for _, q in pool)
    sentences = tuple(sorted({i for i, _ in pool}))
    if _same(total, d.value):
        return Derivation(True, f"{shown} = {_num(total)}, as the claim states", sentences)
    return Derivation(False, f"{shown} = {_num(total)}, not {d.text}", sentences)


def _rate(claim: str, index: EvidenceIndex) -> Optional[Derivation]:
    stated = quantities(claim)
    money = [q for q in stated if q.dimension in ("$", "€", "£", "¥")]
    counts = [q for q in stated if q not in money]
    if len(money) != 1 or len(counts) != 1:
        return None
    total, count = money[0], counts[0]
    for i, text in enumerate(index.readings):
        for q in quantities(text):
            if q.dimension != total.dimension:
                continue
            rate = _RATE.match(text, q.end)
            if rate is None:
                continue
            unit = rate.group("unit").lower()
            if unit in _UNIT_HOURS and count.dimension == "h":
                n = count.value / _UNIT_HOURS[unit]
            elif count.dimension in (unit, unit + "s", "") or count.dimension.startswith(unit[:4]):
                n = count.number
            else:
                continue
            if _same(q.value, total.value):
                return None  # the claim states the rate itself
            product = q.value * n
            sentences = (i,)
            if _same(product, total.value):
                return Derivation(True, f"{q.text} per {unit} x {_num(n)} = {_num(product)}, as the claim states",
                                  sentences)
            return Derivation(False, f"{q.text} per {unit} x {_num(n)} = {_num(product)}, not {total.text}",
                              sentences)
    return None


def _end_time(claim: str, index: EvidenceIndex) -> Optional[Derivation]:
    times = [m for m in TIME_OF_DAY.finditer(claim)]
    if len(times) != 1 or not _END.search(claim) or quantities(claim[:times[0].start()] + claim[times[0].end():]):
        return None
    stated = clock_minutes(times[0])
    if stated is None:
        return None
    for i, text in enumerate(index.readings):
        starts = [m for m in TIME_OF_DAY.finditer(text)]
        spans = [(q, q.value) for q in quantities(text) if q.dimension == "h"]
        if len(starts) != 1 or len(spans) != 1:
            continue
        start = clock_minutes(starts[0])
        if start is None:
            continue
        end = (start + round(spans[0][1] * 60)) % (24 * 60)
        shown = f"{starts[0].group(0).strip()} + {spans[0][0].text} = {end // 60}:{end % 60:02d}"
        if stated == end or stated + 12 * 60 == end or stated == end + 12 * 60:
            return Derivation(True, f"{shown}, as the claim states", (i,))
        if stated == start:
            return None  # the claim states the start itself
        return Derivation(False, f"{shown}, not {times[0].group(0).strip(' .')}", (i,))
    return None


#: words by which a claim says an amount of it was computed
_COMPUTED = re.compile(r"\b(?:comes?\s+to|coming\s+to|works?\s+out|worked\s+out|which\s+is|that'?s|that\s+is|so|"
                       r"totals?|totalling|totaling|in\s+total|in\s+all|altogether|left(?:\s+over)?|remaining|remains?|"
                       r"earns?|saves?|saving|means?|adds?\s+up|leaves?|gives?|making|makes|equals?|i\.e\.)\b|=",
                       re.IGNORECASE)


def _results(a: float, b: float) -> list[tuple[float, str]]:
    out = [(a + b, f"{_num(a)} + {_num(b)}"), (a * b, f"{_num(a)} x {_num(b)}"),
           (a * b / 100, f"{_num(a)}% of {_num(b)}")]
    if a != b:
        out.append((abs(a - b), f"{_num(max(a, b))} - {_num(min(a, b))}"))
    if b:
        out.append((a / b, f"{_num(a)} / {_num(b)}"))
    return out


def _derivation(m: Quantity, pool: list) -> Optional[tuple[str, Quantity, Quantity]]:
    """How one operation on two amounts of ``pool`` gives ``m`` ("3% of 4000 = £120" and the two operands), or
    None."""
    return next(((f"{text} = {m.text}", a, b) for x, y in combinations(pool, 2) for a, b in ((x, y), (y, x))
                 for value, text in _results(a.value, b.value)
                 if value and abs(value - m.value) <= max(0.005, 1e-4 * abs(m.value))), None)


def _computed(claim: str, index: EvidenceIndex, question: Optional[str]) -> Optional[Derivation]:
    """An amount the claim says it computed, which one operation gives from two amounts the evidence, the question
    or the claim state: entailed with how; None otherwise (never contradicted: a value no single operation gives may
    take two). Every amount of the claim that neither the evidence nor the question states must be computed so, or
    be an operand of such a computation ("two tickets cost £90" for "£45 each")."""
    if not _COMPUTED.search(claim):
        return None
    mine = quantities(claim)
    located = _located(index)
    known = [q for _, q in located] + list(quantities(question or ""))
    missing = [q for q in mine if not any(q.equals(x) or _same(q.value, x.value) for x in known)]
    if not missing:
        return None
    shown, used, operands, computed = [], set(), [], []
    given = [q for q in mine if not any(q is m for m in missing)]
    # the amounts one operation gives from stated ones first, then from the claim's other amounts ("two tickets")
    for m in sorted(missing, key=lambda m: (_derivation(m, known + given) is None, -m.value)):
        if any(m is o for o in operands):
            continue
        how = _derivation(m, known + [q for q in mine if q is not m])
        if how is None:
            continue
        computed.append(m)
        operands += [how[1], how[2]]
        shown.append(how[0])
        used |= {i for i, q in located if q is how[1] or q is how[2]}
    if not computed or any(m not in computed and not any(m is o for o in operands) for m in missing):
        return None
    return Derivation(True, "; ".join(shown) + ", as the claim states", tuple(sorted(used)) or (0,))


def derive(claim: str, index: EvidenceIndex, question: Optional[str] = None) -> Optional[Derivation]:
    """What the claim derives from the evidence by arithmetic, computed: a value the question gives against the
    evidence's bound, a comparison between entities, a difference, a total, a rate times a quantity, a start time
    plus a duration, or a date from a start date (the evidence's or, stated by the user, the ``question``'s) plus a
    duration (see the module docstring); None when it derives none of these."""
    checked = window(claim, index, question) or compare(claim, index)
    if checked is not None:
        return Derivation(checked.holds, checked.reason, checked.sentences)
    if not quantities(claim) and not TIME_OF_DAY.search(claim):
        return None
    dated = deadline(claim, index.texts, question)
    if dated is not None:
        return Derivation(dated.holds, dated.reason, dated.sentences)
    m = _DIFFERENCE.search(claim)
    if m is not None:
        found = _difference(claim, m, index)
        if found is not None:
            return found
    if _TOTAL.search(claim):
        found = _total(claim, index)
        if found is not None:
            return found
    return _rate(claim, index) or _end_time(claim, index) or _computed(claim, index, question)
