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


# -- one-edit copies: a name, number or closed-class word swapped, a negation added or dropped -------------------
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
#: number words that scale a number: "1.2 million" and "1.2 billion" differ in that word alone
_SCALES = frozenset("thousand thousands million millions billion billions trillion trillions".split())
#: closed classes of words that exclude each other in one place: each class is a list of groups of words that say
#: the same ("330 metres tall" and "330 metres high"); two words of one class in different groups contradict
#: ("330 metres tall" against "330 metres wide", "rose by 5%" against "fell by 5%")
_CONTRASTS: tuple[tuple[frozenset[str], ...], ...] = tuple(
    tuple(frozenset(g.split()) for g in cls.split("|")) for cls in (
        "tall high|wide broad",  # not "long", "deep": "a long breath" and "a deep breath" say the same
        "tall high|short low",
        "wide broad|narrow",
        "long|short",
        "deep|shallow",
        "thick|thin",
        "more greater|less fewer",
        "higher|lower",
        "highest|lowest",
        "larger bigger|smaller",
        "largest biggest|smallest",
        "older|younger newer",
        "oldest|youngest newest",
        "earlier|later",
        "earliest|latest",
        "first|last",
        "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth",  # not "last": the latest is the third
        "before|after",
        "above|below",
        "maximum|minimum",
        "increase increases|decrease decreases",
        "increased|decreased",
        "increasing|decreasing",
        "rise rises|fall falls",
        "rose|fell",
        "win wins|lose loses",
        "won|lost",
        "positive|negative",
        "male|female",
        "man|woman",
        "men|women",
        "boy|girl",
        "boys|girls",
        "son|daughter",
        "sons|daughters",
        "father|mother",
        "brother|sister",
        "husband|wife",
        "king|queen",
        "north northern|south southern|east eastern|west western",
        "northeast|northwest|southeast|southwest",
        "morning|afternoon|evening",  # not "night": "Friday night" is often "Friday evening"
        "daily|weekly|monthly|yearly annually annual",
        "spring|summer|autumn|winter",
        "legal|illegal",
        "possible|impossible",
        "true|false",
        "open opened|closed",
        "public|private",
    ))
_CONTRAST_WORDS = frozenset(w for cls in _CONTRASTS for g in cls for w in g)
#: the words that may stand where a contrast word stands, saying otherwise
_RIVALS = {w: frozenset(x for cls in _CONTRASTS if any(w in g for g in cls) for g in cls if w not in g for x in g)
           for w in _CONTRAST_WORDS}
#: an evidence sentence's verb negations that a claim may drop, and the word each leaves ("cannot" -> "can"); "not"
#: and "never" leave none. "do not", "don't" and their kin change the verb's form when dropped, and are left out
_AFFIRMED = {"not": "", "never": "", "cannot": "can", "can't": "can", "won't": "will", "isn't": "is",
             "aren't": "are", "wasn't": "was", "weren't": "were", "hasn't": "has", "haven't": "have",
             "hadn't": "had", "couldn't": "could", "wouldn't": "would", "shouldn't": "should"}
_DO = frozenset("do does did".split())
#: subjects that a negated claim may start with ("She never won a Nobel Prize")
_PRONOUNS = frozenset("i you he she it we they".split())
#: a claim that states a condition states nothing ("Check if the disposal will turn" against "If it will not turn"),
#: and neither does an evidence sentence that reports what someone says or believes ("He said he was not guilty")
_CONDITIONS = frozenset("if unless whether".split())
_REPORTS = frozenset("say says said tell tells told claim claims claimed think thinks thought believe believes "
                     "believed argue argues argued insist insists insisted deny denies denied suggest suggests "
                     "suggested assume assumes assumed suppose supposes supposed".split())
_CLAUSE_END = re.compile(r"[,;:.!?)\]\u2013\u2014]| - ")


@dataclass(frozen=True)
class Edit:
    """A claim that copies an evidence sentence but for one edit. ``kind`` "name", "number" or "word" (a word of a
    closed class, such as "tall" for "wide"): ``claim_text`` (at ``start:end`` of the claim) stands where evidence
    sentence ``sentence`` has ``evidence_text``. ``kind`` "negation": ``claim_text`` is a negation the sentence does
    not have, before ``evidence_text``, which the sentence states. ``kind`` "affirmation": the claim states
    ``claim_text`` where the sentence says ``evidence_text``, the same words with a negation."""

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
        if self.kind == "affirmation":
            return f"the claim states what an evidence sentence negates: {self.evidence_text!r}"
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
    """A number written as a word ("seven", "seventy", "million"); digits are the number checks' (``numbers``)
    business."""
    w = word.lower()
    return w in _NUMBER_WORDS and w not in ("once", "single", "half") or w in _SCALES


