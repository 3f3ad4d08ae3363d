"""Scoring steps that several games share word for word (kontra levels, side settlement, Dodge Round, targets)."""

from __future__ import annotations

from scoring import hand as read
from scoring.result import HandFormatError
from scoring.settlement import settle_lone, settle_sides


def kontra_level(hand: dict, item: str, tariff: dict) -> int:
    """The hand's kontra level on `item`, checked against the tariff's "kontra_levels"."""
    level = read.kontra(hand, item)
    if level not in tariff["kontra_levels"]:
        raise HandFormatError(f"kontra.{item}", f"expected one of {tariff['kontra_levels']}, got {level}")
    return level


def both(winners, losers, value) -> tuple[dict, dict]:
    """Simplified: each winner adds the value. Traditional: the losers pay it, side against side
    (two against two, or a lone player against the rest)."""
    return {p: value for p in winners}, settle_sides(winners, losers, value)


def dodge_round(ledger: read.Ledger, hand: dict, names: tuple[str, ...], value, detail: str) -> str:
    """Every player for themselves: the player with the most Card Points pays each of the others.

    `detail` is formatted with {loser} and {value}; returns the loser."""
    loser = read.player(hand, "dodge_round_loser", names)
    others = [p for p in names if p != loser]
    ledger.add(
        "Dodge Round",
        detail.format(loser=loser, value=value),
        {p: value for p in others},
        settle_lone(loser, others, -value),
    )
    return loser


def sides(hand: dict, names: tuple[str, ...], terms: dict, contract_name: str) -> tuple[tuple, tuple]:
    """The Declarer's side (with a called partner where the contract allows one) and the Defenders."""
    declarer = read.player(hand, "declarer", names)
    partner = read.player(hand, "partner", names, optional=True)
    if partner not in (None, declarer) and terms["partner"] != "called":
        raise HandFormatError("partner", f"{contract_name} is played alone; leave partner empty")
    side = (declarer,) if partner in (None, declarer) else (declarer, partner)
    return side, tuple(p for p in names if p not in side)


def leaders(totals: dict) -> list[str]:
    """The players with the best total (all of them on a tie)."""
    best = max(totals.values())
    return [p for p, v in totals.items() if v == best]


def first_to(totals: dict, target, key: str) -> dict:
    """A session that ends once a player reaches `target`: {key: target, "ended": ..., "winners": ...}."""
    ended = any(v >= target for v in totals.values())
    out = {key: target, "ended": ended}
    if ended:
        out["winners"] = leaders(totals)
    return out
