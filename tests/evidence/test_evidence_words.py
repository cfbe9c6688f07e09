"""evidence.words: content_terms (the content words with repeats) and content_word_map filter tokens alike."""

from __future__ import annotations

import pytest

from rt4chart.evidence import STOPWORDS, content_word_map, content_words
from rt4chart.evidence._words import content_terms, tokens

TEXTS = [
    "The users verified two claims; the user verified them twice, according to the passage.",
    "A 3.5% rise in 1,200 units: I think x and 7 are kept, 'a' and the stop words are not.",
    "Don't stop: it's one thing, and one more thing.",
    "",
]


def test_content_terms_keep_repeats_in_order():
    assert content_terms("The users verified two claims; the user verified them twice.") == [
        "user", "verify", "2", "claim", "user", "verify", "2"]


@pytest.mark.parametrize("text", TEXTS)
def test_content_terms_and_content_word_map_use_one_filter(text):
    terms = content_terms(text)
    assert list(dict.fromkeys(terms)) == list(content_word_map(text))
    assert set(terms) == content_words(text)
    kept = [t for t in tokens(text) if t not in STOPWORDS and (len(t) > 1 or t.isdigit())]
    assert len(terms) == len(kept)  # one term per kept token: stop words and one-letter non-digits dropped
