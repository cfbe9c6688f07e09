"""Shared lexical primitives: tokens, content words, numbers, capitalised names.

Used by the lexical judge, the auditor's prefilter and the facet matcher, so that "content word" means the same
thing everywhere.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional, Sequence

STOPWORDS = frozenset(
    """
a about above after again against all also am an and any are aren't as at be because been before being below
between both but by can cannot could couldn't did didn't do does doesn't doing don't down during each few for from
further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his
how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my myself no nor
not of off on once only or other ought our ours ourselves out over own same shan't she she'd she'll she's should
shouldn't so some such than that that's the their theirs them themselves then there there's these they they'd
they'll they're they've this those through to too under until up very was wasn't we we'd we'll we're we've were
weren't what what's when when's where where's which while who who's whom why why's with won't would wouldn't you
you'd you'll you're you've your yours yourself yourselves will may might must shall just s t can't also however
based provided passage passages according mentioned states stated information context text answer
""".split()
)

NEGATIONS = frozenset("not no never none nobody nothing neither nor without cannot n't isn't aren't wasn't weren't "
                      "don't doesn't didn't won't wouldn't shouldn't couldn't can't hasn't haven't hadn't".split())

_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
    "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20",
    "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
    "hundred": "100", "thousand": "1000", "once": "1", "twice": "2", "single": "1", "half": "0.5",
}

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?(?:[.,][0-9]+)*")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\$?\d[\d,]*(?:\.\d+)?%?")
_CAP = re.compile(r"\b[A-Z][a-zA-Z]+(?:[-'][A-Za-z]+)*\b")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stemmer: enough to match "users"/"user", "verified"/"verify", "lasts"/"last"."""
    w = word
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("ly", "")):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)] + repl
    return w


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens (numbers keep their decimal point: "3.5")."""
    return [t.lower().replace("’", "'").replace(",", "") for t in _TOKEN.findall(text)]


def content_word_map(text: str) -> dict[str, str]:
    """Stemmed non-stop-word tokens mapped to the first surface form they came from."""
    out: dict[str, str] = {}
    for tok in tokens(text):
        if tok in STOPWORDS or len(tok) < 2 and not tok.isdigit():
            continue
        out.setdefault(_NUMBER_WORDS.get(tok, stem(tok)), tok)
    return out


def content_words(text: str) -> set[str]:
    """Stemmed non-stop-word tokens; number words are mapped to digits."""
    return set(content_word_map(text))


def numbers(text: str) -> set[str]:
    """Numbers in ``text``, normalised (commas, currency and trailing zeros removed; number words as digits)."""
    out = set()
    for raw in _NUMBER.findall(text):
        n = raw.replace(",", "").replace("$", "").rstrip("%").lstrip("+")
        if "." in n:
            n = n.rstrip("0").rstrip(".")
        if n and n != "-":
            out.add(n)
    for tok in tokens(text):
        if tok in _NUMBER_WORDS and tok not in ("once", "single", "one"):
            out.add(_NUMBER_WORDS[tok])
    return out


def has_negation(text: str) -> bool:
    toks = tokens(text)
    return any(t in NEGATIONS or t.endswith("n't") for t in toks)


def capitalised_names(text: str) -> set[str]:
    """Capitalised words that are not the first word of a sentence, lower-cased (a cheap proper-noun proxy)."""
    names = set()
    for m in _CAP.finditer(text):
        before = text[: m.start()].rstrip()
        if not before or before[-1] in ".!?:\n\"'(-•*":
            continue
        word = m.group(0).lower()
        if word not in STOPWORDS:
            names.add(word)
    return names


# -- one-edit copies: a name or number swapped, a negation added ------------------------------------------------
_EDIT_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")  # Unicode letters: "Zürich" is one word
#: an edit must leave the claim's other content words at least this well covered by the evidence sentence
EDIT_COVER = 0.8
_RUN = 3  # names or numbers of at most this many words
_NEGATED_PHRASE = 4  # a negation added before at least this many words copied from the evidence (2 content words)
#: a claim's negation of a verb ("without", "no" and "none" negate nouns, which evidence phrases many ways)
_VERB_NEGATIONS = frozenset("not never cannot".split())
# an evidence sentence with one of these is not a sentence without negation: negations as web text writes them
# without the apostrophe ("you didnt allow"), and words that limit or deny ("they are hardly limited to")
_SOFT_NEGATIONS = frozenset("dont doesnt didnt isnt arent wasnt werent cant couldnt wont wouldnt shouldnt hasnt "
                            "havent hadnt hardly scarcely barely seldom rarely unable fail fails failed lack lacks "
                            "lacking".split())


@dataclass(frozen=True)
class Edit:
    """A claim that copies an evidence sentence but for one edit. ``kind`` "name" or "number": ``claim_text`` (at
    ``start:end`` of the claim) stands where evidence sentence ``sentence`` has ``evidence_text``. ``kind``
    "negation": ``claim_text`` is a negation the sentence does not have, before ``evidence_text``, which the
    sentence states."""

    kind: str
    start: int
    end: int
    claim_text: str
    evidence_text: str
    sentence: int

    def describe(self) -> str:
        """The edit in words, for a judgment's reason."""
        if self.kind == "negation":
            return f"the claim negates what an evidence sentence states: {self.evidence_text!r}"
        return (f"the claim has {self.claim_text!r} where an evidence sentence that otherwise matches it has "
                f"{self.evidence_text!r}")


