"""Calendar dates in a text, and a deadline computed from a start date and a duration.

``dates(text)`` reads the dates a text writes ("March 10", "10 March 2025", "1st of June", "June 1, 2025",
"2025-06-01"; not "06/01/2025", whose order is a guess) as ``Written`` dates, with or without their year.
``deadline(claim, evidence, question)`` checks a claim that states one date computed from another: a start date the
question (the user's own situation: "My order was delivered on March 10") or the evidence gives, plus the one
duration the evidence states ("within 30 days of delivery", "18 months from the date of purchase", "5 business
days"). Calendar arithmetic is python-dateutil's ``relativedelta`` (months and years) and numpy's ``busday_offset``
(business days).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Optional, Sequence

from ._quantities import quantities

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH = r"(?P<{}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|" \
         r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_DAY = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(?P<{}>(?:19|20)\d\d))?"
_DATE = re.compile(
    r"\b(?:" + _DAY.format("d1") + r"(?:\s+of)?\s+" + _MONTH.format("m1") + _YEAR.format("y1")
    + r"|" + _MONTH.format("m2") + r"\s+" + _DAY.format("d2") + r"\b" + _YEAR.format("y2")
    + r"|(?P<y3>(?:19|20)\d\d)-(?P<m3>[01]\d)-(?P<d3>[0-3]\d))\b",
    re.IGNORECASE,
)
#: a year to compute in when no date says one (not a leap year, so that no day is invented)
_SOME_YEAR = 2025


@dataclass(frozen=True)
class Written:
    """A date as a text writes it: where, and its month, day and year (None when not written)."""

    start: int
    end: int
    text: str
    month: int
    day: int
    year: Optional[int]

    def on(self, year: int) -> Optional[dt.date]:
        try:
            return dt.date(self.year or year, self.month, self.day)
        except ValueError:
            return None


def dates(text: str) -> list[Written]:
    """The calendar dates ``text`` writes, in order."""
    out = []
    for m in _DATE.finditer(text):
        g = m.groupdict()
        if g["m3"]:
            month, day, year = int(g["m3"]), int(g["d3"]), int(g["y3"])
        else:
            name = (g["m1"] or g["m2"]).lower().rstrip(".")
            month = next(i for i, full in enumerate(_MONTHS, 1) if full.startswith(name[:3]))
            day = int(g["d1"] or g["d2"])
            year = int(g["y1"] or g["y2"]) if (g["y1"] or g["y2"]) else None
        if 1 <= day <= 31:
            out.append(Written(m.start(), m.end(), m.group(0).strip(" ,."), month, day, year))
    return out


@dataclass(frozen=True)
class Duration:
    text: str
    days: int = 0
    months: int = 0
    business: bool = False

    def after(self, start: dt.date) -> dt.date:
        from dateutil.relativedelta import relativedelta

        if self.business:
            import numpy as np

            return dt.date.fromisoformat(str(np.busday_offset(np.datetime64(start), self.days, roll="forward")))
        return start + relativedelta(months=self.months, days=self.days)


def durations(text: str) -> list[Duration]:
    """The durations in days, weeks, months or years that ``text`` states."""
    out = []
    for q in quantities(text):
        unit = q.text.lower()
        if q.dimension == "mo" and float(q.value).is_integer():
            out.append(Duration(q.text, months=int(q.value)))
        elif q.dimension == "h" and re.search(r"\b(?:days?|weeks?|fortnights?)\b", unit) and q.value % 24 == 0:
            out.append(Duration(q.text, days=int(q.value // 24), business=bool(re.search(r"business|working", unit))))
        elif re.search(r"\byears?\b", unit) and q.dimension != "year" and float(q.value).is_integer() \
                and 0 < q.value < 100:
            out.append(Duration(q.text, months=12 * int(q.value)))
    return out


@dataclass(frozen=True)
class Deadline:
    """A claim's date checked: whether start + duration gives it, the reason, and the evidence sentences read."""

    holds: bool
    reason: str
    sentences: tuple[int, ...]


def _shown(d: dt.date, like: Written) -> str:
    text = f"{_MONTHS[d.month - 1].title()} {d.day}"
    return f"{text}, {d.year}" if like.year is not None else text


def _same(a: Written, b: Written) -> bool:
    """The same day, unless both say their year and the years differ."""
    return (a.month, a.day) == (b.month, b.day) and (a.year is None or b.year is None or a.year == b.year)


def deadline(claim: str, evidence: Sequence[str], question: Optional[str] = None) -> Optional[Deadline]:
    """Check a claim's one date against a start date (the question's or the evidence's, one only) plus the one
    duration the evidence states; None when the claim states no such date or the reading is ambiguous (several
    starts or durations, the claim's date written in the evidence, a result a day apart: counting conventions
    differ)."""
    stated = dates(claim)
    if len(stated) != 1:
        return None
    claimed = stated[0]
    spans = [(i, d) for i, t in enumerate(evidence) for d in durations(t)]
    if len({(d.days, d.months, d.business) for _, d in spans}) != 1:
        return None
    if any(_same(d, claimed) for t in evidence for d in dates(t)):
        return None  # the evidence writes the claim's date: a date of its own, not one computed
    starts = [d for d in dates(question or "")] + [d for t in evidence for d in dates(t)]
    starts = [d for d in starts if not _same(d, claimed)]
    if len({(d.month, d.day, d.year) for d in starts}) != 1:
        return None
    start, (i, duration) = starts[0], spans[0]
    year = start.year or claimed.year or _SOME_YEAR
    begun, wanted = start.on(year), claimed.on(year)
    if begun is None or wanted is None:
        return None
    end = duration.after(begun)
    if claimed.year is None and start.year is None and end.year != begun.year:
        wanted = claimed.on(end.year)
    if wanted is None:
        return None
    whose = " (the question's date)" if any(_same(d, start) for d in dates(question or "")) else ""
    shown = f"{start.text}{whose} + {duration.text} = {_shown(end, claimed)}"
    if wanted == end:
        return Deadline(True, f"{shown}, as the claim states", (i,))
    if abs((wanted - end).days) <= 1:
        return None
    return Deadline(False, f"{shown}, not {claimed.text}", (i,))
