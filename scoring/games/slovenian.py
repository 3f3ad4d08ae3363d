"""Slovenian Tarok: 54 cards, four (or three) players, count in threes rounded, 70 Card Points.

Only the Declarer's side scores, plus when the contract is won and minus when it is lost; the player who
loses the Moon scores a minus in their own column; in the Dodge Round everyone scores their own result.
Both systems use the same steps: Simplified values (doc 002/004) and native values (doc 000, x5).
The traditional zero-sum step (distance from the group's average) belongs to the session, not the hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from math import floor
from typing import Any

from scoring.counters import count_thirds_rounded
from scoring.deck import DECK
from scoring.game import Game
from scoring.games import slovenian_hand
from scoring.games.slovenian_session import session_end
from scoring.games.slovenian_tariff import BONUSES, CONTRACTS, TARIFF, Kind, tariff
from scoring.result import HandResult, LedgerStep, points_json
from scoring.settlement import settle_by_average

SYSTEMS = ("simplified", "traditional")
PAR = Fraction(35)  # the distance is measured from 35 Card Points


def nearest_five(card_points: Fraction) -> int:
    """Card Points rounded to the nearest five, counted in fives (halves away from zero).

    >>> nearest_five(Fraction(12))   # 47 - 35 = 12 rounds to 10: two fives
    2
    >>> nearest_five(Fraction(13))
    3
    """
    sign = -1 if card_points < 0 else 1
    return sign * floor(abs(Fraction(card_points)) / 5 + Fraction(1, 2))


def score(hand: dict, options: Mapping[str, Any] | None = None) -> HandResult:
    """Score one hand of Slovenian Tarok under both systems, with the worked example's ledger.

    Document 000: Anna's Two won with 47 Card Points, Clara her Partner, silent King Ultimo, Ben lost the
    Moon.

    >>> r = score({"game": "slovenian", "players": ["Anna", "Ben", "Clara", "Dora"], "declarer": "Anna",
    ...     "partner": "Clara", "contract": "two", "card_points": "47", "moon_lost_by": "Ben",
    ...     "bonuses": [{"bonus": "king_ultimo", "side": "declarer", "announced": False, "made": True}]})
    >>> r.to_json()["simplified"], r.to_json()["traditional"]
    ({'Anna': 8, 'Ben': -4, 'Clara': 8, 'Dora': 0}, {'Anna': 40, 'Ben': -20, 'Clara': 40, 'Dora': 0})
    """
    t = tariff(options)
    h = slovenian_hand.read(hand, GAME, t["rules"])
    steps = _dodge_steps(h, t) if h.contract.kind is Kind.DODGE else _steps(h, t)
    after, radli_step = _radli_after(h, t["rules"])
    if radli_step:
        steps.append(radli_step)
    totals = {
        s: {p: sum((Fraction(getattr(st, s).get(p, 0)) for st in steps), Fraction(0)) for p in h.players}
        for s in SYSTEMS
    }
    facts: dict[str, Any] = {"contract": h.contract.id, "won": h.won, "radli_before": dict(h.radli)}
    if h.card_points is not None:
        facts["card_points"] = GAME.format(h.card_points)
    if t["rules"]["radli"]:
        facts["radli"] = after
    # Doc 000 settles once, "as if the evening ended after this hand": distance from the average.
    facts["settlement_if_ended_now"] = {
        p: points_json(v) for p, v in settle_by_average(totals["traditional"]).items()
    }
    return HandResult(
        game=GAME.id,
        simplified=totals["simplified"],
        traditional=totals["traditional"],
        ledger=tuple(steps),
        facts=facts,
    )


def _step(
    name: str, detail: str, players: tuple[str, ...], values: Mapping[str, Mapping[str, Fraction]]
) -> LedgerStep:
    """A ledger line; `values[system]` gives points for some players, the rest score 0."""
    return LedgerStep(
        name, detail, **{s: {p: Fraction(values[s].get(p, 0)) for p in players} for s in SYSTEMS}
    )


def _doubling(h: slovenian_hand.SlovenianHand, rules: Mapping[str, Any]) -> tuple[int, str]:
    """The radl factor: an open circle of the Declarer doubles the hand for the Declarer and the Partner."""
    if rules["radli"] and h.radli.get(h.declarer, 0) > 0:
        return 2, f"; x2 for {h.declarer}'s open circle (radl)"
    return 1, ""


def _steps(h: slovenian_hand.SlovenianHand, t: Mapping[str, Any]) -> list[LedgerStep]:
    radl, radl_note = _doubling(h, t["rules"])
    side, sign = h.side, (1 if h.won else -1)
    steps: list[LedgerStep] = []

    def side_step(name: str, detail: str, per_system: Mapping[str, Fraction]) -> None:
        steps.append(
            _step(
                name,
                detail + radl_note,
                h.players,
                {s: {p: per_system[s] * radl for p in side} for s in SYSTEMS},
            )
        )

    valat = next((b for b in h.bonuses if b.bonus == "valat" and b.made), None)
    if valat is not None:
        # "When a Valat is won, nothing else is scored in that hand: no distance and no other bonuses."
        _bonus_step(valat, t, side_step, note="; nothing else is scored in this hand")
        return steps
    k = h.kontra
    k_note = f"; x{k} kontra" if k > 1 else ""
    value = {s: Fraction(t[s]["contracts"][h.contract.id]) * sign * k for s in SYSTEMS}
    who = " and ".join(side)
    side_step(
        f"{h.contract.name.split(' (')[0]} {'won' if h.won else 'lost'}",
        f"contract value {t['simplified']['contracts'][h.contract.id]} VP "
        f"(native {t['traditional']['contracts'][h.contract.id]}), {'plus' if h.won else 'minus'} for {who}"
        + k_note,
        value,
    )
    if h.contract.kind in (Kind.CALLED, Kind.SOLO):
        diff = h.card_points - PAR
        exact = t["rules"]["exact_distance_three_players"] and len(h.players) == 3
        fives = abs(diff) / 5 if exact else abs(nearest_five(diff))
        how = "exactly" if exact else f"rounded to the nearest five: {abs(nearest_five(diff)) * 5}"
        side_step(
            "Distance",
            f"{_fmt(h.card_points)} - 35 = {_fmt(diff)} Card Points, {how}" + k_note,
            {s: fives * t[s]["distance_per_five"] * sign * k for s in SYSTEMS},
        )
    for b in h.bonuses:
        _bonus_step(b, t, side_step)
    if h.moon_lost_by:
        key = str(len(h.players))
        steps.append(
            _step(
                "Moon lost",
                f"{h.moon_lost_by} lost the Moon: minus in their own column, never doubled",
                h.players,
                {s: {h.moon_lost_by: -Fraction(t[s]["moon"][key])} for s in SYSTEMS},
            )
        )
    return steps


def _bonus_step(b: slovenian_hand.Bonus, t: Mapping[str, Any], side_step, note: str = "") -> None:
    """Plus when the Declarer's side earns a bonus or the Defenders fail one; minus the other way round."""
    key = ("" if b.made else "failed_") + ("announced" if b.announced else "silent")
    if t["simplified"]["bonuses"][b.bonus][key] == 0:
        return  # a silent Trull, Kings or Valat that is not made scores nothing
    sign = (1 if b.side == "declarer" else -1) * (1 if b.made else -1)
    name = BONUSES[b.bonus].split(" (")[0]
    label = f"{name}, {'announced' if b.announced else 'silent'}{'' if b.made else ', failed'}"
    by = "the Declarer's side" if b.side == "declarer" else "the Defenders"
    detail = f"{'earned' if b.made else 'failed'} by {by}" + (f"; x{b.kontra} kontra" if b.kontra > 1 else "")
    side_step(
        label, detail + note, {s: Fraction(t[s]["bonuses"][b.bonus][key]) * sign * b.kontra for s in SYSTEMS}
    )


