"""Claims paired across two runs by text similarity."""

from diff_helpers import CON, ENT, NIC

from rt4chart.diff import MIN_SIMILARITY, align_claims
from rt4chart.types import ClaimVerdict, Evidence


def _claims(*items):
    out = []
    for i, item in enumerate(items):
        text, label, *quote = item
        ev = tuple(Evidence(start=0, end=len(q), text=q, sentence_ids=(0,)) for q in quote)
        out.append(ClaimVerdict(index=i, text=text, sentence_index=i, label=label, evidence=ev))
    return out


def _pairs(before, after):
    return [(p.before, p.after, p.change) for p in align_claims(_claims(*before), _claims(*after))]


def test_the_same_claims_pair_in_order_and_nothing_changed():
    claims = [("Paris is in France.", ENT), ("It has 2 million people.", CON)]
    assert _pairs(claims, claims) == [(0, 0, "same"), (1, 1, "same")]


def test_claims_pair_by_text_not_position_and_unrelated_ones_are_added_and_removed():
    before = [("The trial lasts 14 days.", ENT), ("Support is by phone.", NIC), ("Prices rose sharply in May.", CON)]
    after = [("Support is by phone.", ENT), ("The free trial lasts 14 days.", ENT), ("Cats sleep a lot.", NIC)]
    pairs = align_claims(_claims(*before), _claims(*after))
    assert [(p.before, p.after, p.change) for p in pairs] == [
        (1, 0, "flipped"), (0, 1, "reworded"), (None, 2, "added"), (2, None, "removed")]
    assert pairs[0].better and not pairs[0].worse and pairs[1].similarity >= MIN_SIMILARITY


def test_a_flip_between_hallucinated_labels_is_neither_worse_nor_better():
    pairs = align_claims(_claims(("It costs 5 dollars.", CON)), _claims(("It costs 5 dollars.", NIC)))
    assert [(p.change, p.between_hallucinated, p.worse, p.better) for p in pairs] == [("flipped", True, False, False)]
    worse = align_claims(_claims(("It costs 5 dollars.", ENT)), _claims(("It costs 5 dollars.", NIC)))[0]
    assert worse.worse and not worse.between_hallucinated


def test_other_evidence_quotes_are_an_evidence_change():
    before = _claims(("Paris is in France.", ENT, "Paris is the capital of France."))
    after = _claims(("Paris is in France.", ENT, "France's capital is Paris."))
    assert [p.change for p in align_claims(before, after)] == ["evidence"]


def test_a_removed_claim_is_listed_where_it_was():
    before = [("Alpha is one.", ENT), ("Beta is two.", ENT), ("Gamma is three.", ENT)]
    after = [("Alpha is one.", ENT), ("Gamma is three.", ENT)]
    assert _pairs(before, after) == [(0, 0, "same"), (1, None, "removed"), (2, 1, "same")]
    assert _pairs([], after) == [(None, 0, "added"), (None, 1, "added")]
