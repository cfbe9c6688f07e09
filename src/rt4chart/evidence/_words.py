"""Lexical primitives: tokens, stems, content words, numbers, negations, capitalised names.

Used by the lexical judge, the local judge's features, the auditor's prefilter and the facet matcher, so that
"content word" means the same thing everywhere.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterator

#: stop words, with words that only point at the sources ("passage", "according", "context")
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

#: negation words; a token ending in "n't" is a negation too (``has_negation``)
NEGATIONS = frozenset("not no never none nobody nothing neither nor without cannot n't isn't aren't wasn't weren't "
                      "don't doesn't didn't won't wouldn't shouldn't couldn't can't hasn't haven't hadn't".split())

#: number words and their digits ("once" is 1, "half" is 0.5)
NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
    "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20",
    "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
    "hundred": "100", "thousand": "1000", "once": "1", "twice": "2", "single": "1", "half": "0.5",
}

#: a word token: letters and digits, an apostrophe suffix ("don't"), decimal or thousands parts ("3.5", "1,200")
TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?(?:[.,][0-9]+)*")
#: a number written in digits, with its sign, currency and percent sign
NUMBER = re.compile(r"(?<![\w.])[-+]?\$?\d[\d,]*(?:\.\d+)?%?")
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
    return [t.lower().replace("’", "'").replace(",", "") for t in TOKEN.findall(text)]


def _content_tokens(text: str) -> Iterator[tuple[str, str]]:
    """``(term, token)`` for each content-word token of ``text`` in order: stop words and one-letter tokens (but
    digits) dropped; the term is the stem, or the digits of a number word."""
    for tok in tokens(text):
        if tok in STOPWORDS or len(tok) < 2 and not tok.isdigit():
            continue
        yield NUMBER_WORDS.get(tok, stem(tok)), tok


def content_terms(text: str) -> list[str]:
    """The content words of ``text`` as terms, in order and with repeats (term frequencies, e.g. for BM25)."""
    return [term for term, _ in _content_tokens(text)]


def content_word_map(text: str) -> dict[str, str]:
    """Stemmed non-stop-word tokens mapped to the first surface form they came from."""
    out: dict[str, str] = {}
    for term, tok in _content_tokens(text):
        out.setdefault(term, tok)
    return out


def content_words(text: str) -> set[str]:
    """Stemmed non-stop-word tokens; number words are mapped to digits."""
    return set(content_word_map(text))


def clean_number(raw: str) -> str:
    """A number without commas, currency, percent sign, plus sign and trailing zeros ("1,200.50" -> "1200.5")."""
    n = raw.replace(",", "").replace("$", "").rstrip("%").lstrip("+")
    if "." in n:
        n = n.rstrip("0").rstrip(".")
    return n


def numbers(text: str) -> set[str]:
    """Numbers in ``text``, normalised (commas, currency and trailing zeros removed; number words as digits)."""
    out = set()
    for raw in NUMBER.findall(text):
        n = clean_number(raw)
        if n and n != "-":
            out.add(n)
    for tok in tokens(text):
        if tok in NUMBER_WORDS and tok not in ("once", "single", "one"):
            out.add(NUMBER_WORDS[tok])
    return out


def has_negation(text: str) -> bool:
    """Whether ``text`` has a negation word (``NEGATIONS``) or a token ending in "n't"."""
    toks = tokens(text)
    return any(t in NEGATIONS or t.endswith("n't") for t in toks)


#: the negations that deny a verb ("is not", "never opens", "cannot"; with every token ending in "n't"), not a noun
#: ("no charge", "without a fee")
VERB_NEGATIONS = frozenset("not never cannot".split())


def denies(text: str) -> bool:
    """Whether ``text`` denies a verb: a ``VERB_NEGATIONS`` word or a token ending in "n't" ("not only" aside)."""
    return any(t in VERB_NEGATIONS or t.endswith("n't") for t in tokens(re.sub(r"\bnot (only|just)\b", " ", text,
                                                                            flags=re.IGNORECASE)))


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
