"""A comparison a claim makes between entities whose values the evidence gives, computed.

"Both the Danube and the Rhine are longer than 1,000 km" against "The Danube is 2,850 km long. The Rhine is 1,230 km
long.": each entity's value is read from the evidence sentence that names it, and the comparison computed (2,850 km
and 1,230 km both above 1,000 km: it holds). ``compare(claim, index)`` reads:

- an entity **against an amount** or **against another entity**: "X and Y are (not) (both) longer than 1,000 km",
  "Either X or Y is ...", "Neither X nor Y is ...", "X is older than Y" (comparatives: longer, taller, higher, more,
  older, ... and their opposites; "older" between years of birth is the earlier year);
- two entities **the same or different**: "X and Y were (not) born in the same city" (each one's value: the words
  after the predicate, "born in", in the evidence sentence that names it), "X and Y are the same height" (amounts).

Both values found -> ``Compared`` with whether the claim holds, why ("the Danube: 2,850 km; the Rhine: 1,230 km:
both longer than 1,000 km") and the sentences read; anything else (no such wording, an entity the evidence does not
name with a value) -> None: the judge decides. A bare "yes"/"no" to such a question reaches here as the question's
statement (``text.particles.yes_no_statement``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from ._index import EvidenceIndex
from ._quantities import Quantity, quantities
from ._words import content_words, stem

_MORE = ("longer", "taller", "higher", "bigger", "larger", "greater", "more", "heavier", "older", "wider", "deeper",
         "farther", "further", "later", "faster", "hotter", "warmer", "richer", "dearer")
_LESS = ("shorter", "smaller", "lower", "less", "fewer", "lighter", "younger", "narrower", "shallower", "earlier",
         "slower", "colder", "cooler", "cheaper", "poorer")
_AUX = r"is|are|was|were|do|does|did|has|have|had"
#: "Both X and Y are not both longer than Z" and its kin: quantifier, subjects, auxiliary, negation, comparative
_THAN = re.compile(
    rf"^\W*(?P<pre>both|either|neither|not\s+both)?\s*(?P<subject>.+?)\s+(?P<aux>{_AUX})(?P<neg>\s+not|n't)?"
    rf"(?P<post>\s+both|\s+either)?\s+(?:(?P<cmp>{'|'.join(_MORE + _LESS)})(?:\s+\w+)?)\s+than\s+(?P<other>.+?)\W*$",
    re.IGNORECASE,
)
_SAME = re.compile(
    rf"^\W*(?P<pre>both)?\s*(?P<subject>.+?)\s+(?P<aux>{_AUX})(?P<neg>\s+not|n't)?\s+(?P<pred>.*?)\s*"
    r"(?:the\s+)?(?P<same>same|different)\s+(?P<noun>[\w-]+)\W*$",
    re.IGNORECASE,
)
_JOIN = re.compile(r"\s*,\s*(?:and|or|nor)?\s*|\s+(?:and|or|nor)\s+", re.IGNORECASE)
#: where a value read after a predicate stops: punctuation, a preposition or a conjunction starting something else
_VALUE_END = re.compile(r"[,.;:()]|\s(?:in|on|at|and|but|while|whereas|where|which|who|to|from|with|for|by)\s",
                        re.IGNORECASE)
_DETERMINER = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Compared:
    """What ``compare`` computed: whether the claim holds, why, and the evidence sentences it read."""

    holds: bool
    reason: str
    sentences: tuple[int, ...]


def _entities(subject: str) -> list[str]:
    parts = [p.strip() for p in _JOIN.split(subject) if p and p.strip()]
    return [_DETERMINER.sub("", p) for p in parts]


def _mentions(entity: str, index: EvidenceIndex) -> list[tuple[int, int]]:
    """(sentence, offset of the entity's last word there) of the evidence sentences naming every content word of
    ``entity``."""
    words = content_words(entity)
    if not words:
        return []
    out = []
    for i, text in enumerate(index.readings):
        lowered = text.lower()
        found = [m for w in words for m in re.finditer(rf"\b{re.escape(w)}", lowered)]
        if all(re.search(rf"\b{re.escape(w)}", lowered) for w in words):
            out.append((i, max(m.end() for m in found)))
    return out


def _amount(entity: str, index: EvidenceIndex, dimension: Optional[str]) -> Optional[tuple[Quantity, int]]:
    """The amount the evidence gives the entity (of ``dimension`` when given): the nearest after its name in a
    sentence naming it (before it, when none follows), the same in every such sentence."""
    found: dict[tuple[float, str], tuple[Quantity, int]] = {}
    for i, at in _mentions(entity, index):
        amounts = [q for q in quantities(index.readings[i]) if dimension is None or q.dimension == dimension]
        if dimension is None:
            amounts = [q for q in amounts if q.dimension not in ("day of month",)]
        after = [q for q in amounts if q.start >= at]
        pick = min(after, key=lambda q: q.start) if after else max(amounts, key=lambda q: q.end, default=None)
        if pick is not None:
            found.setdefault((pick.value, pick.dimension), (pick, i))
    return next(iter(found.values())) if len(found) == 1 else None


def _value_after(entity: str, predicate: str, index: EvidenceIndex) -> Optional[tuple[str, int]]:
    """The words after ``predicate`` ("born in") in the evidence sentence naming the entity: "Warsaw"."""
    words = predicate.split()
    if not words:
        return None
    found = {}
    for i, at in _mentions(entity, index):
        text = index.readings[i]
        pattern = r"\b" + r"\s+".join(re.escape(w) if k else re.escape(stem(w.lower())) + r"\w*"
                                      for k, w in enumerate(words)) + r"\s+"
        m = re.search(pattern, text[at:], re.IGNORECASE)
        if m is None:
            continue
        rest = text[at + m.end():]
        stop = _VALUE_END.search(rest)
        value = _DETERMINER.sub("", rest[:stop.start() if stop else len(rest)].strip())
        if value:
            found.setdefault(value.lower(), (value, i))
    return next(iter(found.values())) if len(found) == 1 else None


def _larger(word: str, dimension: str) -> bool:
    """Whether the comparative asks for the larger value: "older" between years asks for the earlier one."""
    more = word.lower() in _MORE
    return not more if dimension == "year" and word.lower() in ("older", "younger") else more


def _than(m: re.Match, index: EvidenceIndex) -> Optional[Compared]:
    entities = _entities(m.group("subject"))
    if not entities:
        return None
    word = m.group("cmp")
    stated = quantities(m.group("other"))
    threshold = stated[0] if len(stated) == 1 and m.group("other").strip().startswith(stated[0].text[:1]) else None
    if threshold is not None:
        read = [_amount(e, index, threshold.dimension) for e in entities]
        against, against_text, used = threshold.value, threshold.text, set()
    else:
        if len(entities) != 1:
            return None
        other = _DETERMINER.sub("", m.group("other").strip())
        theirs = _amount(other, index, None)
        if theirs is None:
            return None
        read = [_amount(entities[0], index, theirs[0].dimension)]
        against, against_text, used = theirs[0].value, f"{other}'s {theirs[0].text}", {theirs[1]}
    if any(r is None for r in read):
        return None
    dimension = read[0][0].dimension
    larger = _larger(word, dimension)
    each = [(r[0].value > against) if larger else (r[0].value < against) for r in read if r is not None]
    pre = (m.group("pre") or "").lower()
    post = (m.group("post") or "").strip().lower()
    negated = bool(m.group("neg"))
    if pre == "neither":
        holds = not any(each)
    elif pre == "either" or post == "either" or re.search(r"\bor\b", m.group("subject"), re.IGNORECASE):
        holds = any(each) != negated
    elif pre == "not both" or (negated and post == "both"):
        holds = not all(each)
    else:
        holds = not any(each) if negated else all(each)
    shown = "; ".join(f"{e}: {r[0].text}" for e, r in zip(entities, read) if r is not None)
    verdict = "as the claim states" if holds else "not as the claim states"
    return Compared(holds, f"{shown}, against {against_text} ({word} than): {verdict}",
                    tuple(sorted(used | {r[1] for r in read if r is not None})))


def _same(m: re.Match, index: EvidenceIndex) -> Optional[Compared]:
    entities = _entities(m.group("subject"))
    if len(entities) != 2:
        return None
    predicate = m.group("pred").strip()
    read: list[tuple[str, int]] = []
    if predicate:
        for e in entities:
            found = _value_after(e, predicate, index)
            if found is None:
                return None
            read.append(found)
        alike = read[0][0].lower() == read[1][0].lower()
    else:
        a, b = (_amount(e, index, None) for e in entities)
        if a is None or b is None or a[0].dimension != b[0].dimension:
            return None
        read = [(a[0].text, a[1]), (b[0].text, b[1])]
        alike = a[0].value == b[0].value
    claims_alike = (m.group("same").lower() == "same") != bool(m.group("neg"))
    shown = "; ".join(f"{e}: {v}" for e, (v, _) in zip(entities, read))
    holds = alike == claims_alike
    what = "the same" if alike else "different"
    return Compared(holds, f"{shown}: {what} {m.group('noun')}, {'as' if holds else 'not as'} the claim states",
                    tuple(sorted({i for _, i in read})))


def compare(claim: str, index: EvidenceIndex) -> Optional[Compared]:
    """The comparison the claim makes, computed from the values the evidence gives (see the module docstring); None
    when it makes none this reads or a value is missing."""
    m = _THAN.match(claim)
    if m is not None:
        return _than(m, index)
    m = _SAME.match(claim)
    if m is not None:
        return _same(m, index)
    return None
