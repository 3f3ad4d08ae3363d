"""The hand reader at the table: each photo's pile read kept beside its capture, both piles decoded as one hand,
and the players' answers to its questions.

A capture's pile read (vision.hand.PileRead as JSON) lives in the store's meta table under `pile.<capture id>`;
the answers for the hand being counted under `answers.<evening>.<after capture>` (so they end with the hand).
A capture the players corrected by hand counts as they left it: its corrected and added cards are sure reads,
its removed cards are gone, and its other cards keep the recogniser's doubts.
"""
from __future__ import annotations

import json
import logging
from typing import Any

import numpy as np

from device.storage import SIDES, Store

log = logging.getLogger(__name__)


def pile_key(capture_id: int) -> str:
    return f"pile.{capture_id}"


def read_photo(recogniser: Any, image: np.ndarray, game_id: str) -> tuple[list[dict], dict | None]:
    """The capture's recognitions and its pile read (None for a recogniser that only reads cards)."""
    import scoring
    from vision.hand import HandReader

    if not (hasattr(recogniser, "detect") and hasattr(recogniser, "classify")):
        return [r.to_json() for r in recogniser.recognise(image)], None
    game = scoring.find_game(game_id)
    pile = HandReader(recogniser).read_pile(image, game)
    return recognitions_of(pile, game), pile.to_json()


def recognitions_of(pile, game=None) -> list[dict]:
    """The photo's card list: each read's card with every deck card used once in the photo (given the game;
    a read whose likeliest card is surer elsewhere takes its next likeliest), flagged when unsure."""
    from vision.hand import photo_cards

    world = photo_cards(game, pile) if game is not None else {}
    out, seen = [], set()
    for k, s in enumerate(pile.sightings):
        top = next((c for c, _ in s.likely if c != "none"), None)
        card = world.get(k, top) if game is not None else top
        if card is None or card == "none":
            continue
        p = s.p(card)
        out.append({"id": card, "confidence": round(p, 4), "pips": s.pips,
                    "quad": [[round(x, 1), round(y, 1)] for x, y in s.quad],
                    "flagged": p < 0.9 or card in seen or card != top, "sighting": k})
        seen.add(card)
    return out


def save_pile(store: Store, capture_id: int, pile: dict | None) -> None:
    if pile is not None:
        store.set_meta(pile_key(capture_id), json.dumps(pile))


def _answers_prefix(session_id: int) -> str:
    return f"answers.{session_id}."


def _answers_key(session_id: int, after: int) -> str:
    return f"{_answers_prefix(session_id)}{after}"


def answers(store: Store, session: dict, after: int) -> list[dict]:
    raw = store.meta(_answers_key(session["id"], after))
    return json.loads(raw) if raw else []


def evening_answers(store: Store, session: dict) -> list[dict]:
    """Every answer kept this evening, for every hand counted or being counted."""
    return [a for raw in store.meta_prefix(_answers_prefix(session["id"])).values() for a in json.loads(raw)]


def add_answer(store: Store, session: dict, after: int, answer: dict) -> None:
    """Keep an answer (which_card: side, sighting, card and the capture whose read it is; which_pile: card,
    side; count: side, yes / no; pile_size: side, the number of cards); a newer one about the same read, card
    or pile replaces the older."""
    old = [a for a in answers(store, session, after) if _about(a) != _about(answer)]
    store.set_meta(_answers_key(session["id"], after), json.dumps(old + [answer]))


def _of_these_photos(answer: dict, state: dict) -> bool:
    """An answer about a read belongs to its photo: once that pile is photographed again it is void (answers
    kept before captures were recorded with them count for the photo there is)."""
    if answer.get("kind") != "which_card":
        return True
    now = state.get(f"{answer.get('side')}_capture")
    return answer.get("capture", now) == now


def _about(answer: dict) -> tuple:
    """What an answer is about: the read (which_card), the card (which_pile), or the pile (count, pile_size)."""
    kind = answer["kind"]
    if kind == "which_card":
        return kind, answer.get("side"), answer.get("sighting")
    if kind == "which_pile":
        return kind, answer.get("card")
    return kind, answer.get("side")


