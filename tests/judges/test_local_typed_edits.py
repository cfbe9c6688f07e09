"""The local judge applies the typed edits (``evidence.align``) whatever its model says, through ``rt4chart.audit``:
the label, a reason that names the edit, and the aligned sentence as evidence."""

import pytest

import rt4chart
from rt4chart.types import Label


@pytest.mark.parametrize("context, answer, label, words", [
    ("The pool is open on Fridays from 7:00 to 21:00. Lessons start in May.", "The pool is closed on Fridays.",
     Label.CONTRADICTED, ("'closed'", "'open'", "antonyms")),
    ("Each reader may keep up to eight books at once. Fines are small.", "Each reader may keep up to 15 books at once.",
     Label.CONTRADICTED, ("'15 books'", "'eight books'")),
    ("In 2015, Norvik Labs acquired Tessaly Foods. The deal was large.", "In 2015, Tessaly Foods acquired Norvik Labs.",
     Label.CONTRADICTED, ("other way round", "'acquired'")),
    ("Some of the patients reported less pain. The rest saw no change.", "All patients reported less pain.",
     Label.CONTRADICTED, ("'some of the'", "'All'")),
])
def test_typed_edit_is_flagged_with_its_reason_and_sentence(context, answer, label, words):
    result = rt4chart.audit(context=context, answer=answer, judge="local")
    (claim,) = result.claims
    assert claim.label is label
    for w in words:
        assert w in claim.reason
    assert claim.evidence and context[claim.evidence[0].start:claim.evidence[0].end] == claim.evidence[0].text
    assert claim.evidence[0].sentence_ids == (0,)  # the aligned sentence, not the other one


def test_the_same_amount_written_otherwise_is_not_contradicted():
    result = rt4chart.audit(context="The mill grinds 2.5 million tonnes of grain a year.",
                            answer="The mill grinds 2,500,000 tonnes of grain a year.", judge="local")
    assert result.claims[0].label is not Label.CONTRADICTED
