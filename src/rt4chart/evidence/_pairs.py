"""Typed edits between what a context says of two things side by side (``typed.typed_edit`` calls them):

- ``swap``: a clause that coordinates two owners with their amounts ("Northgate opened in 2019 and Southgate in
  2021", "the Standard room costs 95 pounds and the Deluxe room 140 pounds") against a claim that gives one owner
  the other's amount ("Southgate opened in 2019");
- ``comparison``: a claim that compares two owners ("Northgate opened earlier than Southgate", "the X charges
  faster") against the amounts the context gives each, or orders two events ("the launch came before the recall")
  against their dates; wrong by the numbers or the dates, it is contradicted.

An owner is a name of the context (a run of capitalised words, at a sentence's start too unless the context also
writes it in lower case); its values are the amounts (``quantities``) of its part of the clause."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from ._clauses import ClauseIndex, TypedEdit, Clause, same_start
from ._edit_words import words_with_spans, is_name
from ._edits import Edit
from ._quantities import MONTHS_BUT_MAY, Quantity, quantities
from ._words import STOPWORDS

#: where a clause splits into the parts that each give one owner its value
_PARTS = re.compile(r",\s*|;\s*|\s+(?:and|while|whereas|but|compared\s+with|against)\s+", re.IGNORECASE)
#: comparatives: the sign of (first owner's amount - second's) the claim asserts, and the dimensions it reads
#: (None: any); for durations "faster" means less time
_COMPARE = {
    "faster": (-1, {"h"}), "quicker": (-1, {"h"}), "sooner": (-1, {"h"}), "slower": (1, {"h"}),
    "longer": (1, None), "shorter": (-1, None), "cheaper": (-1, {"$", "€", "£", "¥"}),
    "pricier": (1, {"$", "€", "£", "¥"}), "costlier": (1, {"$", "€", "£", "¥"}), "dearer": (1, {"$", "€", "£", "¥"}),
    "earlier": (-1, {"year"}), "later": (1, {"year"}), "older": (-1, {"year"}), "newer": (1, {"year"}),
    "more": (1, None), "fewer": (-1, None), "less": (-1, None), "higher": (1, None), "lower": (-1, None),
    "larger": (1, None), "bigger": (1, None), "smaller": (-1, None), "greater": (1, None), "taller": (1, None),
    "heavier": (1, None), "lighter": (-1, None),
}


#: capitalised words that are dates, not owners ("December 20, 2022")
_CALENDAR = MONTHS_BUT_MAY | frozenset("monday tuesday wednesday thursday friday saturday sunday may".split())


@dataclass(frozen=True)
class _Part:
    owner: str  # lower-cased name
    amounts: tuple[Quantity, ...]


def _names(text: str, first_is_name: bool) -> list[str]:
    """The names of ``text``, lower-cased, a run of capitalised words one name ("ellie goulding")."""
    words = words_with_spans(text)
    out: list[str] = []
    run: list[str] = []
    for k, (w, _, _) in enumerate(words + [("", 0, 0)]):
        if w and is_name(w) and (k > 0 or first_is_name) and w.lower() not in _CALENDAR:
            run.append(w.lower())
            continue
        if run:
            out.append(" ".join(run))
            run = []
    return out


def parts(text: str, known: frozenset[str] = frozenset()) -> list[_Part]:
    """The owner-value parts of a clause: each piece between commas and "and"s whose first name (``known``: the
    names of the context, which may open a sentence) owns its amounts; a piece without a name continues the
    previous owner's."""
    out: list[_Part] = []
    for piece in _PARTS.split(text):
        if not piece or not piece.strip():
            continue
        names = [n for n in _names(piece, first_is_name=True)
                 if n in known or not piece.strip().lower().startswith(n)]
        amounts = quantities(piece)
        if names:
            out.append(_Part(names[0], amounts))
        elif out and amounts:
            last = out[-1]
            out[-1] = _Part(last.owner, last.amounts + amounts)
    return out


def _known(index: ClauseIndex) -> frozenset[str]:
    """Names of the context: capitalised words, at a sentence's start too unless the context also writes them in
    lower case ("Guests may ..." against "guests")."""
    return frozenset(n for s in index.sentences for n in _names(s, first_is_name=True) if n not in index.plain)


def swap(claim: str, cw, low: Sequence[str], clause: Clause, index: ClauseIndex) -> Optional[TypedEdit]:
    """A claim that gives one owner of ``clause`` an amount the clause gives another, where the clause gives the
    claim's owner a different amount of the same dimension."""
    known = _known(index)
    ps = parts(clause.text, known)
    owners = {p.owner for p in ps}
    if len(owners) < 2:
        return None
    mine = [n for n in _names(claim, first_is_name=True) if n in owners]
    if len(set(mine)) != 1:
        return None
    owner = mine[0]
    own = next(p for p in ps if p.owner == owner)
    for q in quantities(claim):
        if any(q.equals(x) for x in own.amounts):
            continue
        other = next((p for p in ps if p.owner != owner and any(q.equals(x) for x in p.amounts)), None)
        theirs = next((x for x in own.amounts if x.same_dimension(q)), None)
        if other is not None and theirs is not None:
            edit = Edit("swap", q.start, q.end, q.text, theirs.text, clause.sentence)
            return TypedEdit(edit, "contradicted", f"the context gives {q.text!r} to {other.owner.title()!r}; "
                             f"for {owner.title()!r} it says {theirs.text!r}")
    return None


