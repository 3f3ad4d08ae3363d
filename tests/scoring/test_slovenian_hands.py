"""Slovenian Tarok hand scoring: golden hands from the rule documents, properties, and malformed hands."""

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import HandFormatError, score_hand
from scoring.games.slovenian import GAME

GOLDEN = json.loads((Path(__file__).parent / "data" / "slovenian.json").read_text(encoding="utf-8"))["hands"]
EXAMPLE = Path(__file__).parents[2] / "scoring" / "examples" / "slovenian.json"
FOUR = ["Anna", "Ben", "Clara", "Dora"]


@pytest.mark.parametrize("case", GOLDEN, ids=[c["name"] for c in GOLDEN])
def test_golden_hand(case):
    result = score_hand(case["hand"], case.get("options")).to_json()
    assert result["simplified"] == case["simplified"]
    assert result["traditional"] == case["traditional"]
    if "steps" in case:
        assert [s["step"] for s in result["ledger"]] == case["steps"]
    if "radli_after" in case:
        assert result["facts"]["radli"] == case["radli_after"]


def test_worked_example_file_matches_document():
    # Document 000: the hand's ledger +40 -20 +40 (Dora 0); Simplified +8 -4 +8.
    result = score_hand(json.loads(EXAMPLE.read_text(encoding="utf-8")))
    assert result.traditional == {"Anna": 40, "Ben": -20, "Clara": 40, "Dora": 0}
    assert result.simplified == {"Anna": 8, "Ben": -4, "Clara": 8, "Dora": 0}
    table = {s.step: dict(s.traditional) for s in result.ledger}
    assert table["Two won"] == {"Anna": 20, "Ben": 0, "Clara": 20, "Dora": 0}
    assert table["Distance"]["Anna"] == 10 and table["King Ultimo, silent"]["Clara"] == 10
    assert table["Moon lost"] == {"Anna": 0, "Ben": -20, "Clara": 0, "Dora": 0}
    assert result.facts["settlement_if_ended_now"] == {"Anna": 25, "Ben": -35, "Clara": 25, "Dora": -15}


def test_kontra_example_six_and_twelve():
    hand = {
        "game": "slovenian",
        "players": FOUR,
        "declarer": "Anna",
        "partner": "Clara",
        "contract": "two",
        "card_points": "45",
    }
    assert score_hand(hand).simplified["Anna"] == 6
    for level in (2, 4, 8, 16):
        assert score_hand({**hand, "kontra": {"contract": level}}).simplified["Anna"] == 6 * level


def test_card_points_from_piles():
    declarer = ["T1", "T21", "SKUS", "HK", "DK", "HJ"] + [
        f"T{i}" for i in range(2, 21)
    ]  # 25 cards, 21 pips = 29
    defenders = [c.id for c in GAME.deck if c.id not in declarer]
    hand = {
        "game": "slovenian",
        "players": FOUR,
        "declarer": "Anna",
        "partner": "Clara",
        "contract": "three",
        "piles": {"declarer": declarer, "defenders": defenders},
    }
    result = score_hand(hand)
    assert result.facts["card_points"] == "29"
    assert result.simplified["Anna"] == -(2 + 1)  # lost with 29: distance 6 -> 5


# ---- properties -------------------------------------------------------------------------------

BONUS_IDS = ["trull", "kings", "king_ultimo", "pagat_ultimo"]


@st.composite
def positive_hands(draw, players=4):
    names = FOUR[:players]
    contracts = ["three", "two", "one"] + (["solo_three", "solo_two", "solo_one"] if players == 4 else [])
    contract = draw(st.sampled_from(contracts))
    declarer = draw(st.sampled_from(names))
    called = contract in ("three", "two", "one") and players == 4
    partner = draw(st.sampled_from(names)) if called else None
    bonuses, kontra = [], {"contract": draw(st.sampled_from([1, 2, 4, 8, 16]))}
    for b in draw(
        st.lists(st.sampled_from(BONUS_IDS if called else BONUS_IDS[:2] + BONUS_IDS[3:]), unique=True)
    ):
        entry = {
            "bonus": b,
            "side": "declarer" if b == "king_ultimo" else draw(st.sampled_from(["declarer", "defenders"])),
            "announced": draw(st.booleans()),
            "made": draw(st.booleans()),
        }
        bonuses.append(entry)
        if entry["announced"]:
            kontra[b] = draw(st.sampled_from([1, 2, 4]))
    return {
        "game": "slovenian",
        "players": names,
        "declarer": declarer,
        "partner": partner,
        "contract": contract,
        "card_points": draw(st.integers(0, 70)),
        "bonuses": bonuses,
        "kontra": kontra,
        "moon_lost_by": draw(st.sampled_from([None] + names)),
        "radli": {p: draw(st.integers(0, 2)) for p in names},
    }


