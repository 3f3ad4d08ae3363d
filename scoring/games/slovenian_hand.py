"""Slovenian Tarok: reading a hand record into checked values; every error names its field."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from scoring import hand as fields
from scoring.counters import parse_points
from scoring.deck import IllegalHandError, UnknownCardError
from scoring.game import Game
from scoring.games.slovenian_tariff import BONUSES, CONTRACTS, Contract, Kind
from scoring.result import HandFormatError

TO_WIN = Fraction(36)


@dataclass(frozen=True, slots=True)
class Bonus:
    """One bonus entry. `made` False on an Ultimo means a failed attempt (the card went to the last trick)."""

    bonus: str
    side: str  # "declarer" or "defenders"
    announced: bool
    made: bool
    kontra: int


@dataclass(frozen=True, slots=True)
class SlovenianHand:
    players: tuple[str, ...]
    contract: Contract
    declarer: str | None
    partner: str | None
    card_points: Fraction | None  # the Declarer's side's
    won: bool | None  # None only in a Dodge Round
    bonuses: tuple[Bonus, ...]
    kontra: int  # on the contract
    moon_lost_by: str | None
    radli: Mapping[str, int]  # open circles before the hand
    dodge: Mapping[str, Fraction]  # Dodge Round: each player's own Card Points
    dodge_no_trick: frozenset[str]
    compulsory: bool

    @property
    def side(self) -> tuple[str, ...]:
        """The Declarer's side: the Declarer, and the Partner when there is one."""
        return (self.declarer,) + ((self.partner,) if self.partner and self.partner != self.declarer else ())


def contract_ids(n_players: int) -> tuple[str, ...]:
    return tuple(c.id for c in CONTRACTS.values() if n_players == 4 or c.three_players)


def read(hand: dict, game: Game, rules: Mapping[str, Any]) -> SlovenianHand:
    """Check a hand record of Slovenian Tarok and read it into a SlovenianHand."""
    names = fields.players(hand, game.players)
    known = contract_ids(len(names))
    contract_id = fields.field(hand, "contract", str)
    if contract_id not in known:
        three = " with three players" if len(names) == 3 else ""
        raise HandFormatError(
            "contract", f"unknown contract {contract_id!r} for slovenian{three}; known: {', '.join(known)}"
        )
    contract = CONTRACTS[contract_id]
    compulsory = fields.field(hand, "compulsory", bool, False)
    if compulsory and not contract.compulsory:
        raise HandFormatError(
            "contract",
            f"{contract.name} is not allowed in a compulsory hand; "
            "the lowest bid there is Solo without, or a Dodge Round",
        )
    if fields.field(hand, "tarok_declarations", dict, {}):
        raise HandFormatError("tarok_declarations", "Slovenian Tarok has no Tarok declarations")
    radli = _radli(hand, names)
    if contract.kind is Kind.DODGE:
        return _dodge(hand, game, names, contract, radli, compulsory)
    declarer = fields.player(hand, "declarer", names)
    partner = fields.player(hand, "partner", names, optional=True)
    if partner is not None and (contract.kind is not Kind.CALLED or len(names) == 3) and partner != declarer:
        raise HandFormatError(
            "partner",
            f"{contract.name} is played alone{' with three players' if len(names) == 3 else ''}; "
            "leave partner null",
        )
    bonuses = _bonuses(hand, contract, len(names))
    valat_made = any(b.bonus == "valat" and b.made for b in bonuses)
    card_points, won = _outcome(hand, game, contract, need_points=not valat_made)
    if valat_made:
        won = next(b.side == "declarer" for b in bonuses if b.bonus == "valat" and b.made)
    moon = fields.player(hand, "moon_lost_by", names, optional=True)
    if moon is not None and not contract.moon:
        raise HandFormatError("moon_lost_by", f"there is no Moon penalty in {contract.name}")
    return SlovenianHand(
        players=names,
        contract=contract,
        declarer=declarer,
        partner=partner,
        card_points=card_points,
        won=won,
        bonuses=bonuses,
        kontra=_kontra(hand, contract, bonuses),
        moon_lost_by=moon,
        radli=radli,
        dodge={},
        dodge_no_trick=frozenset(),
        compulsory=compulsory,
    )


