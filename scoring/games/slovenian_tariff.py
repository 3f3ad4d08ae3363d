"""Slovenian Tarok: the contracts (rules, in code) and the tariff (values, data a group may override).

Sources: Simplified values from the Slovenian Tarok rules (document 002, "The Contracts", "Bonuses and
Announcements", "The Moon Problem", "The Three-Player Game") and its Expansions (document 004: radli,
kontra, Open Beggar 18, No-Trump Valat 25, Grand Valat 100, quick session). Native values from the
Traditional Scoring Tables (document 000, "Slovenian Tarok: native values"): five times the Simplified
ones, except the Moon in the three-player game (21).
"""

from __future__ import annotations

import copy
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class Kind(enum.Enum):
    """How a contract is decided and scored."""

    CALLED = "called"  # a called King's side, needs 36 Card Points, contract + distance
    SOLO = "solo"  # alone, needs 36 Card Points, contract + distance
    FLAT = "flat"  # alone, needs 36 Card Points, flat value (Solo without)
    NO_TRICK = "no_trick"  # alone, must win no trick (Beggar, Open Beggar)
    ALL_TRICKS = "all_tricks"  # alone, must win every trick (No-Trump Valat, Grand Valat)
    DODGE = "dodge"  # everyone alone, everyone scores their own result


@dataclass(frozen=True, slots=True)
class Contract:
    """One rung of the ladder. `new_circle`: radli are drawn after it (Beggar and higher, Dodge Round)."""

    id: str
    name: str
    kind: Kind
    three_players: bool  # offered in the three-player game
    bonuses: bool  # bonuses may be scored
    moon: bool  # the Moon penalty applies
    new_circle: bool
    compulsory: bool  # allowed in a compulsory hand (Solo without and higher, Dodge Round)


_C = Contract
CONTRACTS: dict[str, Contract] = {
    c.id: c
    for c in (
        _C("three", "Three (trojka)", Kind.CALLED, True, True, True, False, False),
        _C("two", "Two (dvojka)", Kind.CALLED, True, True, True, False, False),
        _C("one", "One (enka)", Kind.CALLED, True, True, True, False, False),
        _C("solo_three", "Solo three (solo tri)", Kind.SOLO, False, True, True, False, False),
        _C("solo_two", "Solo two (solo dva)", Kind.SOLO, False, True, True, False, False),
        _C("solo_one", "Solo one (solo ena)", Kind.SOLO, False, True, True, False, False),
        _C("beggar", "Beggar (berač)", Kind.NO_TRICK, True, False, False, True, False),
        # Solo without: "no bonuses"; the Moon in its unseen talon costs nothing, one lost in play does.
        _C("solo_without", "Solo without (solo brez)", Kind.FLAT, True, False, True, True, True),
        _C("open_beggar", "Open Beggar (odprti berač)", Kind.NO_TRICK, True, False, False, True, True),
        _C(
            "no_trump_valat", "No-Trump Valat (barvni valat)", Kind.ALL_TRICKS, True, False, False, True, True
        ),
        _C("grand_valat", "Grand Valat (valat brez)", Kind.ALL_TRICKS, True, False, False, True, True),
        _C("dodge_round", "Dodge Round (klop)", Kind.DODGE, True, False, False, True, True),
    )
}

BONUSES: dict[str, str] = {
    "trull": "Trull (trula)",
    "kings": "Kings (kralji)",
    "king_ultimo": "King Ultimo (kralj ultimo)",
    "pagat_ultimo": "Pagat Ultimo (pagat ultimo)",
    "valat": "Valat (valat)",
}

# Bonus values: made silent / made announced / failed silent attempt / failed announced (as a positive
# number scored against the side). A silent Trull, Kings or Valat that is not made scores nothing.
_SIMPLIFIED_BONUSES = {
    "trull": {"silent": 2, "announced": 4, "failed_silent": 0, "failed_announced": 4},
    "kings": {"silent": 2, "announced": 4, "failed_silent": 0, "failed_announced": 4},
    "king_ultimo": {"silent": 2, "announced": 4, "failed_silent": 2, "failed_announced": 4},
    "pagat_ultimo": {"silent": 5, "announced": 10, "failed_silent": 5, "failed_announced": 10},
    "valat": {"silent": 50, "announced": 100, "failed_silent": 0, "failed_announced": 100},
}

TARIFF: dict[str, Any] = {
    "source": "Simplified: Slovenian Tarok rules (doc 002) and Expansions (doc 004); native (traditional): "
    "Traditional Scoring Tables, Slovenian Tarok native values (doc 000), x5, Moon 21 with three players",
    "settlement": "average",  # Traditional settlement: distance of each total from the group's average
    "rules": {
        "radli": True,  # doc 004 expansion; a group may switch it off
        "compulsory_dodge_round": False,  # doc 004: "Agree before you start"
        "exact_distance_three_players": False,  # doc 002: "often scored exactly ... agree before you start"
        "quick_session": False,  # doc 004: play to 100 instead of 200
    },
    "simplified": {
        "contracts": {
            "three": 2,
            "two": 4,
            "one": 6,
            "solo_three": 8,
            "solo_two": 10,
            "solo_one": 12,
            "beggar": 14,
            "solo_without": 16,
            "open_beggar": 18,
            "no_trump_valat": 25,
            "grand_valat": 100,
        },
        "distance_per_five": 1,  # VP for every 5 Card Points between the result and 35
        "bonuses": _SIMPLIFIED_BONUSES,
        "moon": {"4": 4, "3": 4},  # by number of players
        "dodge_round": {"no_trick": 14, "over_limit": 14, "limit": 35},
        "open_circle_at_end": 20,
        "target": 200,
        "quick_target": 100,
    },
    "traditional": {
        "contracts": {
            "three": 10,
            "two": 20,
            "one": 30,
            "solo_three": 40,
            "solo_two": 50,
            "solo_one": 60,
            "beggar": 70,
            "solo_without": 80,
            "open_beggar": 90,
            "no_trump_valat": 125,
            "grand_valat": 500,
        },
        "distance_per_five": 5,
        "bonuses": {b: {k: 5 * v for k, v in vals.items()} for b, vals in _SIMPLIFIED_BONUSES.items()},
        "moon": {"4": 20, "3": 21},
        "dodge_round": {"no_trick": 70, "over_limit": 70, "limit": 35},
        "open_circle_at_end": 100,
        "target": 1000,
        "quick_target": 500,  # quick native target: our own, half of 1000 like 100 of 200
    },
}


def merged(base: Mapping[str, Any], override: Mapping[str, Any] | None) -> dict[str, Any]:
    """`base` with `override` merged over it, key by key, at every depth.

    >>> merged({"a": {"b": 1, "c": 2}}, {"a": {"c": 3}})
    {'a': {'b': 1, 'c': 3}}
    """
    out = copy.deepcopy(dict(base))
    for key, value in (override or {}).items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def tariff(options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The tariff in force: TARIFF with the group's `options["tariff"]` merged over it.

    >>> tariff({"tariff": {"simplified": {"contracts": {"two": 5}}}})["simplified"]["contracts"]["two"]
    5
    >>> tariff()["traditional"]["moon"]["3"]
    21
    """
    return merged(TARIFF, (options or {}).get("tariff"))
