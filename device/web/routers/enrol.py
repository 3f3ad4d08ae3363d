"""Enrolment on the web page: the page names a card, the player photographs it face up on a plain background
(or on the mat) with the phone or tablet that shows the page, the table cuts the face out along the card's edge,
rectifies it to the card's real size (vision.enrol), shows it and names the next card. The faces go into a
deck folder like models/faces/ (the `enrol_dir` setting; default `enrolled-deck` next to the photos folder),
which `python -m models.train --faces DIR --finetune` learns."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import FileResponse, RedirectResponse

from calibration.mat import write_atomic
from device.commands.enrol import REFERENCE_DECK
from device.web.deps import Ctx, WebContext, render, require_write

router = APIRouter(tags=["enrol"])
BACK = "back"
PHOTOS = "photos"       # the enrolment photos, beside the faces


def _deck_dir(c: WebContext) -> Path:
    return Path(c.settings.get("enrol_dir") or c.photos_dir.parent / "enrolled-deck")


def _cards(pack: int) -> list[dict]:
    cards = json.loads((REFERENCE_DECK / "deck.json").read_text())["cards"]
    return [card for card in cards if pack == 54 or card["in_42_card_deck"]]


def _pack(value: str | int | None) -> int:
    return 42 if str(value) == "42" else 54


def _done(deck: Path, cards: list[dict]) -> list[str]:
    return [card["id"] for card in cards if (deck / f"{card['id']}.png").is_file()]


def _page(request: Request, c: WebContext, pack: int, last: str | None = None, refused: str | None = None,
          card: str | None = None, status_code: int = 200):
    deck = _deck_dir(c)
    cards = _cards(pack)
    done = set(_done(deck, cards))
    todo = [k for k in cards if k["id"] not in done]
    current = card or (todo[0]["id"] if todo else None)
    names = {k["id"]: k["name"] for k in cards}
    return render(request, "enrol.html", status_code=status_code, nav="settings", pack=pack, cards=cards,
                  done=done, current=current, current_name=names.get(current, current), last=last,
                  last_name=names.get(last, last), refused=refused, deck_dir=str(deck),
                  has_back=(deck / "back.png").is_file())


@router.get("/enrol")
def enrol_page(request: Request, c: Ctx, pack: int = 54, last: str | None = None, card: str | None = None):
    return _page(request, c, _pack(pack), last=last, card=card)


@router.post("/enrol/{card_id}", dependencies=[Depends(require_write)])
async def enrol_card(request: Request, card_id: str, c: Ctx):
    import cv2
    import numpy as np

    from vision.enrol import INDEX_BOX_MM, EnrolmentRefused, enrol_face

    form = await request.form()
    pack = _pack(form.get("pack"))
    cards = _cards(pack)
    if card_id != BACK and card_id not in {k["id"] for k in cards}:
        raise HTTPException(404, f"{card_id!r} is no card of the {pack}-card pack")
    photo = form.get("photo")
    data = await photo.read() if hasattr(photo, "read") else b""
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None  # EXIF turned
    deck = _deck_dir(c)
    back = cv2.imread(str(deck / "back.png"), cv2.IMREAD_UNCHANGED) if card_id != BACK else None
    try:
        if image is None:
            raise EnrolmentRefused("no photo came, or it is not a JPEG or PNG image")
        result = enrol_face(image, back=back, index_box_mm=None if card_id == BACK else INDEX_BOX_MM)
    except EnrolmentRefused as exc:
        return _page(request, c, pack, refused=f"{card_id}: {exc}", card=card_id, status_code=422)
    deck.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(deck / f"{card_id}.png"), result.face):
        raise HTTPException(500, f"cannot write the face to {deck}")
    if card_id != BACK:     # the photo itself, for the check of the deck's release (models.evaluate)
        (deck / PHOTOS).mkdir(exist_ok=True)
        for old in (deck / PHOTOS).glob(f"{card_id}.*"):
            old.unlink()
        if data.startswith(b"\x89PNG"):
            write_atomic(deck / PHOTOS / f"{card_id}.png", data)
        else:   # a JPEG as it came (EXIF kept); any other image the browser sent, as a JPEG
            write_atomic(deck / PHOTOS / f"{card_id}.jpg",
                          data if data.startswith(b"\xff\xd8") else cv2.imencode(".jpg", image)[1].tobytes())
    _write_deck_json(deck, cards, pack)
    return RedirectResponse(f"/enrol?pack={pack}&last={card_id}", status_code=303)


@router.get("/enrol/face/{card_id}.png")
def enrol_face_image(card_id: str, c: Ctx):
    path = _deck_dir(c) / f"{card_id}.png"
    if not card_id.replace("_", "").isalnum() or not path.is_file():
        raise HTTPException(404, f"no enrolled face {card_id!r}")
    return FileResponse(path, media_type="image/png")


def _write_deck_json(deck: Path, cards: list[dict], pack: int) -> None:
    import cv2

    from vision.enrol import choose_index_box

    reference = json.loads((REFERENCE_DECK / "deck.json").read_text())
    data = {k: v for k, v in reference.items() if k != "cards"}
    done = _done(deck, cards)
    if len(done) == len(cards):     # the whole pack: where do its faces print the index?
        faces = [cv2.imread(str(deck / f"{cid}.png"), cv2.IMREAD_UNCHANGED) for cid in done]
        box, how = choose_index_box([f for f in faces if f is not None])
        data["index_box_mm"] = {"x0": box[0], "y0": box[1], "x1": box[2], "y1": box[3],
                                "note": reference["index_box_mm"].get("note", ""), "how": how}
    data.update({"name": "enrolled at the table", "face_px_per_mm": 10, "cards": cards,
                 "enrolment": {"via": "web page", "photos": PHOTOS, "pack": pack, "enrolled": len(done),
                               "missing": [k["id"] for k in cards if k["id"] not in set(done)],
                               "updated": datetime.now(UTC).isoformat(timespec="seconds")}})
    tmp = deck / "deck.json.tmp"
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(deck / "deck.json")
