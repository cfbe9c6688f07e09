"""Typed edits between what a context says of two things side by side (``typed.typed_edit`` calls them):

- ``swap``: a clause that coordinates two owners with their amounts ("Northgate opened in 2019 and Southgate in
  2021", "the Standard room costs 95 pounds and the Deluxe room 140 pounds") against a claim that gives one owner
  the other's amount ("Southgate opened in 2019");
- ``comparison``: a claim that compares two owners ("Northgate opened earlier than Southgate", "the X charges
  faster") against the amounts the context gives each; wrong by the numbers, it is contradicted.

An owner is a name of the context (a run of capitalised words, at a sentence's start too unless the context also
writes it in lower case); its values are the amounts (``quantities``) of its part of the clause."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from .align import ClauseIndex, TypedEdit, _Clause
from .edit_words import _edit_words, _is_name
from .edits import Edit
from .quantities import _MONTHS, Quantity, quantities

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
_CALENDAR = _MONTHS | frozenset("monday tuesday wednesday thursday friday saturday sunday may".split())


@dataclass(frozen=True)
class _Part:
    owner: str  # lower-cased name
    amounts: tuple[Quantity, ...]


def _names(text: str, first_is_name: bool) -> list[str]:
    """The names of ``text``, lower-cased, a run of capitalised words one name ("ellie goulding")."""
    words = _edit_words(text)
    out: list[str] = []
    run: list[str] = []
    for k, (w, _, _) in enumerate(words + [("", 0, 0)]):
        if w and _is_name(w) and (k > 0 or first_is_name) and w.lower() not in _CALENDAR:
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


def swap(claim: str, cw, low: Sequence[str], clause: _Clause, index: ClauseIndex) -> Optional[TypedEdit]:
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
