"""Synthetic pairs from RAGTruth **train** context sentences: one edit that changes what a sentence says
(contradiction), a part of what it says (entailment), or what it does not say (neutral).

Each generator reads a ``Source`` (the sentence, the premise it is checked against: the sentence with up to two
neighbours, and the sentences of another document of the same task) and returns the hypothesis, or None when it
cannot apply; one whose edit belongs in the premise (``lexical_negation``'s "declined to comment" against
"commented") returns (premise, hypothesis). ``GENERATORS`` names each with its label; ``synthetic_pairs`` runs each
over a seeded order of the prose sentences of the contexts until its cap. The closed word lists are the lexical
layer's (``NEGATIONS``, ``rivals``, ``STOPWORDS``) and a few of this module's own (simple pasts, two-way
adjectives, manner adverbs).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Sequence

from rt4chart.audit.decompose import RuleDecomposer
from rt4chart.eval.datasets import EvalRecord
from rt4chart.evidence import NEGATIONS, NUMBER, STOPWORDS, EvidenceIndex, content_words, negated, numbers, rivals
from rt4chart.evidence.claims import DAYS, MONTHS

from .pairs import LABELS, Pair


@dataclass(frozen=True)
class Source:
    """What a generator reads: the sentence it edits, the premise the hypothesis is checked against (the sentence
    with its neighbours), and the sentences of another document of the same task."""

    sentence: str
    premise: str
    other: tuple[str, ...] = ()


_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_NAME_WORD = r"[A-Z][a-zA-Z]+(?:[-'][A-Za-z]+)*"
_NAME_RUN = re.compile(rf"\b{_NAME_WORD}(?:\s+{_NAME_WORD})*")
#: a sentence under a condition or reporting what someone says states nothing that an edit can contradict
_HEDGES = frozenset("if unless whether say says said claim claims claimed think thinks thought believe believes "
                    "believed suggest suggests suggested may might could".split())
_SUBORDINATORS = frozenset("if when whenever although though while because as since unless after before until "
                           "whether once".split())
_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|will|can|would|should|must|does|do|did|[a-z]{3,}ed)\b")
_TEMPORAL = {"before": "after", "after": "before"}
#: "named after", "look after", "ever after", "day after day", "after all": no order in time
_NOT_TEMPORAL = re.compile(r"\b(?:named|look|looks|looked|looking|ever|day|year|time)\s+$", re.IGNORECASE)
_CROSSING = frozenset("tall high wide broad".split())  # "high" vs "wide" is another dimension, not an antonym


def _cased(new: str, old: str) -> str:
    """``new`` with ``old``'s capitalisation (first letter, or all capitals)."""
    if old.isupper() and len(old) > 1:
        return new.upper()
    return new[:1].upper() + new[1:] if old[:1].isupper() else new


def _splice(text: str, start: int, end: int, new: str) -> str:
    return re.sub(r"\s{2,}", " ", text[:start] + new + text[end:]).replace(" ,", ",").replace(" .", ".").strip()


def _states(sentence: str) -> bool:
    """A plain statement: not a question, no condition, no report."""
    return not sentence.rstrip().endswith("?") and not any(w.lower() in _HEDGES for w in _WORD.findall(sentence))


def _name_runs(sentence: str) -> list[tuple[int, int, str]]:
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


# ---- contradiction ----------------------------------------------------------------------------------------------

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
    if not _states(src.sentence):
        return None
    edits = [(m.start(), m.end(), m.expand(rep)) for pat, rep in _QUANTIFIERS for m in pat.finditer(src.sentence)]
    if not edits:
        return None
    start, end, new = edits[rng.randrange(len(edits))]
    return _splice(src.sentence, start, end, _cased(new, src.sentence[start:end]))


_NEGATABLE = re.compile(r"\b(?:is|are|was|were|can|will|would|should|must|has been|have been|had been)\b",
                        re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:(is|are|was|were|can|will|would|should|must|has|have|had|do|does|did) not|"
                      r"(is|are|was|were|do|does|did|has|have|had|could|would|should)n't|(can)not|(can)'t|"
                      r"(wo)n't|never|no longer)\b", re.IGNORECASE)