@settings(max_examples=150, deadline=None)
@given(positive_hands(), st.booleans())
def test_ledger_adds_up_and_native_is_five_times(hand, radli_rule):
    result = score_hand(hand, {"tariff": {"rules": {"radli": radli_rule}}})
    for system in ("simplified", "traditional"):
        per_player = {
            p: sum(Fraction(s.__getattribute__(system)[p]) for s in result.ledger) for p in hand["players"]
        }
        assert per_player == dict(getattr(result, system))
    # Defenders score nothing except the Moon.
    side = {hand["declarer"], hand["partner"]} - {None}
    for p in set(hand["players"]) - side - {hand["moon_lost_by"]}:
        assert result.simplified[p] == 0
    for p in hand["players"]:
        assert result.traditional[p] == 5 * result.simplified[p]


@settings(max_examples=100, deadline=None)
@given(positive_hands(players=3))
def test_three_players_native_moon_is_21(hand):
    result = score_hand(hand)
    moon = {s.step: s for s in result.ledger}.get("Moon lost")
    assert (moon is None) == (hand["moon_lost_by"] is None)
    if moon:
        assert moon.traditional[hand["moon_lost_by"]] == -21 and moon.simplified[hand["moon_lost_by"]] == -4


@settings(max_examples=150, deadline=None)
@given(positive_hands())
def test_moon_never_doubled(hand):
    hand["moon_lost_by"] = hand["players"][1]
    hand["radli"][hand["declarer"]] = 1
    hand["kontra"]["contract"] = 16
    moon = [s for s in score_hand(hand).ledger if s.step == "Moon lost"]
    assert [dict(s.simplified)[hand["players"][1]] for s in moon] == [-4]


@settings(max_examples=150, deadline=None)
@given(positive_hands())
def test_declarers_radl_doubles_everything_but_the_moon(hand):
    plain = score_hand({**hand, "radli": {p: 0 for p in hand["players"]}})
    doubled = score_hand({**hand, "radli": {hand["declarer"]: 1}})
    moon = {p: 0 for p in hand["players"]}
    if hand["moon_lost_by"]:
        moon[hand["moon_lost_by"]] = -4
    for p in hand["players"]:
        assert doubled.simplified[p] - moon[p] == 2 * (plain.simplified[p] - moon[p])


@settings(max_examples=150, deadline=None)
@given(positive_hands(), st.sampled_from(["declarer", "defenders"]), st.booleans())
def test_valat_overrides_the_rest(hand, side, announced):
    hand["bonuses"] = [b for b in hand["bonuses"] if b["bonus"] != "valat"] + [
        {"bonus": "valat", "side": side, "announced": announced, "made": True}
    ]
    level = hand["kontra"].get("valat", 1) if announced else 1
    if not announced:
        hand["kontra"].pop("valat", None)
    result = score_hand(hand)
    value = (100 if announced else 50) * level * (2 if hand["radli"][hand["declarer"]] else 1)
    team = {hand["declarer"], hand["partner"]} - {None}
    sign = 1 if side == "declarer" else -1
    assert result.simplified == {p: sign * value if p in team else 0 for p in hand["players"]}
    assert [s.step for s in result.ledger if s.step != "Radli"] == [
        f"Valat, {'announced' if announced else 'silent'}"
    ]


@st.composite
def dodge_round_piles(draw) -> dict[str, list[str]]:
    """Piles a Dodge Round can end with: twelve tricks of four cards, each won by someone, and the six talon
    cards going one each to the winners of the first six tricks. So a pile is empty (no trick won) or holds
    4 cards per trick plus one per early trick; never a single card."""
    winners = draw(st.lists(st.sampled_from(FOUR), min_size=12, max_size=12))
    deck = draw(st.permutations([c.id for c in GAME.deck]))
    piles, start = {}, 0
    for p in FOUR:
        size = 4 * winners.count(p) + winners[:6].count(p)
        piles[p], start = deck[start:start + size], start + size
    assert start == len(deck) == 54
    return piles


def test_dodge_round_piles_are_legal():
    @settings(max_examples=200)
    @given(dodge_round_piles())
    def check(piles):
        sizes = [len(v) for v in piles.values()]
        assert sum(sizes) == 54 and sorted(c for pile in piles.values() for c in pile) == sorted(c.id for c in GAME.deck)
        assert all(n == 0 or n >= 4 for n in sizes), sizes  # no trick, or at least one of four cards
    check()


@settings(max_examples=150, deadline=None)
@given(dodge_round_piles(), st.lists(st.integers(0, 2), min_size=4, max_size=4))
def test_dodge_round_every_player_scores_alone(piles, circles):
    hand = {
        "game": "slovenian",
        "players": FOUR,
        "contract": "dodge_round",
        "dodge_round": {p: {"pile": piles[p]} for p in FOUR},
        "radli": dict(zip(FOUR, circles)),
    }
    result = score_hand(hand)
    points = {p: GAME.count(piles[p]) for p in FOUR}
    over = [p for p in FOUR if points[p] > 35]
    for p, c in zip(FOUR, circles):
        if over:
            own = -14 if p in over else 0
        else:
            own = 14 if not piles[p] else -int(points[p] / 5 + Fraction(1, 2))
        assert result.simplified[p] == own * (2 if c else 1)
        assert result.traditional[p] == 5 * result.simplified[p]
        filled = 1 if not piles[p] and c and not over else 0
        assert result.facts["radli"][p] == c + 1 - filled