def _dodge_steps(h: slovenian_hand.SlovenianHand, t: Mapping[str, Any]) -> list[LedgerStep]:
    """Everyone scores their own result; an open circle doubles the player's own result."""
    steps = []
    over = [p for p, cp in h.dodge.items() if cp > t["simplified"]["dodge_round"]["limit"]]
    for p in over or h.players:
        radl = 2 if t["rules"]["radli"] and h.radli.get(p, 0) > 0 else 1
        note = "; x2 for an open circle (radl)" if radl == 2 else ""
        cp = h.dodge[p]
        if over:
            detail = f"{_fmt(cp)} Card Points, over 35: minus the full value, and nobody else scores"
            values = {s: -Fraction(t[s]["dodge_round"]["over_limit"]) for s in SYSTEMS}
        elif p in h.dodge_no_trick:
            detail = "won no trick"
            values = {s: Fraction(t[s]["dodge_round"]["no_trick"]) for s in SYSTEMS}
        else:
            detail = f"{_fmt(cp)} Card Points: minus a fifth, rounded ({nearest_five(cp) * 5} native)"
            values = {s: -Fraction(nearest_five(cp) * t[s]["distance_per_five"]) for s in SYSTEMS}
        steps.append(
            _step(f"Dodge Round: {p}", detail + note, h.players, {s: {p: values[s] * radl} for s in SYSTEMS})
        )
    return steps


