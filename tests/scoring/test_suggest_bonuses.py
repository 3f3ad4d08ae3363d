"""scoring.suggest_bonuses: Trull, all four Kings and Valat read from the photographed piles."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scoring
from scoring import HandFormatError, suggest_bonuses

TRULL = ["T1", "T21", "SKUS"]
KINGS = ["HK", "DK", "CK", "SK"]

# What each game calls the pile-derived bonuses (scoring/games/*.py BONUSES).
PILE_BONUSES = {
    "slovenian": {"trull": "trull", "kings": "kings", "valat": "valat"},
    "hungarian": {"trull": "trull", "kings": "four_kings", "valat": "valat"},
    "koenigrufen": {"trull": "trull", "kings": "four_kings", "valat": "valat"},
    "zwanzigerrufen": {"trull": "trull", "kings": "four_kings"},
    "strawman": {"trull": "trull", "kings": "four_kings"},
    "dappen": {},  # only the Dapper's Ultimos
}


def ids(side: str, got: list[dict]) -> list[str]:
    return [b["bonus"] for b in got if b["side"] == side]


def test_every_game_is_covered():
    assert set(PILE_BONUSES) == set(scoring.GAMES)


@pytest.mark.parametrize("game", list(PILE_BONUSES))
def test_each_game_gets_its_own_bonus_ids(game):
    g = scoring.find_game(game)
    known = {b for b, _ in g.bonuses}
    names = PILE_BONUSES[game]
    assert set(names.values()) <= known
    got = suggest_bonuses(game, {"declarer": TRULL + KINGS + ["H1"], "defenders": ["T2"]})
    assert ids("declarer", got) == [b for b, _ in g.bonuses if b in {names.get("trull"), names.get("kings")}]
    assert ids("defenders", got) == []
    whole = suggest_bonuses(g, {"defenders": [c.id for c in g.deck]})
    assert set(ids("defenders", whole)) == set(names.values())
    assert all(b["announced"] is False and b["made"] is True for b in got + whole)


@pytest.mark.parametrize("game", ["slovenian", "koenigrufen", "strawman"])
def test_a_missing_card_or_a_split_set_gives_no_bonus(game):
    assert (
        suggest_bonuses(game, {"declarer": TRULL[:2] + KINGS[:3], "defenders": TRULL[2:] + KINGS[3:]}) == []
    )
    g = scoring.find_game(game)
    almost = [c.id for c in g.deck][1:]
    assert "valat" not in ids("declarer", suggest_bonuses(game, {"declarer": almost}))


def test_both_sides_in_the_order_given():
    got = suggest_bonuses("Königrufen", {"defenders": KINGS, "declarer": TRULL})
    assert [(b["side"], b["bonus"]) for b in got] == [("defenders", "four_kings"), ("declarer", "trull")]


def test_suggestions_score_as_entered():
    deck = [c.id for c in scoring.find_game("slovenian").deck]
    declarer = TRULL + KINGS + [c for c in deck if c not in TRULL + KINGS][:30]
    defenders = [c for c in deck if c not in declarer]
    piles = {"declarer": declarer, "defenders": defenders}
    hand = {
        "game": "slovenian",
        "players": ["Anna", "Ben", "Clara", "Dora"],
        "declarer": "Anna",
        "partner": "Clara",
        "contract": "three",
        "piles": piles,
        "bonuses": suggest_bonuses("slovenian", piles),
    }
    steps = " ".join(s["step"] for s in scoring.score_hand(hand).to_json()["ledger"])
    assert "Trull" in steps and "King" in steps


@pytest.mark.parametrize(
    "piles, field",
    [({"talon": ["T1"]}, "piles.talon"), ({"declarer": "T1 T21"}, "piles.declarer"), (["T1"], "piles")],
)
def test_bad_input_names_the_field(piles, field):
    with pytest.raises(HandFormatError) as err:
        suggest_bonuses("slovenian", piles)
    assert err.value.field == field


def test_unknown_game_is_a_clear_error():
    with pytest.raises(HandFormatError, match="unknown game 'skat'"):
        suggest_bonuses("skat", {})


@settings(max_examples=60, deadline=None)
@given(game=st.sampled_from(list(PILE_BONUSES)), data=st.data())
def test_a_split_deck_never_gives_one_bonus_to_both_sides(game, data):
    deck = [c.id for c in scoring.find_game(game).deck]
    mask = data.draw(st.lists(st.booleans(), min_size=len(deck), max_size=len(deck)))
    piles = {
        "declarer": [c for c, m in zip(deck, mask) if m],
        "defenders": [c for c, m in zip(deck, mask) if not m],
    }
    got = suggest_bonuses(game, piles)
    declarer, defenders = set(ids("declarer", got)), set(ids("defenders", got))
    assert not declarer & defenders
    if "valat" in declarer | defenders:
        assert not piles["defenders" if "valat" in declarer else "declarer"]
    for b in declarer:
        if b == "trull":
            assert set(TRULL) <= set(piles["declarer"])
