"""Photos and their cards: the Capture page, the change stream, corrections, "Capture now" and the hand
being counted (which photo is whose pile, "the rest is theirs")."""

from __future__ import annotations

import threading
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Form, Header, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from device.web import crops, events, idempotency, piles
from device.web import scoring_adapter as rules
from device.web.deps import Ctx, Evening, WebContext, render, require_write

router = APIRouter(tags=["captures"])
Side = Literal["declarer", "defenders"]
Version = Field(default=None, max_length=40, description="the capture's version the change was made on")


class CardBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    card: str = Field(min_length=1, max_length=8)
    quad: list[tuple[float, float]] | None = Field(default=None, min_length=4, max_length=4)
    version: str | None = Version

    @field_validator("card")
    @classmethod
    def known_card(cls, value: str) -> str:
        if rules.card_pips(value) is None:
            raise ValueError(f"unknown card {value!r}")
        return value.strip().upper()


class VersionBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: str | None = Version


class SideBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    side: Side | None = None
    version: str | None = Version


class CaptureBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    side: Side | None = None
    replace: bool = Field(False, description="photograph a side whose pile this hand already has, again")


class HandStateBody(BaseModel):
    """What the players say of the hand being counted; a field left out stays as it was."""
    model_config = ConfigDict(extra="forbid")
    rest_is_theirs: bool | None = None
    talon: int | None = Field(None, ge=0, le=12, description="cards in the Declarer's pile that no trick "
                              "brought (discards, Talon cards); null: not said")
    contract: str | None = Field(None, max_length=40, description="the hand's contract, which says those cards "
                                 "(the game's rules); null: not said. Said with talon, the contract wins")


# A version check and the write it allows happen together, so two devices cannot both pass the check.
_WRITE = threading.Lock()
IdempotencyKey = Annotated[str | None, Header(alias=idempotency.HEADER)]


# -- pages ------------------------------------------------------------------------------------
@router.get("/")
def home():
    return RedirectResponse("/capture", status_code=303)


@router.get("/capture")
def capture_page(request: Request, c: Ctx, session: Evening, id: int | None = None, instead: str = ""):
    # instead=1: a tap behind a better photo was just answered, so those taps stay open
    return render(request, "capture.html", **_panel_context(c, session, id, instead_open=instead == "1"))


@router.get("/capture/panel")
def capture_panel(request: Request, c: Ctx, session: Evening, id: int | None = None):
    """The part of the Capture page that changes; the page's script swaps it in without a reload."""
    return render(request, "_capture.html", **_panel_context(c, session, id))


def _panel_context(c: WebContext, session: dict, capture_id: int | None, **extra) -> dict:
    """What capture.html and _capture.html draw. `capture` is the photo being worked on: the one asked
    for, else the newest; `newer` is a photo taken after it, which the page offers without jumping to it."""
    capture = c.store.get_capture(capture_id) if capture_id is not None else c.store.latest_capture()
    latest_id = c.store.latest_capture_id()
    view = piles.piles_view(c.store, session)
    newer = None
    if capture is not None and latest_id is not None and latest_id > capture["id"]:
        newer = c.store.get_capture(latest_id)
    return {
        "session": session,
        "game": rules.game(session["game"]),
        "capture": piles.capture_view(session["game"], capture, c.store) if capture else None,
        "piles": view,
        "newer": newer,
        "side_names": piles.SIDE_NAMES,
        "latest_id": latest_id,
        "submission": idempotency.new_key(),
        "capture_error": None,
        "instead_open": False,
        **extra,
    }


@router.post("/capture", dependencies=[Depends(require_write)])
def capture_now_form(
    request: Request,
    c: Ctx,
    session: Evening,
    side: Annotated[str, Form()] = "",
    replace: Annotated[str, Form()] = "",
    submission: Annotated[str, Form()] = "",
):
    try:
        capture_id, _ = idempotency.once(
            c.store,
            "capture",
            idempotency.checked(submission),
            lambda: _capture(c, session, side or None, replace == "1"),
        )
    except HTTPException as exc:
        if exc.status_code not in (409, 503):
            raise
        return render(
            request,
            "capture.html",
            status_code=exc.status_code,
            **_panel_context(c, session, None, capture_error=exc.detail, asked_side=side,
                             offer_replace=exc.status_code == 409),
        )
    return RedirectResponse(f"/capture?id={capture_id}", status_code=303)


@router.post("/capture/rest", dependencies=[Depends(require_write)])
def rest_form(c: Ctx, session: Evening, on: Annotated[str, Form()] = "", id: Annotated[str, Form()] = ""):
    piles.set_rest_is_theirs(c.store, session, on == "1")
    events.changed("hand_state")
    return RedirectResponse(f"/capture?id={id}" if id.isdigit() else "/capture", status_code=303)


