"""The evening worked out from its confirmed hands: the score sheet, and one hand as the sheet scores it."""

from __future__ import annotations

from device.storage import Store
from device.web import scoring_adapter as rules


def build_sheet(store: Store, session: dict, system: str) -> dict:
    """Worked out afresh from the confirmed hands every time, so an edit or delete carries through."""
    stored = store.hands(session["id"])
    try:
        sheet = rules.score_sheet(
            session["game"],
            session["players"],
            [h["hand"] for h in stored],
            system,
            session["tariffs"] or None,
        )
        error = None
    except rules.HAND_ERRORS as exc:
        sheet, error = {"totals": {}, "rows": [], "radli": {}, "end": {}, "settlement": None}, str(exc)
    rows = [{**row, "stored": h} for row, h in zip(sheet["rows"], stored)]
    return {**sheet, "rows": rows, "system": system, "error": error}


def score_at(store: Store, session: dict, hand: dict, position: int | None = None) -> dict:
    """HandResult JSON of `hand` as the sheet scores it at `position` (0-based; None: after the last hand),
    with the radli the hands before it leave open. Raises the scorer's errors (rules.HAND_ERRORS)."""
    before = [h["hand"] for h in store.hands(session["id"])]
    before = before if position is None else before[:position]
    if before:
        sheet = rules.score_sheet(
            session["game"], session["players"], before, session["system"], session["tariffs"] or None
        )
        if sheet.get("rows") and "radli" in sheet["rows"][-1]:
            hand = {**hand, "radli": sheet["rows"][-1]["radli"]}
    return rules.score_hand(hand, session["tariffs"] or None)


def scored_hand(store: Store, session: dict, hand_id: int) -> tuple[int, dict]:
    """(1-based number, HandResult JSON) of a stored hand as the sheet scores it now: an edit of an
    earlier hand can change the radli this one saw."""
    stored = store.hands(session["id"])
    index = [h["id"] for h in stored].index(hand_id)
    try:
        return index + 1, score_at(store, session, stored[index]["hand"], index)
    except rules.HAND_ERRORS:
        return index + 1, stored[index]["result"]
