"""The hand being counted, as the server knows it, and what the Capture and Hand pages show of its piles.

The hand being counted is every capture taken since the evening's last confirmed hand: its Declarer's pile
is the newest of those marked "declarer", its Defenders' pile the newest marked "defenders", and "the rest
is theirs" (one side photographed, the other holds every other card) is a flag kept in the store for that
hand, so it survives going back to Capture and reaches every device. `hand_state` returns it; `piles_view`
adds the cards, Card Points, checks and the side the next photo should be.
"""

from __future__ import annotations

import json

import scoring
from device import handread
from device.storage import SIDES, Store
from device.web import scoring_adapter as rules
from scoring.game import talon_cards

SIDE_NAMES = {"declarer": "Declarer", "defenders": "Defenders"}
PILE_OF = {"declarer": "the Declarer's pile", "defenders": "the Defenders' pile"}


def live_ids(capture: dict | None) -> list[str] | None:
    """The capture's current card ids (corrections applied, removed cards left out)."""
    if capture is None:
        return None
    return [c["id"] for c in capture["cards"] if not c["removed"]]


def version(store: Store, capture: dict) -> str:
    """What a page saw of a capture: its corrections so far and its side. A change sent with another
    version was made against a stale page and is refused."""
    return f"{len(store.corrections(capture['id']))}-{capture['side'] or 'none'}"


def capture_view(game_id: str, capture: dict, store: Store | None = None) -> dict:
    """The capture as the page draws it: each card with its name and pips, the pile's Card Points, the
    region of the photo the cards lie in (`crop`: x, y, w, h in photo px) and, given the store, `version`."""
    cards = []
    for c in capture["cards"]:
        pips = c.get("pips")
        cards.append(
            {
                **c,
                "name": rules.card_name(c["id"]),
                "pips": rules.card_pips(c["id"]) if pips is None or c["source"] != "model" else pips,
                "box": _box(c.get("quad")),
            }
        )
    points, error = rules.count(game_id, live_ids(capture))
    view = {**capture, "cards": cards, "points": points, "points_error": error, "crop": crop_box(capture)}
    if store is not None:
        view["version"] = version(store, capture)
    return view


def _box(quad) -> list[float] | None:
    """x, y, w, h (photo px) around a card index's quad, for the card's zoomed strip: the index with a
    margin, at least 0.55 of its height wide so the strip has the 50 x 70 px strip's shape."""
    if not quad:
        return None
    xs, ys = [p[0] for p in quad], [p[1] for p in quad]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    pad = (y1 - y0) * 0.12
    h = (y1 - y0) + 2 * pad
    w = max((x1 - x0) + 2 * pad, 0.55 * h)
    cx = (x0 + x1) / 2
    return [round(cx - w / 2, 1), round(y0 - pad, 1), round(w, 1), round(h, 1)]


def crop_box(capture: dict, margin: float = 0.03) -> list[float]:
    """The part of the photo the cards lie in, as x, y, w, h (photo px), with a margin of `margin` of the
    photo's width; the whole photo when no card has a quad. The page zooms to it, so each card's box is
    as big as the screen allows."""
    width, height = capture["width"], capture["height"]
    points = [p for c in capture["cards"] if c.get("quad") for p in c["quad"]]
    if not points:
        return [0, 0, width, height]
    pad = margin * width
    x0 = max(0.0, min(p[0] for p in points) - pad)
    y0 = max(0.0, min(p[1] for p in points) - pad)
    x1 = min(float(width), max(p[0] for p in points) + pad)
    y1 = min(float(height), max(p[1] for p in points) + pad)
    return [round(x0, 1), round(y0, 1), round(x1 - x0, 1), round(y1 - y0, 1)]


# -- the hand being counted ----------------------------------------------------------------------
def _state_key(session_id: int) -> str:
    return f"counting.{session_id}"


def used_up_to(store: Store, session_id: int) -> int:
    """The newest capture id the evening's confirmed hands were counted from (0: none); captures after it
    belong to the hand being counted."""
    return max(
        [h.get(f"{s}_capture") or 0 for h in store.hands(session_id) for s in SIDES] + [0]
    )


def hand_state(store: Store, session: dict) -> dict:
    """The hand being counted: {"after_capture": captures after this id are its photos,
    "declarer_capture", "defenders_capture": capture ids or None, "rest_is_theirs": bool,
    "talon": cards in the Declarer's pile that no trick brought, as the players said (None: not said),
    "contract": the contract they said it by (None: a number, or nothing said)}."""
    after = used_up_to(store, session["id"])
    raw = store.meta(_state_key(session["id"]))
    saved = json.loads(raw) if raw else {}
    pending = store.pending_captures(session["id"])
    # What was said for an earlier hand (its captures since used by a confirmed hand) does not carry over.
    same = saved.get("after_capture") == after
    talon = saved.get("talon") if same else None
    contract = saved.get("contract") if same else None
    return {
        "after_capture": after,
        "declarer_capture": (pending["declarer"] or {}).get("id"),
        "defenders_capture": (pending["defenders"] or {}).get("id"),
        "rest_is_theirs": bool(saved.get("rest_is_theirs")) and same,
        "talon": talon if isinstance(talon, int) and not isinstance(talon, bool) else None,
        "contract": contract if isinstance(contract, str) and isinstance(talon, int) else None,
    }


