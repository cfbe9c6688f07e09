"""The rule decomposer on answers written as an assistant writes them (``audit.decompose.RuleDecomposer`` with
``text.markup`` and ``text.particles``): citation markers kept out of a claim's text and in its citations, markdown
headings and table rows, bullets and emphasis, and answer particles read with the question."""

import pytest

from rt4chart.audit.decompose import RuleDecomposer


def claims(answer, question=None):
    return RuleDecomposer().decompose_sync(answer, question)


def spans(answer, claim):
    return [answer[s.start:s.end] for s in claim.answer_spans]


def test_markers_are_out_of_the_text_and_in_the_citations():
    answer = "Refunds take 14 days [1]. Exchanges are free [2][3]."
    first, second = claims(answer)
    assert (first.text, second.text) == ("Refunds take 14 days", "Exchanges are free")
    assert [(m.marker, m.passages) for m in first.citations] == [("[1]", (1,))]
    assert [(m.marker, m.passages) for m in second.citations] == [("[2]", (2,)), ("[3]", (3,))]
    assert spans(answer, first) == ["Refunds take 14 days"]
    assert spans(answer, second) == ["Exchanges are free"]
    for c in (first, second):
        for m in c.citations:
            assert answer[m.start:m.end] == m.marker


def test_a_marker_at_the_end_of_a_sentence_cites_each_of_its_claims_and_an_inner_one_its_own():
    first, second = claims("The museum opens at nine and it closes at five [1].")
    assert [m.marker for m in first.citations] == [m.marker for m in second.citations] == ["[1]"]
    first, second = claims("The museum opens at nine [2] and it closes at five [1].")
    assert [m.marker for m in first.citations] == ["[2]"] and [m.marker for m in second.citations] == ["[1]"]


@pytest.mark.parametrize("marker, passages", [("[1, 3]", (1, 3)), ("[2-4]", (2, 3, 4)), ("(Source 2)", (2,)),
                                               ("[^1]", (1,)), ("【5】", (5,))])
def test_each_marker_form_cites_its_passages(marker, passages):
    (claim,) = claims(f"Parking is free on Sundays {marker}.")
    assert claim.text == "Parking is free on Sundays"
    assert [m.passages for m in claim.citations] == [passages]


def test_marker_after_the_full_stop_stays_with_its_sentence():
    answer = "Refunds take 14 days. [1] Exchanges are free."
    first, second = claims(answer)
    assert first.text.rstrip(".") == "Refunds take 14 days"
    assert [m.marker for m in first.citations] == ["[1]"]
    assert second.text == "Exchanges are free."
    assert second.citations == ()


def test_no_split_at_a_marker_inside_a_sentence():
    answer = "The gym [1] opens at 6 am on weekdays."
    (claim,) = claims(answer)
    assert claim.text == "The gym opens at 6 am on weekdays."
    assert [m.marker for m in claim.citations] == ["[1]"]
    assert spans(answer, claim) == [answer]


def test_two_markers_in_one_clause_are_one_claim_citing_both():
    (claim,) = claims("The gym opens at 6 am [1] on weekdays [2].")
    assert claim.text == "The gym opens at 6 am on weekdays."
    assert [m.passages for m in claim.citations] == [(1,), (2,)]


def test_clause_split_keeps_each_clause_its_own_marker():
    first, second = claims("The museum opened in 1921 [1] and it is free for children [2].")
    assert first.text == "The museum opened in 1921"
    assert second.text == "it is free for children"
    assert [m.marker for m in first.citations] == ["[1]"]
    assert [m.marker for m in second.citations] == ["[2]"]


def test_markdown_table_rows_read_with_their_header():
    answer = ("## Plans\n\n| Plan | Price | Storage |\n|---|---|---|\n| Basic | $9/month | 50 GB |\n"
              "| **Pro** | $19/month | 200 GB |")
    basic, pro = claims(answer)
    assert basic.text == "Basic: price $9/month, storage 50 GB"
    assert pro.text == "Pro: price $19/month, storage 200 GB"
    assert spans(answer, basic) == ["| Basic | $9/month | 50 GB |"]
    assert "Plan" not in " ".join(c.text for c in (basic, pro))


def test_table_without_a_header_joins_its_cells():
    texts = [c.text for c in claims("| Basic | $9/month | 50 GB |\n| Pro | $19/month | 200 GB |")]
    assert texts == ["Basic, $9/month, 50 GB", "Pro, $19/month, 200 GB"]


def test_table_row_marker_is_a_citation_not_a_word():
    (row,) = claims("| Plan | Price |\n|:--|--:|\n| Basic | $9 [1] |")
    assert row.text == "Basic: price $9"
    assert [m.marker for m in row.citations] == ["[1]"]


def test_text_after_a_table_is_a_claim_of_its_own():
    texts = [c.text for c in claims("| Plan | Price |\n| --- | --- |\n| Basic | $9 |\n\nThe Pro plan costs $19.")]
    assert texts == ["Basic: price $9", "The Pro plan costs $19."]