# ---- malformed hands: the error names the field ------------------------------------------------

BASE = {
    "game": "slovenian",
    "players": FOUR,
    "declarer": "Anna",
    "partner": "Clara",
    "contract": "two",
    "card_points": "47",
}


@pytest.mark.parametrize(
    "change, field, words",
    [
        ({"contract": "fout"}, "contract", "fout"),
        (
            {"contract": "solo_two", "players": ["Anna", "Ben", "Clara"], "partner": None},
            "contract",
            "solo_two",
        ),
        ({"declarer": "Eve"}, "declarer", "Eve"),
        ({"card_points": "lots"}, "card_points", "lots"),
        ({"card_points": "71"}, "card_points", "71"),
        ({"card_points": None}, "card_points", "missing"),
        ({"kontra": {"contract": 3}}, "kontra.contract", "3"),
        ({"kontra": {"trull": 2}}, "kontra.trull", "trull"),
        (
            {"bonuses": [{"bonus": "trull", "side": "declarer", "announced": False}], "kontra": {"trull": 2}},
            "kontra.trull",
            "announced",
        ),
        ({"bonuses": [{"bonus": "fours", "side": "declarer"}]}, "bonuses[0].bonus", "fours"),
        ({"bonuses": [{"bonus": "trull", "side": "middle"}]}, "bonuses[0].side", "middle"),
        ({"bonuses": [{"bonus": "king_ultimo", "side": "defenders"}]}, "bonuses[0].side", "King Ultimo"),
        (
            {
                "contract": "solo_one",
                "partner": None,
                "bonuses": [{"bonus": "king_ultimo", "side": "declarer"}],
            },
            "bonuses[0].bonus",
            "King Ultimo",
        ),
        ({"contract": "solo_one"}, "partner", "alone"),
        ({"contract": "beggar", "partner": None}, "won", "missing"),
        (
            {
                "contract": "beggar",
                "partner": None,
                "won": True,
                "bonuses": [{"bonus": "trull", "side": "declarer"}],
            },
            "bonuses",
            "Beggar",
        ),
        (
            {"contract": "beggar", "partner": None, "won": True, "moon_lost_by": "Ben"},
            "moon_lost_by",
            "Beggar",
        ),
        ({"won": False}, "won", "47"),
        ({"radli": {"Eve": 1}}, "radli.Eve", "not a player"),
        ({"radli": {"Anna": -1}}, "radli.Anna", "-1"),
        ({"tarok_declarations": {"Anna": 8}}, "tarok_declarations", "Slovenian"),
        ({"compulsory": True}, "contract", "compulsory"),
        ({"players": ["Anna", "Ben"]}, "players", "2 players"),
        ({"card_points": None, "piles": {"declarer": ["T1", "T1", "HK"]}}, "piles", "T1"),
        ({"card_points": None, "piles": {"declarer": ["T1", "XX"]}}, "piles", "XX"),
        (
            {"card_points": None, "piles": {"declarer": ["T1", "HK"], "defenders": ["HK", "SK"]}},
            "piles",
            "HK",
        ),
        ({"last_trick": {"pagat": {"side": "declarer"}}}, "last_trick.pagat.won", "missing"),
        (
            {"contract": "dodge_round", "dodge_round": {"Anna": {"card_points": 0}}},
            "dodge_round.Ben",
            "missing",
        ),
        (
            {"contract": "dodge_round", "dodge_round": {p: {"card_points": 20} for p in FOUR}},
            "dodge_round",
            "80",
        ),
        (
            {
                "contract": "dodge_round",
                "dodge_round": {
                    "Anna": {"card_points": 0, "tricks": 2},
                    "Ben": {"card_points": 70},
                    "Clara": {"card_points": 0},
                    "Dora": {"card_points": 0},
                },
            },
            "dodge_round.Anna.tricks",
            "2 tricks",
        ),
        (
            {
                "contract": "dodge_round",
                "bonuses": [{"bonus": "trull", "side": "declarer"}],
                "dodge_round": {},
            },
            "bonuses",
            "Dodge Round",
        ),
    ],
)
def test_malformed_hand_names_the_field(change, field, words):
    hand = {**BASE, **change}
    if "contract" in change and change["contract"] == "dodge_round":
        hand.pop("partner")
    with pytest.raises(HandFormatError) as err:
        score_hand(hand)
    assert err.value.field == field
    assert words in str(err.value)


def test_dodge_round_piles_that_overlap_are_named():
    piles = {
        "Anna": {"pile": ["T1", "T2", "T3"]},
        "Ben": {"pile": ["T3", "HK", "HQ"]},
        "Clara": {"card_points": 0},
        "Dora": {"card_points": 0},
    }
    with pytest.raises(HandFormatError, match="T3") as err:
        score_hand({"game": "slovenian", "players": FOUR, "contract": "dodge_round", "dodge_round": piles})
    assert err.value.field == "dodge_round"
