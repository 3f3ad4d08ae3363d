"""Calling the King (Königrufen) hand scoring (scoring/games/calling_the_king.py) against docs 000 and 001."""

from fractions import Fraction

import pytest
from golden import (
    calling_hands,
    check_golden_hand,
    check_malformed,
    check_zero_sum,
    golden_errors,
    golden_hands,
    load,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import find_game, score_hand

GAME = find_game("Königrufen")
DATA, EXAMPLE = load("koenigrufen")


@golden_hands(DATA)
def test_golden_hand(case):
    check_golden_hand(case, card_points=True)


@golden_errors(DATA)
def test_malformed_hand_names_the_field(case):
    check_malformed("koenigrufen", case)


def test_shipped_example_is_the_documents_worked_example():
    result = score_hand(EXAMPLE).to_json()
    assert EXAMPLE["players"] == ["Anna", "Ben", "Clara", "Dora"]
    assert (
        result["traditional"]
        == {"Anna": 21, "Ben": -7, "Clara": -7, "Dora": -7}
        == DATA["hands"][0]["traditional"]
    )
    assert (
        result["simplified"] == {"Anna": 7, "Ben": 0, "Clara": 0, "Dora": 0} == DATA["hands"][0]["simplified"]
    )
    assert (
        result["traditional"]["Anna"] == 3 * result["simplified"]["Anna"]
    )  # a lone Declarer settles with three


@pytest.mark.parametrize(
    "points, styrian, won",
    [
        ("35", False, False),
        ("35 1/3", False, False),
        ("35 2/3", False, True),
        ("35 1/3", True, True),
        ("35", True, False),
    ],
)
def test_card_points_in_thirds(points, styrian, won):
    hand = {
        "game": "koenigrufen",
        "players": ["A", "B", "C", "D"],
        "declarer": "A",
        "partner": "B",
        "contract": "call",
        "card_points": points,
    }
    assert score_hand(hand, {"styrian": styrian}).facts["won"] is won


@pytest.mark.parametrize("level", [1, 2, 4, 8, 16])
def test_kontra_levels(level):
    hand = {
        "game": "koenigrufen",
        "players": ["A", "B", "C", "D"],
        "declarer": "A",
        "contract": "three",
        "card_points": "40",
        "kontra": {"contract": level},
    }
    result = score_hand(hand)
    assert result.simplified["A"] == 4 * level and result.traditional["A"] == 12 * level


BONUS = st.fixed_dictionaries(
    {
        "bonus": st.sampled_from(
            ["trull", "four_kings", "pagat_ultimo", "uhu", "kakadu", "king_ultimo", "valat"]
        ),
        "side": st.sampled_from(["declarer", "defenders"]),
        "announced": st.booleans(),
        "made": st.booleans(),
    }
)


def hands():
    return calling_hands(
        GAME,
        BONUS,
        st.integers(0, 210).map(lambda n: GAME.format(Fraction(n, 3))),
        max_bonuses=4,
        levels=[1, 2, 4, 8, 16],
    )


@settings(max_examples=150, deadline=None)
@given(hands(), st.booleans())
def test_every_traditional_settlement_is_zero_sum(hand, styrian):
    result = score_hand(hand, {"styrian": styrian})
    check_zero_sum(result)
    assert all(v >= 0 for v in result.simplified.values())