def _edit_words(text: str) -> list[tuple[str, int, int]]:
    """Words with their character spans; a possessive "'s" is left out of the word (not of the text)."""
    out = []
    for m in _EDIT_WORD.finditer(text.replace("\u2019", "'")):
        w, end = m.group(), m.end()
        if w.lower().endswith("'s"):
            w, end = w[:-2], end - 2
        out.append((w, m.start(), end))
    return out


def _is_name(word: str) -> bool:
    return len(word) >= 3 and word[0].isupper() and not word.isupper() and word.lower() not in STOPWORDS


def _is_number_word(word: str) -> bool:
    """A number written as a word ("seven", "seventy"); digits are the number checks' (``numbers``) business."""
    return word.lower() in _NUMBER_WORDS and word.lower() not in ("once", "single", "half")


def _plain(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c))


def _abbreviates(short: str, long: str) -> bool:
    """"nov" of "november", "bldg" of "building": the same first letter, then the short word's letters in order."""
    rest = iter(long)
    return short[:1] == long[:1] and all(c in rest for c in short)


def _variant(a: Sequence[str], b: Sequence[str]) -> bool:
    """Two spellings or forms of one name rather than two names: Jan/January, Defence/Defense, Salad/Salads,
    Café/Cafe, Rhas/Rahas."""
    a, b = [_plain(x) for x in a], [_plain(x) for x in b]
    if any(x[:3] == y[:3] or _abbreviates(x, y) or _abbreviates(y, x) for x in a for y in b):
        return True
    return difflib.SequenceMatcher(None, " ".join(a), " ".join(b)).ratio() >= 0.75


def _runs(words: Sequence[str], absent_from: "set[str] | frozenset[str]",
          kind: Callable[[str], bool]) -> list[tuple[int, int]]:
    """Maximal runs ``[i, j)`` (not at the start, at most ``_RUN`` words) of words of a ``kind`` (a predicate)
    absent from the other text."""
    out, i = [], 1
    while i < len(words):
        if kind(words[i]) and words[i].lower() not in absent_from:
            j = i + 1
            while j < len(words) and kind(words[j]) and words[j].lower() not in absent_from:
                j += 1
            if j - i <= _RUN:
                out.append((i, j))
            i = j
        else:
            i += 1
    return out


