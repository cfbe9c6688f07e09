"""The synthetic generators of entailments: the sentence, or a part of what it says (a clause, the sentence less
its parenthetical remarks or a manner adverb), or the same said otherwise ("not" the opposite adjective, "managed
to", the passive, a small count in words). Each reads a ``Source`` and returns the hypothesis, or None when it cannot
apply.
"""

from __future__ import annotations

import random
import re
from typing import Optional

from rt4chart.audit.decompose import RuleDecomposer

from .synthetic_source import (OPPOSITE, PAST, SUBORDINATORS, WORD, Source, active_names, cased, predicate_adjective,
                               simple_past, splice, states)

_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|will|can|would|should|must|does|do|did|[a-z]{3,}ed)\b")


def copy(src: Source, rng: random.Random) -> Optional[str]:
    """The sentence itself."""
    return src.sentence


def _as_sentence(part: str) -> str:
    part = part.strip().rstrip(",;:")
    return part[:1].upper() + part[1:] + ("" if part.endswith((".", "!")) else ".")


def clause(src: Source, rng: random.Random) -> Optional[str]:
    """A clause of the sentence: one of the auditor's claims of it (``RuleDecomposer``) when it has several, else
    the part before its first comma or semicolon when that part has a verb and is no subordinate clause."""
    s = src.sentence
    claims = [c.text for c in RuleDecomposer().decompose_sync(s)]
    if len(claims) > 1:
        return _as_sentence(claims[rng.randrange(len(claims))])
    m = re.search(r"[,;]", s)
    if m is None:
        return None
    part = s[:m.start()]
    words = WORD.findall(part)
    if len(words) < 4 or not _VERB.search(part) or words[0].lower() in SUBORDINATORS:
        return None
    return _as_sentence(part)


def parenthetical(src: Source, rng: random.Random) -> Optional[str]:
    """The sentence with its parenthetical remarks removed."""
    out = splice(src.sentence, 0, 0, "")
    cut = re.sub(r"\s*\([^()]{1,120}\)", "", out).replace(" ,", ",").replace(" .", ".")
    return cut if cut != out and len(WORD.findall(cut)) >= 4 else None


def negated_antonym(src: Source, rng: random.Random) -> Optional[str]:
    """A predicate adjective of a two-way pair said as "not" its opposite: "the road was closed" -> "the road was
    not open" (a negation that does not contradict)."""
    m = predicate_adjective(src, rng)
    if m is None:
        return None
    adj = m.group(2)
    return splice(src.sentence, m.start(2), m.end(2), "not " + cased(OPPOSITE[adj.lower()], adj).lower())


def managed(src: Source, rng: random.Random) -> Optional[str]:
    """A simple past said with an implicative that keeps it: "X signed the deal" -> "X managed to sign the deal"
    ("went on to", "succeeded in" is left out: it changes the verb's form)."""
    m = simple_past(src.sentence)
    if m is None:
        return None
    return splice(src.sentence, m.start(), m.end(), f"{rng.choice(('managed to', 'went on to'))} {PAST[m.group()]}")


def passive(src: Source, rng: random.Random) -> Optional[str]:
    """A sentence "A <verb>ed B ..." said in the passive: "B was <verb>ed by A ..."."""
    found = active_names(src.sentence)
    if found is None:
        return None
    a, verb, b, rest = found
    return f"{b} was {verb} by {a[:1].lower() + a[1:] if a.startswith('The ') else a}{rest}"


_ADVERB = re.compile(r"\s+\b([a-z]{4,}ly)\b")
#: "-ly" words that are no manner adverbs or that carry what the sentence says ("only", "nearly", "allegedly")
_KEEP_LY = frozenset("only nearly hardly barely scarcely allegedly reportedly supposedly apparently likely unlikely "
                     "early daily weekly monthly yearly family reply supply apply italy july rely ally belly holy "
                     "ugly friendly lonely lovely elderly costly deadly silly partly mostly largely mainly "
                     "merely almost roughly approximately probably possibly presumably seemingly ostensibly "
                     "partially fully entirely completely wholly totally solely exclusively primarily "
                     "initially originally formerly previously recently currently nearly certainly "
                     "definitely never rarely seldom occasionally frequently usually generally normally "
                     "typically mainly chiefly especially particularly reply assembly anomaly italy "
                     "monopoly butterfly firefly bully jelly belly rally tally fly holy".split())


def adverb_drop(src: Source, rng: random.Random) -> Optional[str]:
    """A manner adverb dropped: "sales rose sharply" -> "sales rose" (not "only", "nearly", "allegedly", "mostly",
    frequency or time adverbs: those carry what the sentence says)."""
    if not states(src.sentence):
        return None
    found = [m for m in _ADVERB.finditer(src.sentence) if m.group(1) not in _KEEP_LY]
    if not found:
        return None
    m = found[rng.randrange(len(found))]
    out = splice(src.sentence, m.start(), m.end(), "")
    return out if len(WORD.findall(out)) >= 4 else None


_SMALL = "zero one two three four five six seven eight nine ten eleven twelve".split()
_SMALL_DIGIT = re.compile(r"(?<![\d.,:/$£€#-])\b([2-9]|1[0-2])\b(?![\d.,:/%-]\d|\s*%|[\d])")


def number_words(src: Source, rng: random.Random) -> Optional[str]:
    """A small count written in words: "9 people" -> "nine people" (2 to 12, not in a date, time, sum or per
    cent)."""
    if not states(src.sentence):
        return None
    found = [m for m in _SMALL_DIGIT.finditer(src.sentence)
             if not re.match(r"\s*(?:a\.m|p\.m|am\b|pm\b|%|per\s?cent|percent)", src.sentence[m.end():])]
    if not found:
        return None
    m = found[rng.randrange(len(found))]
    return splice(src.sentence, m.start(1), m.end(1), cased(_SMALL[int(m.group(1))], "x"))