def test_headings_are_no_claims_and_bullets_and_emphasis_are_dropped():
    answer = ("# Opening hours\nThe museum opens at **10 am**.\n### Prices\n* Adults pay $15.\n+ Children pay _$5_.\n"
              "- Pro adds `sharing` [2].")
    out = claims(answer)
    assert [c.text for c in out] == ["The museum opens at 10 am.", "Adults pay $15.", "Children pay $5.",
                                     "Pro adds sharing"]
    assert [m.marker for m in out[-1].citations] == ["[2]"]
    assert spans(answer, out[1]) == ["Adults pay $15."]


def test_a_particle_before_the_sentence_that_states_the_fact_is_no_claim_of_its_own():
    for answer in ("No. Dogs are not allowed inside the café.", "No, dogs are not allowed inside the café.",
                   "No — dogs are not allowed inside the café."):
        (body,) = claims(answer, "Can I bring my dog into the café?")
        assert body.text.lower() == "dogs are not allowed inside the café."


def test_a_bare_particle_with_a_question_is_the_statement_it_asserts():
    answer = "No."
    (statement,) = claims(answer, "Can I bring my dog into the café?")
    assert statement.text == "You cannot bring your dog into the café."
    assert spans(answer, statement) == ["No"]


@pytest.mark.parametrize("question, polarity, statement", [
    ("Were Marie Curie and Pierre Curie born in the same city?", "no",
     "Marie Curie and Pierre Curie were not born in the same city."),
    ("Are both the Danube and the Rhine longer than 1,000 km?", "yes",
     "Both the Danube and the Rhine are longer than 1,000 km."),
])
def test_a_bare_particle_to_a_question_about_two_entities_reads_as_grammatical_english(question, polarity,
                                                                                      statement):
    (claim,) = claims("Yes." if polarity == "yes" else "No.", question)
    assert claim.text == statement


def test_yes_alone_is_the_statement():
    answer = "Yes [1]."
    (claim,) = claims(answer, "Is the museum open on Mondays?")
    assert claim.text == "The museum is open on Mondays."
    assert spans(answer, claim) == ["Yes"]
    assert [m.marker for m in claim.citations] == ["[1]"]


def test_particle_then_comma_keeps_the_rest_as_the_claim():
    answer = "Yes, the museum is open on Mondays."
    (rest,) = claims(answer, "Is the museum open on Mondays?")
    assert rest.text == "the museum is open on Mondays."


@pytest.mark.parametrize("answer, kept", [
    ("Short answer: not usually. Refunds are given only for cancelled shows.",
     ["Refunds are given only for cancelled shows."]),
    ("Great question! The pool opens at 6 am. Hope that helps!", ["The pool opens at 6 am."]),
    ("Good question — the pool opens at 6 am.", ["the pool opens at 6 am."]),
    ("You've got several options:\n- Pay by card.\n- Pay in cash.", ["Pay by card.", "Pay in cash."]),
    ("You can pay in three ways:\n- By card.\n- In cash.", ["You can pay in three ways:", "By card.", "In cash."]),
])
def test_openers_and_fillers_are_no_claims_and_a_lead_in_with_content_is_one(answer, kept):
    assert [c.text for c in claims(answer, "Can I get a refund?")] == kept


def test_particle_without_a_question_is_dropped():
    (claim,) = claims("No. Dogs are not allowed inside the café.")
    assert claim.text == "Dogs are not allowed inside the café."


def test_particle_to_a_wh_question_is_dropped():
    (claim,) = claims("Yes, it opens at 9.", "What time does the museum open?")
    assert claim.text == "it opens at 9."


def test_hedge_is_no_claim():
    (claim,) = claims("Not necessarily. It depends on the size.", "Can I bring my dog into the café?")
    assert claim.text == "It depends on the size."
    assert claims("Not necessarily.", "Is the pool open on Sunday?") == []


@pytest.mark.parametrize("answer, kept", [
    ("Yes. Dogs are not allowed inside the café.", "Dogs are not allowed inside the café."),
    ("No. Dogs are welcome in the café.", "Dogs are welcome in the café."),
])
def test_particle_contradicted_by_the_next_sentence_is_dropped(answer, kept):
    out = claims(answer, "Can I bring my dog into the café?")
    assert [c.text for c in out] == [kept]


def test_no_at_the_start_of_a_sentence_is_not_a_particle():
    (claim,) = claims("No dogs are allowed in the café.", "Can I bring my dog into the café?")
    assert claim.text == "No dogs are allowed in the café."


def test_claim_indices_run_in_order():
    out = claims("Yes. Dogs are welcome on the terrace [1]. Water bowls are free.", "Can I bring my dog?")
    assert [c.index for c in out] == [0, 1]
    assert [c.text for c in out] == ["Dogs are welcome on the terrace", "Water bowls are free."]
    assert [m.marker for m in out[0].citations] == ["[1]"] and out[1].citations == ()
