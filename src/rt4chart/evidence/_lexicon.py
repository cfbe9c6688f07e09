"""The typed-edit lexicon: classes of words that exclude each other in one place (antonyms, incompatible siblings),
shipped as ``data/lexicon.txt`` (derived from WordNet 3.0 by ``python3 -m training.edit_lexicon``, with a
few domain words; WordNet's licence is ``data/WORDNET_LICENSE``), merged with the hand-made closed classes of
``edit_words._CONTRASTS`` into one reading (``Contrasts``); and the concrete nouns (``concrete_nouns``,
``data/concrete.txt``, by ``python3 -m training.noun_lexicon``)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Iterable, Optional

Classes = tuple[tuple[frozenset[str], ...], ...]


@lru_cache(maxsize=1)
def lexicon_classes() -> Classes:
    """The shipped lexicon's classes, each a tuple of groups of words that say the same."""
    text = resources.files("rt4chart.evidence").joinpath("data/lexicon.txt").read_text(encoding="utf-8")
    return tuple(tuple(frozenset(g.split()) for g in line.split("|"))
                 for line in text.splitlines() if line and not line.startswith("#"))


@lru_cache(maxsize=1)
def concrete_nouns() -> frozenset[str]:
    """The shipped concrete nouns: one-word WordNet nouns whose most frequent sense is a thing one can point at."""
    text = resources.files("rt4chart.evidence").joinpath("data/concrete.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def concrete(word: str) -> bool:
    """Whether ``word`` (lower-cased; a plural too: "museums", "ferries", "buses") is a concrete noun."""
    nouns = concrete_nouns()
    forms = [word]
    if word.endswith("ies"):
        forms.append(word[:-3] + "y")
    if word.endswith("es"):
        forms.append(word[:-2])
    if word.endswith("s"):
        forms.append(word[:-1])
    return any(f in nouns for f in forms)


class Contrasts:
    """Classes of words that exclude each other, read by word: which words may stand where a word stands saying
    otherwise (``rivals``), whether two words do (``contrast``), and whether a pair is one of antonyms (two groups)
    or of siblings (more)."""

    def __init__(self, classes: Iterable[tuple[frozenset[str], ...]]) -> None:
        self.classes: Classes = tuple(classes)
        #: word -> (class number, group number) of each class that holds it
        self._at: dict[str, list[tuple[int, int]]] = {}
        for ci, cls in enumerate(self.classes):
            for gi, group in enumerate(cls):
                for w in group:
                    self._at.setdefault(w, []).append((ci, gi))
        self.words = frozenset(self._at)
        self._rivals: dict[str, frozenset[str]] = {}

    def rivals(self, word: str) -> frozenset[str]:
        """The words that stand where ``word`` stands saying otherwise: of a class that holds it, another group,
        never a word of its own group in another class."""
        out = self._rivals.get(word)
        if out is None:
            at = self._at.get(word, ())
            same = {x for ci, gi in at for x in self.classes[ci][gi]}
            out = frozenset(x for ci, gi in at for gj, g in enumerate(self.classes[ci]) if gj != gi for x in g) - same
            self._rivals[word] = out
        return out

    def contrast(self, a: str, b: str) -> bool:
        """Two words of one class in different groups, and of no group together."""
        return b in self.rivals(a)

    def kind(self, a: str, b: str) -> Optional[str]:
        """"antonyms" when ``a`` and ``b`` contrast in a class of two groups, "incompatible terms" when only in
        larger ones, None when they do not contrast."""
        if not self.contrast(a, b):
            return None
        pairs = {ci for ci, _ in self._at.get(a, ())} & {ci for ci, _ in self._at.get(b, ())}
        return "antonyms" if any(len(self.classes[ci]) == 2 for ci in pairs) else "incompatible terms"
