"""What ``one_edit`` reads: closed classes of words, the kinds of word a swap replaces, and the evidence sentences
as words (``EditSentences``, built once per evidence text: ``EvidenceIndex.edits``)."""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Callable, Sequence

from ._lexicon import Contrasts, lexicon_classes
from ._words import NUMBER_WORDS, STOPWORDS, numbers, tokens

_EDIT_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")  # Unicode letters: "Zürich" is one word
#: an edit must leave the claim's other content words at least this well covered by the evidence sentence
EDIT_COVER = 0.8
_RUN = 3  # names or numbers of at most this many words
NEGATED_PHRASE = 4  # a negation added before at least this many words copied from the evidence (2 content words)
# an evidence sentence with one of these is not a sentence without negation: negations as web text writes them
# without the apostrophe ("you didnt allow"), and words that limit or deny ("they are hardly limited to")
SOFT_NEGATIONS = frozenset("dont doesnt didnt isnt arent wasnt werent cant couldnt wont wouldnt shouldnt hasnt "
                            "havent hadnt hardly scarcely barely seldom rarely unable fail fails failed lack lacks "
                            "lacking".split())
#: number words that scale a number: "1.2 million" and "1.2 billion" differ in that word alone
SCALES = frozenset("thousand thousands million millions billion billions trillion trillions".split())
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
#: the closed classes and the shipped lexicon (antonyms and incompatible siblings from WordNet 3.0, a few domain
#: words: ``lexicon``), read by word
CONTRASTS = Contrasts(_CONTRASTS + lexicon_classes())
_CONTRAST_WORDS = CONTRASTS.words


def rivals(word: str) -> frozenset[str]:
    """The words that may stand where ``word`` stands, saying otherwise (``CONTRASTS``; empty for a word of no
    class): read by the typed edits."""
    return CONTRASTS.rivals(word.lower())


#: an evidence sentence's verb negations that a claim may drop, and the word each leaves ("cannot" -> "can"); "not"
#: and "never" leave none. "do not", "don't" and their kin change the verb's form when dropped, and are left out
AFFIRMED = {"not": "", "never": "", "cannot": "can", "can't": "can", "won't": "will", "isn't": "is",
             "aren't": "are", "wasn't": "was", "weren't": "were", "hasn't": "has", "haven't": "have",
             "hadn't": "had", "couldn't": "could", "wouldn't": "would", "shouldn't": "should"}
_DO = frozenset("do does did".split())
#: subjects that a negated claim may start with ("She never won a Nobel Prize")
PRONOUNS = frozenset("i you he she it we they".split())
#: a claim that states a condition states nothing ("Check if the disposal will turn" against "If it will not turn"),
#: and neither does an evidence sentence that reports what someone says or believes ("He said he was not guilty")
CONDITIONS = frozenset("if unless whether".split())
_REPORTS = frozenset("say says said tell tells told claim claims claimed think thinks thought believe believes "
                     "believed argue argues argued insist insists insisted deny denies denied suggest suggests "
                     "suggested assume assumes assumed suppose supposes supposed".split())
CLAUSE_END = re.compile(r"[,;:.!?)\]\u2013\u2014]| - ")


def words_with_spans(text: str) -> list[tuple[str, int, int]]:
    """Words with their character spans; a possessive "'s" is left out of the word (not of the text)."""
    out = []
    for m in _EDIT_WORD.finditer(text.replace("\u2019", "'")):
        w, end = m.group(), m.end()
        if w.lower().endswith("'s"):
            w, end = w[:-2], end - 2
        out.append((w, m.start(), end))
    return out


def is_name(word: str) -> bool:
    return len(word) >= 3 and word[0].isupper() and not word.isupper() and word.lower() not in STOPWORDS


def _is_number_word(word: str) -> bool:
    """A number written as a word ("seven", "seventy", "million"); digits are the number checks' (``numbers``)
    business."""
    w = word.lower()
    return w in NUMBER_WORDS and w not in ("once", "single", "half") or w in SCALES


_EXPONENTS = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}


def scale_of(words: Sequence[str]) -> set[str]:
    """The power of ten that a run's scale words make together ("millions" is "million", "thousand million" is
    "billion"), as a one-item set, or an empty set when the run has none."""
    e = sum(_EXPONENTS[w.rstrip("s")] for w in words if w in SCALES)
    return {f"1e{e}"} if e else set()


def number_values(text: str) -> set[str]:
    """The numbers of a run of number words, and the scale its scale words make ("1.2 million" and "1.2 billion"
    differ in that alone)."""
    return numbers(text) | scale_of(tokens(text))


def _is_contrast_word(word: str) -> bool:
    return word.lower() in _CONTRAST_WORDS


def contrasts(a: str, b: str) -> bool:
    """Two words of one closed class that say different things (``CONTRASTS``), never two that say the same."""
    return CONTRASTS.contrast(a, b)


