"""Reading a hand record (a JSON object) field by field; every error names its field."""
from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from scoring.counters import parse_points
from scoring.deck import IllegalHandError, UnknownCardError
from scoring.game import Game
from scoring.result import HandFormatError

SIDES = ("declarer", "defenders")
KONTRA_LEVELS = (1, 2, 4, 8, 16)


def field(hand: dict, key: str, kind: type | tuple[type, ...], default: Any = ..., path: str | None = None) -> Any:
    """hand[key], checked to be of `kind`; missing is an error unless a default is given."""
    path = path or key
    if key not in hand or hand[key] is None:
        if default is ...:
            raise HandFormatError(path, "missing")
        return default
    value = hand[key]
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise HandFormatError(path, f"expected {_name(kind)}, got {value!r}")
    if not isinstance(value, kind):
        raise HandFormatError(path, f"expected {_name(kind)}, got {value!r}")
    return value


def _name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join({dict: "an object", list: "a list", str: "a string", int: "a whole number",
                        bool: "true or false", float: "a number"}.get(k, k.__name__) for k in kinds)


def players(hand: dict, counts: Iterable[int]) -> tuple[str, ...]:
    """The players' names, distinct, in seat order."""
    names = field(hand, "players", list)
    counts = tuple(counts)
    if len(names) not in counts:
        raise HandFormatError("players", f"{len(names)} players; this game has {' or '.join(map(str, counts))}")
    for i, n in enumerate(names):
        if not isinstance(n, str) or not n.strip():
            raise HandFormatError(f"players[{i}]", "expected a non-empty name")
    if len(set(names)) != len(names):
        raise HandFormatError("players", "a name appears twice")
    return tuple(names)


def player(hand: dict, key: str, names: tuple[str, ...], optional: bool = False) -> str | None:
    """A field naming one of the players."""
    value = field(hand, key, str, None if optional else ...)
    if value is not None and value not in names:
        raise HandFormatError(key, f"{value!r} is not a player; players: {', '.join(names)}")
    return value


def choice(hand: dict, key: str, allowed: Iterable[str], default: Any = ..., path: str | None = None) -> str:
    """A field that must be one of `allowed`."""
    allowed = tuple(allowed)
    value = field(hand, key, str, default, path)
    if value not in allowed and value is not default:
        raise HandFormatError(path or key, f"unknown value {value!r}; known: {', '.join(allowed)}")
    return value


def kontra(hand: dict, item: str) -> int:
    """The kontra multiplier on one item (the contract or a bonus id): 1, 2, 4, 8 or 16."""
    levels = field(hand, "kontra", dict, {})
    level = levels.get(item, 1)
    if isinstance(level, bool) or level not in KONTRA_LEVELS:
        raise HandFormatError(f"kontra.{item}", f"expected one of {KONTRA_LEVELS}, got {level!r}")
    return level


def declarer_card_points(hand: dict, game: Game) -> Fraction:
    """The Declarer's side's Card Points: given as `card_points`, or counted from `piles`."""
    if "card_points" in hand and hand["card_points"] is not None:
        try:
            points = parse_points(hand["card_points"])
        except ValueError as exc:
            raise HandFormatError("card_points", str(exc)) from None
        if not 0 <= points <= game.total:
            raise HandFormatError("card_points", f"{points} is outside 0..{game.total} for {game.name}")
        return points
    piles = field(hand, "piles", dict, None)
    if piles is None:
        raise HandFormatError("card_points", "missing; give card_points or piles")
    for side in piles:
        if side not in SIDES:
            raise HandFormatError(f"piles.{side}", f"unknown side; sides: {', '.join(SIDES)}")
    try:
        declarer = game.check(field(piles, "declarer", list, path="piles.declarer"))
        if "defenders" in piles:
            defenders = game.check(field(piles, "defenders", list, path="piles.defenders"))
            game.check(declarer + defenders)  # the same card on both sides
    except (UnknownCardError, IllegalHandError, ValueError) as exc:
        raise HandFormatError("piles", str(exc)) from None
    return game.counter(declarer)


def bonuses(hand: dict, known: Iterable[str]) -> list[dict]:
    """The bonus entries: {"bonus": id, "side": "declarer"|"defenders", "announced": bool, "made": bool}."""
    known = tuple(known)
    items = field(hand, "bonuses", list, [])
    out = []
    for i, b in enumerate(items):
        path = f"bonuses[{i}]"
        if not isinstance(b, dict):
            raise HandFormatError(path, "expected an object")
        out.append({
            "bonus": choice(b, "bonus", known, path=f"{path}.bonus"),
            "side": choice(b, "side", SIDES, path=f"{path}.side"),
            "announced": field(b, "announced", bool, False, f"{path}.announced"),
            "made": field(b, "made", bool, True, f"{path}.made"),
        })
    return out


def merged_tariff(tariff: dict, options: dict | None) -> dict:
    """The game's tariff with a group's `options["tariff"]` merged over it (nested tables key by key).

    >>> merged_tariff({"source": "rules", "contracts": {"three": 1, "two": 2}},
    ...               {"tariff": {"contracts": {"two": 3}}})["contracts"]
    {'three': 1, 'two': 3}
    >>> merged_tariff({"contracts": {"three": 1}}, {"tariff": {"contracts": {"fout": 3}}})
    Traceback (most recent call last):
    ...
    scoring.result.HandFormatError: options.tariff.contracts.fout: unknown entry; known: three
    """
    override = field(options or {}, "tariff", dict, {}, "options.tariff")

    def merge(base: dict, over: dict, path: str) -> dict:
        out = dict(base)
        for key, value in over.items():
            if key not in base:
                raise HandFormatError(f"{path}.{key}", f"unknown entry; known: {', '.join(map(str, base))}")
            if isinstance(base[key], dict):
                if not isinstance(value, dict):
                    raise HandFormatError(f"{path}.{key}", "expected an object")
                out[key] = merge(base[key], value, f"{path}.{key}")
            else:
                out[key] = value
        return out

    return merge(tariff, override, "options.tariff")


