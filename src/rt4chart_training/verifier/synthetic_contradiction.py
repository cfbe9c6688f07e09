"""The synthetic generators of contradictions: one edit that changes what a sentence says (a quantifier, a
negation, an antonym, two names swapped, another name, a number, before/after, a negative implicative, a two-way
adjective's opposite, a passive with the roles swapped). Each reads a ``Source`` and returns the hypothesis, or None
when it cannot apply; ``lexical_negation`` may return (premise, hypothesis).
"""

from __future__ import annotations

import random
import re
from typing import Optional

from rt4chart.evidence import NEGATIONS, NUMBER, negated, numbers, rivals

from .synthetic_source import (OPPOSITE, PAST, WORD, Source, active_names, cased, name_runs, predicate_adjective,
                               simple_past, splice, states)

_TEMPORAL = {"before": "after", "after": "before"}
#: "named after", "look after", "ever after", "day after day", "after all": no order in time
_NOT_TEMPORAL = re.compile(r"\b(?:named|look|looks|looked|looking|ever|day|year|time)\s+$", re.IGNORECASE)
_CROSSING = frozenset("tall high wide broad".split())  # "high" vs "wide" is another dimension, not an antonym

_AFTER_DETERMINER = "".join(rf"(?<!\b{d} )" for d in "the an his her its their my our your".split())
#: what follows "all", "every", "some" when it does not quantify a noun ("all of", "every time", "some have")
_NOT_A_NOUN = ("(?:of|the|a|an|this|that|these|those|my|his|her|its|our|their|your|time|times|day|days|night|year|"
               "years|week|month|so|but|and|or|because|is|are|was|were|have|has|had|will|can|would|could|should|may|"
               "might|do|does|did|it|they|we|you|he|she|i|in|on|at|to|for|over|along|around|about|too|more|most|"
               "sort|sorts|kind|kinds|along|else|right|together|alone|told)")
_QUANTIFIERS: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(p, re.IGNORECASE), r) for p, r in (
    (r"(?:(?<=^)|(?<=\bto )|(?<=\bfor )|(?<=\bby )|(?<=\bwith )|(?<=\bamong ))only [a-z]+ ([a-z]+s)\b", r"all \1"),
    (_AFTER_DETERMINER + r"(?<!\bnot )\bonly\b(?! (?:if|when|to|a|an|one|two|three|four|five|once|be|been|"
     r"because|about|around|\d))", "not only"),
    (r"(?<!\bat )(?<!\bafter )(?<!\babove )\ball of the\b", "none of the"),
    (rf"(?<!\bat )(?<!\bafter )(?<!\babove )(?<!-)\b(?:all|every)\b(?= [a-z])(?! {_NOT_A_NOUN}\b)", "no"),
    (r"\b(?:some|several|many) of the\b", "none of the"),
    (rf"(?<!-)\b(?:some|several)\b(?= [a-z])(?! {_NOT_A_NOUN}\b)", "no"),
    (r"\balways\b", "never"),
    (r"\b(?:everyone|everybody)\b", "no one"),
    (r"\beverything\b", "nothing"),
    (r"\bnone of the\b", "all of the"),
    (r"\b(?:nobody|no one)\b", "everyone"),
))


def quantifier(src: Source, rng: random.Random) -> Optional[str]:
    """A quantifier or scope word changed: "only new users" -> "all users", "only" -> "not only", "all"/"every" ->
    "no", "some" -> "no", "always" -> "never", "none of the" -> "all of the"."""
    if not states(src.sentence):
        return None
    edits = [(m.start(), m.end(), m.expand(rep)) for pat, rep in _QUANTIFIERS for m in pat.finditer(src.sentence)]
    if not edits:
        return None
    start, end, new = edits[rng.randrange(len(edits))]
    return splice(src.sentence, start, end, cased(new, src.sentence[start:end]))


_NEGATABLE = re.compile(r"\b(?:is|are|was|were|can|will|would|should|must|has been|have been|had been)\b",
                        re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:(is|are|was|were|can|will|would|should|must|has|have|had|do|does|did) not|"
                      r"(is|are|was|were|do|does|did|has|have|had|could|would|should)n't|(can)not|(can)'t|"
                      r"(wo)n't|never|no longer)\b", re.IGNORECASE)