def _radli(hand: dict, names: tuple[str, ...]) -> dict[str, int]:
    given = fields.field(hand, "radli", dict, {})
    for name, n in given.items():
        if name not in names:
            raise HandFormatError(f"radli.{name}", f"not a player; players: {', '.join(names)}")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise HandFormatError(f"radli.{name}", f"expected a count of open circles (0 or more), got {n!r}")
    return {p: given.get(p, 0) for p in names}


def _outcome(
    hand: dict, game: Game, contract: Contract, need_points: bool
) -> tuple[Fraction | None, bool | None]:
    """The Declarer's side's Card Points (where the contract counts them) and whether the contract was won."""
    won = fields.field(hand, "won", bool, None)
    if contract.kind in (Kind.NO_TRICK, Kind.ALL_TRICKS):
        piles = hand.get("piles")
        if won is None and contract.kind is Kind.NO_TRICK and isinstance(piles, dict) and "declarer" in piles:
            fields.declarer_card_points(hand, game)  # checks the cards
            won = not piles["declarer"]  # a Beggar is won when the Declarer's pile stays empty
        if won is None:
            raise HandFormatError("won", f"missing; say whether the {contract.name} was won (true or false)")
        return None, won
    if not need_points and "card_points" not in hand and "piles" not in hand:
        return None, won
    points = fields.declarer_card_points(hand, game)
    if won is not None and won != (points >= TO_WIN):
        raise HandFormatError("won", f"{won} disagrees with {game.format(points)} Card Points (36 of 70 win)")
    return points, points >= TO_WIN


def _bonuses(hand: dict, contract: Contract, n_players: int) -> tuple[Bonus, ...]:
    entries = fields.bonuses(hand, BONUSES)
    entries += _last_trick(hand, entries, contract)
    if entries and not contract.bonuses:
        raise HandFormatError("bonuses", f"no bonuses may be scored in {contract.name}")
    seen = set()
    out = []
    for i, b in enumerate(entries):
        path = f"bonuses[{i}]"
        if b["bonus"] in seen:
            raise HandFormatError(f"{path}.bonus", f"{b['bonus']} appears twice")
        seen.add(b["bonus"])
        if b["bonus"] == "king_ultimo":
            if contract.kind is not Kind.CALLED or n_players == 3:
                raise HandFormatError(
                    f"{path}.bonus",
                    f"no King Ultimo in {contract.name}"
                    f"{' with three players' if n_players == 3 else ''}: no King is called",
                )
            if b["side"] != "declarer":
                raise HandFormatError(
                    f"{path}.side", "King Ultimo belongs to the Declarer's side (the called King)"
                )
        level = fields.kontra(hand, b["bonus"])
        if level > 1 and not b["announced"]:
            raise HandFormatError(f"kontra.{b['bonus']}", "only an announced bonus can be doubled")
        out.append(Bonus(b["bonus"], b["side"], b["announced"], b["made"], level))
    if sum(b.bonus == "valat" and b.made for b in out) > 1:
        raise HandFormatError("bonuses", "only one side can win every trick")
    return tuple(out)


def _last_trick(hand: dict, entries: list[dict], contract: Contract) -> list[dict]:
    """Silent Ultimo attempts read from `last_trick` facts, where no bonus entry already says it.

    last_trick: {"pagat": {"side": "declarer"|"defenders", "won": bool}, "called_king": {"won": bool}};
    an entry is there only when that card was played into the last trick.
    """
    facts = fields.field(hand, "last_trick", dict, {})
    extra = []
    for key, bonus in (("pagat", "pagat_ultimo"), ("called_king", "king_ultimo")):
        fact = fields.field(facts, key, dict, None, f"last_trick.{key}")
        if fact is None:
            continue
        side = fields.choice(fact, "side", fields.SIDES, "declarer", f"last_trick.{key}.side")
        won = fields.field(fact, "won", bool, path=f"last_trick.{key}.won")
        given = [b for b in entries if b["bonus"] == bonus]
        if given:
            if given[0]["made"] != won or given[0]["side"] != side:
                raise HandFormatError(f"last_trick.{key}", f"disagrees with the {bonus} entry in bonuses")
        elif contract.bonuses:
            extra.append({"bonus": bonus, "side": side, "announced": False, "made": won})
    unknown = set(facts) - {"pagat", "called_king"}
    if unknown:
        raise HandFormatError(f"last_trick.{min(unknown)}", "unknown; known: pagat, called_king")
    return extra


