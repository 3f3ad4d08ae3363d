"""The hand reader's questions: answered with one tap on the Capture page, or through the JSON API."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Form, HTTPException
from fastapi.responses import JSONResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field

from device import handread
from device.web import events, piles
from device.web import scoring_adapter as rules
from device.web.deps import Ctx, Evening, require_write

router = APIRouter(tags=["hand"])


class AnswerBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["which_card", "which_pile", "count", "pile_size"]
    side: Literal["declarer", "defenders"]
    card: str = Field(min_length=1, max_length=8)
    sighting: int | None = Field(default=None, ge=0, le=10_000)


def _answer(c, session: dict, body: AnswerBody) -> dict:
    card = body.card.strip().upper()
    if body.kind == "count":
        if card not in ("YES", "NO"):
            raise HTTPException(422, "the count is answered yes or no")
    elif body.kind == "pile_size":
        if not card.isdigit():
            raise HTTPException(422, "a pile's size is a number of cards")
    elif card != "NONE" and rules.card_pips(card) is None:
        raise HTTPException(422, f"unknown card {body.card!r}")
    if body.kind == "which_card" and body.sighting is None:
        raise HTTPException(422, "which_card needs the sighting it answers")
    state = piles.hand_state(c.store, session)
    read = handread.hand_read(c.store, session, state)
    if read is None:
        raise HTTPException(409, "no hand is being read: photograph both piles first")
    asked = [q for q in read["questions"] + read["instead"] if q["kind"] == body.kind and
             (q.get("card") == card if body.kind == "which_pile" else q.get("side") == body.side
              if body.kind in ("count", "pile_size") else q.get("side") == body.side and q.get("sighting") == body.sighting)]
    if not asked:
        raise HTTPException(409, "that question is no longer open (another device may have answered it)")
    choices = asked[0]["choices"]
    value = "none" if card == "NONE" else card.lower() if body.kind == "count" else card
    wanted = body.side if body.kind == "which_pile" else value
    # A read may show a card the reader did not offer: the players then name it from the whole deck.
    named = body.kind == "which_card" and value in {"none", *(i for i, _ in rules.game(session["game"]).deck)}
    if wanted not in choices and not named:
        raise HTTPException(422, f"{wanted!r} is not one of the choices ({', '.join(choices)})"
                            + (" nor a card of this game" if body.kind == "which_card" else ""))
    answer = {"kind": body.kind, "side": body.side, "card": value, "sighting": body.sighting}
    if body.kind == "which_card":   # about a read of this photo: a photo taken again has reads of its own
        answer["capture"] = state[f"{body.side}_capture"]
    handread.add_answer(c.store, session, state["after_capture"], answer)
    events.changed("hand_state")
    return handread.hand_read(c.store, session, state) or {}


@router.post("/hand/answer", dependencies=[Depends(require_write)])
def answer_form(c: Ctx, session: Evening, kind: Annotated[str, Form()], side: Annotated[str, Form()],
                card: Annotated[str, Form()], sighting: Annotated[str, Form()] = "", then: Annotated[str, Form()] = ""):
    try:
        body = AnswerBody(kind=kind, side=side, card=card, sighting=int(sighting) if sighting.isdigit() else None)
    except ValueError as exc:
        raise HTTPException(422, f"not an answer: {exc}") from None
    _answer(c, session, body)
    # a tap behind a better photo: the page keeps those taps open for the next one
    return RedirectResponse("/capture?instead=1" if then == "instead" else "/capture", status_code=303)


@router.post("/api/hand/answers", dependencies=[Depends(require_write)])
def answer_api(body: AnswerBody, c: Ctx, session: Evening):
    read = _answer(c, session, body)
    return JSONResponse({k: v for k, v in read.items() if k != "json"})


@router.get("/api/hand")
def hand_api(c: Ctx, session: Evening):
    """The hand being counted, read as one hand: both sides' cards, Card Points and the open questions."""
    read = handread.hand_read(c.store, session, piles.hand_state(c.store, session))
    if read is None:
        return JSONResponse({"settled": False, "questions": [], "sides": None,
                             "why": "no pile read for this hand yet (photograph the piles)"})
    return JSONResponse({k: v for k, v in read.items() if k != "json"})
