"""The web's one door into `scoring`.

Everything the pages need from the rules goes through here, so that when a piece of `scoring`
lands (hand scoring per game, `score_sheet`) only this file changes. Where the real piece is
missing, a small stand-in marked `FALLBACK` keeps the pages working; `fallbacks()` lists which
are in use and the Settings page shows it, so nobody mistakes a stand-in score for the rules.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import scoring

HAND_ERRORS: tuple[type[Exception], ...] = (
    scoring.HandFormatError,
    scoring.IllegalHandError,
    scoring.UnknownCardError,
    ValueError,
)
SYSTEMS = ("simplified", "traditional")
KONTRA_LEVELS = (1, 2, 4, 8, 16)


@dataclass(frozen=True, slots=True)
class GameView:
    """What a form needs of a game: ids and display names only."""

    id: str
    name: str
    players: tuple[int, ...]
    deck: tuple[tuple[str, str], ...]  # (card id, name) in deck order
    contracts: tuple[tuple[str, str], ...]
    bonuses: tuple[tuple[str, str], ...]
    total: str


def games() -> list[tuple[str, str]]:
    return [(g.id, g.name) for g in scoring.GAMES.values()]


def game(game_id: str) -> GameView:
    g = scoring.find_game(game_id)
    return GameView(
        id=g.id,
        name=g.name,
        players=tuple(g.players),
        deck=tuple((c.id, c.name) for c in g.deck),
        contracts=tuple(g.contracts) or _FALLBACK_CONTRACTS,
        bonuses=tuple(g.bonuses) or _FALLBACK_BONUSES,
        total=g.format(g.total),
    )


def card_name(card_id: str) -> str:
    try:
        return scoring.card(card_id).name
    except ValueError:
        return card_id


def card_pips(card_id: str) -> int | None:
    try:
        return scoring.card(card_id).pips
    except ValueError:
        return None


def count(game_id: str, card_ids: list[str]) -> tuple[str | None, str | None]:
    """(Card Points in the game's notation, None) or (None, why the pile cannot be counted)."""
    g = scoring.find_game(game_id)
    try:
        return g.format(g.count(card_ids)), None
    except HAND_ERRORS as exc:
        return None, str(exc)


def rest_of_deck(game_id: str, card_ids: list[str]) -> list[str]:
    """'The rest is theirs': every card of the game's deck not in `card_ids`."""
    taken = set(card_ids)
    return [c.id for c in scoring.find_game(game_id).deck if c.id not in taken]


def pile_check(game_id: str, declarer: list[str], defenders: list[str]) -> dict:
    """Missing, duplicated and foreign cards over both piles, for the players to put right."""
    g = scoring.find_game(game_id)
    deck_ids = {c.id for c in g.deck}
    seen = Counter(declarer) + Counter(defenders)
    return {
        "missing": [c.id for c in g.deck if c.id not in seen],
        "duplicated": [c for c, n in seen.items() if n > 1 and c in deck_ids],
        "foreign": sorted(c for c in seen if c not in deck_ids),
    }


def suggestions(game_id: str, piles: dict[str, list[str]]) -> list[dict]:
    """Bonuses the piles show were taken (Trull, all four Kings, Valat), as unannounced bonus entries."""
    g = scoring.find_game(game_id)
    known = {b for b, _ in (tuple(g.bonuses) or _FALLBACK_BONUSES)}
    deck = {c.id for c in g.deck}
    # The games name the Kings bonus "kings" (Slovenian) or "four_kings" (Hungarian, Calling the King).
    wanted = (
        (("trull",), {"T1", "T21", "SKUS"}),
        (("kings", "four_kings"), {"HK", "DK", "CK", "SK"}),
        (("valat",), deck),
    )
    out = []
    for side, pile in piles.items():
        have = set(pile)
        for ids, needed in wanted:
            bonus = next((b for b in ids if b in known), None)
            if bonus and needed <= have:
                out.append({"bonus": bonus, "side": side, "announced": False, "made": True})
    return out


def score_hand(hand: dict, options: dict | None = None) -> dict:
    """HandResult.to_json() of the real scorer, or the FALLBACK stand-in while the game has none."""
    g = scoring.find_game(str(hand.get("game", "")))
    if g.score is not None:
        return scoring.score_hand(hand, options).to_json()
    return _fallback_score_hand(g, hand)


def result_field(game_id: str) -> str:
    """The hand field saying whether a contract that counts no Card Points was won."""
    # Calling the King names it contract_made; the other games say won.
    return "contract_made" if scoring.find_game(game_id).id == "koenigrufen" else "won"


def _real_score_sheet():
    real = getattr(scoring, "score_sheet", None)
    if real is None:
        try:
            from scoring.session import score_sheet as real
        except ImportError:
            return None
    return real


def score_sheet(
    game_id: str, players: list[str], hands: list[dict], system: str, options: dict | None = None
) -> dict:
    real = _real_score_sheet()
    if real is not None:
        return real(game_id, players, hands, system, options)
    return _fallback_score_sheet(game_id, players, hands, system, options)


def fallbacks() -> list[str]:
    """Which stand-ins are in use right now (empty once `scoring` is complete)."""
    out = [f"hand scoring for {g.name}" for g in scoring.GAMES.values() if g.score is None]
    out += [f"contract list for {g.name}" for g in scoring.GAMES.values() if not g.contracts]
    if _real_score_sheet() is None:
        out.append("score sheet (totals only; no radli, no session end)")
    return out


# -- FALLBACK: stand-ins until `scoring` provides them; simple Slovenian-style tariffs -----------
_FALLBACK_CONTRACTS = (
    ("three", "Three"),
    ("two", "Two"),
    ("one", "One"),
    ("solo_three", "Solo three"),
    ("solo_two", "Solo two"),
    ("solo_one", "Solo one"),
    ("beggar", "Beggar"),
    ("solo_without", "Solo without"),
    ("valat", "Valat"),
)
_FALLBACK_BONUSES = (
    ("trull", "Trull"),
    ("kings", "All four Kings"),
    ("pagat_ultimo", "Pagat Ultimo"),
    ("king_ultimo", "King Ultimo"),
    ("valat", "Valat"),
)
_CONTRACT_VP = {
    "three": 10,
    "two": 20,
    "one": 30,
    "solo_three": 40,
    "solo_two": 50,
    "solo_one": 60,
    "beggar": 70,
    "solo_without": 80,
    "valat": 250,
}
_BONUS_VP = {"trull": 10, "kings": 10, "pagat_ultimo": 25, "king_ultimo": 10, "valat": 250}


def _fallback_score_hand(g, hand: dict) -> dict:
    players = list(hand.get("players") or [])
    declarer, partner = hand.get("declarer"), hand.get("partner")
    if declarer not in players:
        raise scoring.HandFormatError("declarer", f"{declarer!r} is not a player")
    if partner is not None and partner not in players:
        raise scoring.HandFormatError("partner", f"{partner!r} is not a player")
    contract = hand.get("contract")
    if contract not in _CONTRACT_VP:
        raise scoring.HandFormatError(
            "contract", f"unknown contract {contract!r}; known: {', '.join(_CONTRACT_VP)}"
        )
    if hand.get("card_points") not in (None, ""):
        points = g.parse_points(hand["card_points"])
    else:
        points = g.count((hand.get("piles") or {}).get("declarer") or [])
    won = points >= g.to_win
    diff = int(5 * round(abs(points - g.total / 2) / 5))
    kontra = hand.get("kontra") or {}
    base = (_CONTRACT_VP[contract] + diff) * int(kontra.get("contract", 1))
    ledger = [
        {
            "step": "Contract",
            "detail": f"{contract}: {_CONTRACT_VP[contract]} + difference {diff}"
            f" x kontra {kontra.get('contract', 1)}, {'won' if won else 'lost'} with {g.format(points)}",
        }
    ]
    total = base if won else -base
    for b in hand.get("bonuses") or []:
        value = (
            _BONUS_VP.get(b.get("bonus"), 0)
            * (2 if b.get("announced") else 1)
            * int(kontra.get(b.get("bonus"), 1))
        )
        sign = (1 if b.get("side") == "declarer" else -1) * (1 if b.get("made", True) else -1)
        if b.get("made", True) or b.get("announced"):
            total += sign * value
            ledger.append({"step": f"Bonus {b.get('bonus')}", "detail": f"{sign * value:+d}"})
    side = [p for p in (declarer, partner) if p]
    simplified = {p: (total if p in side else 0) for p in players}
    others = [p for p in players if p not in side]
    per = total * len(others) // max(len(side), 1) if others else total
    traditional = {p: (per if p in side else -total) for p in players}
    ledger.append(
        {"step": "Total", "detail": f"{total:+d} (FALLBACK scoring: the rules module is not ready)"}
    )
    return {
        "game": g.id,
        "simplified": simplified,
        "traditional": traditional,
        "traditional_unit": "VP",
        "ledger": ledger,
    }


def _fallback_score_sheet(
    game_id: str, players: list[str], hands: list[dict], system: str, options: dict | None
) -> dict:
    totals = {p: 0 for p in players}
    rows = []
    for i, hand in enumerate(hands):
        scores = score_hand(hand, options)[system]
        for p, v in scores.items():
            totals[p] = totals.get(p, 0) + Fraction(str(v))
        rows.append({"hand": i + 1, "scores": scores, "totals": {p: _num(v) for p, v in totals.items()}})
    return {
        "totals": {p: _num(v) for p, v in totals.items()},
        "rows": rows,
        "radli": {},
        "end": {"hands": len(hands), "rounds_of_four": len(hands) // 4 if len(players) == 4 else None},
        "settlement": {p: _num(v) for p, v in totals.items()} if system == "traditional" else None,
    }


def _num(v) -> int | str:
    v = Fraction(v)
    return int(v) if v.denominator == 1 else scoring.format_points(v)