def _kontra(hand: dict, contract: Contract, bonuses: tuple[Bonus, ...]) -> int:
    levels = fields.field(hand, "kontra", dict, {})
    known = {"contract"} | {b.bonus for b in bonuses}
    for key in levels:
        if key not in known:
            raise HandFormatError(
                f"kontra.{key}", "no such item in this hand; kontra goes on 'contract' or an announced bonus"
            )
    return fields.kontra(hand, "contract")


def _dodge(
    hand: dict,
    game: Game,
    names: tuple[str, ...],
    contract: Contract,
    radli: dict[str, int],
    compulsory: bool,
) -> SlovenianHand:
    """Dodge Round: `dodge_round` = {player: {"card_points": "7"} or {"pile": [card ids]}, "tricks": n}."""
    for key in ("bonuses", "kontra", "partner", "moon_lost_by"):
        if hand.get(key):
            raise HandFormatError(
                key, "not part of a Dodge Round: everyone plays alone, no bonuses, no kontra"
            )
    table = fields.field(hand, "dodge_round", dict)
    points: dict[str, Fraction] = {}
    no_trick = set()
    seen_cards: list[str] = []
    for name in table:
        if name not in names:
            raise HandFormatError(f"dodge_round.{name}", f"not a player; players: {', '.join(names)}")
    for name in names:
        path = f"dodge_round.{name}"
        entry = fields.field(table, name, dict, path=path)
        if "pile" in entry:
            pile = fields.field(entry, "pile", list, path=f"{path}.pile")
            try:
                points[name] = game.count(pile)
            except (UnknownCardError, IllegalHandError, ValueError) as exc:
                raise HandFormatError(f"{path}.pile", str(exc)) from None
            seen_cards += pile
        else:
            try:
                points[name] = parse_points(
                    fields.field(entry, "card_points", (str, int), path=f"{path}.card_points")
                )
            except ValueError as exc:
                raise HandFormatError(f"{path}.card_points", str(exc)) from None
        if not 0 <= points[name] <= game.total:
            raise HandFormatError(f"{path}.card_points", f"{points[name]} is outside 0..{game.total}")
        tricks = fields.field(entry, "tricks", int, None, f"{path}.tricks")
        if tricks is not None and (tricks < 0 or (tricks == 0) != (points[name] == 0)):
            raise HandFormatError(
                f"{path}.tricks", f"{tricks} tricks disagree with {points[name]} Card Points"
            )
        if points[name] == 0:
            no_trick.add(name)  # every trick holds at least one Card Point (3 or 4 cards: base count 1)
    if seen_cards:
        try:
            game.check(seen_cards)
        except (UnknownCardError, IllegalHandError, ValueError) as exc:
            raise HandFormatError("dodge_round", f"piles overlap: {exc}") from None
    # Each pile's base count is off by at most 1/3, so the players' Card Points add up to 70, give or take 1.
    added = sum(points.values(), Fraction(0))
    if abs(added - game.total) > 1:
        raise HandFormatError(
            "dodge_round",
            f"the players' Card Points add up to {game.format(added)}, "
            f"not the {game.format(game.total)} of the deck",
        )
    declarer = fields.player(hand, "declarer", names, optional=True)
    return SlovenianHand(
        players=names,
        contract=contract,
        declarer=declarer,
        partner=None,
        card_points=None,
        won=None,
        bonuses=(),
        kontra=1,
        moon_lost_by=None,
        radli=radli,
        dodge=points,
        dodge_no_trick=frozenset(no_trick),
        compulsory=compulsory,
    )
