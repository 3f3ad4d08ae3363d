"""Bonuses the photographed trick piles show were taken: the Trull, all four Kings, Valat.

A pile proves what a side captured, not what it announced or played into the last trick, so each
suggestion is a silent, made bonus that the players confirm on the Hand page.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from scoring.game import Game
from scoring.games import find_game
from scoring.hand import SIDES
from scoring.result import HandFormatError

# Each game names the Kings bonus in its own words ("kings" in Slovenian Tarok, "four_kings" elsewhere);
# a game is offered only the bonus ids its own `bonuses` list.
_TRULL, _KINGS, _VALAT = "trull", "kings", "valat"
_CONCEPT = {"trull": _TRULL, "kings": _KINGS, "four_kings": _KINGS, "valat": _VALAT}


def _needed(game: Game, concept: str) -> frozenset[str]:
    if concept == _TRULL:
        return frozenset(c.id for c in game.deck if c.trull)
    if concept == _KINGS:
        return frozenset(c.id for c in game.deck if c.kind == "suit" and c.is_king)
    # Valat: one side took every trick, so its pile holds the whole deck (cards left in the talon
    # elsewhere keep it from being suggested; the players can still enter it).
    return frozenset(c.id for c in game.deck)


def suggest_bonuses(game: Game | str, piles: Mapping[str, Iterable[str]]) -> list[dict]:
    """Silent, made bonus entries for each side whose pile holds all the cards a bonus needs.

    `piles` maps "declarer" / "defenders" to card ids; a side that was not photographed is left out.
    Foreign or repeated cards are not judged here (the pile check reports them). Order: side, then the
    game's bonus order.

    Slovenian Tarok (doc 002): the side that captured Pagat, Mond and Skus scores the Trull.

    >>> suggest_bonuses("slovenian", {"declarer": ["T1", "T21", "SKUS", "HK"], "defenders": ["DK"]})
    [{'bonus': 'trull', 'side': 'declarer', 'announced': False, 'made': True}]
    >>> [b["bonus"] for b in suggest_bonuses("koenigrufen", {"defenders": ["HK", "DK", "CK", "SK", "T1"]})]
    ['four_kings']
    """
    if isinstance(game, str):
        try:
            game = find_game(game)
        except ValueError as exc:
            raise HandFormatError("game", str(exc)) from None
    if not isinstance(piles, Mapping):
        raise HandFormatError("piles", "expected a mapping of side to card ids")
    wanted = [(b, _needed(game, _CONCEPT[b])) for b, _ in game.bonuses if b in _CONCEPT]
    out = []
    for side, pile in piles.items():
        if side not in SIDES:
            raise HandFormatError(f"piles.{side}", f"unknown side; known: {', '.join(SIDES)}")
        if isinstance(pile, str) or not isinstance(pile, Iterable):
            raise HandFormatError(f"piles.{side}", "expected a list of card ids")
        have = set(pile)
        for bonus, needed in wanted:
            if needed and needed <= have:
                out.append({"bonus": bonus, "side": side, "announced": False, "made": True})
    return out