_EXPONENTS = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}


def _scale(words: Sequence[str]) -> set[str]:
    """The power of ten that a run's scale words make together ("millions" is "million", "thousand million" is
    "billion"), as a one-item set, or an empty set when the run has none."""
    e = sum(_EXPONENTS[w.rstrip("s")] for w in words if w in _SCALES)
    return {f"1e{e}"} if e else set()


def _number_values(text: str) -> set[str]:
    """The numbers of a run of number words, and the scale its scale words make ("1.2 million" and "1.2 billion"
    differ in that alone)."""
    return numbers(text) | _scale(tokens(text))


def _is_contrast_word(word: str) -> bool:
    return word.lower() in _CONTRAST_WORDS


def _contrast(a: str, b: str) -> bool:
    """Two words of one closed class that say different things (``_CONTRASTS``), never two that say the same."""
    classes = [c for c in _CONTRASTS if any(a in g for g in c) and any(b in g for g in c)]
    return bool(classes) and not any(a in g and b in g for c in classes for g in c)


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


@lru_cache(maxsize=8192)
def _sentence_lower(sentence: str) -> tuple[str, ...]:
    """The lower-cased ``_sentence_edit_words`` of an evidence sentence."""
    return tuple(w.lower() for w, _, _ in _sentence_edit_words(sentence))


@lru_cache(maxsize=16)
def _sentences(sentences: tuple[str, ...]) -> _Sentences:
    words = [_sentence_edit_words(s) for s in sentences]
    lower = [list(_sentence_lower(s)) for s in sentences]
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
_KINDS: dict[str, Callable[[str], bool]] = {"name": _is_name, "number": _is_number_word, "word": _is_contrast_word}


def _same_around(claim: Sequence[str], i: int, sentence: Sequence[str], a: int, width: int = 2) -> bool:
    """The ``width`` words before and after word ``i`` of the claim are those around word ``a`` of the sentence, as far
    as the claim goes ("lay fewer eggs" is no swap of "(leghorns) lay more eggs": a comparison's other side)."""
    for d in range(1, width + 1):
        if i - d >= 0 and (a - d < 0 or claim[i - d] != sentence[a - d]):
            return False
        if i + d < len(claim) and (a + d >= len(sentence) or claim[i + d] != sentence[a + d]):
            return False
    return True


def _swap(claim: str, cw: list[tuple[str, int, int]], runs: list[tuple[str, int, int]],
          ev: _Sentences) -> Optional[Edit]:
    """The first of the claim's candidate ``runs`` (kind, start, end word) that stands in place of another."""
    if has_negation(claim):
        return None  # "The tower is not in London" against "The tower is in Paris" agrees with it
    cl = [w.lower() for w, _, _ in cw]
    claim_set = set(cl)
    claim_numbers = numbers(claim) | {v for w in cl if w in _SCALES for v in _scale([w])}
    ev_numbers = ev.numbers | {v for w in _SCALES & _vocabulary(ev.text) for v in _scale([w])}
    for kind, i, j in runs:
        mine = claim[cw[i][1]:cw[j - 1][2]]
        if kind == "number" and not (_number_values(mine) and _number_values(mine).isdisjoint(ev_numbers)):
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
                if kind == "number" and not (_number_values(theirs) and
                                             _number_values(theirs).isdisjoint(claim_numbers)):
                    continue
                if kind == "word" and not (b - a == 1 and _contrast(cl[i], low[a]) and _same_around(cl, i, low, a)
                                           and not has_negation(ev.text[si])):
                    continue  # a negated sentence says it with the other word ("did not have more than")
                return Edit(kind, cw[i][1], cw[j - 1][2], mine, theirs, si)
    return None


def _negation(claim: str, cw: list[tuple[str, int, int]], ev: _Sentences) -> Optional[Edit]:
    cl = [w.lower() for w, _, _ in cw]
    for k, w in enumerate(cl):
        if not (w in _VERB_NEGATIONS or w.endswith("n't")):
            continue
        if all(x in STOPWORDS and x not in _PRONOUNS for x in cl[:k]):
            return None  # no subject to match ("are not traded on an exchange", cut from a longer sentence)
        # a pronoun subject must be the evidence's too, just before the copied words: "She never won a Nobel Prize"
        # is not answered by "Her daughter also won a Nobel Prize"
        pronoun = None if any(x not in STOPWORDS for x in cl[:k]) else next(x for x in cl[:k] if x in _PRONOUNS)
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
                at = next((a for a in range(len(low) - n + 1) if low[a:a + n] == part and
                           (pronoun is None or pronoun in low[max(0, a - 3):a]) and _first_hedge(ev.text[si]) >= a),
                          None)
                if at is not None:
                    words = ev.words[si]
                    return Edit("negation", cw[k][1], cw[k][2], claim[cw[k][1]:cw[k][2]],
                                ev.text[si][words[at][1]:words[at + n - 1][2]], si)
        return None
    return None