class Ledger:
    """The steps of one hand, each with every player's points under both systems, then the totals.

    >>> ledger = Ledger(("Anna", "Ben"))
    >>> ledger.add("Declarer Challenge failed", "Anna has 33", {"Ben": 3}, {"Ben": 3})
    >>> ledger.result("strawman").simplified
    {'Anna': Fraction(0, 1), 'Ben': Fraction(3, 1)}
    """

    def __init__(self, players: Iterable[str]):
        self.players = tuple(players)
        self.steps: list = []

    def add(self, step: str, detail: str, simplified: dict | None = None, traditional: dict | None = None) -> None:
        from scoring.result import LedgerStep

        def full(points: dict | None) -> dict:
            return {p: Fraction((points or {}).get(p, 0)) for p in self.players}

        self.steps.append(LedgerStep(step, detail, full(simplified), full(traditional)))

    def totals(self, system: str) -> dict:
        return {p: sum((getattr(s, system)[p] for s in self.steps), Fraction(0)) for p in self.players}

    def result(self, game_id: str, unit: str = "VP", facts: dict | None = None):
        from scoring.result import HandResult
        return HandResult(game=game_id, simplified=self.totals("simplified"), traditional=self.totals("traditional"),
                          ledger=tuple(self.steps), traditional_unit=unit, facts=dict(facts or {}))


def check_kontra_items(hand: dict, items: Iterable[str]) -> None:
    """Every key of `kontra` names the contract or a bonus of this game.

    >>> check_kontra_items({"kontra": {"trul": 2}}, ["contract", "trull"])
    Traceback (most recent call last):
    ...
    scoring.result.HandFormatError: kontra.trul: unknown item; kontra names one of: contract, trull
    """
    items = tuple(items)
    for key in field(hand, "kontra", dict, {}):
        if key not in items:
            raise HandFormatError(f"kontra.{key}", f"unknown item; kontra names one of: {', '.join(items)}")


def bonus_payment(entry: dict, row: dict) -> tuple[str, Fraction]:
    """The side that earns a bonus entry and the value, before kontra. `row` holds the silent and announced
    values and what the other side earns for a failed silent or announced attempt.

    Hungarian Tarokk, an announced Pagat Ultimo that fails: each player of the other side adds 10.
    >>> bonus_payment({"bonus": "pagat_ultimo", "side": "declarer", "announced": True, "made": False},
    ...               {"silent": 5, "announced": 10, "silent_failed": 5, "announced_failed": 10})
    ('defenders', Fraction(10, 1))
    """
    how = "announced" if entry["announced"] else "silent"
    if entry["made"]:
        return entry["side"], Fraction(row[how])
    return ("defenders" if entry["side"] == "declarer" else "declarer"), Fraction(row[f"{how}_failed"])


def unique_bonuses(entries: list[dict]) -> list[dict]:
    """The bonus entries, each bonus at most once (one side makes or attempts it).

    >>> unique_bonuses([{"bonus": "trull", "side": "declarer"}, {"bonus": "trull", "side": "defenders"}])
    Traceback (most recent call last):
    ...
    scoring.result.HandFormatError: bonuses[1].bonus: trull is listed twice
    """
    seen: set[str] = set()
    for i, b in enumerate(entries):
        if b["bonus"] in seen:
            raise HandFormatError(f"bonuses[{i}].bonus", f"{b['bonus']} is listed twice")
        seen.add(b["bonus"])
    return entries


def last_trick_bonuses(hand: dict, entries: list[dict], keys: dict[str, str]) -> list[dict]:
    """The bonus entries plus silent Ultimo attempts read from `last_trick` facts where no entry says it.

    last_trick: {"pagat": {"side": "declarer"|"defenders", "won": bool}, ...}, a fact only for a card played
    into the last trick; `keys` maps a fact to its bonus id, e.g. {"pagat": "pagat_ultimo"}.
    >>> last_trick_bonuses({"last_trick": {"pagat": {"side": "declarer", "won": True}}}, [],
    ...                    {"pagat": "pagat_ultimo"})
    [{'bonus': 'pagat_ultimo', 'side': 'declarer', 'announced': False, 'made': True}]
    """
    facts = field(hand, "last_trick", dict, {})
    unknown = set(facts) - set(keys)
    if unknown:
        raise HandFormatError(f"last_trick.{min(unknown)}", f"unknown; known: {', '.join(keys)}")
    extra = []
    for key, bonus in keys.items():
        fact = field(facts, key, dict, None, f"last_trick.{key}")
        if fact is None:
            continue
        side = choice(fact, "side", SIDES, "declarer", f"last_trick.{key}.side")
        won = field(fact, "won", bool, path=f"last_trick.{key}.won")
        given = [b for b in entries if b["bonus"] == bonus]
        if given and (given[0]["made"] != won or given[0]["side"] != side):
            raise HandFormatError(f"last_trick.{key}", f"disagrees with the {bonus} entry in bonuses")
        if not given:
            extra.append({"bonus": bonus, "side": side, "announced": False, "made": won})
    return entries + extra