def negation(src: Source, rng: random.Random) -> Optional[str]:
    """A negation added to a sentence without one ("is" -> "is not", "can" -> "cannot"), or the one negation of a
    sentence removed ("was not" -> "was", "never" dropped, "won't" -> "will", "no longer" -> "still")."""
    s = src.sentence
    if not states(s):
        return None
    if negated(s):
        found = list(_NEGATED.finditer(s))
        words = [w.lower() for w in WORD.findall(s)]
        if len(found) != 1 or sum(w in NEGATIONS or w.endswith("n't") for w in words) != 1:
            return None
        m = found[0]
        low = m.group().lower()
        aux = next((g for g in m.groups() if g), None)
        if low == "no longer":
            new = "still"
        elif aux is None:  # "never"
            new = ""
        else:
            new = "will" if aux.lower() == "wo" else aux
        return splice(s, m.start(), m.end(), cased(new, m.group()) if new else "")
    found = list(_NEGATABLE.finditer(s))
    if not found:
        return None
    m = found[rng.randrange(len(found))]
    word = m.group()
    if word.lower() == "can":
        new = cased("cannot", word)
    elif " " in word:
        first, rest = word.split(" ", 1)
        new = f"{first} not {rest}"
    else:
        new = f"{word} not"
    return splice(s, m.start(), m.end(), new)


def antonym(src: Source, rng: random.Random) -> Optional[str]:
    """A word of a closed contrast class (``rt4chart.evidence.rivals``) replaced by one that says otherwise ("rose"
    -> "fell", "north" -> "south", "public" -> "private"), of the same ending when there is one; "before"/"after"
    are ``temporal``'s, and "second" is left alone (a unit as often as an ordinal)."""
    if not states(src.sentence):
        return None
    choices = []
    for m in WORD.finditer(src.sentence):
        w = m.group()
        if w.lower() in _TEMPORAL or w.lower() == "second" or (w[0].isupper() and m.start() > 0):
            continue
        rival = sorted(rivals(w) - (_CROSSING if w.lower() in _CROSSING else frozenset()))
        rival = [r for r in rival if r[-2:] == w.lower()[-2:]] or rival  # "weekly" -> "monthly", not "annual"
        if rival:
            choices.append((m, rival))
    if not choices:
        return None
    m, rival = choices[rng.randrange(len(choices))]
    return splice(src.sentence, m.start(), m.end(), cased(rival[rng.randrange(len(rival))], m.group()))


def role_swap(src: Source, rng: random.Random) -> Optional[str]:
    """Two names of one sentence swapped ("Smith defeated Jones" -> "Jones defeated Smith"), when one to eight words
    stand between them, not only "and"/"or" (a list reads the same in any order)."""
    s = src.sentence
    if not states(s):
        return None
    runs = name_runs(s)
    pairs = []
    for (a0, a1, a), (b0, b1, b) in zip(runs, runs[1:]):
        between = [w.lower() for w in WORD.findall(s[a1:b0])]
        if a.lower() != b.lower() and s.count(a) == 1 and s.count(b) == 1 and len(between) <= 8 \
                and any(w not in ("and", "or", "of", "the") for w in between):
            pairs.append((a0, a1, b0, b1))
    if not pairs:
        return None
    a0, a1, b0, b1 = pairs[rng.randrange(len(pairs))]
    return s[:a0] + s[b0:b1] + s[a1:b0] + s[a0:a1] + s[b1:]


def wrong_entity(src: Source, rng: random.Random) -> Optional[str]:
    """A name replaced by a name of as many words from another document, one that the premise does not hold."""
    if not states(src.sentence):
        return None
    runs = name_runs(src.sentence)
    if not runs:
        return None
    start, end, text = runs[rng.randrange(len(runs))]
    lowered = src.premise.lower()
    pool = sorted({t for o in src.other for _, _, t in name_runs(o)
                   if len(t.split()) == len(text.split()) and t.lower() not in lowered})
    if not pool:
        return None
    return src.sentence[:start] + pool[rng.randrange(len(pool))] + src.sentence[end:]


