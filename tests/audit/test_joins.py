"""OR-join and AND-join (RT4CHART §3.4, §3.6) over every label combination, and the paper's Table 1."""

import itertools

import pytest

from rt4chart import Label, and_join, or_join

E, C, N, U = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS, Label.UNVERIFIED
ALL = [E, C, N, U]


def _first_present(labels, priority, empty):
    """The reference join: the first label of ``priority`` among ``labels``; ``empty`` when there are none."""
    present = set(labels)
    return next((lab for lab in priority if lab in present), empty)


def _expected_or(labels):
    return _first_present(labels, (C, E, U, N), N)


def _expected_and(labels):
    return _first_present(labels, (C, N, U, E), E)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_joins_every_combination(n):
    for combo in itertools.product(ALL, repeat=n):
        assert or_join(combo) == _expected_or(combo), combo
        assert and_join(combo) == _expected_and(combo), combo


def test_paper_priorities_on_the_three_paper_labels():
    # OR: Con > Ent > Nic ; AND: Con > Nic > Ent
    assert or_join([E, N, C]) == C
    assert or_join([N, E, N]) == E
    assert or_join([N, N]) == N
    assert and_join([E, N, C]) == C
    assert and_join([E, N, E]) == N
    assert and_join([E, E]) == E


def test_unverified_never_becomes_entailed():
    assert and_join([E, U]) == U
    assert or_join([N, U]) == U
    assert or_join([E, U]) == E  # a decisive chunk still decides


def test_table_1_running_example():
    # chunk labels of Table 1 (W=2, O=1): rows Clm1..Clm4, columns Chk0..Chk2, then the OR-joined local label
    table = {
        1: ([C, C, N], C),
        2: ([C, C, N], C),
        3: ([N, E, E], E),
        4: ([N, N, N], N),
    }
    for claim, (chunks, local) in table.items():
        assert or_join(chunks) == local, claim
    finals = [C, C, E, E, N]  # y* after global verification (Clm4 revised to Ent, Clm5 stays Nic)
    assert and_join(finals) == C


def test_joins_accept_strings():
    assert or_join(["baseless", "entailed"]) == E
    with pytest.raises(ValueError):
        or_join(["maybe"])