@router.post("/capture/talon", dependencies=[Depends(require_write)])
def talon_form(c: Ctx, session: Evening, talon: Annotated[str, Form()] = "", id: Annotated[str, Form()] = ""):
    said = talon.strip()
    if said.startswith("contract:"):    # the select's contracts: "contract:three"
        try:
            piles.set_contract(c.store, session, said.removeprefix("contract:"))
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
    else:
        try:
            piles.set_talon(c.store, session, int(said) if said else None)
        except ValueError:
            raise HTTPException(422, f"talon cards: a whole number 0-12, or nothing; not {talon[:20]!r}") from None
    events.changed("hand_state")
    return RedirectResponse(f"/capture?id={id}" if id.isdigit() else "/capture", status_code=303)


# -- JSON API ---------------------------------------------------------------------------------
@router.post("/api/captures", dependencies=[Depends(require_write)])
def capture_now(body: CaptureBody, c: Ctx, session: Evening, key: IdempotencyKey = None):
    capture_id, fresh = idempotency.once(
        c.store, "capture", idempotency.checked(key), lambda: _capture(c, session, body.side, body.replace)
    )
    return JSONResponse({"id": capture_id}, headers={} if fresh else {"Idempotent-Replayed": "true"})


def _capture(c: WebContext, session: dict, side: str | None, replace: bool) -> int:
    if side not in (None, "declarer", "defenders"):
        raise HTTPException(422, f"side {side!r}: expected declarer or defenders")
    if side is not None and not replace:
        taken = piles.hand_state(c.store, session)[f"{side}_capture"]
        if taken is not None:
            raise HTTPException(
                409,
                f"This hand already has {piles.PILE_OF[side]} (photo {taken}). "
                "Press “Replace it” to photograph it again; the new photo then counts instead.",
            )
    try:
        capture_id = c.controller.capture(side)
    except RuntimeError as exc:  # CameraError and friends: say why, keep the page
        raise HTTPException(503, f"The camera could not take the photo: {exc}") from None
    events.changed("capture")
    return capture_id


