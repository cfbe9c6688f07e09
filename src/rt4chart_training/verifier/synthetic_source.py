"""What the synthetic generators read (``Source``) and what several of them look for in a sentence: the checks
and spans of a plain statement (``states``, ``name_runs``), the edit helpers (``cased``, ``splice``), and the three
patterns that a contradiction and an entailment generator share: a simple past (``simple_past``: "failed to" /
"managed to"), a predicate adjective of a two-way pair (``predicate_adjective``: its opposite, or "not" its
opposite) and an active sentence between two names (``active_names``: passive with the roles kept or swapped).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Optional

from rt4chart.evidence import STOPWORDS, negated
from rt4chart.evidence.claims import DAYS, MONTHS


@dataclass(frozen=True)
class Source:
    """What a generator reads: the sentence it edits, the premise the hypothesis is checked against (the sentence
    with its neighbours), and the sentences of another document of the same task."""

    sentence: str
    premise: str
    other: tuple[str, ...] = ()


WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
NAME_WORD = r"[A-Z][a-zA-Z]+(?:[-'][A-Za-z]+)*"
_NAME_RUN = re.compile(rf"\b{NAME_WORD}(?:\s+{NAME_WORD})*")
#: a sentence under a condition or reporting what someone says states nothing that an edit can contradict
_HEDGES = frozenset("if unless whether say says said claim claims claimed think thinks thought believe believes "
                    "believed suggest suggests suggested may might could".split())
SUBORDINATORS = frozenset("if when whenever although though while because as since unless after before until "
                          "whether once".split())


def cased(new: str, old: str) -> str:
    """``new`` with ``old``'s capitalisation (first letter, or all capitals)."""
    if old.isupper() and len(old) > 1:
        return new.upper()
    return new[:1].upper() + new[1:] if old[:1].isupper() else new


def splice(text: str, start: int, end: int, new: str) -> str:
    return re.sub(r"\s{2,}", " ", text[:start] + new + text[end:]).replace(" ,", ",").replace(" .", ".").strip()


def states(sentence: str) -> bool:
    """A plain statement: not a question, no condition, no report."""
    return not sentence.rstrip().endswith("?") and not any(w.lower() in _HEDGES for w in WORD.findall(sentence))


def name_runs(sentence: str) -> list[tuple[int, int, str]]:
    """Runs of capitalised words, as ``(start, end, text)``, without a possessive "'s", with a word of at least three
    letters that is not a stop word, and no month or day; a run that opens the sentence loses its first word ("The
    Hollis Museum" -> "Hollis Museum", "Yesterday Smith" -> "Smith")."""
    out = []
    lead = len(sentence) - len(sentence.lstrip(" \"'(*-•"))
    for m in _NAME_RUN.finditer(sentence):
        start, text = m.start(), m.group()
        words = text.split()
        if start == lead:  # a sentence's first word is capitalised whatever it is
            start += len(words[0]) + 1
            words = words[1:]
        end = m.end()
        if words and words[-1].endswith("'s"):  # the possessive stays where it is
            words[-1] = words[-1][:-2]
            end -= 2
        calendar = any(w.lower() in MONTHS or w.lower() in DAYS for w in words)
        if not calendar and any(w.lower() not in STOPWORDS and len(w) >= 3 for w in words):
            out.append((start, end, " ".join(words)))
    return out


#: verbs in the simple past (regular and irregular) and their base form: what "failed to", "refused to" and
#: "declined to" negate without a "not"
PAST = dict(pair.split(":") for pair in (
    "accepted:accept agreed:agree approved:approve announced:announce answered:answer attended:attend "
    "admitted:admit confirmed:confirm completed:complete commented:comment signed:sign reached:reach passed:pass "
    "paid:pay made:make met:meet found:find gave:give took:take visited:visit joined:join returned:return "
    "received:receive released:release published:publish reported:report responded:respond played:play "
    "scored:score finished:finish won:win sold:sell bought:buy built:build opened:open closed:close "
    "supported:support endorsed:endorse voted:vote attacked:attack arrested:arrest charged:charge "
    "identified:identify named:name hired:hire fired:fire launched:launch ordered:order allowed:allow "
    "provided:provide offered:offer repaid:repay delivered:deliver contacted:contact told:tell "
    "explained:explain disclosed:disclose revealed:reveal acknowledged:acknowledge apologized:apologize "
    "apologised:apologise appeared:appear testified:testify survived:survive recovered:recover showed:show "
    "called:call helped:help saved:save protected:protect tested:test checked:check included:include "
    "mentioned:mention wrote:write read:read saw:see heard:hear left:leave arrived:arrive entered:enter "
    "raised:raise cut:cut ended:end started:start began:begin kept:keep followed:follow used:use").split())
