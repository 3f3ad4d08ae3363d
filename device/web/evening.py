"""The evening worked out from its confirmed hands: the score sheet, and one hand as the sheet scores it."""

from __future__ import annotations

from device.storage import Store
from device.web import scoring_adapter as rules
from scoring import HandFormatError

EMPTY_SHEET = {"totals": {}, "rows": [], "radli": {}, "end": {}, "settlement": None}


def _sheet(session: dict, hands: list[dict], system: str) -> dict:
    return rules.score_sheet(session["game"], session["players"], hands, system, session["tariffs"] or None)


def first_unscorable(session: dict, hands: list[dict], system: str) -> tuple[int, Exception] | None:
    """(0-based index, the scorer's error) of the first hand the sheet cannot get past, or None.

    A prefix that cannot be scored stays unscorable when hands are added, so this is a binary search."""
    try:
        _sheet(session, hands, system)
        return None
    except rules.HAND_ERRORS as exc:
        error: Exception = exc
    lo, hi = 0, len(hands) - 1  # hands[:hi + 1] fails; find the shortest failing prefix
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            _sheet(session, hands[: mid + 1], system)
            lo = mid + 1
        except rules.HAND_ERRORS as exc:
            hi, error = mid, exc
    return hi, error


def build_sheet(store: Store, session: dict, system: str) -> dict:
    """Worked out afresh from the confirmed hands every time, so an edit or delete carries through.

    When a stored hand cannot be scored, the sheet runs up to the hand before it, and `bad_hand` names it
    ({"id", "number", "message"}) so the page can offer to edit or delete it."""
    stored = store.hands(session["id"])
    hands = [h["hand"] for h in stored]
    error, bad_hand = None, None
    try:
        sheet = _sheet(session, hands, system)
    except rules.HAND_ERRORS:
        index, exc = first_unscorable(session, hands, system) or (len(hands) - 1, ValueError("?"))
        sheet = _sheet(session, hands[:index], system) if index else dict(EMPTY_SHEET)
        bad_hand = {"id": stored[index]["id"], "number": index + 1, "message": str(exc)}
        error = f"hand {index + 1} cannot be scored: {exc}"
    rows = [{**row, "stored": h} for row, h in zip(sheet["rows"], stored)]
    return {**sheet, "rows": rows, "system": system, "error": error, "bad_hand": bad_hand}


def score_at(store: Store, session: dict, hand: dict, position: int | None = None) -> dict:
    """HandResult JSON of `hand` as the sheet scores it at `position` (0-based; None: after the last hand),
    with the radli the hands before it leave open. Raises the scorer's errors (rules.HAND_ERRORS); when an
    earlier stored hand cannot be scored, the error names that hand."""
    before = [h["hand"] for h in store.hands(session["id"])]
    before = before if position is None else before[:position]
    if before:
        try:
            sheet = _sheet(session, before, session["system"])
        except rules.HAND_ERRORS:
            index, exc = first_unscorable(session, before, session["system"]) or (len(before) - 1, "?")
            raise HandFormatError("hands", f"stored hand {index + 1} cannot be scored ({exc}); edit or delete "
                                           "it on the score sheet first") from None
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


def end_lines(end: dict, players: list[str]) -> list[tuple[str, str]]:
    """The session-end state (each game's session_end) as (label, text) lines a player reads, leaving out
    what says nothing yet (no Skus round due, no open radli) and what the sheet shows elsewhere."""
    lines: list[tuple[str, str]] = []
    for key, value in end.items():
        if key in ("system", "open_radli", "settlement", "target_reached_at_hand"):
            continue  # the radli row and the settlement table show these; the hand is said with the target
        if key == "target":
            reached = end.get("target_reached")
            at = end.get("target_reached_at_hand")
            text = f"{value}" + (f", reached at hand {at}" if reached and at else ", reached" if reached else "")
            lines.append(("Target", text))
        elif key == "target_reached":
            continue
        elif key == "skus_round" and isinstance(value, dict):
            if value.get("ended"):
                lines.append(("Skus round", "played"))
            elif value.get("due"):
                noted = value.get("noted_at_hand")
                lines.append(("Skus round", f"due{f' since hand {noted}' if noted else ''}"))
        elif key == "rounds" and isinstance(value, dict):
            deal = f"deal {value.get('deals_in_round', 0)} of {value.get('deals_per_round', '?')}"
            lines.append(("Rounds", f"{value.get('complete', 0)} complete; {deal} in this one"))
        elif key == "rounds_complete":
            lines.append(("Rounds complete", str(value)))
        elif key == "deals_left_in_round":
            lines.append(("Deals left in this round", str(value)))
        elif key in ("deals_per_round",):
            lines.append(("Deals a round", str(value)))
        elif key == "compulsory_dodge_round_next":
            if value:
                lines.append(("Next hand", "a compulsory Dodge Round"))
        elif key == "open_radli_penalty" and isinstance(value, dict):
            owing = [f"{p} {v}" for p, v in value.items() if v]
            if owing:
                lines.append(("Radli still open would cost", ", ".join(owing)))
        elif key == "leaders" and isinstance(value, list):
            if value:
                lines.append(("Leading", ", ".join(map(str, value))))
        elif key == "ended":
            lines.append(("Evening", "over" if value else "still playing"))
        elif key in ("finish_at", "match_to"):
            lines.append(("Played to", str(value)))
        elif isinstance(value, bool):
            if value:
                lines.append((key.replace("_", " ").capitalize(), "yes"))
        elif isinstance(value, (str, int, float)):
            lines.append((key.replace("_", " ").capitalize(), str(value)))
    return lines
