"""Checks of a hand against its evening, run before a hand is scored or stored, by the Hand form and by the
JSON hand API alike: players the evening does not have, absurd radli and kontra, and facts that contradict
each other. Each check raises `HandFormatError(field, message)`, and the message names both facts."""

from __future__ import annotations

from device.web import scoring_adapter as rules
from scoring import HandFormatError

SIDES = ("declarer", "defenders")
SIDE_WORDS = {"declarer": "the Declarer's side", "defenders": "the Defenders"}
PAGAT_OF = {"declarer": "the Pagat of the Declarer's side", "defenders": "the Defenders' Pagat"}
# Fields holding one player's name (as in scoring/schema/<game>.schema.json).
PLAYER_FIELDS = (
    "declarer",
    "partner",
    "moon_lost_by",
    "dealer",
    "skus_dealt_to",
    "dodge_round_loser",
    "dodge_round_winner",
    "challenger",
)
# Fields mapping players to a value.
PLAYER_MAPS = ("radli", "dodge_round", "tarok_declarations")
# A radli is opened by a Dodge Round or a Valat, at most a few a hand; an evening of about 40 hands that
# leaves one player more than this open has been mistyped.
MAX_RADLI = 40
TRULL = ("T1", "T21", "SKUS")  # Pagat, Mond, Skus


def checked_hand(hand: object, session: dict) -> dict:
    """The one door for a hand on its way to the scorer and the store, from the form and the JSON API alike:
    its shape (device.web.validate.hand_shape: schema keys, bounded strings and numbers, deck card ids),
    then `check_hand`. Returns the hand to score and store; raises HandFormatError."""
    from device.web.validate import hand_shape

    hand = hand_shape(hand, session["game"])
    check_hand(hand, session)
    return hand


def check_hand(hand: dict, session: dict) -> None:
    """Raise HandFormatError for the first thing wrong with `hand` in this evening; return None if none.

    >>> evening = {"game": "slovenian", "players": ["Ana", "Bor", "Cene", "Dora"]}
    >>> check_hand({"declarer": "Ana", "partner": "Ana", "contract": "three"}, evening)
    Traceback (most recent call last):
    ...
    scoring.result.HandFormatError: partner: Ana is the Declarer; the Declarer cannot be their own Partner (choose "none (alone)")
    """
    if not isinstance(hand, dict):
        raise HandFormatError("hand", "expected a JSON object")
    game = rules.game(session["game"])
    players = list(session["players"])
    named = ", ".join(players)
    listed = hand.get("players", players)
    if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
        raise HandFormatError("players", f"expected a list of names; this evening's players: {named}")
    if unknown := [p for p in listed if p not in players]:
        raise HandFormatError("players", f"{', '.join(map(repr, unknown))} not at this table; players: {named}")
    for key in PLAYER_FIELDS:
        value = hand.get(key)
        if value is not None and value not in players:
            raise HandFormatError(key, f"{value!r} is not a player; players: {named}")
    for key in PLAYER_MAPS:
        value = hand.get(key)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise HandFormatError(key, "expected an object of player: value")
        if unknown := [p for p in value if p not in players]:
            raise HandFormatError(f"{key}.{unknown[0]}", f"{unknown[0]!r} is not a player; players: {named}")
    for player, n in (hand.get("radli") or {}).items():
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_RADLI:
            raise HandFormatError(
                f"radli.{player}", f"{n!r} open radli: expected a whole number from 0 to {MAX_RADLI}"
            )
    if hand.get("march") not in (None, *SIDES):
        raise HandFormatError("march", f"expected one of {', '.join(SIDES)}")
    kontra = hand.get("kontra") or {}
    if not isinstance(kontra, dict):
        raise HandFormatError("kontra", "expected an object of item: level")
    for item, level in kontra.items():
        if level not in game.form.kontra or isinstance(level, bool):
            levels = ", ".join(map(str, game.form.kontra)) or "none (this game has no kontra)"
            raise HandFormatError(f"kontra.{item}", f"{level!r}: expected one of {levels}")
    check_facts(hand)


def check_facts(hand: dict) -> None:
    """Facts of one hand that cannot both be true: the message names both."""
    declarer, partner = hand.get("declarer"), hand.get("partner")
    if declarer is not None and partner == declarer:
        raise HandFormatError(
            "partner",
            f'{partner} is the Declarer; the Declarer cannot be their own Partner (choose "none (alone)")',
        )
    bonuses = [b for b in hand.get("bonuses") or [] if isinstance(b, dict)]
    pagat = (hand.get("last_trick") or {}).get("pagat") if isinstance(hand.get("last_trick"), dict) else None
    pagat_side = None  # the side whose pile holds the Pagat, when the last trick says so
    if isinstance(pagat, dict) and pagat.get("side") in SIDES and isinstance(pagat.get("won"), bool):
        pagat_side = pagat["side"] if pagat["won"] else _other(pagat["side"])
        pagat_fact = f"{PAGAT_OF[pagat['side']]} {'won' if pagat['won'] else 'lost'} the last trick"
        for b in bonuses:
            if b.get("bonus") == "trull" and b.get("made", True) and b.get("side") == _other(pagat_side):
                raise HandFormatError(
                    "last_trick.pagat",
                    f"{SIDE_WORDS[b['side']]} made the Trull, but {pagat_fact}, so the Pagat lies in the "
                    f"pile of {SIDE_WORDS[pagat_side]}",
                )
    piles = hand.get("piles")
    if not isinstance(piles, dict):
        return
    holder = {card: side for side in SIDES for card in piles.get(side) or () if isinstance(card, str)}
    if pagat_side is not None and holder.get("T1") not in (None, pagat_side):
        raise HandFormatError(
            "last_trick.pagat",
            f"{pagat_fact}, so the Pagat belongs in the pile of {SIDE_WORDS[pagat_side]}, but the photographed "
            f"pile of {SIDE_WORDS[holder['T1']]} holds it",
        )
    for b in bonuses:
        if b.get("bonus") == "trull" and b.get("made", True) and b.get("side") in SIDES:
            elsewhere = [c for c in TRULL if holder.get(c) == _other(b["side"])]
            if elsewhere and not b.get("announced"):
                raise HandFormatError(
                    "bonuses",
                    f"{SIDE_WORDS[b['side']]} made the Trull silently, but the photographed pile of "
                    f"{SIDE_WORDS[_other(b['side'])]} holds {', '.join(rules.card_name(c) for c in elsewhere)}",
                )


def _other(side: str) -> str:
    return "defenders" if side == "declarer" else "declarer"