_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")


def number_change(src: Source, rng: random.Random) -> Optional[str]:
    """A number written in digits changed to one the premise does not hold (a year by 1-9, others by a small step
    or a factor); times, dates, ranges and ordinals ("10:30", "3/4", "5-7", "21st") are left alone."""
    s = src.sentence
    if not states(s):
        return None
    spots = []
    for m in NUMBER.finditer(s):
        before, after = s[m.start() - 1:m.start()], s[m.end():m.end() + 2]
        if before in (":", "/", "-") or after[:1] in (":", "/", "-") or after[:1].isalpha():
            continue
        spots.append(m)
    if not spots:
        return None
    m = spots[rng.randrange(len(spots))]
    d = _DIGITS.search(m.group())
    raw = d.group()
    start, end = m.start() + d.start(), m.start() + d.end()
    held = numbers(src.premise)
    value = float(raw.replace(",", ""))
    for _ in range(8):
        if "." in raw:
            places = len(raw.split(".")[1])
            new_value = round(value + rng.choice((-1, 1)) * rng.randint(1, 9) * 10 ** -places, places)
            new = f"{new_value:.{places}f}"
        else:
            n = int(value)
            if 1900 <= n <= 2100 and len(raw) == 4:
                n2 = n + rng.choice((-1, 1)) * rng.randint(1, 9)
            else:
                n2 = rng.choice((n + rng.randint(1, 3), n * 2, n * 3, max(n - rng.randint(1, 3), 0), n + 10))
            new = f"{n2:,}" if "," in raw else str(n2)
        if new != raw and float(new.replace(",", "")) >= 0 and new.replace(",", "") not in held:
            return s[:start] + new + s[end:]
    return None


def temporal(src: Source, rng: random.Random) -> Optional[str]:
    """"before" and "after" swapped (one of them; not in "named after", "look after", "after all")."""
    s = src.sentence
    if not states(s):
        return None
    spots = [m for m in re.finditer(r"\b(?:before|after)\b(?!\s+all\b)", s, re.IGNORECASE)
             if not _NOT_TEMPORAL.search(s[:m.start()])]
    if not spots:
        return None
    m = spots[rng.randrange(len(spots))]
    return splice(src.sentence, m.start(), m.end(), cased(_TEMPORAL[m.group().lower()], m.group()))


_NEGATIVE_IMPLICATIVES = ("failed to", "refused to", "declined to", "did not")


def lexical_negation(src: Source, rng: random.Random):
    """A simple past said not to have happened without "not": "X signed the deal" -> "X refused to sign the deal"
    ("failed to", "declined to"). Half the time the other way round: the premise says "X declined to comment" and
    the hypothesis "X commented". Returns (premise, hypothesis) when the premise is the edited one."""
    m = simple_past(src.sentence)
    if m is None:
        return None
    base = PAST[m.group()]
    edited = splice(src.sentence, m.start(), m.end(), f"{rng.choice(_NEGATIVE_IMPLICATIVES[:3])} {base}")
    if rng.random() < 0.5:
        return edited
    return src.premise.replace(src.sentence, edited, 1), src.sentence


def binary_antonym(src: Source, rng: random.Random) -> Optional[str]:
    """A predicate adjective of a two-way pair turned to its opposite: "the road was open" -> "the road was
    closed", "the treatment is optional" -> "is required"."""
    m = predicate_adjective(src, rng)
    if m is None:
        return None
    adj = m.group(2)
    return splice(src.sentence, m.start(2), m.end(2), cased(OPPOSITE[adj.lower()], adj))


def passive_swap(src: Source, rng: random.Random) -> Optional[str]:
    """A sentence "A <verb>ed B ..." turned passive with the roles swapped: "B was <verb>ed by A" said as "A was
    <verb>ed by B" (the sibling of ``passive``, which keeps the roles)."""
    found = active_names(src.sentence)
    if found is None:
        return None
    a, verb, b, rest = found
    return f"{a} was {verb} by {b[:1].lower() + b[1:] if b.startswith('The ') else b}{rest}"
