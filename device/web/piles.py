"""What the Capture and Hand pages show of the photographed piles: live cards, Card Points, checks."""

from __future__ import annotations

from device.storage import SIDES, Store
from device.web import scoring_adapter as rules


def live_ids(capture: dict | None) -> list[str] | None:
    """The capture's current card ids (corrections applied, removed cards left out)."""
    if capture is None:
        return None
    return [c["id"] for c in capture["cards"] if not c["removed"]]


def capture_view(game_id: str, capture: dict) -> dict:
    """The capture as the page draws it: each card with its name and pips, and the pile's Card Points."""
    cards = []
    for c in capture["cards"]:
        pips = c.get("pips")
        cards.append(
            {
                **c,
                "name": rules.card_name(c["id"]),
                "pips": rules.card_pips(c["id"]) if pips is None or c["source"] != "model" else pips,
            }
        )
    points, error = rules.count(game_id, live_ids(capture))
    return {**capture, "cards": cards, "points": points, "points_error": error}


def piles_view(store: Store, session: dict, rest_is_theirs: bool = False) -> dict:
    """Both sides of the hand being counted: the latest unused capture per side.

    With one side photographed and `rest_is_theirs`, the other side is every remaining card of the deck.
    """
    game_id = session["game"]
    pending = store.pending_captures(session["id"])
    piles = {side: live_ids(pending[side]) for side in SIDES}
    rest_side = None
    if rest_is_theirs and (piles["declarer"] is None) != (piles["defenders"] is None):
        rest_side = "declarer" if piles["declarer"] is None else "defenders"
        other = "defenders" if rest_side == "declarer" else "declarer"
        piles[rest_side] = rules.rest_of_deck(game_id, piles[other])
    sides = {}
    for side in SIDES:
        points, error = rules.count(game_id, piles[side]) if piles[side] is not None else (None, None)
        sides[side] = {
            "capture": pending[side],
            "cards": piles[side],
            "points": points,
            "error": error,
            "rest": side == rest_side,
        }
    complete = all(piles[s] is not None for s in SIDES)
    return {
        "sides": sides,
        "complete": complete,
        "check": rules.pile_check(game_id, piles["declarer"], piles["defenders"]) if complete else None,
        "suggestions": rules.suggestions(game_id, {s: p for s, p in piles.items() if p is not None}),
        "placed": sorted({c for p in piles.values() if p for c in p}),
        "rest_is_theirs": rest_is_theirs,
    }