@dataclass(frozen=True)
class _Sentences:
    text: tuple[str, ...]
    words: list[list[tuple[str, int, int]]]
    lower: list[list[str]]
    sets: list[set[str]]
    numbers: frozenset[str]
    postings: dict[str, list[int]]  # word -> the sentences that have it, in order


@lru_cache(maxsize=16)
def _vocabulary(sentences: tuple[str, ...]) -> frozenset[str]:
    """The lower-cased words of all the sentences (as ``_edit_words`` reads them), in one pass over their text."""
    text = "\n".join(sentences).replace("\u2019", "'").lower()
    return frozenset(w[:-2] if w.endswith("'s") else w for w in _EDIT_WORD.findall(text))


@lru_cache(maxsize=8192)
def _sentence_edit_words(sentence: str) -> list[tuple[str, int, int]]:
    """``_edit_words`` of an evidence sentence (read, never changed): the chunks of a context and the context itself
    hold the same sentences."""
    return _edit_words(sentence)


@lru_cache(maxsize=16)
def _sentences(sentences: tuple[str, ...]) -> _Sentences:
    words = [_sentence_edit_words(s) for s in sentences]
    lower = [[w.lower() for w, _, _ in ws] for ws in words]
    sets = [set(ws) for ws in lower]
    postings: dict[str, list[int]] = {}
    for i, ws in enumerate(sets):
        for w in ws:
            postings.setdefault(w, []).append(i)
    return _Sentences(sentences, words, lower, sets,
                      frozenset().union(*(numbers(s) for s in sentences)) if sentences else frozenset(), postings)


def _covered(rest: set[str], sentence: set[str]) -> bool:
    return bool(rest) and len(rest & sentence) >= EDIT_COVER * len(rest)


#: the kinds of word a swap replaces, in the order they are tried
_KINDS: dict[str, Callable[[str], bool]] = {"name": _is_name, "number": _is_number_word}


def _swap(claim: str, cw: list[tuple[str, int, int]], runs: list[tuple[str, int, int]],
          ev: _Sentences) -> Optional[Edit]:
    """The first of the claim's candidate ``runs`` (kind, start, end word) that stands in place of another."""
    if has_negation(claim):
        return None  # "The tower is not in London" against "The tower is in Paris" agrees with it
    cl = [w.lower() for w, _, _ in cw]
    claim_set = set(cl)
    claim_numbers = numbers(claim)
    for kind, i, j in runs:
        mine = claim[cw[i][1]:cw[j - 1][2]]
        if kind == "number" and not (numbers(mine) and numbers(mine).isdisjoint(ev.numbers)):
            continue  # "7" for "seven" is the same number
        prev, nxt = cl[i - 1], cl[j] if j < len(cl) else None
        rest = {w for k, w in enumerate(cl) if not i <= k < j and w not in STOPWORDS}
        for si in ev.postings.get(prev, ()):
            ws, low, wset = ev.words[si], ev.lower[si], ev.sets[si]
            if not _covered(rest, wset):
                continue
            for a, b in _runs([w for w, _, _ in ws], claim_set, _KINDS[kind]):
                after = low[b] if b < len(low) else None
                if low[a - 1] != prev or after != nxt:
                    continue
                theirs = ev.text[si][ws[a][1]:ws[b - 1][2]]
                if kind == "name" and _variant(cl[i:j], low[a:b]):
                    continue
                if kind == "number" and not (numbers(theirs) and numbers(theirs).isdisjoint(claim_numbers)):
                    continue
                return Edit(kind, cw[i][1], cw[j - 1][2], mine, theirs, si)
    return None


