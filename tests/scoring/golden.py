"""Golden-data loading and checks shared by the per-game hand tests (tests/scoring/test_*_hands.py)."""

import json
from pathlib import Path

import pytest
from hypothesis import strategies as st

from scoring import HandFormatError, score_hand
from scoring.settlement import is_zero_sum

HERE = Path(__file__).parent


def load(name: str) -> tuple[dict, dict]:
    """The golden cases (tests/scoring/data/<name>.json) and the shipped example (scoring/examples/<name>.json)."""
    data = json.loads((HERE / "data" / f"{name}.json").read_text(encoding="utf-8"))
    example = json.loads(
        (HERE.parents[1] / "scoring" / "examples" / f"{name}.json").read_text(encoding="utf-8")
    )
    return data, example


def golden_hands(data: dict):
    """Parametrize a test over the golden hands, one id per case name."""
    return pytest.mark.parametrize("case", data["hands"], ids=lambda c: c["name"])


def golden_errors(data: dict):
    """Parametrize a test over the malformed hands, one id per named field."""
    return pytest.mark.parametrize("case", data["errors"], ids=lambda c: c["field"])


def check_golden_hand(case: dict, card_points: bool = False) -> dict:
    """Score a golden hand and compare both systems (and steps, Card Points where the case gives them)."""
    result = score_hand(case["hand"], case.get("options")).to_json()
    assert result["simplified"] == case["simplified"], case["why"]
    assert result["traditional"] == case["traditional"], case["why"]
    if "steps" in case:
        assert [s["step"] for s in result["ledger"]] == case["steps"]
    if card_points and "card_points" in case:
        assert result["facts"]["card_points"] == case["card_points"]
    return result


def check_malformed(game: str, case: dict) -> HandFormatError:
    """A malformed hand raises HandFormatError naming the case's field."""
    with pytest.raises(HandFormatError) as err:
        score_hand({"game": game, **case["hand"]}, case.get("options"))
    assert err.value.field == case["field"]
    return err.value


def check_zero_sum(result) -> None:
    """Traditional settles zero-sum, in total and step by step."""
    assert is_zero_sum(result.traditional)
    assert all(is_zero_sum(step.traditional) for step in result.ledger)


@st.composite
def calling_hands(draw, game, bonus, card_points, max_bonuses: int, levels: list[int]) -> dict:
    """A random four-player hand of a calling game (Königrufen, Zwanzigerrufen): any contract, a called partner
    where the contract has one, the result, up to `max_bonuses` bonuses and kontra levels on any item."""
    players = ["Anna", "Ben", "Clara", "Dora"]
    contract = draw(st.sampled_from([c for c, _ in game.contracts]))
    terms = game.tariff["contracts"][contract]
    hand = {"game": game.id, "players": players, "contract": contract}
    if terms["won_by"] == "dodge_round":
        hand["dodge_round_loser"] = draw(st.sampled_from(players))
        return hand
    hand["declarer"] = draw(st.sampled_from(players))
    if terms["partner"] == "called":
        hand["partner"] = draw(st.sampled_from([None, *players]))
    if terms["won_by"] == "made":
        hand["won"] = draw(st.booleans())
    else:
        hand["card_points"] = draw(card_points)
    hand["bonuses"] = draw(st.lists(bonus, max_size=max_bonuses, unique_by=lambda b: b["bonus"]))
    items = ["contract", *(b["bonus"] for b in hand["bonuses"])]
    hand["kontra"] = {i: draw(st.sampled_from(levels)) for i in items if draw(st.booleans())}
    return hand