def comparison(claim: str, cw, low: Sequence[str], index: ClauseIndex) -> Optional[TypedEdit]:
    """A comparative of the claim ("faster", "cheaper", "earlier", ...) between its first owner and its second, or
    the one other owner the context gives an amount of that kind, that the context's amounts contradict; a claim
    that states an amount itself is not read."""
    at = next((k for k, w in enumerate(low) if w in _COMPARE), None)
    if at is None or quantities(claim):
        return None  # "more than 50 people" states a bound, not a comparison of two owners
    sign, dims = _COMPARE[low[at]]
    known = _known(index)
    amounts: dict[str, list[tuple[Quantity, int]]] = {}
    for c in index.clauses:
        for p in parts(c.text, known):
            amounts.setdefault(p.owner, []).extend((q, c.sentence) for q in p.amounts
                                                   if dims is None or q.dimension in dims)
    named = [n for n in _names(claim, first_is_name=True) if amounts.get(n)]
    named = list(dict.fromkeys(named))
    if not named:
        return None
    first = named[0]
    if len(named) > 1:
        second = named[1]
    else:
        others = [o for o, qs in amounts.items() if o != first and qs]
        if len(others) != 1:
            return None
        second = others[0]
    for qa, sa in amounts[first]:
        qb, sb = next(((q, s) for q, s in amounts[second] if q.same_dimension(qa)), (None, None))
        if qb is None or qa.value == qb.value:
            continue
        said = 1 if qa.value > qb.value else -1
        if said != sign:
            return TypedEdit(Edit("comparison", cw[at][1], cw[at][2], cw[at][0], f"{qa.text} / {qb.text}", sa),
                             "contradicted", f"the claim says {first.title()!r} is {cw[at][0]!r} than "
                             f"{second.title()!r}, but the context gives {qa.text!r} against {qb.text!r}")
        return None
    return None


_MONTH_NUMBER = {m: i + 1 for i, m in enumerate("january february march april may june july august september "
                                                 "october november december".split())}
_MONTH_NUMBER.update({m[:3]: n for m, n in list(_MONTH_NUMBER.items())} | {"sept": 9})
_DATE = re.compile(r"\b(?:(?P<d1>\d{1,2})(?:st|nd|rd|th)?\s+(?P<m1>[A-Za-z]{3,9})\.?(?:,?\s+(?P<y1>\d{4}))?"
                   r"|(?P<m2>[A-Za-z]{3,9})\.?\s+(?:(?P<d2>\d{1,2})(?:st|nd|rd|th)?,?\s*)?(?P<y2>\d{4})?"
                   r"|(?P<y3>\d{4})-(?P<m3>\d{2})-(?P<d3>\d{2})|(?P<y4>(?:1[89]|20)\d{2}))\b")
#: the claim's word that orders two events, and the sign of (first event's date - second's) it asserts
_ORDER = {"before": -1, "after": 1, "preceded": -1, "followed": 1}
#: "named after", "modelled after": no order of events
_NAMED = frozenset("named called modelled modeled patterned styled look looks looked looking".split())


def dates(text: str) -> list[tuple[int, int, int]]:
    """The dates of ``text`` as (year, month, day), 0 for a part it does not give ("March 2023": (2023, 3, 0))."""
    out = []
    for m in _DATE.finditer(text):
        if m.group("y3"):
            out.append((int(m.group("y3")), int(m.group("m3")), int(m.group("d3"))))
            continue
        if m.group("y4"):
            out.append((int(m.group("y4")), 0, 0))
            continue
        month = (m.group("m1") or m.group("m2") or "").lower()
        if month not in _MONTH_NUMBER or month == "may" and not (m.group("d1") or m.group("d2") or m.group("y2")):
            continue
        day, year = m.group("d1") or m.group("d2"), m.group("y1") or m.group("y2")
        if day is None and year is None:
            continue
        out.append((int(year or 0), _MONTH_NUMBER[month], int(day or 0)))
    return out


def _order(a: tuple[int, int, int], b: tuple[int, int, int]) -> int:
    """-1, 0 or 1: a before, unknown or equal, after b, reading the parts both dates give."""
    for x, y in zip(a, b):
        if not x or not y:
            return 0
        if x != y:
            return -1 if x < y else 1
    return 0


def temporal(claim: str, cw, low: Sequence[str], index: ClauseIndex) -> Optional[TypedEdit]:
    """A claim that orders two events ("the launch came before the recall") that the dates of the evidence order
    the other way: each side's content words in a sentence with one date, two different sentences."""
    at = next((k for k, w in enumerate(low) if w in _ORDER and not (k and low[k - 1] in _NAMED)), None)
    if at is None or quantities(claim) or dates(claim):
        return None  # "two days after", "after 2020": an amount or a date of the claim's own
    sides = [{w for w in low[:at] if w not in STOPWORDS}, {w for w in low[at + 1:] if w not in STOPWORDS}]
    found = []
    for side in sides:
        best = None
        for si, sentence in enumerate(index.sentences):
            ds = dates(sentence)
            words = {w.lower() for w, _, _ in words_with_spans(sentence)}
            shared = sum(1 for w in side if same_start(w, words))
            if len(ds) == 1 and shared and (best is None or shared > best[0]):
                best = (shared, si, ds[0])
        if best is None:
            return None
        found.append(best)
    (_, sa, da), (_, sb, db) = found
    said = _order(da, db)
    if sa == sb or said == 0 or said == _ORDER[low[at]]:
        return None
    return TypedEdit(Edit("comparison", cw[at][1], cw[at][2], cw[at][0], index.sentences[sa], sa), "contradicted",
                     f"the claim says {cw[at][0]!r}, but the context dates them the other way: "
                     f"{index.sentences[sa].strip()!r} / {index.sentences[sb].strip()!r}")
