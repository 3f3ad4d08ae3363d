"""Calling the Twenty (Zwanzigerrufen) hand scoring (scoring/games/calling_the_twenty.py) against doc 000."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import HandFormatError, find_game, score_hand
from scoring.settlement import is_zero_sum

GAME = find_game("zwanzigerrufen")
DATA = json.loads((Path(__file__).parent / "data" / "zwanzigerrufen.json").read_text(encoding="utf-8"))
EXAMPLE = json.loads(
    (Path(__file__).parents[2] / "scoring" / "examples" / "zwanzigerrufen.json").read_text(encoding="utf-8")
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
        score_hand({"game": "zwanzigerrufen", **case["hand"]}, case.get("options"))
    assert err.value.field == case["field"]


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


@st.composite
def hands(draw):
    players = ["Anna", "Ben", "Clara", "Dora"]
    contract = draw(st.sampled_from([c for c, _ in GAME.contracts]))
    terms = GAME.tariff["contracts"][contract]
    hand = {"game": "zwanzigerrufen", "players": players, "contract": contract}
    if terms["won_by"] == "dodge_round":
        hand["dodge_round_loser"] = draw(st.sampled_from(players))
        return hand
    hand["declarer"] = draw(st.sampled_from(players))
    if terms["partner"] == "called":
        hand["partner"] = draw(st.sampled_from([None, *players]))
    if terms["won_by"] == "made":
        hand["won"] = draw(st.booleans())
    else:
        hand["card_points"] = str(draw(st.integers(0, 88)))
    hand["bonuses"] = draw(st.lists(BONUS, max_size=3, unique_by=lambda b: b["bonus"]))
    items = ["contract", *(b["bonus"] for b in hand["bonuses"])]
    hand["kontra"] = {i: draw(st.sampled_from([1, 2, 4, 8])) for i in items if draw(st.booleans())}
    return hand


@settings(max_examples=150, deadline=None)
@given(hands())
def test_every_traditional_settlement_is_zero_sum(hand):
    result = score_hand(hand)
    assert is_zero_sum(result.traditional)
    assert all(is_zero_sum(step.traditional) for step in result.ledger)
    assert all(v >= 0 for v in result.simplified.values())