@lru_cache(maxsize=8192)
def _sentence_negations(sentence: str) -> tuple[tuple[int, str, str], ...]:
    """Each verb negation a claim may drop (``_AFFIRMED``) in a sentence that states (not asks) something: its word
    index, and the two words that meet where it is dropped ("is never free": "is", "free"; "cannot take": "can",
    "take")."""
    low = sentence.lower()
    if not ("not" in low or "never" in low or "n't" in low or "n\u2019t" in low) or sentence.rstrip().endswith("?"):
        return ()
    words = _sentence_lower(sentence)
    return tuple((k, _AFFIRMED[w] or words[k - 1], words[k + 1]) for k, w in enumerate(words)
                 if 0 < k < len(words) - 1 and w in _AFFIRMED and words[k - 1] not in _DO)


@lru_cache(maxsize=16)
def _negated(sentences: tuple[str, ...]) -> tuple[tuple[int, int, str, str], ...]:
    """``(sentence, word, before, after)`` of every ``_sentence_negations`` of the sentences."""
    return tuple((si, k, b, a) for si, text in enumerate(sentences) for k, b, a in _sentence_negations(text))


@lru_cache(maxsize=8192)
def _first_hedge(sentence: str) -> int:
    """The index of an evidence sentence's first word of a condition or a report (``_CONDITIONS``, ``_REPORTS``),
    or its length: what follows that word is not stated."""
    words = _sentence_lower(sentence)
    return next((i for i, w in enumerate(words) if w in _CONDITIONS or w in _REPORTS), len(words))


def _clause_ends(sentence: str, words: Sequence[tuple[str, int, int]], i: int) -> bool:
    """Whether word ``i`` of the sentence ends it, or a clause of it ("free." / "free, but" / "free; ...")."""
    return i + 1 >= len(words) or _CLAUSE_END.search(sentence, words[i][2], words[i + 1][1]) is not None


def _contains(words: Sequence[str], part: Sequence[str]) -> bool:
    """Whether ``part`` stands in ``words`` as a contiguous run (a tuple and a list of the same words match)."""
    n, part = len(part), tuple(part)
    return any(tuple(words[a:a + n]) == part for a in range(len(words) - n + 1) if words[a] == part[0])