def _say(store: Store, session: dict, **said) -> dict:
    state = hand_state(store, session)
    kept = {"rest_is_theirs": state["rest_is_theirs"], "talon": state["talon"], "contract": state["contract"],
            **said}
    store.set_meta(_state_key(session["id"]), json.dumps({"after_capture": state["after_capture"], **kept}))
    return hand_state(store, session)


def set_rest_is_theirs(store: Store, session: dict, on: bool) -> dict:
    """Mark (or unmark) the hand being counted as "the rest is theirs"; returns the new hand_state."""
    return _say(store, session, rest_is_theirs=bool(on))


def set_talon(store: Store, session: dict, talon: int | None) -> dict:
    """How many cards lie in the Declarer's pile without a trick (the discards, or the Talon cards the
    contract gives that side), or None to unsay it; returns the new hand_state."""
    return _say(store, session, talon=None if talon is None else talon_cards(talon), contract=None)


def set_contract(store: Store, session: dict, contract: str | None) -> dict:
    """Say the hand's contract: the Declarer's discards it puts in their pile are the count's Talon cards
    (`scoring.Game.contract_talon`; ValueError for a contract without one); None unsays both."""
    if contract is None:
        return _say(store, session, talon=None, contract=None)
    talon = scoring.find_game(session["game"]).contract_talon(contract)
    return _say(store, session, talon=talon, contract=contract)


def contract_talons(game_id: str) -> list[tuple[str, str, int]]:
    """(contract id, name, its Talon cards) for each contract whose count the rules give."""
    game = scoring.find_game(game_id)
    out = []
    for cid, name in game.contracts:
        try:
            out.append((cid, name, game.contract_talon(cid)))
        except ValueError:
            continue
    return out


def other_count(session: dict, said: str, contract: str | None) -> bool:
    """Whether the hand's `contract` puts another number of cards in the Declarer's pile than the contract the
    piles were counted for (`said`): a contract with no count of its own (one that counts no Card Points) does not."""
    game = scoring.find_game(session["game"])
    try:
        return game.contract_talon(str(contract)) != game.contract_talon(said)
    except ValueError:
        return False


def piles_view(store: Store, session: dict) -> dict:
    """Both sides of the hand being counted, from `hand_state`.

    sides: {side: {"capture", "cards", "points", "error", "rest"}}; complete; check (missing, duplicated,
    foreign cards); suggestions (bonuses the piles show); placed (card ids on either pile);
    rest_is_theirs; state (hand_state); next_side (the side still missing, None when both are there);
    unassigned (the newest photo of this hand that has no side yet, or None)."""
    game_id = session["game"]
    state = hand_state(store, session)
    pending = store.pending_captures(session["id"])
    piles = {side: live_ids(pending[side]) for side in SIDES}
    rest_side = None
    if state["rest_is_theirs"] and (piles["declarer"] is None) != (piles["defenders"] is None):
        rest_side = "declarer" if piles["declarer"] is None else "defenders"
        other = "defenders" if rest_side == "declarer" else "declarer"
        piles[rest_side] = rules.rest_of_deck(game_id, piles[other])
    # The hand reader reads both piles as one hand against the deck; its cards count, its questions come first.
    read = handread.hand_read(store, session, state)
    if read is not None:
        piles = {side: read["sides"][side]["cards"] if piles[side] is not None else None for side in SIDES}
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
    trick = handread.trick_cards(session)
    latest = store.latest_capture()
    unassigned = (
        latest
        if latest and latest["side"] is None and latest["id"] > state["after_capture"]
        and latest.get("session_id") in (None, session["id"])
        else None
    )
    return {
        "sides": sides,
        "complete": complete,
        "check": rules.pile_check(game_id, piles["declarer"], piles["defenders"]) if complete else None,
        "suggestions": rules.suggestions(game_id, {s: p for s, p in piles.items() if p is not None}),
        "placed": sorted({c for p in piles.values() if p for c in p}),
        "rest_is_theirs": state["rest_is_theirs"],
        "talon": state["talon"],
        "contract": state["contract"],
        "contracts": contract_talons(game_id),
        "count_warning": handread.count_warning(scoring.find_game(game_id), trick, state["talon"], state["contract"],
                                                len(piles["declarer"])) if complete else None,
        "tricks_of": trick,
        "state": state,
        "next_side": next((s for s in SIDES if piles[s] is None), None),
        "unassigned": unassigned,
        "questions": read["questions"] if read else [],
        "instead": read["instead"] if read else [],
        "settled": bool(read and read["settled"]),
        "unsure": {s: read["sides"][s]["unsure"] for s in SIDES} if read else {},
    }