def _negation(claim: str, cw: list[tuple[str, int, int]], ev: _Sentences) -> Optional[Edit]:
    cl = [w.lower() for w, _, _ in cw]
    for k, w in enumerate(cl):
        if not (w in _VERB_NEGATIONS or w.endswith("n't")):
            continue
        if all(x in STOPWORDS for x in cl[:k]):
            return None  # no subject to match ("are not traded on an exchange", cut from a longer sentence)
        phrase = cl[k + 1:k + 7]
        rest = {x for x in cl if x not in STOPWORDS and x not in NEGATIONS and not x.endswith("n't")}
        # the sentences holding every other content word of the claim; if one of them has a negation, however
        # written, the evidence may say what the claim says ("Cameron did not use the Power of Veto" beside "Did
        # Cameron use the Power of Veto this week?"), and a question states nothing
        near = [si for si in (ev.postings.get(phrase[0], ()) if phrase else ()) if rest <= ev.sets[si]]
        if any(has_negation(ev.text[si]) or not _SOFT_NEGATIONS.isdisjoint(ev.sets[si]) for si in near):
            return None
        for si in near:
            low = ev.lower[si]
            if ev.text[si].rstrip().endswith("?"):
                continue
            for n in range(len(phrase), _NEGATED_PHRASE - 1, -1):  # the longest copied run after the negation
                part = phrase[:n]
                if sum(p not in STOPWORDS for p in part) < 2:
                    break
                at = next((a for a in range(len(low) - n + 1) if low[a:a + n] == part), None)
                if at is not None:
                    words = ev.words[si]
                    return Edit("negation", cw[k][1], cw[k][2], claim[cw[k][1]:cw[k][2]],
                                ev.text[si][words[at][1]:words[at + n - 1][2]], si)
        return None
    return None


def one_edit(claim: str, sentences: Sequence[str]) -> Optional[Edit]:
    """How ``claim`` differs from an evidence sentence it otherwise copies, when that is one edit that changes what it
    says, or None.

    - **Another name or number in one place**: a run of capitalised words (not the claim's first word) or of number
      words, found nowhere in the evidence, between the same two neighbouring words (or the same word and the end) as
      a run of the same kind in one evidence sentence that the claim does not have ("The Eiffel Tower is in London"
      against "... is in Paris"; "seventy million" against "seven million"), that sentence covering at least
      ``EDIT_COVER`` of the claim's other content words. Two spellings of one name (Jan/January, Defence/Defense)
      are not swaps, nor is a name in a negated claim ("... is not in London"). Digits are left to the number
      checks, which compare values.
    - **A negation the evidence does not have**: "not", "never", "cannot" or "-n't" after a content word (the
      subject) and before at least four words (two of them content words) that an evidence sentence with no
      negation states, that sentence holding every other content word of the claim ("Visitors cannot take a lift
      to the top" against "... or take a lift to the top").

    A sentence-initial capital says nothing, and a paraphrase rarely keeps both neighbours of a name while changing
    it. How often this fires on RAGTruth train, and how often rightly: ``docs/results/local_judge.md``."""
    cw, words, negates = _claim_edit_words(claim)
    if len(cw) < 2:
        return None
    sentences = tuple(sentences)
    vocabulary = _vocabulary(sentences)
    # names and number words of the claim found nowhere in the evidence, in the order they are tried
    runs = [(kind, i, j) for kind, test in _KINDS.items() for i, j in _runs(words, vocabulary, test)]
    if not (runs or negates):
        return None  # most claims: nothing to look for, and the sentences need no index
    ev = _sentences(sentences)
    return _swap(claim, list(cw), runs, ev) or _negation(claim, list(cw), ev)


@lru_cache(maxsize=1024)
def _claim_edit_words(claim: str) -> tuple[tuple[tuple[str, int, int], ...], tuple[str, ...], bool]:
    """A claim's ``_edit_words``, the words alone, and whether one of them is a verb negation: one claim is read
    against every chunk and then the whole context."""
    cw = tuple(_edit_words(claim))
    words = tuple(w for w, _, _ in cw)
    return cw, words, any(w.lower() in _VERB_NEGATIONS or w.lower().endswith("n't") for w in words)