def negation(src: Source, rng: random.Random) -> Optional[str]:
    """A negation added to a sentence without one ("is" -> "is not", "can" -> "cannot"), or the one negation of a
    sentence removed ("was not" -> "was", "never" dropped, "won't" -> "will", "no longer" -> "still")."""
    s = src.sentence
    if not _states(s):
        return None
    if negated(s):
        found = list(_NEGATED.finditer(s))
        words = [w.lower() for w in _WORD.findall(s)]
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
        return _splice(s, m.start(), m.end(), _cased(new, m.group()) if new else "")
    found = list(_NEGATABLE.finditer(s))
    if not found:
        return None
    m = found[rng.randrange(len(found))]
    word = m.group()
    if word.lower() == "can":
        new = _cased("cannot", word)
    elif " " in word:
        first, rest = word.split(" ", 1)
        new = f"{first} not {rest}"
    else:
        new = f"{word} not"
    return _splice(s, m.start(), m.end(), new)


def antonym(src: Source, rng: random.Random) -> Optional[str]:
    """A word of a closed contrast class (``rt4chart.evidence.rivals``) replaced by one that says otherwise ("rose"
    -> "fell", "north" -> "south", "public" -> "private"), of the same ending when there is one; "before"/"after"
    are ``temporal``'s, and "second" is left alone (a unit as often as an ordinal)."""
    if not _states(src.sentence):
        return None
    choices = []
    for m in _WORD.finditer(src.sentence):
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
    return _splice(src.sentence, m.start(), m.end(), _cased(rival[rng.randrange(len(rival))], m.group()))


def role_swap(src: Source, rng: random.Random) -> Optional[str]:
    """Two names of one sentence swapped ("Smith defeated Jones" -> "Jones defeated Smith"), when one to eight words
    stand between them, not only "and"/"or" (a list reads the same in any order)."""
    s = src.sentence
    if not _states(s):
        return None
    runs = _name_runs(s)
    pairs = []
    for (a0, a1, a), (b0, b1, b) in zip(runs, runs[1:]):
        between = [w.lower() for w in _WORD.findall(s[a1:b0])]
        if a.lower() != b.lower() and s.count(a) == 1 and s.count(b) == 1 and len(between) <= 8 \
                and any(w not in ("and", "or", "of", "the") for w in between):
            pairs.append((a0, a1, b0, b1))
    if not pairs:
        return None
    a0, a1, b0, b1 = pairs[rng.randrange(len(pairs))]
    return s[:a0] + s[b0:b1] + s[a1:b0] + s[a0:a1] + s[b1:]


def wrong_entity(src: Source, rng: random.Random) -> Optional[str]:
    """A name replaced by a name of as many words from another document, one that the premise does not hold."""
    if not _states(src.sentence):
        return None
    runs = _name_runs(src.sentence)
    if not runs:
        return None
    start, end, text = runs[rng.randrange(len(runs))]
    lowered = src.premise.lower()
    pool = sorted({t for o in src.other for _, _, t in _name_runs(o)
                   if len(t.split()) == len(text.split()) and t.lower() not in lowered})
    if not pool:
        return None
    return src.sentence[:start] + pool[rng.randrange(len(pool))] + src.sentence[end:]


_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")


def number_change(src: Source, rng: random.Random) -> Optional[str]:
    """A number written in digits changed to one the premise does not hold (a year by 1-9, others by a small step
    or a factor); times, dates, ranges and ordinals ("10:30", "3/4", "5-7", "21st") are left alone."""
    s = src.sentence
    if not _states(s):
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
    if not _states(s):
        return None
    spots = [m for m in re.finditer(r"\b(?:before|after)\b(?!\s+all\b)", s, re.IGNORECASE)
             if not _NOT_TEMPORAL.search(s[:m.start()])]
    if not spots:
        return None
    m = spots[rng.randrange(len(spots))]
    return _splice(src.sentence, m.start(), m.end(), _cased(_TEMPORAL[m.group().lower()], m.group()))


