"""Checks on what players and API clients send, before anything is stored (issue 16).

* `hand_shape(hand, game_id)`: what `hand_checks.check_hand` (players, radli, kontra, contradicting facts) leaves
  out: only keys the game's schema documents, bounded strings, finite and bounded numbers (no NaN), card ids of
  the game's deck (upper-cased). Returns the hand to score and store.
* `player_name(name)` / `player_names(names)`: no control characters (NUL), no bidi overrides, no commas, at most
  MAX_NAME characters.
* `finite_tariffs(tariffs)`: no NaN or infinite number anywhere in the overrides.
* `csv_cell(value)` / `csv_row(values)`: a text cell that a spreadsheet would run as a formula is quoted.

Each refusal raises scoring.HandFormatError(field, message), a ValueError, which the routes already answer
with 422 naming the field.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from functools import cache
from pathlib import Path

import scoring
from scoring import HandFormatError

SCHEMA_DIR = Path(scoring.__file__).parent / "schema"
MAX_NAME = 40
MAX_TEXT = 200  # any one string in a hand
MAX_NUMBER = 10_000  # any one number in a hand (Card Points, declarations, bonus values)
SIDES = ("declarer", "defenders")
# Bidi embeddings, overrides and isolates: they reorder the text around them (a name that shows as "Ana"
# while it sorts and compares as something else), so names may not hold them.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?( \d+/\d+)?$")


@cache
def hand_keys(game_id: str) -> frozenset[str]:
    """The keys a hand of this game may hold: those its schema and the common hand schema document."""
    keys: set[str] = set()
    for name in ("hand.schema.json", f"{game_id}.schema.json"):
        path = SCHEMA_DIR / name
        if path.is_file():
            keys |= set(json.loads(path.read_text(encoding="utf-8")).get("properties", {}))
    keys |= {"card_points", "piles", "bonuses", "kontra", "last_trick", "won"}
    return frozenset(keys)


def hand_shape(hand: object, game_id: str) -> dict:
    """The shape of a hand a JSON client sent, before `hand_checks.check_hand` judges it against the evening:
    only keys the game's schema documents, bounded strings and finite, bounded numbers, and card ids of the
    game's deck (upper-cased). Returns a copy with the piles normalised; raises HandFormatError."""
    if not isinstance(hand, dict):
        raise HandFormatError("body", "expected a JSON object (the hand)")
    game = scoring.find_game(game_id)
    unknown = sorted(set(hand) - hand_keys(game.id) - {"radli"})
    if unknown:
        raise HandFormatError(unknown[0], f"not a field of a {game.name} hand; known: "
                                          f"{', '.join(sorted(hand_keys(game.id)))}")
    out = dict(hand)
    _bounded(out, "")
    if "piles" in out:
        out["piles"] = _piles(out["piles"], game)
    if isinstance(out.get("dodge_round"), dict):
        out["dodge_round"] = {
            name: ({**entry, "pile": _cards(entry["pile"], game, f"dodge_round.{name}.pile")}
                   if isinstance(entry, dict) and "pile" in entry else entry)
            for name, entry in out["dodge_round"].items()
        }
    return out


def _piles(piles: object, game) -> dict:
    if not isinstance(piles, dict):
        raise HandFormatError("piles", "expected {\"declarer\": [card ids], \"defenders\": [card ids]}")
    for side in piles:
        if side not in SIDES:
            raise HandFormatError(f"piles.{side}"[:80], f"expected {' or '.join(SIDES)}")
    return {side: _cards(cards, game, f"piles.{side}") for side, cards in piles.items()}


def _cards(cards: object, game, field: str) -> list[str]:
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise HandFormatError(field, "expected a list of card ids")
    if len(cards) > len(game.deck):
        raise HandFormatError(field, f"{len(cards)} cards; the {game.name} deck has {len(game.deck)}")
    deck = {c.id for c in game.deck}
    out = []
    for card in cards:
        card_id = card.strip().upper()
        if card_id not in deck:
            raise HandFormatError(field, f"{_show(card)} is not a card of the {game.name} deck")
        out.append(card_id)
    return out