def _pile_of(store: Store, capture: dict):
    """The capture's pile read with the players' corrections applied, or None when it has none stored."""
    from vision.geometry import quad_frame
    from vision.hand import PileRead, Sighting

    raw = store.meta(pile_key(capture["id"]))
    if raw is None:
        return None
    pile = PileRead.from_json(json.loads(raw))
    if not store.corrections(capture["id"]):
        return pile
    kept = []
    for card in capture["cards"]:
        if card["removed"]:
            continue
        k = card.get("sighting")
        if card["source"] == "model" and k is not None and k < len(pile.sightings):
            kept.append(pile.sightings[k])
            continue
        centre, up, height = quad_frame(card.get("quad") or [[0, 0], [1, 0], [1, 1], [0, 1]])
        kept.append(Sighting.named(card["id"], int(card.get("pips") or 0), centre, up, height))
    pile.sightings = kept
    pile.gaps = []      # the players looked at this pile
    return pile


def trick_cards(session: dict) -> int | None:
    """Cards in each trick at this evening's table (None: the game's rules here do not say)."""
    import scoring

    return scoring.find_game(session["game"]).trick_cards(len(session["players"]))


def count_warning(game, trick: int | None, talon: int | None, contract: str | None, held: int) -> str | None:
    """Where the players said the Talon cards (`talon`, or the `contract` that says them) and the Declarer's pile,
    as read, `held` cards that whole tricks of `trick` and those cards cannot make: the contract said may be wrong
    (then so is the score), or a card was read twice or missed. None when it fits or nothing was said."""
    if trick is None or talon is None:
        return None
    sizes = game.pile_sizes(trick, talon)
    if held in sizes:
        return None
    near = sorted(sorted(sizes, key=lambda k: (abs(k - held), k))[:2])
    said = dict(game.contracts).get(contract) if contract else f"{talon} cards without a trick"
    return (f"The Declarer's pile holds {held} cards, but with {said} and tricks of {trick} cards it should hold "
            f"{' or '.join(map(str, near))}: check the contract, or look for a card read twice or missed.")


def hand_read(store: Store, session: dict, state: dict) -> dict | None:
    """The hand being counted, read as one hand: {"sides": {side: {"cards", "points"}}, "questions",
    "settled", "json"}; None when a photographed side has no pile read (manual cards, a fake recogniser)."""
    import scoring
    from vision.hand import Answer, decode

    game = scoring.find_game(session["game"])
    captures = {side: store.get_capture(state[f"{side}_capture"]) for side in SIDES
                if state.get(f"{side}_capture") is not None}
    given_raw = [a for a in answers(store, session, state["after_capture"]) if _of_these_photos(a, state)]
    # Every open page asks again after each change: the same hand read is worked out once.
    trick = trick_cards(session)
    talon = state.get("talon") if state.get("talon") is not None else game.unsaid_talon()
    sizes = game.pile_sizes(trick, talon) if trick is not None and talon is not None else None
    key = (store_key(store), session["id"], session["game"], bool(state.get("rest_is_theirs")), sizes,
           json.dumps(given_raw, sort_keys=True),
           tuple((s, c["id"], c["created_at"], c["photo"], len(store.corrections(c["id"])), c["side"],
                  hash(store.meta(pile_key(c["id"])) or ""))    # read again after a switch of releases
                 for s, c in captures.items()))
    if key in _CACHE:
        return _CACHE[key]
    piles = {}
    for side, capture in captures.items():
        pile = _pile_of(store, capture)
        if pile is None:
            return None
        piles[side] = pile
    rest = None
    if len(piles) == 1 and state.get("rest_is_theirs"):
        rest = next(s for s in SIDES if s not in piles)
    if not piles or (len(piles) == 1 and rest is None):
        return None
    given = [Answer(a["kind"], a["side"], a["card"], a.get("sighting")) for a in given_raw]
    try:
        hand = decode(game, piles, rest=rest, answers=given, sizes=sizes)
    except ValueError as exc:
        log.warning("hand reader: %s", exc)
        return None
    if len(_CACHE) >= 32:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = out = {
        "sides": {s: {"cards": v.ids(), "unsure": [c.card_id for c in v.cards if c.unsure],
                      "points": game.format(v.card_points) if v.card_points is not None else None}
                  for s, v in hand.sides.items()},
        "questions": [q.to_json() for q in hand.questions],
        "instead": [q.to_json() for q in hand.instead],    # taps behind a better photo
        "settled": hand.settled,
        "json": hand.to_json(game),
    }
    return out


_CACHE: dict = {}


def store_key(store: Store) -> str:
    """Which store a cached hand read belongs to (tests open many; a capture's time and photo tell apart
    captures of one id in two stores)."""
    return str(getattr(store, "path", id(store)))