_PAST_RE = re.compile(r"(?<![A-Za-z'-])(" + "|".join(sorted(map(re.escape, PAST), key=len, reverse=True))
                      + r")(?![A-Za-z'-])")
#: what comes before a simple past that is no simple past ("was named", "had agreed", "to be released")
_AUX_BEFORE = re.compile(r"\b(?:is|are|was|were|be|been|being|has|have|had|to|will|would|not|never|n't|who|which|"
                         r"that|the|a|an|and)\s+$", re.IGNORECASE)


def simple_past(sentence: str) -> Optional[re.Match]:
    """The first verb of ``PAST`` in a plain statement without a negation that stands as a simple past: the main
    verb after a subject of one to five words, not after an auxiliary, an article or "to"."""
    if not states(sentence) or negated(sentence):
        return None
    for m in _PAST_RE.finditer(sentence):
        before = sentence[:m.start()]
        if 1 <= len(before.split()) <= 5 and not _AUX_BEFORE.search(before) and not re.search(r"[,;:]", before) \
                and before.split()[0].lower() not in SUBORDINATORS:
            return m
    return None


_BINARY = tuple(tuple(pair.split("/")) for pair in (
    "alive/dead present/absent available/unavailable able/unable correct/incorrect complete/incomplete "
    "accurate/inaccurate visible/invisible legal/illegal possible/impossible true/false open/closed "
    "public/private guilty/innocent successful/unsuccessful allowed/forbidden permitted/prohibited "
    "required/optional mandatory/voluntary safe/unsafe married/unmarried employed/unemployed "
    "known/unknown valid/invalid").split())
OPPOSITE = {a: b for a, b in _BINARY} | {b: a for a, b in _BINARY}
_COPULA_ADJ = re.compile(r"\b(is|are|was|were)\s+(" + "|".join(sorted(OPPOSITE)) + r")\b",
                         re.IGNORECASE)


def predicate_adjective(src: Source, rng: random.Random) -> Optional[re.Match]:
    """One predicate adjective of a two-way pair ("was closed"; group 2 the adjective), drawn among those of a plain
    statement without a negation, or None."""
    if not states(src.sentence) or negated(src.sentence):
        return None
    found = list(_COPULA_ADJ.finditer(src.sentence))
    return found[rng.randrange(len(found))] if found else None


_ACTIVE = re.compile(rf"^((?:The )?{NAME_WORD}(?:\s+{NAME_WORD}){{0,3}}) ([a-z]+ed) "
                     rf"((?:the )?{NAME_WORD}(?:\s+{NAME_WORD}){{0,3}})(?=[ ,.;])(.*)$")


def active_names(sentence: str) -> Optional[tuple[str, str, str, str]]:
    """(A, verb, B, rest) of a statement "A <verb>ed B<rest>" whose A and B are names (up to four capitalised words,
    "The"/"the" before them) and whose verb is a regular simple past (its past participle is the same word)."""
    if not states(sentence) or negated(sentence):
        return None
    m = _ACTIVE.match(sentence.strip())
    if m is None:
        return None
    a, verb, b, rest = m.groups()
    words = [w.lower() for w in (a + " " + b).split() if w.lower() != "the"]
    if a.lower() == b.lower() or any(w in STOPWORDS or w in SUBORDINATORS or w in MONTHS or w in DAYS
                                     for w in words):
        return None
    rest = rest.rstrip()
    return a, verb, b[:1].upper() + b[1:], rest if rest.endswith((".", "!")) else rest + "."
