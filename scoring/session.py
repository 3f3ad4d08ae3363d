"""The evening's score sheet: hands in order, running totals, the session's end state and the settlement."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from scoring.games import find_game
from scoring.result import HandFormatError, ScoringSystem, points_json
from scoring.settlement import add_up, settle_by_average


def score_sheet(
    game_id: str,
    players: Sequence[str],
    hands: Sequence[dict],
    system: str,
    options: Mapping[str, Any] | None = None,
) -> dict:
    """Score every hand through `score_hand`, carry radli, and say where the session stands.

    Rows give each hand's scores and the running totals under `system`. Where hands report radli
    (Slovenian Tarok), the open circles after one hand are the radli state of the next; a hand that
    records its own `radli` must agree. `end` comes from the game's `session_end` hook (which also gets
    `system`, `hands`, `rows` and `radli` in its options). The settlement exists under Traditional Scoring:
    by distance from the average where the game's tariff says "average" (open circles at the end count
    against their owners), otherwise the sum of each hand's zero-sum traditional points.

    Document 000's Slovenian example, settled as if the evening ended after the hand:
    >>> hand = {"game": "slovenian", "players": ["Anna", "Ben", "Clara", "Dora"], "declarer": "Anna",
    ...     "partner": "Clara", "contract": "two", "card_points": "47", "moon_lost_by": "Ben",
    ...     "bonuses": [{"bonus": "king_ultimo", "side": "declarer", "announced": False, "made": True}]}
    >>> sheet = score_sheet("slovenian", ["Anna", "Ben", "Clara", "Dora"], [hand], "traditional")
    >>> sheet["totals"], sheet["settlement"]
    ({'Anna': 40, 'Ben': -20, 'Clara': 40, 'Dora': 0}, {'Anna': 25, 'Ben': -35, 'Clara': 25, 'Dora': -15})
    """
    from scoring import score_hand  # scoring/__init__ imports the games, which import this package

    options = dict(options or {})
    try:
        game = find_game(game_id)
    except ValueError as exc:
        raise HandFormatError("game", str(exc)) from None
    try:
        system = ScoringSystem(system).value
    except ValueError:
        raise HandFormatError(
            "system", f"unknown scoring system {system!r}; known: simplified, traditional"
        ) from None
    players = _players(players)
    totals = {p: Fraction(0) for p in players}
    radli: dict[str, int] | None = None
    compulsory = False
    rows = []
    unit = "VP"
    for i, raw in enumerate(hands):
        path = f"hands[{i}]"
        if not isinstance(raw, dict):
            raise HandFormatError(path, "expected a JSON object")
        hand = dict(raw)
        hand.setdefault("game", game.id)
        hand.setdefault("players", list(players))
        if not isinstance(hand["players"], list) or not set(hand["players"]) <= set(players):
            raise HandFormatError(f"{path}.players", f"must be players of this session: {', '.join(players)}")
        if radli is not None:
            carried = {p: radli.get(p, 0) for p in hand["players"]}
            if "radli" in raw and {p: raw["radli"].get(p, 0) for p in carried} != carried:
                raise HandFormatError(
                    f"{path}.radli", f"the hands before leave {carried}, not {raw['radli']}"
                )
            hand["radli"] = carried
        if compulsory:
            hand.setdefault("compulsory", True)
        try:
            if find_game(str(hand["game"])) is not game:
                raise HandFormatError("game", f"this is a session of {game.name}")
            result = score_hand(hand, options)
        except HandFormatError as exc:
            raise HandFormatError(f"{path}.{exc.field}", str(exc)[len(exc.field) + 2 :]) from None
        except ValueError as exc:
            raise HandFormatError(f"{path}.game", str(exc)) from None
        scores = getattr(result, system)
        unit = result.traditional_unit
        before = dict(totals)
        totals = add_up(totals, scores)
        if "radli" in result.facts:
            radli = {**(radli or {p: 0 for p in players}), **result.facts["radli"]}
        compulsory = _compulsory_rule(game, options) and _left_at_zero(before, totals)
        rows.append(
            {
                "hand": i + 1,
                "contract": result.facts.get("contract", hand.get("contract")),
                "declarer": hand.get("declarer"),
                "scores": _json(scores),
                "totals": _json(totals),
                **({"radli": dict(radli)} if radli is not None else {}),
            }
        )
    end: dict = {}
    if game.session_end is not None:
        end = game.session_end(
            dict(totals),
            len(hands),
            {
                **options,
                "system": system,
                "hands": list(hands),
                "rows": rows,
                "radli": radli or {},
                "compulsory_next": compulsory,
            },
        )
    return {
        "game": game.id,
        "system": system,
        "players": list(players),
        "unit": "VP" if system == "simplified" else unit,
        "totals": _json(totals),
        "rows": rows,
        "radli": radli or {},
        "end": end,
        "settlement": _settlement(game, system, totals, end),
    }


def _players(players: Sequence[str]) -> tuple[str, ...]:
    if not isinstance(players, (list, tuple)) or not players:
        raise HandFormatError("players", "expected a list of names")
    if any(not isinstance(p, str) or not p.strip() for p in players) or len(set(players)) != len(players):
        raise HandFormatError("players", "names must be distinct and non-empty")
    return tuple(players)


def _compulsory_rule(game, options: Mapping[str, Any]) -> bool:
    rules = dict(game.tariff.get("rules", {}))
    rules.update((options.get("tariff") or {}).get("rules") or {})
    return bool(rules.get("compulsory_dodge_round"))


def _left_at_zero(before: Mapping[str, Fraction], after: Mapping[str, Fraction]) -> bool:
    """A hand changed some player's total to exactly zero (Slovenian compulsory Dodge Round trigger)."""
    return any(after[p] == 0 and before.get(p, 0) != 0 for p in after)


def _settlement(game, system: str, totals: Mapping[str, Fraction], end: Mapping[str, Any]) -> dict | None:
    if system != "traditional":
        return None
    if game.tariff.get("settlement") == "average":
        return _json(settle_by_average(add_up(totals, end.get("open_radli_penalty", {}))))
    return _json(totals)


def _json(points: Mapping[str, Any]) -> dict:
    return {p: points_json(v) for p, v in points.items()}
