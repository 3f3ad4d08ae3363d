"""A game is a value: its deck, its counter, its tariffs and its hand scorer."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from scoring.counters import format_points, parse_points
from scoring.deck import Card, cards, check_pile


@dataclass(frozen=True, slots=True)
class Game:
    """One Tarock game. `counter` turns a checked pile into Card Points; `score` scores a hand dict."""

    id: str
    name: str
    aliases: tuple[str, ...]
    deck: tuple[Card, ...]
    players: tuple[int, ...]
    counter: Callable[[Iterable[Card]], Fraction]
    to_win: Fraction  # Card Points the Declarer's side needs in a positive contract
    contracts: tuple[tuple[str, str], ...] = ()
    bonuses: tuple[tuple[str, str], ...] = ()
    tariff: Mapping[str, Any] = field(default_factory=dict)
    tricks: Mapping[int, int] = field(default_factory=dict)  # players seated -> cards in each trick (where known)
    # contract -> cards the Declarer lays into their own pile without a trick (the discards), where the rules say
    discards: Mapping[str, int] = field(default_factory=dict)
    talon: int | None = None  # cards in the talon at the deal (0: none, so every pile is whole tricks)
    score: Callable[..., Any] | None = None  # (hand: dict, options: dict | None) -> HandResult
    session_end: Callable[..., Any] | None = None  # (totals, hands_played, options) -> dict of the session's end state

    @property
    def total(self) -> Fraction:
        """Card Points in the whole deck."""
        return self.counter(self.deck)

    def check(self, pile: Iterable[Card | str]) -> tuple[Card, ...]:
        """The pile as cards, or IllegalHandError naming foreign or repeated cards."""
        pile = check_pile(cards(tuple(pile)), self.deck, self.name)
        if len(pile) > len(self.deck):
            raise ValueError(f"{len(pile)} cards, but the deck of {self.name} has {len(self.deck)}")
        return pile

    def count(self, pile: Iterable[Card | str]) -> Fraction:
        """Card Points of one side's pile."""
        return self.counter(self.check(pile))

    def pile_sizes(self, players: int, talon: int) -> frozenset[int]:
        """How many cards the Declarer's pile can hold: whole tricks of one card per player, plus the `talon`
        cards that lie in it without being won in a trick (the Declarer's discards, or the Talon cards the
        contract gives that side). The rest of the deck is the Defenders'."""
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6:
            raise ValueError(f"players must be a whole number 2-6, not {players!r}")
        return frozenset(range(talon_cards(talon), len(self.deck) + 1, players))

    def contract_talon(self, contract: str) -> int:
        """The cards a contract puts in the Declarer's pile without a trick (`pile_sizes`' `talon`): ValueError
        for a contract this game does not have, or one that counts no piles or whose count its rules leave open."""
        names = dict(self.contracts)
        if contract not in names:
            raise ValueError(f"{self.name} has no contract {str(contract)[:40]!r}; it has {', '.join(names)}")
        unsaid = self.unsaid_talon()
        if unsaid is not None:
            return unsaid
        if contract not in self.discards:
            raise ValueError(f"{names[contract]}: its rules here give no count of the Declarer's discards; "
                             "say the number of cards instead")
        return self.discards[contract]

    def unsaid_talon(self) -> int | None:
        """The cards in the Declarer's pile without a trick when the players say nothing: 0 in a game dealt without
        a talon (every pile is whole tricks), else not known (None)."""
        return 0 if self.talon == 0 else None

    def trick_cards(self, seated: int) -> int | None:
        """Cards in each trick with `seated` players at the table; None where the rules here do not say."""
        return self.tricks.get(seated)

    def format(self, points: Fraction) -> str:
        return format_points(points)

    def parse_points(self, text: str | int | Fraction) -> Fraction:
        return parse_points(text)

    def missing_and_duplicated(self, *piles: Iterable[Card | str]) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        """Cards of the deck in no pile, and cards that lie in more than one place (in deck order)."""
        seen: dict[Card, int] = {}
        for pile in piles:
            for c in cards(tuple(pile)):
                seen[c] = seen.get(c, 0) + 1
        missing = tuple(c for c in self.deck if c not in seen)
        duplicated = tuple(c for c in self.deck if seen.get(c, 0) > 1)
        return missing, duplicated

    def __repr__(self) -> str:
        return f"find_game({self.id!r})"


def talon_cards(value: Any) -> int:
    """A count of the cards in the Declarer's pile that no trick brought: a whole number 0-12, else ValueError."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 12:
        raise ValueError(f"talon cards must be a whole number 0-12, not {value!r}")
    return value
