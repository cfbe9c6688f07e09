"""The shipped typed-edit lexicon (WordNet 3.0 antonyms and siblings, domain words) as ``edit_words`` reads it."""

from importlib import resources

from rt4chart.evidence import rivals
from rt4chart.evidence._edit_words import CONTRASTS
from rt4chart.evidence._lexicon import Contrasts, lexicon_classes


def test_the_lexicon_ships_with_wordnets_licence():
    data = resources.files("rt4chart.evidence").joinpath("data")
    assert "WordNet 3.0 Copyright 2006 by Princeton University" in data.joinpath("WORDNET_LICENSE").read_text()
    assert len(lexicon_classes()) > 1000


def test_antonyms_siblings_and_domain_words():
    for a, b in [("open", "closed"), ("rose", "fell"), ("won", "lost"), ("approved", "rejected"),
                 ("green", "blue"), ("monday", "sunday"), ("march", "june"), ("shallow", "deep")]:
        assert CONTRASTS.contrast(a, b) and CONTRASTS.contrast(b, a), (a, b)
    assert CONTRASTS.kind("open", "closed") == "antonyms"
    assert CONTRASTS.kind("green", "blue") == "incompatible terms"
    assert "fell" in rivals("Rose")


def test_a_word_never_rivals_its_own_group():
    c = Contrasts([(frozenset({"tall", "high"}), frozenset({"short"})), (frozenset({"high"}), frozenset({"tall"}))])
    assert not c.contrast("tall", "high") and c.contrast("tall", "short")
    assert not CONTRASTS.contrast("tall", "high")
