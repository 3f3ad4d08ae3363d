"""Hungarian Tarokk hand scoring (scoring/games/hungarian.py) against docs 000 and 003."""

from fractions import Fraction

import pytest
from golden import check_golden_hand, check_malformed, check_zero_sum, golden_errors, golden_hands, load
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import find_game, score_hand

GAME = find_game("hungarian")
DATA, EXAMPLE = load("hungarian")


@golden_hands(DATA)
def test_golden_hand(case):
    check_golden_hand(case, card_points=True)


@golden_errors(DATA)
def test_malformed_hand_names_the_field(case):
    err = check_malformed("hungarian", case)
    assert str(err).startswith(case["field"] + ": ")


def test_shipped_example_is_the_documents_worked_example():
    result = score_hand(EXAMPLE).to_json()
    worked = DATA["hands"][0]
    assert EXAMPLE["players"] == ["Anna", "Ben", "Clara", "Dora"]
    assert result["traditional"] == {"Anna": 4, "Ben": -6, "Clara": -2, "Dora": 4} == worked["traditional"]
    assert result["simplified"] == {"Anna": 5, "Ben": 0, "Clara": 1, "Dora": 5} == worked["simplified"]


def test_counting_example_thirty_cards_with_28_pips():
    pile = ("SKUS T21 T1 HK DK HQ HC DC HJ H1 D1 " + " ".join(f"T{n}" for n in range(2, 21))).split()
    assert len(pile) == 30 and sum(c.pips for c in GAME.check(pile)) == 28
    assert GAME.count(pile) == 58 and GAME.total == 94


@pytest.mark.parametrize("level, expected", [(1, 2), (2, 4), (4, 8), (8, 16)])
def test_kontra_levels_double_only_the_named_item(level, expected):
    hand = {
        "game": "hungarian",
        "players": ["A", "B", "C", "D"],
        "declarer": "A",
        "partner": "B",
        "contract": "two",
        "card_points": "50",
        "kontra": {"contract": level},
        "bonuses": [{"bonus": "four_kings", "side": "defenders"}],
    }
    result = score_hand(hand)
    assert result.simplified == {"A": expected, "B": expected, "C": 1, "D": 1}


def test_multipliers_apply_to_the_contract_alone():
    hand = {
        "game": "hungarian",
        "players": ["A", "B", "C", "D"],
        "declarer": "A",
        "partner": "B",
        "contract": "one",
        "card_points": "80",
        "bonuses": [{"bonus": "trull", "side": "declarer", "announced": True}],
    }
    assert score_hand(hand).simplified["A"] == 3 * 2 + 2  # double game x2 on One's 3, Trull 2 unmultiplied


def test_a_group_overrides_the_tariff():
    hand = {
        "game": "hungarian",
        "players": ["A", "B", "C", "D"],
        "declarer": "A",
        "partner": "B",
        "contract": "three",
        "card_points": "50",
    }
    assert score_hand(hand, {"tariff": {"contracts": {"three": 2}}}).simplified["A"] == 2
    assert "source" in GAME.tariff and score_hand(hand).simplified["A"] == 1


def test_rounds_of_four_or_five_deals():
    four = dict.fromkeys("ABCD", 0)
    assert GAME.session_end(four, 7, {"notice_given": True})["ended"] is False
    assert GAME.session_end(four, 8, {"notice_given": True})["ended"] is True
    assert GAME.session_end(four, 8, {})["ended"] is False
    five = dict.fromkeys("ABCDE", 0)
    assert GAME.session_end(five, 8, {"notice_given": True})["deals_left_in_round"] == 2


BONUS = st.fixed_dictionaries(
    {
        "bonus": st.sampled_from(["trull", "four_kings", "pagat_ultimo", "xxi_catch"]),
        "side": st.sampled_from(["declarer", "defenders"]),
        "announced": st.booleans(),
        "made": st.booleans(),
    }
)


@st.composite
def hands(draw):
    players = ["Anna", "Ben", "Clara", "Dora", "Emil"][: draw(st.sampled_from([4, 5]))]
    hand = {"game": "hungarian", "players": players}
    active = players
    if len(players) == 5:
        hand["dealer"] = draw(st.sampled_from(players))
        active = [p for p in players if p != hand["dealer"]]
    hand["declarer"] = draw(st.sampled_from(active))
    hand["partner"] = draw(st.sampled_from([None, *active]))
    hand["contract"] = draw(st.sampled_from(["three", "two", "one", "solo"]))
    level = st.sampled_from([1, 2, 4, 8])
    hand["tarok_declarations"] = draw(
        st.dictionaries(st.sampled_from(active), st.sampled_from([8, 9]), max_size=2)
    )
    if hand["contract"] == "three" and draw(st.booleans()) and draw(st.booleans()):
        hand["trial_three_failed"] = True
        return hand
    points = draw(st.integers(0, 94))
    hand["card_points"] = str(points)
    bonuses = draw(st.lists(BONUS, max_size=4, unique_by=lambda b: b["bonus"]))
    side = draw(st.sampled_from(["declarer", "defenders"]))
    side_points = points if side == "declarer" else 94 - points
    if draw(st.booleans()):
        bonuses.append(
            {
                "bonus": "double_game",
                "side": side,
                "announced": draw(st.booleans()),
                "made": side_points >= 71,
            }
        )
    if draw(st.booleans()):
        won = "declarer" if points >= 48 else "defenders"
        bonuses.append(
            {
                "bonus": "valat",
                "side": side,
                "announced": draw(st.booleans()),
                "made": side == won and draw(st.booleans()),
            }
        )
    hand["bonuses"] = bonuses
    hand["kontra"] = {
        item: draw(level) for item in ["contract", *{b["bonus"] for b in bonuses}] if draw(st.booleans())
    }
    return hand


@settings(max_examples=150, deadline=None)
@given(hands())
def test_every_traditional_settlement_is_zero_sum(hand):
    result = score_hand(hand)
    check_zero_sum(result)
    assert all(v >= 0 for v in result.simplified.values())  # Simplified Scoring only adds
    if "dealer" in hand:
        assert result.simplified[hand["dealer"]] == result.traditional[hand["dealer"]] == Fraction(0)