def _bounded(value: object, field: str, depth: int = 0) -> None:
    """No string over MAX_TEXT, no number that is not finite or over MAX_NUMBER, no deep nesting."""
    where = field or "body"
    if depth > 6:
        raise HandFormatError(where, "nested too deeply")
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise HandFormatError(where, f"{len(value)} characters; at most {MAX_TEXT}")
        if any(unicodedata.category(ch) == "Cc" for ch in value):
            raise HandFormatError(where, "contains control characters")
    elif isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            raise HandFormatError(where, "must be a finite number")
        if abs(value) > MAX_NUMBER:
            raise HandFormatError(where, f"{value} is out of range (at most {MAX_NUMBER})")
    elif isinstance(value, dict):
        if len(value) > 64:
            raise HandFormatError(where, "too many entries")
        for key, item in value.items():
            _bounded(str(key), where, depth + 1)
            _bounded(item, f"{field}.{key}" if field else str(key), depth + 1)
    elif isinstance(value, list):
        if len(value) > 64:
            raise HandFormatError(where, "too many entries")
        for i, item in enumerate(value):
            _bounded(item, f"{where}[{i}]", depth + 1)
    else:
        raise HandFormatError(where, f"unexpected {type(value).__name__}")


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def player_name(name: object, field: str = "players") -> str:
    """A player's name as stored: NFC, trimmed; refuses empty, over-long, control characters, bidi
    controls and commas (the Settings form lists names separated by commas)."""
    if not isinstance(name, str):
        raise HandFormatError(field, "a name must be text")
    text = unicodedata.normalize("NFC", name).strip()
    if not text:
        raise HandFormatError(field, "a name cannot be empty")
    if len(text) > MAX_NAME:
        raise HandFormatError(field, f"name {_show(text)} has {len(text)} characters; at most {MAX_NAME}")
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text):
        raise HandFormatError(field, f"name {_show(text)} contains control characters")
    if any(ch in BIDI_CONTROLS for ch in text):
        raise HandFormatError(field, f"name {_show(text)} contains text-direction controls")
    if "," in text:
        raise HandFormatError(field, f"name {_show(text)} contains a comma (names are listed with commas)")
    return text


def player_names(names: object, field: str = "players") -> list[str]:
    if not isinstance(names, list) or not 2 <= len(names) <= 8:
        raise HandFormatError(field, "expected 2 to 8 names")
    out = [player_name(n, field) for n in names]
    folded = [n.casefold() for n in out]
    if len(set(folded)) != len(folded):
        raise HandFormatError(field, "two players have the same name")
    return out


def finite_tariffs(tariffs: object, field: str = "tariffs") -> None:
    """Refuse NaN and infinite numbers anywhere in a tariff override (they break every later sum)."""
    if isinstance(tariffs, bool) or tariffs is None or isinstance(tariffs, str):
        return
    if isinstance(tariffs, (int, float)):
        if isinstance(tariffs, float) and not math.isfinite(tariffs):
            raise HandFormatError(field, f"{tariffs} is not a finite number")
        return
    if isinstance(tariffs, dict):
        for key, value in tariffs.items():
            finite_tariffs(value, f"{field}.{key}")
        return
    if isinstance(tariffs, (list, tuple)):
        for i, value in enumerate(tariffs):
            finite_tariffs(value, f"{field}[{i}]")
        return
    raise HandFormatError(field, f"unexpected {type(tariffs).__name__}")


def csv_cell(value: object) -> object:
    """A CSV cell a spreadsheet shows as typed: text starting with = + - @ (or a tab or carriage return) gets
    a leading apostrophe, so it is not run as a formula. Numbers, and text that is a plain number ("-14",
    "12 1/3"), are left alone."""
    if isinstance(value, str) and value.startswith(FORMULA_START) and not _PLAIN_NUMBER.match(value):
        return "'" + value
    return value


def csv_row(values) -> list:
    return [csv_cell(v) for v in values]
