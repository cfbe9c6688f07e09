"""End to end with the offline judges: answers of everyday length that restate or compute from what the question
says of the user ("My flight lands at 21:40", "delivered on March 10"), a particle that disagrees with the context,
and a bare yes/no to a question about two entities (the comparison computed)."""

import pytest

import rt4chart
from rt4chart import Label
from rt4chart.audit.decompose import RuleDecomposer, particle_statements

SHUTTLE = "The shuttle leaves the airport every 30 minutes until 23:00."
RETURNS = "You may return unworn items within 30 days of delivery."
WARRANTY = "The warranty lasts 18 months from the date of purchase."
MUSEUM = "The museum is closed on Mondays."
DOGS = "Dogs are welcome in our ground-floor rooms for a fee of $25 per night."
RIVERS = "The Danube is 2,850 km long. The Rhine is 1,230 km long."
CURIES = "Marie Curie was born in Warsaw. Pierre Curie was born in Paris."
PARIS = "Paris is the capital of France."

E, C = Label.ENTAILED, Label.CONTRADICTED
CASES = {
    "given time kept": (SHUTTLE, "My flight lands at 21:40. Can I still catch the shuttle?",
                        "Yes, landing at 21:40 you can still catch a shuttle, since they run every 30 minutes until "
                        "23:00.", [E]),
    "given time broken": (SHUTTLE, "My flight lands at 23:40. Can I still catch the shuttle?",
                          "Yes, landing at 23:40 you can still catch a shuttle, since they run every 30 minutes "
                          "until 23:00.", [C]),
    "given time, bare yes": (SHUTTLE, "My flight lands at 23:40. Can I still catch the shuttle?", "Yes.", [C]),
    "date from the question": (RETURNS, "My order was delivered on March 10. What's the last day I can return it?",
                               "You can return it until April 9.", [E]),
    "wrong date from the question": (RETURNS, "My order was delivered on March 10. What's the last day I can "
                                     "return it?", "You can return it until April 19.", [C]),
    "months": (WARRANTY, "I bought it on 1 June 2025. Until when is it covered?", "It is covered until 1 December "
               "2026.", [E]),
    "wrong months": (WARRANTY, "I bought it on 1 June 2025. Until when is it covered?", "It is covered until 1 June "
                     "2026.", [C]),
    "particle disagrees": (MUSEUM, "Is the museum open on Mondays?", "Yes, you can visit on Mondays.", [C]),
    "bare particle disagrees": (MUSEUM, "Is the museum open on Mondays?", "Yes.", [C]),
    "particle agrees": (MUSEUM, "Is the museum open on Mondays?", "No, it's closed on Mondays.", [E]),
    "particle with the fact": (DOGS, "Can I bring my dog?", "Yes — dogs are welcome in our ground-floor rooms for "
                               "$25 a night.", [E]),
    "both, yes": (RIVERS, "Are both the Danube and the Rhine longer than 1,000 km?", "yes", [E]),
    "both, no": (RIVERS, "Are both the Danube and the Rhine longer than 1,000 km?", "no", [C]),
    "same city, no": (CURIES, "Were Marie Curie and Pierre Curie born in the same city?", "no", [E]),
    "same city, yes": (CURIES, "Were Marie Curie and Pierre Curie born in the same city?", "yes", [C]),
    "bare yes supported": (PARIS, "Is Paris the capital of France?", "yes", [E]),
    "bare no": (PARIS, "Is Paris the capital of France?", "no", [C]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_local_judge_reads_the_question_and_the_particle(name):
    context, question, answer, labels = CASES[name]
    result = rt4chart.audit(context=context, answer=answer, question=question, judge="local")
    assert [c.label for c in result.claims] == labels, [c.reason for c in result.claims]


def test_a_statement_states_what_the_bare_answer_asserts():
    result = rt4chart.audit(context=CURIES, answer="no", judge="local",
                            question="Were Marie Curie and Pierre Curie born in the same city?")
    assert result.claims[0].text == "Marie Curie and Pierre Curie were not born in the same city."
    assert "Warsaw" in result.claims[0].reason and "Paris" in result.claims[0].reason


def test_the_particle_s_statement_is_kept_with_the_claim_it_opens():
    question = "Is the museum open on Mondays?"
    for answer in ("Yes, you can visit on Mondays.", "Yes. You can visit on Mondays."):
        claims = RuleDecomposer().decompose_sync(answer, question)
        assert particle_statements(answer, claims, question) == {0: "The museum is open on Mondays."}
    bare = RuleDecomposer().decompose_sync("Yes.", question)
    assert particle_statements("Yes.", bare, question) == {}  # the particle is the claim itself
    assert particle_statements("Yes, you can.", RuleDecomposer().decompose_sync("Yes, you can.", None), None) == {}