#: verbs in the simple past (regular and irregular) and their base form: what "failed to", "refused to" and
#: "declined to" negate without a "not"
_PAST = dict(pair.split(":") for pair in (
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
_PAST_RE = re.compile(r"(?<![A-Za-z'-])(" + "|".join(sorted(map(re.escape, _PAST), key=len, reverse=True))
                      + r")(?![A-Za-z'-])")
#: what comes before a simple past that is no simple past ("was named", "had agreed", "to be released")
_AUX_BEFORE = re.compile(r"\b(?:is|are|was|were|be|been|being|has|have|had|to|will|would|not|never|n't|who|which|"
                         r"that|the|a|an|and)\s+$", re.IGNORECASE)
_NEGATIVE_IMPLICATIVES = ("failed to", "refused to", "declined to", "did not")


def _simple_past(sentence: str) -> Optional[re.Match]:
    """The first verb of ``_PAST`` in a plain statement without a negation that stands as a simple past: the main
    verb after a subject of one to five words, not after an auxiliary, an article or "to"."""
    if not _states(sentence) or negated(sentence):
        return None
    for m in _PAST_RE.finditer(sentence):
        before = sentence[:m.start()]
        if 1 <= len(before.split()) <= 5 and not _AUX_BEFORE.search(before) and not re.search(r"[,;:]", before) \
                and before.split()[0].lower() not in _SUBORDINATORS:
            return m
    return None


def lexical_negation(src: Source, rng: random.Random):
    """A simple past said not to have happened without "not": "X signed the deal" -> "X refused to sign the deal"
    ("failed to", "declined to"). Half the time the other way round: the premise says "X declined to comment" and
    the hypothesis "X commented". Returns (premise, hypothesis) when the premise is the edited one."""
    m = _simple_past(src.sentence)
    if m is None:
        return None
    base = _PAST[m.group()]
    edited = _splice(src.sentence, m.start(), m.end(), f"{rng.choice(_NEGATIVE_IMPLICATIVES[:3])} {base}")
    if rng.random() < 0.5:
        return edited
    return src.premise.replace(src.sentence, edited, 1), src.sentence


_BINARY = tuple(tuple(pair.split("/")) for pair in (
    "alive/dead present/absent available/unavailable able/unable correct/incorrect complete/incomplete "
    "accurate/inaccurate visible/invisible legal/illegal possible/impossible true/false open/closed "
    "public/private guilty/innocent successful/unsuccessful allowed/forbidden permitted/prohibited "
    "required/optional mandatory/voluntary safe/unsafe married/unmarried employed/unemployed "
    "known/unknown valid/invalid").split())
_OPPOSITE = {a: b for a, b in _BINARY} | {b: a for a, b in _BINARY}
_COPULA_ADJ = re.compile(r"\b(is|are|was|were)\s+(" + "|".join(sorted(_OPPOSITE)) + r")\b",
                         re.IGNORECASE)


def _predicate_adjective(src: Source, rng: random.Random) -> Optional[re.Match]:
    """One predicate adjective of a two-way pair ("was closed"; group 2 the adjective), drawn among those of a plain
    statement without a negation, or None."""
    if not _states(src.sentence) or negated(src.sentence):
        return None
    found = list(_COPULA_ADJ.finditer(src.sentence))
    return found[rng.randrange(len(found))] if found else None


def binary_antonym(src: Source, rng: random.Random) -> Optional[str]:
    """A predicate adjective of a two-way pair turned to its opposite: "the road was open" -> "the road was
    closed", "the treatment is optional" -> "is required"."""
    m = _predicate_adjective(src, rng)
    if m is None:
        return None
    adj = m.group(2)
    return _splice(src.sentence, m.start(2), m.end(2), _cased(_OPPOSITE[adj.lower()], adj))


def passive_swap(src: Source, rng: random.Random) -> Optional[str]:
    """A sentence "A <verb>ed B ..." turned passive with the roles swapped: "B was <verb>ed by A" said as "A was
    <verb>ed by B" (the sibling of ``passive``, which keeps the roles)."""
    found = _active_names(src.sentence)
    if found is None:
        return None
    a, verb, b, rest = found
    return f"{a} was {verb} by {b[:1].lower() + b[1:] if b.startswith('The ') else b}{rest}"


# ---- entailment -------------------------------------------------------------------------------------------------

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
    words = _WORD.findall(part)
    if len(words) < 4 or not _VERB.search(part) or words[0].lower() in _SUBORDINATORS:
        return None
    return _as_sentence(part)


def parenthetical(src: Source, rng: random.Random) -> Optional[str]:
    """The sentence with its parenthetical remarks removed."""
    out = _splice(src.sentence, 0, 0, "")
    cut = re.sub(r"\s*\([^()]{1,120}\)", "", out).replace(" ,", ",").replace(" .", ".")
    return cut if cut != out and len(_WORD.findall(cut)) >= 4 else None


def negated_antonym(src: Source, rng: random.Random) -> Optional[str]:
    """A predicate adjective of a two-way pair said as "not" its opposite: "the road was closed" -> "the road was
    not open" (a negation that does not contradict)."""
    m = _predicate_adjective(src, rng)
    if m is None:
        return None
    adj = m.group(2)
    return _splice(src.sentence, m.start(2), m.end(2), "not " + _cased(_OPPOSITE[adj.lower()], adj).lower())


def managed(src: Source, rng: random.Random) -> Optional[str]:
    """A simple past said with an implicative that keeps it: "X signed the deal" -> "X managed to sign the deal"
    ("went on to", "succeeded in" is left out: it changes the verb's form)."""
    m = _simple_past(src.sentence)
    if m is None:
        return None
    return _splice(src.sentence, m.start(), m.end(), f"{rng.choice(('managed to', 'went on to'))} {_PAST[m.group()]}")


_ACTIVE = re.compile(rf"^((?:The )?{_NAME_WORD}(?:\s+{_NAME_WORD}){{0,3}}) ([a-z]+ed) "
                     rf"((?:the )?{_NAME_WORD}(?:\s+{_NAME_WORD}){{0,3}})(?=[ ,.;])(.*)$")


def _active_names(sentence: str) -> Optional[tuple[str, str, str, str]]:
    """(A, verb, B, rest) of a statement "A <verb>ed B<rest>" whose A and B are names (up to four capitalised words,
    "The"/"the" before them) and whose verb is a regular simple past (its past participle is the same word)."""
    if not _states(sentence) or negated(sentence):
        return None
    m = _ACTIVE.match(sentence.strip())
    if m is None:
        return None
    a, verb, b, rest = m.groups()
    words = [w.lower() for w in (a + " " + b).split() if w.lower() != "the"]
    if a.lower() == b.lower() or any(w in STOPWORDS or w in _SUBORDINATORS or w in MONTHS or w in DAYS
                                     for w in words):
        return None
    rest = rest.rstrip()
    return a, verb, b[:1].upper() + b[1:], rest if rest.endswith((".", "!")) else rest + "."


def passive(src: Source, rng: random.Random) -> Optional[str]:
    """A sentence "A <verb>ed B ..." said in the passive: "B was <verb>ed by A ..."."""
    found = _active_names(src.sentence)
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
    if not _states(src.sentence):
        return None
    found = [m for m in _ADVERB.finditer(src.sentence) if m.group(1) not in _KEEP_LY]
    if not found:
        return None
    m = found[rng.randrange(len(found))]
    out = _splice(src.sentence, m.start(), m.end(), "")
    return out if len(_WORD.findall(out)) >= 4 else None


_SMALL = "zero one two three four five six seven eight nine ten eleven twelve".split()
_SMALL_DIGIT = re.compile(r"(?<![\d.,:/$£€#-])\b([2-9]|1[0-2])\b(?![\d.,:/%-]\d|\s*%|[\d])")


def number_words(src: Source, rng: random.Random) -> Optional[str]:
    """A small count written in words: "9 people" -> "nine people" (2 to 12, not in a date, time, sum or per
    cent)."""
    if not _states(src.sentence):
        return None
    found = [m for m in _SMALL_DIGIT.finditer(src.sentence)
             if not re.match(r"\s*(?:a\.m|p\.m|am\b|pm\b|%|per\s?cent|percent)", src.sentence[m.end():])]
    if not found:
        return None
    m = found[rng.randrange(len(found))]
    return _splice(src.sentence, m.start(1), m.end(1), _cased(_SMALL[int(m.group(1))], "x"))


# ---- neutral ----------------------------------------------------------------------------------------------------

def _unheld(text: str, premise: str) -> int:
    """How many content words of ``text`` the premise does not have."""
    return len(content_words(text) - content_words(premise))


def other_sentence(src: Source, rng: random.Random) -> Optional[str]:
    """A sentence of another document: of five drawn, the one sharing most content words with the premise (a
    harder neutral), provided two of its content words are not the premise's."""
    if not src.other:
        return None
    drawn = [src.other[rng.randrange(len(src.other))] for _ in range(5)]
    held = content_words(src.premise)
    drawn = [d for d in drawn if _unheld(d, src.premise) >= 2]
    if not drawn:
        return None
    return max(drawn, key=lambda d: len(content_words(d) & held))


def added_clause(src: Source, rng: random.Random) -> Optional[str]:
    """The sentence with a clause of another document added: "<sentence>, and <fragment>." (the fragment is a
    clause of another document's sentence, with two content words the premise does not have; its first word is
    lower-cased unless the other document writes it as a name)."""
    if not src.other or src.sentence.rstrip().endswith("?"):
        return None
    other = src.other[rng.randrange(len(src.other))]
    parts = [c.text for c in RuleDecomposer().decompose_sync(other)]
    part = parts[rng.randrange(len(parts))].strip().rstrip(".!;,:")
    words = part.split()
    if len(words) < 4 or _unheld(part, src.premise) < 2:
        return None
    names = {w for o in src.other for _, _, run in _name_runs(o) for w in run.split()}
    if words[0] not in names:  # a sentence's first word, not a name
        part = part[:1].lower() + part[1:]
    return src.sentence.rstrip().rstrip(".!;,:") + ", and " + part + "."


#: generator name -> (its label, the generator); ``source`` is ``synthetic/<name>``
GENERATORS: dict[str, tuple[str, Callable[[Source, random.Random], Optional[str]]]] = {
    "quantifier": ("contradiction", quantifier),
    "negation": ("contradiction", negation),
    "antonym": ("contradiction", antonym),
    "role_swap": ("contradiction", role_swap),
    "wrong_entity": ("contradiction", wrong_entity),
    "number": ("contradiction", number_change),
    "temporal": ("contradiction", temporal),
    "lexical_negation": ("contradiction", lexical_negation),
    "binary_antonym": ("contradiction", binary_antonym),
    "passive_swap": ("contradiction", passive_swap),
    "copy": ("entailment", copy),
    "clause": ("entailment", clause),
    "parenthetical": ("entailment", parenthetical),
    "negated_antonym": ("entailment", negated_antonym),
    "managed": ("entailment", managed),
    "passive": ("entailment", passive),
    "adverb_drop": ("entailment", adverb_drop),
    "number_words": ("entailment", number_words),
    "other_sentence": ("neutral", other_sentence),
    "added_clause": ("neutral", added_clause),
}


def default_caps(per_label: int) -> dict[str, int]:
    """Each generator's cap: ``per_label`` pairs a label, shared equally by its generators."""
    counts = {lab: sum(1 for label, _ in GENERATORS.values() if label == lab) for lab in LABELS}
    return {name: per_label // counts[label] for name, (label, _) in GENERATORS.items()}


def prose(sentence: str) -> bool:
    """A sentence of running text worth editing: 6-60 words, starting with a capital, ending in "." or "!", no
    record syntax (braces, '":') and no line break, as a character or written out ("\\n")."""
    words = sentence.split()
    return (6 <= len(words) <= 60 and sentence[:1].isupper() and sentence.rstrip().endswith((".", "!"))
            and not any(c in sentence for c in "{}[]|\n") and '":' not in sentence and "\\n" not in sentence)


def window(texts: Sequence[str], i: int, rng: random.Random) -> str:
    """Sentence ``i`` with up to two of its neighbours (how many and which, seeded), in order."""
    lo, hi = i, i + 1
    for _ in range(rng.randint(0, 2)):
        if rng.random() < 0.5 and lo > 0:
            lo -= 1
        elif hi < len(texts):
            hi += 1
        elif lo > 0:
            lo -= 1
    return " ".join(texts[lo:hi])


def synthetic_pairs(records: Iterable[EvalRecord], *, seed: int = 0,
                    caps: Optional[dict[str, int]] = None) -> list[Pair]:
    """Each generator's pairs over the prose sentences of the records' distinct contexts, in an order seeded by
    ``seed`` and the generator's name, until its cap (``caps``, default ``default_caps(9000)``). The other document
    is a seeded draw among the other contexts of the same task; ``group`` is the edited context's."""
    caps = default_caps(9000) if caps is None else caps
    docs: dict[str, tuple[str, tuple[str, ...]]] = {}
    for r in records:
        if r.group not in docs:
            docs[r.group] = (r.task, EvidenceIndex(r.context).texts)
    groups = sorted(docs)
    by_task: dict[str, list[str]] = {}
    for g in groups:
        by_task.setdefault(docs[g][0], []).append(g)
    candidates = [(g, i) for g in groups for i, s in enumerate(docs[g][1]) if prose(s)]
    prose_of = {g: tuple(s for s in docs[g][1] if prose(s)) for g in groups}
    out: list[Pair] = []
    for name, (label, generate) in GENERATORS.items():
        cap = caps.get(name, 0)
        rng = random.Random(f"{seed}:{name}")
        order = list(candidates)
        rng.shuffle(order)
        made = 0
        for g, i in order:
            if made >= cap:
                break
            texts = docs[g][1]
            same_task = by_task[docs[g][0]]
            other = same_task[rng.randrange(len(same_task))] if len(same_task) > 1 else g
            other_sentences = prose_of[other] if other != g else ()
            src = Source(texts[i], window(texts, i, rng), other_sentences)
            made_pair = generate(src, rng)
            premise, hypothesis = made_pair if isinstance(made_pair, tuple) else (src.premise, made_pair)
            if hypothesis is None or (label != "entailment" and hypothesis.strip() == texts[i].strip()
                                      and premise == src.premise):
                continue
            out.append(Pair(premise, hypothesis, label, f"synthetic/{name}", g))
            made += 1
    return out
