"""Calling the King (Königrufen) hand scoring (scoring/games/calling_the_king.py) against docs 000 and 001."""

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import HandFormatError, find_game, score_hand
from scoring.settlement import is_zero_sum

GAME = find_game("Königrufen")
DATA = json.loads((Path(__file__).parent / "data" / "koenigrufen.json").read_text(encoding="utf-8"))
EXAMPLE = json.loads(
    (Path(__file__).parents[2] / "scoring" / "examples" / "koenigrufen.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", DATA["hands"], ids=lambda c: c["name"])
def test_golden_hand(case):
    result = score_hand(case["hand"], case.get("options")).to_json()
    assert result["simplified"] == case["simplified"], case["why"]
    assert result["traditional"] == case["traditional"], case["why"]
    if "steps" in case:
        assert [s["step"] for s in result["ledger"]] == case["steps"]
    if "card_points" in case:
        assert result["facts"]["card_points"] == case["card_points"]


@pytest.mark.parametrize("case", DATA["errors"], ids=lambda c: c["field"])
def test_malformed_hand_names_the_field(case):
    with pytest.raises(HandFormatError) as err:
        score_hand({"game": "koenigrufen", **case["hand"]}, case.get("options"))
    assert err.value.field == case["field"]


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
CONTRACTS = [c for c, _ in GAME.contracts]


@st.composite
def hands(draw):
    players = ["Anna", "Ben", "Clara", "Dora"]
    contract = draw(st.sampled_from(CONTRACTS))
    terms = GAME.tariff["contracts"][contract]
    hand = {"game": "koenigrufen", "players": players, "contract": contract}
    if terms["won_by"] == "dodge_round":
        hand["dodge_round_loser"] = draw(st.sampled_from(players))
        return hand
    hand["declarer"] = draw(st.sampled_from(players))
    if terms["partner"] == "called":
        hand["partner"] = draw(st.sampled_from([None, *players]))
    if terms["won_by"] == "made":
        hand["won"] = draw(st.booleans())
    else:
        hand["card_points"] = GAME.format(Fraction(draw(st.integers(0, 210)), 3))
    hand["bonuses"] = draw(st.lists(BONUS, max_size=4, unique_by=lambda b: b["bonus"]))
    items = ["contract", *(b["bonus"] for b in hand["bonuses"])]
    hand["kontra"] = {i: draw(st.sampled_from([1, 2, 4, 8, 16])) for i in items if draw(st.booleans())}
    return hand


@settings(max_examples=150, deadline=None)
@given(hands(), st.booleans())
def test_every_traditional_settlement_is_zero_sum(hand, styrian):
    result = score_hand(hand, {"styrian": styrian})
    assert is_zero_sum(result.traditional)
    assert all(is_zero_sum(step.traditional) for step in result.ledger)
    assert all(v >= 0 for v in result.simplified.values())
