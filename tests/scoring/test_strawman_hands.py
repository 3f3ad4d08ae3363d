"""Strawman hand scoring (scoring/games/strawman.py) against doc 000: no settlement, match to 11."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import HandFormatError, find_game, score_hand

GAME = find_game("Strohmandeln")
DATA = json.loads((Path(__file__).parent / "data" / "strawman.json").read_text(encoding="utf-8"))
EXAMPLE = json.loads(
    (Path(__file__).parents[2] / "scoring" / "examples" / "strawman.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", DATA["hands"], ids=lambda c: c["name"])
def test_golden_hand(case):
    result = score_hand(case["hand"], case.get("options")).to_json()
    assert result["simplified"] == case["simplified"], case["why"]
    assert result["traditional"] == case["traditional"], case["why"]
    if "steps" in case:
        assert [s["step"] for s in result["ledger"]] == case["steps"]


@pytest.mark.parametrize("case", DATA["errors"], ids=lambda c: c["field"])
def test_malformed_hand_names_the_field(case):
    with pytest.raises(HandFormatError) as err:
        score_hand({"game": "strawman", **case["hand"]}, case.get("options"))
    assert err.value.field == case["field"]


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
