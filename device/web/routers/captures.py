"""Photos and their cards: the Capture page, the new-capture poll, corrections and "Capture now"."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import FileResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from device.web import crops, piles
from device.web import scoring_adapter as rules
from device.web.deps import Ctx, Evening, WebContext, render, require_write

router = APIRouter(tags=["captures"])
Side = Literal["declarer", "defenders"]


class CardBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    card: str = Field(min_length=1, max_length=8)
    quad: list[tuple[float, float]] | None = Field(default=None, min_length=4, max_length=4)

    @field_validator("card")
    @classmethod
    def known_card(cls, value: str) -> str:
        if rules.card_pips(value) is None:
            raise ValueError(f"unknown card {value!r}")
        return value


class SideBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    side: Side | None = None


# -- pages ------------------------------------------------------------------------------------
@router.get("/")
def home():
    return RedirectResponse("/capture", status_code=303)


@router.get("/capture")
def capture_page(request: Request, c: Ctx, session: Evening, id: int | None = None, rest: bool = False):
    return render(request, "capture.html", **_panel_context(c, session, id, rest))


@router.get("/capture/panel")
def capture_panel(request: Request, c: Ctx, session: Evening, id: int | None = None, rest: bool = False):
    """The part of the Capture page that changes; the page's script swaps it in without a reload."""
    return render(request, "_capture.html", **_panel_context(c, session, id, rest))


def _panel_context(c: WebContext, session: dict, capture_id: int | None, rest: bool) -> dict:
    capture = c.store.get_capture(capture_id) if capture_id is not None else c.store.latest_capture()
    return {
        "session": session,
        "game": rules.game(session["game"]),
        "capture": piles.capture_view(session["game"], capture) if capture else None,
        "piles": piles.piles_view(c.store, session, rest),
        "rest": rest,
        "poll_ms": c.settings["poll_ms"],
        "latest_id": c.store.latest_capture_id(),
    }


@router.post("/capture", dependencies=[Depends(require_write)])
def capture_now_form(c: Ctx, side: Annotated[str, Form()] = ""):
    capture_id = _capture(c, side or None)
    return RedirectResponse(f"/capture?id={capture_id}", status_code=303)


# -- JSON API ---------------------------------------------------------------------------------
@router.post("/api/captures", dependencies=[Depends(require_write)])
def capture_now(body: SideBody, c: Ctx):
    return {"id": _capture(c, body.side)}


def _capture(c: WebContext, side: str | None) -> int:
    if side not in (None, "declarer", "defenders"):
        raise HTTPException(422, f"side {side!r}: expected declarer or defenders")
    try:
        return c.controller.capture(side)
    except RuntimeError as exc:  # CameraError and friends: say why, keep the page
        raise HTTPException(503, f"capture failed: {exc}") from None


@router.get("/api/captures/latest")
def latest(c: Ctx):
    """The poll: tiny, so a phone can ask every two seconds."""
    return {"id": c.store.latest_capture_id()}


@router.get("/api/captures/{capture_id}")
def capture_json(capture_id: int, c: Ctx, session: Evening):
    return piles.capture_view(session["game"], c.store.get_capture(capture_id))


@router.get("/api/piles")
def piles_json(c: Ctx, session: Evening, rest: bool = False):
    return piles.piles_view(c.store, session, rest)


@router.get("/captures/{capture_id}/photo")
def photo(capture_id: int, c: Ctx):
    """Photos only by capture id, and only from under photos_dir."""
    capture = c.store.get_capture(capture_id)
    path = (c.photos_dir / capture["photo"]).resolve()
    if not path.is_relative_to(c.photos_dir) or not path.is_file():
        raise HTTPException(404, f"capture {capture_id}: photo not found")
    return FileResponse(path)


@router.put("/api/captures/{capture_id}/side", dependencies=[Depends(require_write)])
def set_side(capture_id: int, body: SideBody, c: Ctx, session: Evening):
    c.store.set_capture_side(capture_id, body.side)
    return piles.capture_view(session["game"], c.store.get_capture(capture_id))


@router.put("/api/captures/{capture_id}/cards/{index}", dependencies=[Depends(require_write)])
def replace_card(capture_id: int, index: int, body: CardBody, c: Ctx, session: Evening):
    return _correct(c, session, capture_id, "replace", index, body.card, body.quad)


@router.post("/api/captures/{capture_id}/cards", dependencies=[Depends(require_write)])
def add_card(capture_id: int, body: CardBody, c: Ctx, session: Evening):
    return _correct(c, session, capture_id, "add", None, body.card, body.quad)


@router.delete("/api/captures/{capture_id}/cards/{index}", dependencies=[Depends(require_write)])
def remove_card(capture_id: int, index: int, c: Ctx, session: Evening):
    return _correct(c, session, capture_id, "remove", index, None, None)


@router.post("/api/captures/{capture_id}/cards/{index}/restore", dependencies=[Depends(require_write)])
def restore_card(capture_id: int, index: int, c: Ctx, session: Evening):
    return _correct(c, session, capture_id, "restore", index, None, None)


def _correct(
    c: WebContext, session: dict, capture_id: int, action: str, index: int | None, card: str | None, quad
) -> dict:
    capture = c.store.get_capture(capture_id)
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
    view = piles.capture_view(session["game"], c.store.get_capture(capture_id))
    return {"correction": correction_id, "crop": crop, "capture": view}
