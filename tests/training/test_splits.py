"""training.splits: the claim label and the context-grouped split every training stage shares."""

from rt4chart.types import Span
from training.splits import claim_is_hallucinated, covered, split_groups


def test_a_claim_is_hallucinated_when_gold_covers_a_quarter_of_it_or_12_characters():
    assert covered(0, 100, [Span(start=10, end=20), Span(start=90, end=120)]) == 20
    assert claim_is_hallucinated(0, 100, [Span(start=0, end=12)])  # 12 characters of 100
    assert not claim_is_hallucinated(0, 100, [Span(start=0, end=11)])
    assert claim_is_hallucinated(0, 40, [Span(start=30, end=40)])  # 10 of 40: a quarter
    assert not claim_is_hallucinated(0, 40, [Span(start=31, end=40)])
    assert claim_is_hallucinated(0, 8, [Span(start=0, end=8)])  # a short claim, wholly covered
    assert not claim_is_hallucinated(0, 40, [])


def test_groups_split_into_a_seeded_validation_slice_and_folds():
    groups = [f"g{i}" for i in range(100)] * 2
    fold_of = split_groups(groups, seed=13, val_frac=0.08, folds=3)
    assert set(fold_of) == set(groups)
    assert sum(f == -1 for f in fold_of.values()) == 8
    assert {f for f in fold_of.values() if f >= 0} == {0, 1, 2}
    assert split_groups(reversed(groups), seed=13, val_frac=0.08, folds=3) == fold_of  # order of rows does not matter
    assert split_groups(groups, seed=14, val_frac=0.08, folds=3) != fold_of
    # the validation slice is the same whatever the number of folds (the experiments pass 1)
    one = split_groups(groups, seed=13, val_frac=0.08, folds=1)
    assert {g for g, f in one.items() if f < 0} == {g for g, f in fold_of.items() if f < 0}


def test_the_validation_slice_is_the_one_the_shipped_local_judge_held_out():
    from training.splits import VALIDATION_FRAC, VALIDATION_SEED, shipped_card

    card = shipped_card()
    assert (card["seed"], card["val_frac"]) == (VALIDATION_SEED, VALIDATION_FRAC)
