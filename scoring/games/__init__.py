"""The registry of games: one module per game, each defining `GAME`."""
from __future__ import annotations

from scoring.game import Game
from scoring.games import calling_the_king, calling_the_twenty, dappen, hungarian, slovenian, strawman

GAMES: dict[str, Game] = {
    g.id: g
    for g in (
        slovenian.GAME, hungarian.GAME, calling_the_king.GAME,
        calling_the_twenty.GAME, strawman.GAME, dappen.GAME,
    )
}


def _key(name: str) -> str:
    return "".join(ch for ch in name.casefold().replace("ö", "oe").replace("ü", "ue") if ch.isalnum())


_ALIASES = {_key(alias): g for g in GAMES.values() for alias in (g.id, g.name, *g.aliases)}


def find_game(name: str) -> Game:
    """The game with this id, name or alias.

    >>> find_game("Königrufen").id
    'koenigrufen'
    >>> find_game("skat")
    Traceback (most recent call last):
    ...
    ValueError: unknown game 'skat'; known games: slovenian, hungarian, koenigrufen, zwanzigerrufen, strawman, dappen
    """
    try:
        return _ALIASES[_key(name)]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(GAMES)}") from None
