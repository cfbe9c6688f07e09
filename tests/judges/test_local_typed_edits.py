"""The local judge applies the typed edits (``evidence.typed``) whatever its model says, through ``rt4chart.audit``:
the label, a reason that names the edit, and the aligned sentence as evidence."""

import json
from pathlib import Path

import pytest

import rt4chart
from rt4chart.types import Label

ROOT = Path(__file__).resolve().parents[2]


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


def test_the_papers_figure_1_with_the_default_judge():
    """RT4CHART Figure 1 / Table 1: C, C, E, E, N, with evidence for claims 1-4 and none for the baseless one."""
    record = json.loads((ROOT / "examples" / "paper_example.jsonl").read_text().splitlines()[0])
    result = rt4chart.audit(context=record["context"], answer=record["answer"], question=record["question"])
    C, E, N = Label.CONTRADICTED, Label.ENTAILED, Label.BASELESS
    assert [c.label for c in result.claims] == [C, C, E, E, N], [(c.text, c.reason) for c in result.claims]
    assert all(c.evidence for c in result.claims[:4]) and not result.claims[4].evidence
    assert "'all users'" in result.claims[0].reason and "'not required'" in result.claims[1].reason


@pytest.mark.parametrize("context, answer, label, words", [
    ("Membership of the climbing club is open to residents of Elm Park only. It costs 20 euros a year.",
     "Anyone can join the climbing club.", Label.CONTRADICTED, ("'Anyone'",)),
    ("The new tram line is expected to open in June. It will have nine stops.",
     "The new tram line will open in June.", Label.CONTRADICTED, ("'will'", "'expected'")),
    ("Northgate station opened in 2019 and Southgate station in 2021. Both have lifts.",
     "Southgate station opened in 2019.", Label.CONTRADICTED, ("'2019'", "'2021'")),
])
def test_meaning_edits_are_flagged_with_their_reason(context, answer, label, words):
    (claim,) = rt4chart.audit(context=context, answer=answer, judge="local").claims
    assert claim.label is label, claim.reason
    for w in words:
        assert w in claim.reason
    assert claim.evidence and claim.evidence[0].sentence_ids == (0,)


def test_an_absent_subject_is_baseless_without_evidence():
    context = "The Corner Café serves breakfast from 8:00. On Fridays it stays open until 22:00."
    (claim,) = rt4chart.audit(context=context, answer="The museum runs guided tours on Fridays.", judge="local").claims
    assert claim.label is Label.BASELESS and "'museum'" in claim.reason and claim.evidence == ()
    (kept,) = rt4chart.audit(context=context, answer="The café stays open late on Fridays.", judge="local").claims
    assert kept.label is Label.ENTAILED


def test_every_typed_edit_kind_has_its_gate_so_none_is_silently_never_applied():
    from rt4chart.evidence import TYPED_KINDS as KINDS
    from rt4chart.judges.local.rules import TYPED_GATES

    assert set(TYPED_GATES) == set(KINDS) and all(gate >= 1 for gate in TYPED_GATES.values())
