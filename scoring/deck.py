"""The 54 cards of the Alpine Tarok deck, loaded from `scoring/data/deck.json`.

Card ids are the deck ids everywhere: `T1`..`T21`, `SKUS`, suit cards like `HK`, `CC`, `S10`, `D4`.
"""
from __future__ import annotations

import enum
import json
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources


class UnknownCardError(ValueError):
    """A label that names no card of the deck."""


class IllegalHandError(ValueError):
    """Cards that cannot lie together: a card twice, a card not in the game's deck, too many cards."""


class Suit(enum.Enum):
    HEARTS = "hearts"
    DIAMONDS = "diamonds"
    CLUBS = "clubs"
    SPADES = "spades"


@dataclass(frozen=True, slots=True)
class Card:
    """One card. `pips` are the stars under its index: Kings and Trull 4, Queens 3, Cavaliers 2, Jacks 1.

    >>> Card.from_id("T21")
    Card.from_id('T21')
    >>> Card.from_id("HK").pips
    4
    """

    id: str
    kind: str  # "tarok" or "suit"
    suit: Suit | None
    rank: str
    roman: str | None
    name: str
    pips: int
    trull: bool
    in_42_card_deck: bool

    @classmethod
    def from_id(cls, card_id: str) -> Card:
        try:
            return _BY_ID[card_id.strip().upper()]
        except (KeyError, AttributeError):
            raise UnknownCardError(f"unknown card {card_id!r}; card ids look like T1..T21, SKUS, HK, CC, S10") from None

    @property
    def is_tarok(self) -> bool:
        return self.kind == "tarok"

    @property
    def is_king(self) -> bool:
        return self.rank == "K"

    def __repr__(self) -> str:
        return f"Card.from_id({self.id!r})"


def _load() -> tuple[dict, tuple[Card, ...]]:
    raw = json.loads(resources.files("scoring").joinpath("data/deck.json").read_text(encoding="utf-8"))
    deck = tuple(
        Card(
            id=c["id"], kind=c["kind"], suit=Suit(c["suit"]) if c["suit"] else None, rank=c["rank"],
            roman=c["roman"], name=c["name"], pips=int(c["pips"]), trull=bool(c["trull"]),
            in_42_card_deck=bool(c["in_42_card_deck"]),
        )
        for c in raw["cards"]
    )
    return raw, deck


DECK_INFO, DECK = _load()
_BY_ID = {c.id: c for c in DECK}
CARD_IDS: tuple[str, ...] = tuple(c.id for c in DECK)
TRULL: frozenset[Card] = frozenset(c for c in DECK if c.trull)
KINGS: frozenset[Card] = frozenset(c for c in DECK if c.is_king)


def card(card_id: str) -> Card:
    """The card with this id.

    >>> card("SKUS").name
    'Skus'
    """
    return Card.from_id(card_id)


def cards(ids: str | Iterable[str | Card]) -> tuple[Card, ...]:
    """Cards from a space- or comma-separated string or an iterable of ids.

    >>> cards("T1 HK, SC")
    (Card.from_id('T1'), Card.from_id('HK'), Card.from_id('SC'))
    """
    if isinstance(ids, str):
        ids = ids.replace(",", " ").split()
    return tuple(i if isinstance(i, Card) else Card.from_id(i) for i in ids)


def check_pile(pile: Iterable[Card], deck: Iterable[Card], game_name: str = "this game") -> tuple[Card, ...]:
    """The pile as a tuple, or IllegalHandError naming foreign and repeated cards.

    >>> check_pile(cards("T1 T1"), DECK)
    Traceback (most recent call last):
    ...
    scoring.deck.IllegalHandError: card T1 appears twice
    """
    pile = tuple(pile)
    allowed = set(deck)
    foreign = [c.id for c in pile if c not in allowed]
    if foreign:
        raise IllegalHandError(f"not in the deck of {game_name}: {' '.join(foreign)}")
    seen: set[Card] = set()
    twice = []
    for c in pile:
        if c in seen and c.id not in twice:
            twice.append(c.id)
        seen.add(c)
    if twice:
        raise IllegalHandError(f"card{'s' if len(twice) > 1 else ''} {' '.join(twice)} appear{'' if len(twice) > 1 else 's'} twice")
    return pile
