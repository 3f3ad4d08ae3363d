"""Calling the Twenty (Zwanzigerrufen) hand scoring (scoring/games/calling_the_twenty.py) against doc 000."""

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

GAME = find_game("zwanzigerrufen")
DATA, EXAMPLE = load("zwanzigerrufen")


@golden_hands(DATA)
def test_golden_hand(case):
    check_golden_hand(case)


@golden_errors(DATA)
def test_malformed_hand_names_the_field(case):
    check_malformed("zwanzigerrufen", case)


def test_shipped_example_is_the_documents_worked_example():
    result = score_hand(EXAMPLE).to_json()
    assert EXAMPLE["players"] == ["Anna", "Ben", "Clara", "Dora"]
    assert (
        result["traditional"]
        == {"Anna": 3, "Ben": 3, "Clara": -3, "Dora": -3}
        == DATA["hands"][0]["traditional"]
    )
    assert (
        result["simplified"] == {"Anna": 3, "Ben": 3, "Clara": 0, "Dora": 0} == DATA["hands"][0]["simplified"]
    )


def test_deck_of_forty_with_88_card_points():
    assert len(GAME.deck) == 40 and GAME.total == 88


def test_finish_at_thirty_under_simplified_scoring():
    assert GAME.session_end({"A": 29, "B": 0, "C": 3, "D": 12}, 20)["ended"] is False
    assert GAME.session_end({"A": 30, "B": 0, "C": 3, "D": 12}, 21)["winners"] == ["A"]
    # A traditional session ends at an agreed time, once everyone has dealt equally.
    assert (
        GAME.session_end({"A": 40, "B": -40, "C": 0, "D": 0}, 21, {"system": "traditional"})["ended"] is False
    )
    assert (
        GAME.session_end(
            {"A": 40, "B": -40, "C": 0, "D": 0}, 24, {"system": "traditional", "final_round_called": True}
        )["ended"]
        is True
    )


BONUS = st.fixed_dictionaries(
    {
        "bonus": st.sampled_from(["trull", "four_kings", "pagat_ultimo"]),
        "side": st.sampled_from(["declarer", "defenders"]),
        "announced": st.booleans(),
        "made": st.booleans(),
    }
)


def hands():
    return calling_hands(GAME, BONUS, st.integers(0, 88).map(str), max_bonuses=3, levels=[1, 2, 4, 8])


@settings(max_examples=150, deadline=None)
@given(hands())
def test_every_traditional_settlement_is_zero_sum(hand):
    result = score_hand(hand)
    check_zero_sum(result)
    assert all(v >= 0 for v in result.simplified.values())