def _plain(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c))


def _abbreviates(short: str, long: str) -> bool:
    """"nov" of "november", "bldg" of "building": the same first letter, then the short word's letters in order."""
    rest = iter(long)
    return short[:1] == long[:1] and all(c in rest for c in short)


def variant(a: Sequence[str], b: Sequence[str]) -> bool:
    """Two spellings or forms of one name rather than two names: Jan/January, Defence/Defense, Salad/Salads,
    Café/Cafe, Rhas/Rahas."""
    a, b = [_plain(x) for x in a], [_plain(x) for x in b]
    if any(x[:3] == y[:3] or _abbreviates(x, y) or _abbreviates(y, x) for x in a for y in b):
        return True
    return difflib.SequenceMatcher(None, " ".join(a), " ".join(b)).ratio() >= 0.75


def word_runs(words: Sequence[str], absent_from: "set[str] | frozenset[str]",
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
class SentenceWords:
    """The evidence sentences' words, for the swap and negation checks (read, never changed)."""

    text: tuple[str, ...]
    words: list[list[tuple[str, int, int]]]
    lower: list[list[str]]
    sets: list[set[str]]
    numbers: frozenset[str]
    postings: dict[str, list[int]]  # word -> the sentences that have it, in order


@lru_cache(maxsize=8192)
def sentence_edit_words(sentence: str) -> list[tuple[str, int, int]]:
    """``words_with_spans`` of an evidence sentence (read, never changed): the chunks of a context and the context
    itself hold the same sentences."""
    return words_with_spans(sentence)


@lru_cache(maxsize=8192)
def sentence_lower(sentence: str) -> tuple[str, ...]:
    """The lower-cased ``sentence_edit_words`` of an evidence sentence."""
    return tuple(w.lower() for w, _, _ in sentence_edit_words(sentence))


#: the kinds of word a swap replaces, in the order they are tried
RUN_KINDS: dict[str, Callable[[str], bool]] = {"name": is_name, "number": _is_number_word, "word": _is_contrast_word}


@lru_cache(maxsize=8192)
def _sentence_negations(sentence: str) -> tuple[tuple[int, str, str], ...]:
    """Each verb negation a claim may drop (``AFFIRMED``) in a sentence that states (not asks) something: its word
    index, and the two words that meet where it is dropped ("is never free": "is", "free"; "cannot take": "can",
    "take")."""
    low = sentence.lower()
    if not ("not" in low or "never" in low or "n't" in low or "n\u2019t" in low) or sentence.rstrip().endswith("?"):
        return ()
    words = sentence_lower(sentence)
    return tuple((k, AFFIRMED[w] or words[k - 1], words[k + 1]) for k, w in enumerate(words)
                 if 0 < k < len(words) - 1 and w in AFFIRMED and words[k - 1] not in _DO)


@lru_cache(maxsize=8192)
def first_hedge(sentence: str) -> int:
    """The index of an evidence sentence's first word of a condition or a report (``CONDITIONS``, ``_REPORTS``),
    or its length: what follows that word is not stated."""
    words = sentence_lower(sentence)
    return next((i for i, w in enumerate(words) if w in CONDITIONS or w in _REPORTS), len(words))


class EditSentences:
    """The evidence sentences of one evidence text as ``one_edit`` reads them. Each part is worked out on first use
    and kept: most claims need the vocabulary alone, and only plain claims the verb negations."""

    def __init__(self, sentences: Sequence[str]) -> None:
        self.text: tuple[str, ...] = tuple(sentences)

    @cached_property
    def vocabulary(self) -> frozenset[str]:
        """The lower-cased words of all the sentences (as ``words_with_spans`` reads them), in one pass over their
        text."""
        text = "\n".join(self.text).replace("\u2019", "'").lower()
        return frozenset(w[:-2] if w.endswith("'s") else w for w in _EDIT_WORD.findall(text))

    @cached_property
    def negated(self) -> tuple[tuple[int, int, str, str], ...]:
        """``(sentence, word, before, after)`` of every ``_sentence_negations`` of the sentences."""
        return tuple((si, k, b, a) for si, text in enumerate(self.text) for k, b, a in _sentence_negations(text))

    @cached_property
    def index(self) -> SentenceWords:
        """Each sentence's words, lower-cased words and word set, all their numbers, and which sentences hold each
        word."""
        sentences = self.text
        words = [sentence_edit_words(s) for s in sentences]
        lower = [list(sentence_lower(s)) for s in sentences]
        sets = [set(ws) for ws in lower]
        postings: dict[str, list[int]] = {}
        for i, ws in enumerate(sets):
            for w in ws:
                postings.setdefault(w, []).append(i)
        return SentenceWords(sentences, words, lower, sets,
                          frozenset().union(*(numbers(s) for s in sentences)) if sentences else frozenset(), postings)
