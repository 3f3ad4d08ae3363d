"""Strawman hand scoring (scoring/games/strawman.py) against doc 000: no settlement, match to 11."""

from golden import check_golden_hand, check_malformed, golden_errors, golden_hands, load
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import find_game, score_hand

GAME = find_game("Strohmandeln")
DATA, EXAMPLE = load("strawman")


@golden_hands(DATA)
def test_golden_hand(case):
    check_golden_hand(case)


@golden_errors(DATA)
def test_malformed_hand_names_the_field(case):
    check_malformed("strawman", case)


def test_shipped_example_is_the_documents_worked_example():
    result = score_hand(EXAMPLE).to_json()
    assert EXAMPLE["players"] == ["Anna", "Ben"]
    assert (
        result["traditional"]
        == result["simplified"]
        == {"Anna": 1, "Ben": 5}
        == DATA["hands"][0]["simplified"]
    )


def test_pay_less_keeps_the_challenge_values():
    hand = {
        "game": "strawman",
        "players": ["A", "B"],
        "declarer": "A",
        "contract": "challenge",
        "card_points": "30",
    }
    assert score_hand(hand, {"pay_less": True}).simplified == {"A": 0, "B": 3}
    hand["card_points"] = "40"
    assert score_hand(hand, {"pay_less": True}).simplified == {"A": 2, "B": 0}


def test_match_to_eleven():
    assert GAME.session_end({"A": 10, "B": 9}, 7)["ended"] is False
    assert GAME.session_end({"A": 10, "B": 12}, 8)["winners"] == ["B"]


BONUS = st.fixed_dictionaries(
    {
        "bonus": st.sampled_from(["pagat_ultimo", "four_kings", "trull"]),
        "side": st.sampled_from(["declarer", "defenders"]),
        "announced": st.booleans(),
        "made": st.booleans(),
    }
)


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(["challenge", "dodge_round"]),
    st.integers(0, 70),
    st.lists(BONUS, max_size=3, unique_by=lambda b: b["bonus"]),
    st.booleans(),
)
def test_nobody_pays_and_nobody_subtracts(contract, points, bonuses, pay_less):
    hand = {
        "game": "strawman",
        "players": ["Anna", "Ben"],
        "declarer": "Anna",
        "contract": contract,
        "card_points": str(points),
        "dodge_round_winner": "Ben",
        "bonuses": bonuses,
    }
    result = score_hand(hand, {"pay_less": pay_less})
    assert result.traditional == result.simplified
    assert all(v >= 0 for v in result.simplified.values()) and sum(result.simplified.values()) > 0
