"""Hands: the form (new and edit), a hand's ledger under either system, and the JSON API."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Header, HTTPException, Request
from fastapi.responses import JSONResponse, RedirectResponse

from device.storage import SIDES
from device.web import events, idempotency, piles
from device.web import scoring_adapter as rules
from device.web.deps import Ctx, Evening, WebContext, render, require_write
from device.web.evening import score_at, scored_hand
from device.web.hand_checks import checked_hand

router = APIRouter(tags=["hands"])


# -- pages ------------------------------------------------------------------------------------
@router.get("/hand")
def new_hand_page(request: Request, c: Ctx, session: Evening):
    view = piles.piles_view(c.store, session)
    hand = {"bonuses": view["suggestions"], "kontra": {}, "declarer": None, "partner": None}
    if view["contract"]:    # said on the Capture page to count the piles: the same contract, no second tap
        hand["contract"] = view["contract"]
    return _form(request, session, view, hand, action="/hands", hand_id=None)


@router.get("/hands/{hand_id}/edit")
def edit_hand_page(request: Request, hand_id: int, c: Ctx, session: Evening):
    stored = c.store.get_hand(hand_id)
    return _form(
        request,
        c.store.get_session(stored["session_id"]),
        None,
        stored["hand"],
        action=f"/hands/{hand_id}",
        hand_id=hand_id,
    )


def _form(
    request: Request,
    session: dict,
    view: dict | None,
    hand: dict,
    *,
    action: str,
    hand_id: int | None,
    error: str | None = None,
    field: str | None = None,
    status_code: int = 200,
):
    return render(
        request,
        "hands/form.html",
        status_code=status_code,
        session=session,
        game=rules.game(session["game"]),
        piles=view,
        hand=hand,
        action=action,
        hand_id=hand_id,
        bonus_map={b["bonus"]: b for b in hand.get("bonuses") or []},
        talon=TALON,
        error=error,
        field=field,
        submission=idempotency.new_key(),
        side_names=piles.SIDE_NAMES,
    )


@router.post("/hands", dependencies=[Depends(require_write)])
async def create_hand_form(request: Request, c: Ctx, session: Evening):
    form = await request.form()
    view = piles.piles_view(c.store, session)
    hand, captures = _hand_from_form(form, session, view)

    def refuse(error: str, field: str | None, status_code: int = 422):
        return _form(request, session, view, hand, action="/hands", hand_id=None, error=error, field=field,
                     status_code=status_code)

    key = idempotency.checked(str(form.get(idempotency.FORM_FIELD) or ""))
    done = c.store.meta(f"idempotency.hand.{key}") if key else None
    if done is not None:  # the same submission again (a double tap, a retry): the hand is saved already
        return RedirectResponse(f"/hands/{done}?saved=1", status_code=303)
    counted_after = form.get("counted_after")  # the page's hand: captures after this id
    moved = counted_after is not None and str(counted_after) != str(view["state"]["after_capture"])
    if form.get("points_source") == "piles" and (moved or "piles" not in hand):
        return refuse(
            "These photos were saved as a hand on another device meanwhile. Open the score sheet to see it, "
            "or photograph this hand's piles again.",
            "piles",
            409,
        )
    open_questions = len(view.get("questions") or [])
    if form.get("points_source") == "piles" and open_questions:
        return refuse(
            f"The photos leave {open_questions} question{'s' if open_questions > 1 else ''} open, so their Card "
            "Points are not sure yet. Answer them on the Capture page, or type the Card Points counted by hand.",
            "piles",
            409,
        )
    said = view.get("contract")
    if form.get("points_source") == "piles" and said and piles.other_count(session, said, hand.get("contract")):
        # the piles were placed by the count this contract says: the hand's contract would count them otherwise
        names = dict(rules.game(session["game"]).contracts)
        return refuse(
            f"The photos were counted for {names.get(said, said)}, but this hand says "
            f"{names.get(hand.get('contract'), 'another contract')}. Say this hand's contract on the Capture page "
            "(its count places the cards no photo shows), or pick the same one here.",
            "contract",
            409,
        )
    try:
        hand = checked_hand(hand, session)
        result = score_at(c.store, session, hand)
    except rules.HAND_ERRORS as exc:
        return refuse(rules.player_words(str(exc), getattr(exc, "field", None)), getattr(exc, "field", None))
    hand_id, _ = idempotency.once(
        c.store, "hand", key, lambda: c.store.save_hand(session["id"], hand, result, captures=captures), atomic=True
    )  # the hand and its key committed together, FULL sync
    events.changed("hands")
    return RedirectResponse(f"/hands/{hand_id}?saved=1", status_code=303)


@router.post("/hands/{hand_id}", dependencies=[Depends(require_write)])
async def update_hand_form(request: Request, hand_id: int, c: Ctx):
    stored = c.store.get_hand(hand_id)
    session = c.store.get_session(stored["session_id"])
    form = await request.form()
    hand, _ = _hand_from_form(form, session, None, previous=stored["hand"])
    try:
        hand = checked_hand(hand, session)
        result = score_at(c.store, session, hand, _position(c, session, hand_id))
    except rules.HAND_ERRORS as exc:
        return _form(
            request,
            session,
            None,
            hand,
            action=f"/hands/{hand_id}",
            hand_id=hand_id,
            error=rules.player_words(str(exc), getattr(exc, "field", None)),
            field=getattr(exc, "field", None),
            status_code=422,
        )
    c.store.update_hand(hand_id, hand, result)
    events.changed("hands")
    return RedirectResponse(f"/hands/{hand_id}?saved=1", status_code=303)


@router.post("/hands/{hand_id}/delete", dependencies=[Depends(require_write)])
def delete_hand_form(hand_id: int, c: Ctx):
    c.store.delete_hand(hand_id)
    events.changed("hands")
    return RedirectResponse("/sheet", status_code=303)


@router.get("/hands/{hand_id}")
def hand_page(request: Request, hand_id: int, c: Ctx, system: str | None = None, saved: bool = False):
    stored = c.store.get_hand(hand_id)
    session = c.store.get_session(stored["session_id"])
    system = system if system in rules.SYSTEMS else session["system"]
    number, result = scored_hand(c.store, session, hand_id)
    return render(
        request,
        "hands/view.html",
        stored=stored,
        hand=stored["hand"],
        result=result,
        session=session,
        game=rules.game(session["game"]),
        system=system,
        number=number,
        other=next(s for s in rules.SYSTEMS if s != system),
        saved=saved,
        detail_words=rules.detail_words,
        side_names=piles.SIDE_NAMES,
    )


def _hand_from_form(form, session: dict, view: dict | None, previous: dict | None = None):
    """The hand dict (CONTRACTS.md, the game's schema) from the form's fields, and the captures it was
    counted from. Takes what was entered as it stands, so a refused form comes back filled in;
    `check_hand` and the scorer judge it."""
    game = rules.game(session["game"])
    players = list(session["players"])
    hand: dict = {
        "game": session["game"],
        "players": players,
        "declarer": form.get("declarer") or None,
        "contract": form.get("contract") or None,
    }
    if game.has("partner"):
        hand["partner"] = form.get("partner") or None
    captures: dict[str, int | None] = {}
    if (
        form.get("points_source") == "piles"
        and view is not None
        and view["sides"]["declarer"]["cards"] is not None
    ):
        hand["piles"] = {s: view["sides"][s]["cards"] for s in SIDES if view["sides"][s]["cards"] is not None}
        captures = {s: (view["sides"][s]["capture"] or {}).get("id") for s in SIDES}
    elif form.get("points_source") == "kept" and previous and "piles" in previous:
        hand["piles"] = previous["piles"]  # editing a hand counted from photos keeps its piles
    elif str(form.get("card_points") or "").strip():
        hand["card_points"] = str(form.get("card_points")).strip()
    kontra = {"contract": _level(form.get("kontra_contract"))}
    bonuses = []
    for bonus, _name in game.bonuses:
        side = form.get(f"bonus_{bonus}_side")
        if side in SIDES:
            bonuses.append(
                {
                    "bonus": bonus,
                    "side": side,
                    "announced": form.get(f"bonus_{bonus}_announced") == "on",
                    "made": form.get(f"bonus_{bonus}_made", "made") == "made",
                }
            )
            kontra[bonus] = _level(form.get(f"kontra_{bonus}"))
    hand["bonuses"] = bonuses
    if game.form.kontra:
        hand["kontra"] = {k: v for k, v in kontra.items() if v != 1}
    if game.has("won") and form.get("won") in ("won", "lost"):
        hand["won"] = form.get("won") == "won"
    last_trick = {}
    pagat = str(form.get("last_pagat") or "")
    if "pagat" in game.form.last_trick and pagat.count("_") == 1:
        side, outcome = pagat.split("_")
        last_trick["pagat"] = {"side": side, "won": outcome == "won"}
    if "called_king" in game.form.last_trick and form.get("last_called_king") in ("won", "lost"):
        last_trick["called_king"] = {"side": "declarer", "won": form.get("last_called_king") == "won"}
    if last_trick:
        hand["last_trick"] = last_trick
    for key in ("moon_lost_by", "dealer", "dodge_round_loser", "dodge_round_winner", "challenger", "march"):
        if game.has(key) and form.get(key):
            hand[key] = form.get(key)
    if game.has("skus_dealt_to") and form.get("skus_dealt_to"):
        # the key's presence says the Skus round was noted; null: the Skus lay in the talon
        value = form.get("skus_dealt_to")
        hand["skus_dealt_to"] = None if value == TALON and value not in players else value
    for key in ("compulsory", "trial_three_failed", "instant_win"):
        if game.has(key) and form.get(key) == "on":
            hand[key] = True
    if game.has("dodge_round"):
        dodge = {
            name: {"card_points": str(form.get(f"dodge_{i}")).strip()}
            for i, name in enumerate(players)
            if str(form.get(f"dodge_{i}") or "").strip()
        }
        if dodge:
            hand["dodge_round"] = dodge
    if game.has("tarok_declarations"):
        declarations = {
            name: int(form.get(f"tarok_{i}"))
            for i, name in enumerate(players)
            if form.get(f"tarok_{i}") in ("8", "9")
        }
        if declarations:
            hand["tarok_declarations"] = declarations
    return hand, captures


TALON = "~talon"  # skus_dealt_to: the Skus lay in the talon


def _level(value) -> int | str:
    """A kontra select's level; anything else is kept as entered for `check_hand` to name."""
    try:
        return int(value or 1)
    except ValueError:
        return str(value)


# -- JSON API ---------------------------------------------------------------------------------
@router.get("/api/hands")
def hands_json(c: Ctx, session: Evening):
    return c.store.hands(session["id"])


@router.get("/api/hands/{hand_id}")
def hand_json(hand_id: int, c: Ctx):
    return c.store.get_hand(hand_id)


def _position(c: WebContext, session: dict, hand_id: int) -> int:
    return [h["id"] for h in c.store.hands(session["id"])].index(hand_id)


def _score_json(c: WebContext, hand, session: dict, position: int | None = None):
    if not isinstance(hand, dict):
        raise HTTPException(422, "body: expected a JSON object (the hand)")
    hand = {"game": session["game"], "players": list(session["players"]), **hand}
    if hand["game"] != session["game"]:
        return None, JSONResponse(
            {"error": f"game: this evening plays {session['game']}", "field": "game"}, 422
        )
    try:
        hand = checked_hand(hand, session)
        return (hand, score_at(c.store, session, hand, position)), None
    except rules.HAND_ERRORS as exc:
        return None, JSONResponse({"error": str(exc), "field": getattr(exc, "field", None)}, 422)


@router.post("/api/hands", dependencies=[Depends(require_write)], status_code=201)
def create_hand_json(
    hand: Annotated[dict, Body()],
    c: Ctx,
    session: Evening,
    key: Annotated[str | None, Header(alias=idempotency.HEADER)] = None,
):
    """Store a hand; with an Idempotency-Key header a repeat returns the first hand (200, not 201)."""
    key = idempotency.checked(key)
    done = c.store.meta(f"idempotency.hand.{key}") if key else None
    if done is not None:
        return _replayed(c, int(done))
    scored, error = _score_json(c, hand, session)
    if error:
        return error
    hand_id, fresh = idempotency.once(c.store, "hand", key, lambda: c.store.save_hand(session["id"], *scored),
                                      atomic=True)
    if not fresh:
        return _replayed(c, hand_id)
    events.changed("hands")
    return {"id": hand_id, "hand": scored[0], "result": scored[1]}


def _replayed(c: WebContext, hand_id: int) -> JSONResponse:
    stored = c.store.get_hand(hand_id)
    return JSONResponse(
        {"id": hand_id, "hand": stored["hand"], "result": stored["result"]},
        headers={"Idempotent-Replayed": "true"},
    )


@router.put("/api/hands/{hand_id}", dependencies=[Depends(require_write)])
def update_hand_json(hand_id: int, hand: Annotated[dict, Body()], c: Ctx):
    stored = c.store.get_hand(hand_id)
    session = c.store.get_session(stored["session_id"])
    scored, error = _score_json(c, hand, session, _position(c, session, hand_id))
    if error:
        return error
    c.store.update_hand(hand_id, *scored)
    events.changed("hands")
    return {"id": hand_id, "hand": scored[0], "result": scored[1]}


@router.delete("/api/hands/{hand_id}", dependencies=[Depends(require_write)])
def delete_hand_json(hand_id: int, c: Ctx):
    c.store.delete_hand(hand_id)
    events.changed("hands")
    return {"deleted": hand_id}
