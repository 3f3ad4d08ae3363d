"""Zero-sum settlement helpers (scoring/settlement.py), checked against document 000's rules."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.settlement import (
    add_up,
    is_zero_sum,
    settle_by_average,
    settle_counterparts,
    settle_lone,
    settle_sides,
)

NAMES = ["Anna", "Ben", "Clara", "Dora"]


def test_call_two_against_two_counterparts():
    # Zwanzigerrufen example: Call won, Trull, Pagat Ultimo: +3 +3 -3 -3.
    steps = [settle_sides(["Anna", "Ben"], ["Clara", "Dora"], 1) for _ in range(3)]
    assert add_up(*steps) == {"Anna": 3, "Ben": 3, "Clara": -3, "Dora": -3}


def test_lone_declarer_settles_with_every_opponent():
    # Königrufen example: Blind Solo 5 and failed Pagat Ultimo 2: Anna +21, others -7.
    total = add_up(
        settle_lone("Anna", ["Ben", "Clara", "Dora"], 5), settle_lone("Anna", ["Ben", "Clara", "Dora"], 2)
    )
    assert total == {"Anna": 21, "Ben": -7, "Clara": -7, "Dora": -7}
    assert settle_sides(["Anna"], ["Ben", "Clara", "Dora"], 5) == settle_lone(
        "Anna", ["Ben", "Clara", "Dora"], 5
    )


def test_lone_loser_pays_each_opponent():
    assert settle_sides(["Ben", "Clara"], ["Anna"], 4) == {"Ben": 4, "Clara": 4, "Anna": -8}


def test_slovenian_average_settlement_from_document():
    assert settle_by_average({"Anna": 40, "Ben": -20, "Clara": 40, "Dora": 0}) == {
        "Anna": 25,
        "Ben": -35,
        "Clara": 25,
        "Dora": -15,
    }


def test_average_keeps_thirds_exact():
    out = settle_by_average({"Anna": 1, "Ben": 0, "Clara": 0})
    assert out["Anna"] == Fraction(2, 3) and is_zero_sum(out)


@pytest.mark.parametrize(
    "call",
    [
        lambda: settle_sides(["Anna"], ["Anna", "Ben"], 1),
        lambda: settle_sides([], ["Ben"], 1),
        lambda: settle_lone("Anna", [], 1),
        lambda: settle_counterparts([("Anna", "Anna")], 1),
        lambda: settle_by_average({}),
    ],
)
def test_impossible_settlements_raise(call):
    with pytest.raises(ValueError):
        call()


@given(st.dictionaries(st.sampled_from(NAMES), st.integers(-2000, 2000), min_size=1))
def test_average_settlement_sums_to_zero(totals):
    out = settle_by_average(totals)
    assert is_zero_sum(out)
    # The order of the players stays: a higher total never pays more.
    for a in totals:
        for b in totals:
            if totals[a] > totals[b]:
                assert out[a] > out[b]


@given(st.integers(1, 3), st.integers(-50, 50), st.randoms())
def test_sides_sum_to_zero(n_winners, value, rnd):
    names = NAMES[:]
    rnd.shuffle(names)
    winners, losers = names[:n_winners], names[n_winners:]
    out = settle_sides(winners, losers, value)
    assert is_zero_sum(out) and set(out) == set(NAMES)
    assert all(out[w] == out[winners[0]] for w in winners)
