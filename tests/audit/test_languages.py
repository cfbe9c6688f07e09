"""Answers in a language the offline judges do not read (``text.language``, ``audit.auditor.unread``)."""

from __future__ import annotations

import pytest

import rt4chart
from rt4chart.text.language import language


@pytest.mark.parametrize("text, code", [
    ("Ja, das Museum ist montags geöffnet.", "de"), ("El museo abre los lunes de 9 a 17 horas.", "es"),
    ("Le musée est fermé le lundi.", "fr"), ("博物馆周一闭馆。", "zh"), ("The museum is open on Mondays.", "en"),
    ("La Bamba is a song by Ritchie Valens.", "en"), ("Sure!", "en"),
])
def test_the_language_is_read_from_the_script_and_the_commonest_words(text, code):
    assert language(text) == code


@pytest.mark.parametrize("judge", ["local", "lexical"])
def test_no_claim_in_another_language_is_entailed_and_a_number_that_differs_still_contradicts(judge):
    faithful = rt4chart.audit(context="Der Eintritt kostet 12 Euro. Kinder zahlen nichts.",
                              answer="Der Eintritt kostet 12 Euro; Kinder zahlen nichts.", judge=judge)
    assert faithful.label.value == "unverified" and faithful.hallucinated is None
    assert all(c.label.value == "unverified" and "German" in c.reason and "--judge llm" in c.reason
               for c in faithful.claims)
    wrong = rt4chart.audit(context="Der Eintritt kostet 12 Euro.", answer="Der Eintritt kostet 15 Euro.", judge=judge)
    assert wrong.label.value == "contradicted"
    chinese = rt4chart.audit(context="博物馆周一闭馆。", answer="博物馆周一开放。", judge=judge)
    assert chinese.label.value == "unverified" and "Chinese" in chinese.claims[0].reason


def test_english_answers_are_judged_as_before():
    result = rt4chart.audit(context="The museum is closed on Mondays.", answer="The museum is closed on Mondays.")
    assert result.label.value == "entailed"