@router.get("/api/events")
async def change_stream(request: Request, c: Ctx):
    """Server-sent events: one when the stream opens, then one after every change (see device.web.events)."""
    return StreamingResponse(
        events.stream(request, c.store),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@router.get("/api/captures/latest")
def latest(c: Ctx):
    """The newest capture id: tiny, for clients that poll instead of listening to /api/events."""
    return {"id": c.store.latest_capture_id()}


@router.get("/api/captures/{capture_id}")
def capture_json(capture_id: int, c: Ctx, session: Evening):
    return piles.capture_view(session["game"], c.store.get_capture(capture_id), c.store)


@router.get("/api/piles")
def piles_json(c: Ctx, session: Evening):
    """The hand being counted: both piles, their checks, `state` (hand_state) and `next_side`."""
    return _piles_json(c, session)


def _piles_json(c: WebContext, session: dict) -> dict:
    view = piles.piles_view(c.store, session)
    for s in view["sides"].values():
        s["capture"] = (s["capture"] or {}).get("id")
    view["unassigned"] = (view["unassigned"] or {}).get("id")
    return view


@router.put("/api/hand-state", dependencies=[Depends(require_write)])
def set_hand_state(body: HandStateBody, c: Ctx, session: Evening):
    if body.rest_is_theirs is not None:
        piles.set_rest_is_theirs(c.store, session, body.rest_is_theirs)
    if "contract" in body.model_fields_set:
        try:
            piles.set_contract(c.store, session, body.contract)
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
    elif "talon" in body.model_fields_set:
        piles.set_talon(c.store, session, body.talon)
    events.changed("hand_state")
    return _piles_json(c, session)


@router.get("/captures/{capture_id}/photo")
def photo(capture_id: int, c: Ctx):
    """Photos only by capture id, and only from under photos_dir."""
    capture = c.store.get_capture(capture_id)
    path = (c.photos_dir / capture["photo"]).resolve()
    if not path.is_relative_to(c.photos_dir) or not path.is_file():
        raise HTTPException(404, f"capture {capture_id}: photo not found")
    return FileResponse(path)


@router.get("/cards/{card_id}/face")
def card_face(card_id: str):
    """A small picture of the card's face, for the picker."""
    data = crops.face_thumbnail(card_id)
    if data is None:
        raise HTTPException(404, f"card {card_id!r}: no face picture")
    return Response(data, media_type="image/png", headers={"Cache-Control": "public, max-age=86400"})


@router.put("/api/captures/{capture_id}/side", dependencies=[Depends(require_write)])
def set_side(capture_id: int, body: SideBody, c: Ctx, session: Evening):
    with _WRITE:
        capture = c.store.get_capture(capture_id)
        _check_version(c, capture, body.version)
        c.store.set_capture_side(capture_id, body.side)
    events.changed("capture")
    return piles.capture_view(session["game"], c.store.get_capture(capture_id), c.store)


@router.put("/api/captures/{capture_id}/cards/{index}", dependencies=[Depends(require_write)])
def replace_card(capture_id: int, index: int, body: CardBody, c: Ctx, session: Evening):
    return _correct(c, session, capture_id, "replace", index, body.card, body.quad, body.version)


@router.post("/api/captures/{capture_id}/cards/{index}/confirm", dependencies=[Depends(require_write)])
def confirm_card(capture_id: int, index: int, body: VersionBody, c: Ctx, session: Evening):
    """“It's right”: the players checked a flagged card; it is kept as read (a correction to itself)."""
    capture = c.store.get_capture(capture_id)
    if not 0 <= index < len(capture["cards"]):
        raise HTTPException(404, f"index {index}: capture {capture_id} has {len(capture['cards'])} cards")
    card = capture["cards"][index]["id"]
    return _correct(c, session, capture_id, "replace", index, card, None, body.version)


@router.post("/api/captures/{capture_id}/cards", dependencies=[Depends(require_write)])
def add_card(capture_id: int, body: CardBody, c: Ctx, session: Evening, key: IdempotencyKey = None):
    done: dict = {}

    def work() -> int:
        done.update(_correct(c, session, capture_id, "add", None, body.card, body.quad, body.version))
        return done["correction"]

    correction_id, fresh = idempotency.once(c.store, "correction", idempotency.checked(key), work)
    if fresh:
        return done
    view = piles.capture_view(session["game"], c.store.get_capture(capture_id), c.store)
    return JSONResponse({"correction": correction_id, "crop": None, "capture": view},
                        headers={"Idempotent-Replayed": "true"})


@router.delete("/api/captures/{capture_id}/cards/{index}", dependencies=[Depends(require_write)])
def remove_card(capture_id: int, index: int, c: Ctx, session: Evening, version: str | None = None):
    return _correct(c, session, capture_id, "remove", index, None, None, version)


@router.post("/api/captures/{capture_id}/cards/{index}/restore", dependencies=[Depends(require_write)])
def restore_card(capture_id: int, index: int, c: Ctx, session: Evening, body: VersionBody | None = None):
    return _correct(c, session, capture_id, "restore", index, None, None, body.version if body else None)


def _check_version(c: WebContext, capture: dict, sent: str | None) -> None:
    """Refuse a change made on a page that had not seen the latest change of this photo."""
    if sent is None:  # API clients that do not track versions write as before
        return
    now = piles.version(c.store, capture)
    if sent != now:
        raise HTTPException(
            409,
            f"Photo {capture['id']} was changed on another device while you were looking at it; the page now "
            "shows that change. Check the card and make your change again if it is still needed.",
        )


def _correct(
    c: WebContext,
    session: dict,
    capture_id: int,
    action: str,
    index: int | None,
    card: str | None,
    quad,
    sent_version: str | None = None,
) -> dict:
    with _WRITE:
        correction_id, crop = _write_correction(c, capture_id, action, index, card, quad, sent_version)
    events.changed("capture")
    view = piles.capture_view(session["game"], c.store.get_capture(capture_id), c.store)
    return {"correction": correction_id, "crop": crop, "capture": view}


def _write_correction(c: WebContext, capture_id, action, index, card, quad, sent_version):
    capture = c.store.get_capture(capture_id)
    _check_version(c, capture, sent_version)
    if index is not None and not 0 <= index < len(capture["cards"]):
        raise HTTPException(404, f"index {index}: capture {capture_id} has {len(capture['cards'])} cards")
    if quad is None and index is not None:
        quad = capture["cards"][index].get("quad")
    label = card if action in ("replace", "add") else f"not_{capture['cards'][index]['id']}"
    # The crop is cut before the row is written, so a stored correction always names its file.
    crop = (
        crops.save_crop(c.photos_dir, capture["photo"], quad, capture_id, label)
        if action != "restore"
        else None
    )
    correction_id = c.store.add_correction(
        capture_id,
        action=action,
        card_index=index,
        new_id=card,
        quad=[list(p) for p in quad] if quad else None,
        crop=crop,
    )
    return correction_id, crop
