"""Quantities: numbers in digits or words with their scale and unit, normalised so that one amount written two
ways compares equal ("ten" and 10, "1.5 million" and "1,500,000", "three weeks" and "3 weeks", "48 hours" and "two
days"), and so that a different amount in the same unit is seen as one (``Quantity.same_dimension``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from ._words import NUMBER_WORDS, STOPWORDS, clean_number, stem

_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9, "m": 1e6, "k": 1e3}
#: duration units in hours (dimension "h") or months (dimension "mo"): a month is no fixed number of days
_DURATION = {"second": ("h", 1 / 3600), "minute": ("h", 1 / 60), "hour": ("h", 1.0), "day": ("h", 24.0),
             "week": ("h", 168.0), "fortnight": ("h", 336.0), "month": ("mo", 1.0), "year": ("mo", 12.0),
             "decade": ("mo", 120.0), "century": ("mo", 1200.0)}
MONTHS_BUT_MAY = frozenset("january february march april june july august september october november december "
                    "jan feb mar apr jun jul aug sep sept oct nov dec".split())
_CURRENCY = {"dollar": "$", "usd": "$", "euro": "€", "eur": "€", "pound": "£", "gbp": "£", "yen": "¥"}
#: metric units in millilitres ("ml"), grams ("g") or metres ("metre"); "m" alone is a scale ("5m": five million)
_METRIC = {"ml": ("ml", 1.0), "millilitre": ("ml", 1.0), "milliliter": ("ml", 1.0), "cl": ("ml", 10.0),
           "l": ("ml", 1000.0), "litre": ("ml", 1000.0), "liter": ("ml", 1000.0), "mg": ("g", 0.001),
           "milligram": ("g", 0.001), "g": ("g", 1.0), "gram": ("g", 1.0), "gramme": ("g", 1.0),
           "kg": ("g", 1000.0), "kilo": ("g", 1000.0), "kilogram": ("g", 1000.0), "kilogramme": ("g", 1000.0),
           "tonne": ("g", 1e6), "mm": ("metre", 0.001), "millimetre": ("metre", 0.001), "millimeter": ("metre", 0.001),
           "cm": ("metre", 0.01), "centimetre": ("metre", 0.01), "centimeter": ("metre", 0.01),
           "metre": ("metre", 1.0), "meter": ("metre", 1.0), "km": ("metre", 1000.0), "kilometre": ("metre", 1000.0),
           "kilometer": ("metre", 1000.0)}
#: the dimensions whose amounts convert (an amount key names them): durations, currencies, per cent, metric units
_CONVERTIBLE = frozenset({"h", "mo", "%", "ml", "g", "metre", *_CURRENCY.values()})
#: a fraction of one unit, or a couple of them: "a quarter of a litre", "three quarters of an hour", "half a
#: kilo", "a third of the budget", "a couple of days"
_PART = re.compile(r"\b(?:(?P<count>a|one|two|three)\s+)?(?P<part>half|halves|quarters?|thirds?)\s+(?:of\s+)?"
                   r"(?:an?\s+)?(?P<unit>[a-z]+)\b|\ba\s+couple\s+of\s+(?P<couple>[a-z]+)\b", re.IGNORECASE)
#: what comes before the half of "5 and a half minutes" (not half a minute)
_AND_A = re.compile(r"(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve))\s+and\s+(?:an?\s+)?$",
                    re.IGNORECASE)
_PARTS = {"half": 0.5, "halve": 0.5, "quarter": 0.25, "third": 1 / 3}
_WORDS = {**{w: float(v) for w, v in NUMBER_WORDS.items() if w not in ("once", "twice", "single", "half")},
          "a dozen": 12.0, "dozen": 12.0}
_NUM = (r"(?P<cur>[$€£¥])?\s?(?P<digits>\d[\d,]*(?:\.\d+)?|\.\d+)(?P<pct>\s?%)?"
        r"|(?P<words>(?:(?:" + "|".join(sorted((w for w in _WORDS if " " not in w), key=len, reverse=True))
        + r")(?:[\s-]+(?:and\s+)?)?)+)")
_QUANTITY = re.compile(r"(?<![\w.])(?:" + _NUM + r")(?:[\s-]?(?P<scale>thousand|million|billion|trillion|bn|m|k)\b)?"
                       r"(?:[\s-]*(?:(?:working|business|calendar|school|clear|full)\s+)?(?P<unit>[A-Za-z]+|%))?",
                       re.IGNORECASE)
#: amounts written with an article: "a fortnight", "an hour and a half", "half an hour", "for a week", "half of the"
_ARTICLE = re.compile(r"\b(?:(?P<half>half)\s+an?|(?P<after>(?:for|within|in|after|takes|took|lasts|lasted|last|about|"
                      r"around|nearly|almost|over|under|than)\s+)?(?:an?|one))\s+"
                      r"(?P<unit>second|minute|hour|day|week|fortnight|month|year|decade|century)"
                      r"(?P<more>\s+and\s+a\s+half)?\b|\bhalf\s+(?:of\s+)?(?:the|its|their|all)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Quantity:
    """An amount of ``text`` (``start:end``): its value in the base unit of its ``dimension`` (hours, months, a
    currency, "%", or the key of the noun it counts, "" when none follows)."""

    value: float
    dimension: str
    number: float  #: the number as written, scaled
    start: int
    end: int
    text: str

    def same_dimension(self, other: "Quantity") -> bool:
        return self.dimension == other.dimension

    def equals(self, other: "Quantity") -> bool:
        return self.dimension == other.dimension and abs(self.value - other.value) <= 1e-9 * max(1.0, abs(self.value))

    def values(self) -> set[str]:
        """The number as ``normalised_numbers`` writes it: as written, scaled ("1.5 million": 1500000), never
        converted to another unit ("two days" is 2, not 48: a claim's "2 hours" must not match it)."""
        return {clean_number(f"{self.number:.3f}")}


def holds(claim: str, evidence: "tuple[str, ...] | list[str]") -> bool:
    """Whether every amount of ``claim`` equals one of the ``evidence`` sentences' ("48 hours" and "two days"),
    and the claim has one."""
    mine = quantities(claim)
    theirs = [x for s in evidence for x in quantities(s)]
    return bool(mine) and all(any(q.equals(x) for x in theirs) for q in mine)


def _words_value(words: str) -> Optional[float]:
    """The value of number words ("twenty-five", "two hundred and ten"), None when they do not make one number
    ("one seven")."""
    total, current, last = 0.0, 0.0, None
    for w in re.split(r"[\s-]+", words.lower()):
        if not w or w == "and":
            continue
        v = _WORDS.get(w)
        if v is None:
            return None
        if v == 100 or w == "dozen":
            current = (current or 1) * v
        elif v == 1000:
            total, current = total + (current or 1) * 1000, 0.0
        elif last is not None and (last < 20 and last != 100 or v >= 20 and last < 100):
            return None  # "one seven", "twenty thirty"
        else:
            current += v
        last = v
    return total + current


@lru_cache(maxsize=8192)
def quantities(text: str) -> tuple[Quantity, ...]:
    """The amounts of ``text`` in order. A word "one" alone is not an amount ("one of the ..."), nor a year-like
    number's unit the next word."""
    out = []
    for m in _QUANTITY.finditer(text):
        if m.group("digits"):
            raw = m.group("digits").replace(",", "")
            try:
                value = float(raw)
            except ValueError:
                continue
        else:
            words = m.group("words").strip(" -")
            value = _words_value(words)
            if value is None:  # separate number words: the last one counts what follows ("one seven-day")
                start = m.start("words") + m.group("words").rstrip(" -").rfind(re.split(r"[\s-]+", words)[-1])
                words = text[start:m.end("words")].strip(" -")
                value = _words_value(words)
            else:
                start = m.start()
            if words.lower() in ("one", "a") or not words or value is None:
                continue
        scale = (m.group("scale") or "").lower()
        unit = (m.group("unit") or "").lower()
        if scale in ("m", "k", "bn") and not (m.group("cur") or m.group("digits")):
            scale = ""
        if scale:
            value *= _SCALE[scale]
        number = value
        if m.group("digits"):
            start = m.start("cur") if m.group("cur") else m.start("digits")
        end = m.end()
        unit_word = unit.rstrip("s") if unit not in ("s", "%") else unit
        if unit_word in ("quarter", "third", "half", "halve") and re.match(r"\s+of\b", text[m.end():]):
            continue  # "three quarters of an hour": a part of a unit (``_part_amounts``)
        if unit_word == "dozen":  # "2 dozen eggs": 24
            value, unit, unit_word = value * 12, "", ""
        before = text[max(0, start - 12):start].lower().split()
        if m.group("cur"):
            dimension = m.group("cur")
        elif m.group("pct") or unit in ("%", "percent") or unit == "per" and text[end:end + 5].lower() == " cent":
            dimension = "%"
            if unit == "per":
                end += 5
        elif (m.group("digits") and len(raw) == 4 and 1000 <= value <= 2100 and not scale
              and (not unit or unit in STOPWORDS or unit_word in MONTHS_BUT_MAY or not unit.isalpha())):
            dimension, end = "year", m.end("digits")
        elif unit_word in MONTHS_BUT_MAY or before and before[-1] in MONTHS_BUT_MAY:
            dimension = "day of month"
            if before and before[-1] in MONTHS_BUT_MAY and unit_word not in MONTHS_BUT_MAY:
                end = m.end("unit") - len(m.group("unit")) if unit else m.end()
        elif unit:
            key = {"centurie": "century", "centuries": "century"}.get(unit_word, unit_word)
            if key not in _DURATION and key not in _CURRENCY:
                key = stem(unit) if len(unit) > 5 else unit_word
            if key in _DURATION:
                dim, factor = _DURATION[key]
                dimension, value = dim, value * factor
            elif unit_word in _METRIC or unit in _METRIC:
                dim, factor = _METRIC.get(unit, _METRIC.get(unit_word, ("", 1.0)))
                dimension, value = dim, value * factor
            elif key in _CURRENCY:
                dimension = _CURRENCY[key]
            elif unit in STOPWORDS or (m.group("digits") and len(m.group("digits")) == 4 and not scale):
                dimension, end = "", m.end("unit") - len(m.group("unit"))
            else:
                dimension = key
        else:
            dimension = ""
        if m.group("cur") or m.group("pct") or dimension == "%" and not unit.isalpha():
            end = m.end("pct") if m.group("pct") else m.end("digits") if m.group("digits") else end
            if scale:
                end = m.end("scale")
        while end > start and not text[end - 1].isalnum() and text[end - 1] not in "%$":
            end -= 1
        out.append(Quantity(value, dimension, number, start, end, text[start:end]))
    out += _article_amounts(text, out)
    return tuple(sorted(out + _part_amounts(text, out), key=lambda q: q.start))


def _part_amounts(text: str, found: list[Quantity]) -> list[Quantity]:
    """The amounts of ``text`` written as a fraction of a unit or a couple of them (``_PART``) that no other form
    wrote: "a quarter of a litre" (250 ml), "three quarters of an hour" (0.75 hours), "a couple of days" (48
    hours)."""
    out = []
    for m in _PART.finditer(text):
        if any(q.start < m.end() and m.start() < q.end for q in found) or \
                m.group("part") and m.group("part").lower() == "half" and _AND_A.search(text, 0, m.start()):
            continue  # "5 and a half minutes": not half a minute
        unit = (m.group("unit") or m.group("couple")).lower()
        unit_word = unit[:-1] if unit.endswith("s") and unit[:-1] in {**_DURATION, **_METRIC, **_CURRENCY} else unit
        if m.group("couple"):
            number = 2.0
        else:
            part = m.group("part").lower()
            count = {"a": 1, "one": 1, "two": 2, "three": 3, None: 1}[m.group("count") and m.group("count").lower()]
            number = count * _PARTS[part.rstrip("s") if part != "halves" else "halve"]
        if unit_word in _DURATION:
            dim, factor = _DURATION[unit_word]
        elif unit_word in _METRIC:
            dim, factor = _METRIC[unit_word]
        elif unit_word in _CURRENCY:
            dim, factor = _CURRENCY[unit_word], 1.0
        elif m.group("couple"):
            dim, factor = stem(unit) if len(unit) > 5 else unit_word, 1.0
        else:
            continue  # "half the staff": ``_article_amounts`` reads it as a share
        out.append(Quantity(number * factor, dim, number, m.start(), m.end(), m.group()))
    return out


def amount_key(q: Quantity) -> str:
    """The one key an amount is read by, whatever its form: "=" and its value in its dimension's base unit, with the
    dimension when it converts ("=250ml" for "250 ml" and "a quarter of a litre", "=12%" for "twelve per cent",
    "=10$" for "ten dollars" and "$10"), the value alone otherwise ("=750000" for "750,000 visitors" and "seven
    hundred fifty thousand people")."""
    value = clean_number(f"{q.value:.4f}")
    return f"={value}{q.dimension}" if q.dimension in _CONVERTIBLE else f"={value}"


def converts(q: Quantity) -> bool:
    """Whether amount ``q`` is in a unit other amounts convert to (a duration, a currency, per cent, a metric
    unit): its unit words are part of the amount."""
    return q.dimension in _CONVERTIBLE


def _article_amounts(text: str, found: list[Quantity]) -> list[Quantity]:
    """The amounts of ``text`` written with an article (``_ARTICLE``) that no digit or number word wrote: "a
    fortnight" (336 hours), "an hour and a half" (1.5 hours), "half an hour", "half of the staff" (50 %). "a day"
    after "once", "twice" or a price is no amount: only after a word of duration ("for", "within", "takes", ...),
    or as "and a half", "half a", "a fortnight"."""
    out = []
    for m in _ARTICLE.finditer(text):
        if any(q.start < m.end() and m.start() < q.end for q in found):
            continue
        unit = m.group("unit")
        if unit is None:
            out.append(Quantity(50.0, "%", 50.0, m.start(), m.end(), m.group()))
            continue
        unit = unit.lower()
        if not (m.group("half") or m.group("after") or m.group("more") or unit == "fortnight"):
            continue
        number = 0.5 if m.group("half") else 1.5 if m.group("more") else 1.0
        dim, factor = _DURATION[unit]
        start = m.end("after") if m.group("after") else m.start()
        out.append(Quantity(number * factor, dim, number, start, m.end(), text[start:m.end()]))
    return out


_UPPER = ("no more than", "not more than", "less than", "fewer than", "up to", "at most", "under", "within", "below",
          "before", "by", "maximum", "max")
_LOWER = ("no less than", "not less than", "more than", "at least", "over", "above", "minimum", "min", "from",
          "after", "exceeding")


#: bounds that state a limit ("up to 8 guests" is the most allowed): another limit on the same side is another rule
_LIMITS = frozenset(("no more than", "not more than", "up to", "at most", "maximum", "max", "no less than",
                     "not less than", "at least", "minimum", "min"))


def _bound_words(text: str, q: Quantity) -> Optional[tuple[str, str]]:
    before = " " + " ".join(text[max(0, q.start - 24):q.start].lower().split()) + " "
    for words, side in ((_UPPER, "upper"), (_LOWER, "lower")):
        for w in words:
            if before.endswith(f" {w} "):
                return side, w
    return None


def bound(text: str, q: Quantity) -> Optional[str]:
    """"upper" when the words before amount ``q`` of ``text`` bound it from above ("under three weeks", "within 10
    days", "up to 8"), "lower" from below ("at least 18", "more than 50"), None when it is stated as it is."""
    found = _bound_words(text, q)
    return found[0] if found else None


def compatible(claim: str, q: Quantity, evidence: str, other: Quantity) -> bool:
    """Whether amount ``q`` of ``claim`` can hold where ``evidence`` states ``other`` (the same dimension, another
    value), reading their bounds: "in under three weeks" holds for "within 10 days", "16" does not hold for "at
    least 18", nor "up to 30" for "up to twelve" (two limits); two amounts stated as they are never hold together."""
    mine, theirs = bound(claim, q), bound(evidence, other)
    limit = _bound_words(claim, q)
    if limit and limit[1] in _LIMITS and mine == theirs:
        return False  # "up to 30 bags" against "up to twelve bags": two different limits
    if mine == "upper":
        return theirs != "lower" and other.value <= q.value or theirs == "lower" and other.value < q.value
    if mine == "lower":
        return theirs != "upper" and other.value >= q.value or theirs == "upper" and other.value > q.value
    if theirs == "upper":
        return q.value <= other.value
    if theirs == "lower":
        return q.value >= other.value
    return False