def _affirmation(claim: str, cw: Sequence[tuple[str, int, int]], sentences: tuple[str, ...],
                 negated: Sequence[tuple[int, int, str, str]]) -> Optional[Edit]:
    """The claim is an evidence sentence's negated clause with the verb negation dropped ("Entry is free" against
    "Entry is never free"): at least ``_NEGATED_PHRASE`` words around the negation, two of them content words and one
    of those after it, every content word of the claim among them, copied up to the end of the sentence's clause; not
    a condition or a report ("if", "he said"), and no sentence without a negation holding all the claim's content
    words."""
    cl = [w.lower() for w, _, _ in cw]
    pairs = set(zip(cl, cl[1:]))
    negated = [(si, k) for si, k, before, after in negated if (before, after) in pairs]
    if not negated or not _CONDITIONS.isdisjoint(cl):
        return None  # most claims: no two words meet where the evidence has a negation
    at: dict[str, list[int]] = {}
    for c, w in enumerate(cl[:-1]):
        at.setdefault(w, []).append(c)
    rest = {x for x in cl if x not in STOPWORDS}
    stated: Optional[bool] = None  # whether a sentence with no negation holds all of the claim's content words
    for si, k in negated:
        text = sentences[si]
        words, low = _sentence_edit_words(text), _sentence_lower(text)
        if _first_hedge(text) < k:
            continue
        repl = _AFFIRMED[low[k]]
        # the affirmed sentence's words before the dropped negation, the last first: "can" of "cannot", then low[k-1]
        n_left = k + 1 if repl else k
        left = (lambda d: repl if d == 1 else low[k - d + 1]) if repl else (lambda d: low[k - d])
        for c in at.get(left(1), ()):
            if cl[c + 1] != low[k + 1]:
                continue
            m = 1
            while m < n_left and c - m >= 0 and cl[c - m] == left(m + 1):
                m += 1
            n = 1
            while k + 1 + n < len(low) and c + 1 + n < len(cl) and cl[c + 1 + n] == low[k + 1 + n]:
                n += 1
            run, after = cl[c - m + 1:c + 1 + n], cl[c + 1:c + 1 + n]
            if m + n < _NEGATED_PHRASE or all(w in STOPWORDS for w in after) or \
                    sum(w not in STOPWORDS for w in run) < 2:
                continue
            if any(w not in STOPWORDS for w in cl[:c - m + 1] + cl[c + 1 + n:]):
                continue  # the claim says more than the negated clause: "Physical changes" against "chemical ..."
            if not _clause_ends(text, words, k + n) or _contains(low, cl[c:c + 1 + n]):
                continue  # "The office is open" against "... isn't open on Sundays"; "can't ... but can take photos"
            ev = _sentences(sentences)
            if not _covered(rest, ev.sets[si]):
                continue
            if stated is None:
                holders = min((ev.postings.get(w, ()) for w in rest), key=len)
                stated = any(rest <= ev.sets[sj] and not has_negation(sentences[sj]) and
                             _SOFT_NEGATIONS.isdisjoint(ev.sets[sj]) for sj in holders)
            if stated:
                return None  # the evidence also states it
            first = k if repl else k - 1  # "cannot take ...", "is never free"
            return Edit("affirmation", cw[c][1], cw[c + n][2], claim[cw[c][1]:cw[c + n][2]],
                        text[words[first][1]:words[k + n][2]], si)
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
    - **Another word of a closed class** (``_CONTRASTS``: "tall" for "wide", "rose" for "fell", "first" for "last",
      "north" for "south"), found nowhere in the evidence, with the same two words on each side as far as the claim
      goes, in a sentence with no negation ("income of less than" against "did not have income of more than" says
      the same). Two words of one group ("tall", "high") are not a swap.
    - **A negation the evidence does not have**: "not", "never", "cannot" or "-n't" after a content word (the
      subject) or a pronoun that the sentence has within three words before them, and before at least four words
      (two of them content words) that an evidence sentence with no negation states, not after a condition or a
      report ("if", "they think"), that sentence holding every other content word of the claim ("Visitors cannot
      take a lift to the top" against "... or take a lift to the top").
    - **No negation where the evidence has one**: a claim with no negation of any kind that is an evidence
      sentence's negated clause with the negation dropped ("Entry to the museum is free" against "Entry to the
      museum is never free"; "cannot" leaves "can", "isn't" leaves "is"; "do not" and its kin are left out), at
      least four words around the negation, every content word of the claim among them, copied up to the end of the
      sentence's clause ("The office is open" is not "The office isn't open on Sundays" without its last words), not
      a condition or a report ("if", "he said"), and no sentence without a negation holding all of the claim's
      content words.

    A sentence-initial capital says nothing, and a paraphrase rarely keeps both neighbours of a name while changing
    it. How often this fires on RAGTruth train, and how often rightly: ``docs/results/local_judge.md``."""
    cw, words, negates, plain, kinds = _claim_edit_words(claim)
    if len(cw) < 2:
        return None
    sentences = tuple(sentences)
    vocabulary = _vocabulary(sentences)
    # names, number words and contrast words of the claim found nowhere in the evidence, in the order they are tried
    runs = [(kind, i, j) for kind, test in _KINDS.items() if kind in kinds for i, j in _runs(words, vocabulary, test)
            if kind != "word" or j - i == 1 and not _RIVALS[words[i].lower()].isdisjoint(vocabulary)]
    negated = _negated(sentences) if plain else ()
    if not (runs or negates):
        # most claims: nothing to look for, and the sentences need no index
        return _affirmation(claim, cw, sentences, negated) if negated else None
    ev = _sentences(sentences)
    return (_swap(claim, list(cw), runs, ev) or _negation(claim, list(cw), ev)
            or (_affirmation(claim, cw, sentences, negated) if negated else None))


@lru_cache(maxsize=1024)
def _claim_edit_words(claim: str) -> tuple[tuple[tuple[str, int, int], ...], tuple[str, ...], bool, bool,
                                           frozenset[str]]:
    """A claim's ``_edit_words``, the words alone, whether one of them is a verb negation, whether it has no
    negation of any kind (``NEGATIONS``, ``_SOFT_NEGATIONS``), and the ``_KINDS`` of word it has: one claim is read
    against every chunk and then the whole context."""
    cw = tuple(_edit_words(claim))
    words = tuple(w for w, _, _ in cw)
    low = [w.lower() for w in words]
    plain = not any(w in NEGATIONS or w.endswith("n't") or w in _SOFT_NEGATIONS for w in low)
    kinds = frozenset(kind for kind, test in _KINDS.items() if any(test(w) for w in words[1:]))
    return cw, words, any(w in _VERB_NEGATIONS or w.endswith("n't") for w in low), plain, kinds