def _radli_after(
    h: slovenian_hand.SlovenianHand, rules: Mapping[str, Any]
) -> tuple[dict[str, int], LedgerStep | None]:
    """Open circles after the hand: a win with an open circle fills one; Beggar and higher, a Dodge Round
    or any Valat (won or lost) gives every player a new one, which first counts in the next hand."""
    after = dict(h.radli)
    if not rules["radli"]:
        return after, None
    notes = []
    if h.contract.kind is Kind.DODGE:
        # Taking no trick with an open circle fills it, unless a player went over 35 and nobody else scores.
        over = any(cp > 35 for cp in h.dodge.values())
        fillers = [] if over else [p for p in h.dodge_no_trick if after[p] > 0]
    else:
        fillers = [h.declarer] if h.won and after[h.declarer] > 0 else []
    for p in sorted(fillers, key=h.players.index):
        after[p] -= 1
        notes.append(f"{p} fills in a circle")
    if h.contract.new_circle or any(b.bonus == "valat" and (b.made or b.announced) for b in h.bonuses):
        for p in after:
            after[p] += 1
        notes.append("every player draws a new circle")
    if not notes:
        return after, None
    return after, _step("Radli", "; ".join(notes), h.players, {s: {} for s in SYSTEMS})


def _fmt(points: Fraction) -> str:
    return GAME.format(points)


# Document 002, "The Talon": the Declarer takes one group of the contract's size, discards as many, and the
# discards count in the Declarer's pile; the rest of the talon goes to the Defenders, all of it in Solo without.
# (A called King rescued from the talon brings the set-aside cards to whoever wins its trick: the players then
# say the count instead.) The three-player game takes the same 3, 2 or 1 cards.
DISCARDS = {"three": 3, "two": 2, "one": 1, "solo_three": 3, "solo_two": 2, "solo_one": 1, "solo_without": 0}

GAME = Game(
    id="slovenian",
    name="Slovenian Tarok",
    aliases=("tarok", "slovenski tarok"),
    deck=DECK,
    players=(4, 3),
    tricks={4: 4, 3: 3},
    discards=DISCARDS,
    talon=6,
    counter=count_thirds_rounded,
    to_win=Fraction(36),
    contracts=tuple((c.id, c.name) for c in CONTRACTS.values()),
    bonuses=tuple(BONUSES.items()),
    tariff=TARIFF,
    score=score,
    session_end=session_end,
)
