"""Dappen hand scoring (scoring/games/dappen.py) against doc 000: Furtwangen cents and Simplified tiers."""

from fractions import Fraction

import pytest
from golden import check_golden_hand, check_malformed, check_zero_sum, golden_errors, golden_hands, load
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import find_game, score_hand

GAME = find_game("dappen")
DATA, EXAMPLE = load("dappen")


@golden_hands(DATA)
def test_golden_hand(case):
    result = check_golden_hand(case)
    assert result["traditional_unit"] == "cents"


@golden_errors(DATA)
def test_malformed_hand_names_the_field(case):
    check_malformed("dappen", case)


def test_shipped_example_is_the_documents_worked_example():
    result = score_hand(EXAMPLE).to_json()
    assert EXAMPLE["players"] == ["Anna", "Ben", "Clara", "Dora", "Emil", "Frida"]
    others = {p: -20 for p in EXAMPLE["players"][1:]}
    assert result["traditional"] == {"Anna": 100, **others} == DATA["hands"][0]["traditional"]
    assert result["simplified"] == {"Anna": 8, **{p: 4 for p in others}} == DATA["hands"][0]["simplified"]


def test_counting_in_pairs_79_total_lone_player_needs_40():
    assert GAME.total == 79 and GAME.to_win == 40


@pytest.mark.parametrize(
    "loser, cents",
    [(39, 5), (33, 5), (32, 10), (23, 15), (22, 20), (13, 25), (8, 30), (3, 35), (2, 40), (0, 40)],
)
def test_the_furtwangen_rows(loser, cents):
    hand = {
        "game": "dappen",
        "players": ["A", "B", "C"],
        "declarer": "A",
        "contract": "dapp",
        "card_points": str(79 - loser),
    }
    assert score_hand(hand).traditional == {"A": 2 * cents, "B": -cents, "C": -cents}


def test_targets():
    assert GAME.session_end({"A": 299, "B": 0, "C": 0}, 9)["ended"] is False
    assert GAME.session_end({"A": 300, "B": 0, "C": 0}, 9)["ended"] is True
    assert GAME.session_end({"A": 150, "B": 0, "C": 0}, 9, {"short_evening": True})["target"] == 150


@st.composite
def hands(draw):
    players = ["Anna", "Ben", "Clara", "Dora", "Emil", "Frida"][: draw(st.integers(3, 6))]
    dapper = draw(st.sampled_from(players))
    contract = draw(st.sampled_from(["dapp", "solo"]))
    hand = {"game": "dappen", "players": players, "declarer": dapper, "contract": contract}
    if contract == "dapp" and draw(st.booleans()):
        hand["challenger"] = draw(st.sampled_from([p for p in players if p != dapper]))
    if draw(st.integers(0, 9)) == 0:
        hand["instant_win"] = True
    else:
        points = Fraction(draw(st.integers(0, 158)), 2)
        hand["card_points"] = GAME.format(points)
        if points in (0, 79) and draw(st.booleans()):
            hand["march"] = "declarer" if points == 79 else "defenders"
    hand["bonuses"] = [
        {"bonus": b, "side": "declarer", "announced": True, "made": draw(st.booleans())}
        for b in draw(st.lists(st.sampled_from(["ultimo_iii", "ultimo_ii", "pagat_ultimo"]), unique=True))
    ]
    return hand


@settings(max_examples=150, deadline=None)
@given(hands(), st.booleans())
def test_every_traditional_settlement_is_zero_sum(hand, half):
    result = score_hand(hand, {"half_game": half})
    check_zero_sum(result)
