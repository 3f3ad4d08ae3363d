"""The contract says how many cards lie in the Declarer's pile without a trick (its discards): the count of
whole tricks the hand reader uses, with no number for the players to work out."""

from __future__ import annotations

import pytest

import scoring


@pytest.mark.parametrize("game_id, said", [
    # document 002: the Declarer takes one group of the contract's size and discards as many; Solo without none
    ("slovenian", {"three": 3, "two": 2, "one": 1, "solo_three": 3, "solo_two": 2, "solo_one": 1,
                   "solo_without": 0}),
    # document 003: the Declarer's discard counts for the Declarer's side; a Solo takes and leaves none
    ("hungarian", {"three": 3, "two": 2, "one": 1, "solo": 0}),
    ("koenigrufen", {"call": 3, "three": 3, "colour_three": 3, "blind_solo": 6, "solo_call": 0,
                     "solo_three": 0, "colour_solo": 0}),
])
def test_each_contract_says_the_declarers_discards(game_id, said):
    game = scoring.find_game(game_id)
    assert {c: game.contract_talon(c) for c in said} == said
    # every contract named is one of the game's, and the others have no count of their own
    names = dict(game.contracts)
    assert set(game.discards) <= set(names)
    for contract in set(names) - set(said):
        with pytest.raises(ValueError, match="say the number of cards"):
            game.contract_talon(contract)


def test_a_game_dealt_without_a_talon_counts_whole_tricks_in_every_contract():
    game = scoring.find_game("zwanzigerrufen")
    assert len(game.deck) == 4 * 10                     # ten cards each, no talon
    assert {game.contract_talon(c) for c, _ in game.contracts} == {0}


def test_an_unknown_contract_is_refused_by_name():
    with pytest.raises(ValueError, match="has no contract 'nonsense'"):
        scoring.find_game("slovenian").contract_talon("nonsense")
    with pytest.raises(ValueError, match="has no contract") as refused:
        scoring.find_game("hungarian").contract_talon("x" * 500)
    assert len(str(refused.value)) < 200       # a hostile request's text is not repeated whole


@pytest.mark.parametrize("game_id", ["slovenian", "hungarian", "koenigrufen", "zwanzigerrufen"])
def test_the_declarers_pile_under_a_contract_is_whole_tricks_and_its_discards(game_id):
    """Dealt and played out at every seating: the deck less the talon is whole tricks, no contract discards
    more than the talon brings, and every pile the Declarer can win is a size `pile_sizes` allows."""
    game = scoring.find_game(game_id)
    for players, per in game.tricks.items():
        assert (len(game.deck) - game.talon) % per == 0, players
        tricks = (len(game.deck) - game.talon) // per
        for contract, _ in game.contracts:
            try:
                k = game.contract_talon(contract)
            except ValueError:
                continue
            assert 0 <= k <= game.talon
            sizes = game.pile_sizes(per, k)
            assert {won * per + k for won in range(tricks + 1)} <= sizes
            assert all((size - k) % per == 0 for size in sizes)
