"""Comparisons between entities whose values the evidence gives (``evidence.compare``), computed."""

from __future__ import annotations

import pytest

from rt4chart.evidence import EvidenceIndex
from rt4chart.evidence._entities import compare

RIVERS = "The Danube is 2,850 km long. The Rhine is 1,230 km long."
CURIES = "Marie Curie was born in Warsaw in 1867. Pierre Curie was born in Paris."
SIBLINGS = "Anna was born in 1990. Ben was born in 1985."


@pytest.mark.parametrize("evidence, claim, holds", [
    (RIVERS, "Both the Danube and the Rhine are longer than 1,000 km.", True),
    (RIVERS, "The Danube and the Rhine are not both longer than 1,000 km.", False),
    (RIVERS, "The Danube and the Rhine are not both longer than 2,000 km.", True),
    (RIVERS, "Either the Danube or the Rhine is longer than 3,000 km.", False),
    (RIVERS, "Neither the Danube nor the Rhine is longer than 3,000 km.", True),
    (RIVERS, "The Rhine is shorter than the Danube.", True),
    (RIVERS, "The Rhine is longer than the Danube.", False),
    (RIVERS, "The Danube and the Rhine are the same length.", False),
    (CURIES, "Marie Curie and Pierre Curie were not born in the same city.", True),
    (CURIES, "Marie Curie and Pierre Curie were born in the same city.", False),
    (CURIES, "Marie Curie and Pierre Curie were born in different cities.", True),
    (SIBLINGS, "Anna is older than Ben.", False),  # born later: younger
    (SIBLINGS, "Ben is older than Anna.", True),
])
def test_a_comparison_is_computed_from_each_entitys_value(evidence, claim, holds):
    found = compare(claim, EvidenceIndex(evidence))
    assert found is not None and found.holds is holds
    assert ("as the claim states" in found.reason) and (found.reason.count("not as") == (not holds))


@pytest.mark.parametrize("evidence, claim", [
    (RIVERS, "Both the Danube and the Elbe are longer than 1,000 km."),  # the Elbe has no value
    (RIVERS, "The Danube flows through Vienna."),  # no comparison
    (CURIES, "Marie Curie and Albert Einstein were born in the same city."),
    ("The Danube and the Rhine are long rivers.", "The Danube is longer than the Rhine."),
])
def test_a_missing_value_decides_nothing(evidence, claim):
    assert compare(claim, EvidenceIndex(evidence)) is None
