"""Slovenian Tarok: the end of a session (target, the Skus round, open radli, compulsory Dodge Round)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from scoring.games.slovenian_tariff import tariff


def target(options: Mapping[str, Any] | None = None, system: str = "simplified") -> int:
    """The score that starts the Skus round: 200, 100 in the quick session, 1000 in native values.

    >>> target(), target({"quick": True}), target(system="traditional")
    (200, 100, 1000)
    """
    options = options or {}
    t = tariff(options)
    if options.get("target") is not None:
        return int(options["target"])
    quick = options.get("quick", t["rules"]["quick_session"])
    return t[system]["quick_target" if quick else "target"]


def compulsory_next(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """A compulsory hand follows a hand that leaves a player's total at exactly zero (doc 004).

    We read "leaves at zero" as: the hand changed that total, and it is now zero; a player who has
    not scored yet has not been left anywhere.
    >>> compulsory_next({"Anna": 4, "Ben": 0}, {"Anna": 0, "Ben": 0})
    True
    >>> compulsory_next({"Anna": 0, "Ben": 4}, {"Anna": 0, "Ben": 8})
    False
    """
    return any(Fraction(after[p]) == 0 and Fraction(before.get(p, 0)) != 0 for p in after)


def session_end(
    totals: Mapping[str, Any], hands_played: int, options: Mapping[str, Any] | None = None
) -> dict:
    """Where the session stands. `options` may carry `system`, `target`/`quick`, and from `score_sheet`
    `hands` (the records, with optional `dealer` and `skus_dealt_to`), `rows` (running totals) and `radli`.

    The Skus round begins with the next deal after a player reaches the target; that hand notes who was
    dealt the Skus (null: it lay in the talon, and the next hand notes again), and that player's next deal
    is the last hand.
    >>> end = session_end({"Anna": 210, "Ben": 0, "Clara": 40, "Dora": -50}, 9)
    >>> end["target_reached"], end["skus_round"]["due"], end["rounds"]
    (True, True, {'complete': 2, 'deals_in_round': 1, 'deals_per_round': 4})
    """
    options = dict(options or {})
    system = options.get("system", "simplified")
    t = tariff(options)
    goal = target(options, system)
    hands = list(options.get("hands") or ())
    rows = list(options.get("rows") or ())
    n = len(totals)
    reached_at = next(
        (r["hand"] for r in rows if max(Fraction(v) for v in r["totals"].values()) >= goal), None
    )
    if reached_at is None and totals and max(Fraction(v) for v in totals.values()) >= goal:
        reached_at = hands_played
    skus = _skus_round(hands, reached_at)
    radli = {p: int(v) for p, v in (options.get("radli") or {}).items()}
    per_circle = t[system]["open_circle_at_end"]
    best = max((Fraction(v) for v in totals.values()), default=Fraction(0))
    return {
        "target": goal,
        "target_reached": reached_at is not None,
        "target_reached_at_hand": reached_at,
        "skus_round": skus,
        "ended": skus["ended"],
        "rounds": {
            "complete": hands_played // n if n else 0,
            "deals_in_round": hands_played % n if n else 0,
            "deals_per_round": n,
        },
        "compulsory_dodge_round_next": bool(
            t["rules"]["compulsory_dodge_round"] and options.get("compulsory_next")
        ),
        "open_radli": radli,
        "open_radli_penalty": {p: -per_circle * c for p, c in radli.items()},
        "leaders": [p for p, v in totals.items() if Fraction(v) == best],  # the winners once it has ended
    }


def _skus_round(hands: list, reached_at: int | None) -> dict:
    out = {
        "due": reached_at is not None,
        "noted_at_hand": None,
        "skus_dealt_to": None,
        "last_hand_dealt_by": None,
        "ended": False,
    }
    if reached_at is None:
        return out
    for number in range(reached_at + 1, len(hands) + 1):
        hand = hands[number - 1]
        if out["last_hand_dealt_by"] is None:
            if not isinstance(hand, dict) or "skus_dealt_to" not in hand:
                break  # not recorded: the sheet cannot say who deals last
            if hand["skus_dealt_to"] is not None:  # null: the Skus lay in the talon, note again next hand
                out.update(
                    noted_at_hand=number,
                    skus_dealt_to=hand["skus_dealt_to"],
                    last_hand_dealt_by=hand["skus_dealt_to"],
                )
        elif isinstance(hand, dict) and hand.get("dealer") == out["last_hand_dealt_by"]:
            out.update(ended=True, last_hand=number, hands_after_last=len(hands) - number)
            break
    return out
