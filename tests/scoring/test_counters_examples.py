"""Card Point counters (scoring/counters.py, scoring/deck.py): counting examples and properties."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import GAMES, IllegalHandError, find_game
from scoring.counters import count_in_thirds, shortcut_rounded_down, shortcut_rounded_up
from scoring.deck import DECK, cards

TAROKS = [f"T{i}" for i in range(1, 22)] + ["SKUS"]


def test_slovenian_25_cards_with_21_pips_make_29():
    # Doc 002, "How to count": 25 cards -> base 8, pips + 21 = 29.
    pile = cards("T1 T21 SKUS HK DK HJ") + cards(" ".join(f"T{i}" for i in range(2, 21)))
    assert len(pile) == 25 and sum(c.pips for c in pile) == 21
    assert find_game("slovenian").count(pile) == 29


def test_hungarian_30_cards_with_28_pips_make_58():
    pile = cards(TAROKS + ["HK", "DK", "CK", "SK", "H1", "D1", "C10", "S10"])
    assert len(pile) == 30 and sum(c.pips for c in pile) == 28
    assert find_game("hungarian").count(pile) == 58


def test_koenigrufen_pagat_king_cavalier_jack_make_12_and_a_third():
    game = find_game("Königrufen")
    points = game.count(cards("T1 HK HC HJ"))
    assert points == Fraction(37, 3) and game.format(points) == "12 1/3"


@pytest.mark.parametrize("game_id", list(GAMES))
def test_whole_deck_is_the_games_total(game_id):
    game = GAMES[game_id]
    assert game.count(game.deck) == game.total


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(GAMES)), st.randoms(use_true_random=False))
def test_complementary_piles_sum_to_the_deck_total(game_id, rnd):
    game = GAMES[game_id]
    deck = list(game.deck)
    rnd.shuffle(deck)
    cut = rnd.randint(0, len(deck))
    assert game.count(deck[:cut]) + game.count(deck[cut:]) == game.total


@given(st.lists(st.sampled_from(DECK), unique=True, max_size=54))
def test_thirds_equal_both_koenigrufen_shortcuts(pile):
    exact = count_in_thirds(pile)
    assert shortcut_rounded_up(pile) == exact == shortcut_rounded_down(pile)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_a_card_twice_is_named(game_id):
    game = GAMES[game_id]
    card = game.deck[0].id
    with pytest.raises(IllegalHandError, match=card):
        game.count([card, game.deck[1].id, card])


def test_a_foreign_card_is_named():
    # The 42-card Hungarian deck has no low red pip cards.
    foreign = [c.id for c in DECK if not c.in_42_card_deck][:2]
    with pytest.raises(IllegalHandError) as err:
        find_game("hungarian").count(["T1"] + foreign)
    assert all(c in str(err.value) for c in foreign)


def test_too_many_cards_names_the_repeated_ones():
    game = find_game("slovenian")
    with pytest.raises(IllegalHandError, match="SKUS"):
        game.count([c.id for c in game.deck] + ["SKUS"])
