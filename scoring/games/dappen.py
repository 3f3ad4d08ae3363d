"""Dappen (Black Forest): 54 cards, three to six players, counted in pairs, 79 Card Points.

The Dapper plays alone against the team and needs 40 of the 79 Card Points. Traditional Scoring pays the
Furtwangen values in cents (document 000): the Dapper collects from every opponent or pays every opponent,
by the loser's Card Points. The Simplified tiers are our own adaptation, close to the cents but not a
conversion; they agree with document 000's worked example (23 to 27, Dapp + Challenge: 6 VP; III Ultimo 2,
II Ultimo 4).
"""

from __future__ import annotations

import math
from fractions import Fraction

from scoring import hand as read
from scoring.counters import count_in_pairs
from scoring.deck import DECK
from scoring.game import Game
from scoring.games._shared import first_to
from scoring.result import HandFormatError, HandResult
from scoring.settlement import settle_lone

COLUMNS = ("dapp", "dapp_challenge", "solo_won", "solo_lost")
TARIFF = {
    "source": "document 000: Furtwangen values in cents (table by the loser's Card Points, march and instant win "
    "40/80, Ultimos III 10, II 20, Pagat 30, half game); Simplified tiers: our own adaptation",
    # Each row holds from the loser's Card Points given in "from" up to the next row's; a loser's half point drops.
    "cents": [
        {"from": 33, "dapp": 5, "dapp_challenge": 10, "solo_won": 10, "solo_lost": 5},
        {"from": 28, "dapp": 10, "dapp_challenge": 20, "solo_won": 20, "solo_lost": 10},
        {"from": 23, "dapp": 15, "dapp_challenge": 30, "solo_won": 30, "solo_lost": 15},
        {"from": 18, "dapp": 20, "dapp_challenge": 40, "solo_won": 40, "solo_lost": 20},
        {"from": 13, "dapp": 25, "dapp_challenge": 50, "solo_won": 50, "solo_lost": 25},
        {"from": 8, "dapp": 30, "dapp_challenge": 60, "solo_won": 60, "solo_lost": 30},
        {"from": 3, "dapp": 35, "dapp_challenge": 70, "solo_won": 70, "solo_lost": 35},
        {"from": 0, "dapp": 40, "dapp_challenge": 80, "solo_won": 80, "solo_lost": 40},
    ],
    "simplified": [
        {"from": 30, "dapp": 2, "dapp_challenge": 4, "solo_won": 4, "solo_lost": 2},
        {"from": 20, "dapp": 3, "dapp_challenge": 6, "solo_won": 6, "solo_lost": 3},
        {"from": 10, "dapp": 5, "dapp_challenge": 10, "solo_won": 10, "solo_lost": 5},
        {"from": 0, "dapp": 7, "dapp_challenge": 14, "solo_won": 14, "solo_lost": 7},
    ],
    # A march (one side wins every trick) and the instant win: plain, or doubled for a won Solo or a Challenge.
    "march": {"cents": {"plain": 40, "doubled": 80}, "simplified": {"plain": 8, "doubled": 16}},
    # Never doubled by the Challenge; a failed Ultimo pays each opponent the same value.
    "ultimos": {
        "ultimo_iii": {"cents": 10, "simplified": 2},
        "ultimo_ii": {"cents": 20, "simplified": 4},
        "pagat_ultimo": {"cents": 30, "simplified": 6},
    },
    "targets": {"evening": 300, "short": 150},
}
CONTRACTS = (("dapp", "Dapp"), ("solo", "Solo"))
BONUSES = (("ultimo_iii", "III Ultimo"), ("ultimo_ii", "II Ultimo"), ("pagat_ultimo", "Pagat Ultimo"))
NAMES = dict(CONTRACTS + BONUSES)
BONUS_IDS = tuple(b for b, _ in BONUSES)
NAMES_OF_CONTRACTS = tuple(c for c, _ in CONTRACTS)


def _row(table: list, loser_points: Fraction) -> dict:
    whole = math.floor(loser_points)
    return next(r for r in sorted(table, key=lambda r: -r["from"]) if whole >= r["from"])


def score(hand: dict, options: dict | None = None) -> HandResult:
    """Score a Dappen hand: Simplified Victory Points and Traditional cents.

    Document 000's worked example: Anna's Dapp + Challenge won with 53 (the team 26), III Ultimo made,
    II Ultimo failed, six players.

    >>> r = score({"game": "dappen", "players": ["Anna", "Ben", "Clara", "Dora", "Emil", "Frida"],
    ...     "declarer": "Anna", "contract": "dapp", "challenger": "Ben", "card_points": "53",
    ...     "bonuses": [{"bonus": "ultimo_iii", "side": "declarer", "announced": True},
    ...                 {"bonus": "ultimo_ii", "side": "declarer", "announced": True, "made": False}]})
    >>> r.traditional_unit, int(r.traditional["Anna"]), int(r.traditional["Ben"]), int(r.simplified["Ben"])
    ('cents', 100, -20, 4)
    """
    options = options or {}
    tariff = read.merged_tariff(TARIFF, options)
    half = read.field(options, "half_game", bool, False, "options.half_game")
    names = read.players(hand, GAME.players)
    dapper = read.player(hand, "declarer", names)
    team = [p for p in names if p != dapper]
    contract = read.choice(hand, "contract", NAMES_OF_CONTRACTS)
    if read.player(hand, "partner", names, optional=True) not in (None, dapper):
        raise HandFormatError("partner", "the Dapper plays alone; leave partner empty")
    if read.field(hand, "kontra", dict, {}):
        raise HandFormatError("kontra", "Dappen has no kontra; the Challenge is given as challenger")
    challenger = read.player(hand, "challenger", names, optional=True)
    if challenger == dapper:
        raise HandFormatError("challenger", "the Dapper cannot challenge their own Dapp")
    if challenger and contract == "solo":
        raise HandFormatError("challenger", "a Solo cannot be challenged; the Challenge belongs to the Dapp")
    ledger = read.Ledger(names)
    # Under the half game every payment in cents is halved.
    cents = (lambda v: Fraction(v) / 2) if half else Fraction

    def settle(step: str, detail: str, simplified: int, cent: int, dapper_gains: bool) -> None:
        if dapper_gains:
            ledger.add(step, detail, {dapper: Fraction(simplified)}, settle_lone(dapper, team, cents(cent)))
        else:
            ledger.add(
                step, detail, {p: Fraction(simplified) for p in team}, settle_lone(dapper, team, -cents(cent))
            )

    instant = read.field(hand, "instant_win", bool, False)
    march = read.choice(hand, "march", read.SIDES, None)
    if instant:
        won, points, facts = True, None, {"instant_win": True}
    else:
        points = read.declarer_card_points(hand, GAME)
        won = points >= GAME.to_win
        facts = {"card_points": GAME.format(points), "team_card_points": GAME.format(GAME.total - points)}
        if march and (march == "declarer") != won:
            raise HandFormatError(
                "march",
                f"the {march} cannot have every trick with {GAME.format(points)} Card Points for the Dapper",
            )
    title = {"dapp": "Dapp + Challenge" if challenger else "Dapp", "solo": "Solo"}[contract]
    doubled = bool(challenger) or (contract == "solo" and won)
    if instant or march:
        kind = "doubled" if doubled else "plain"
        s, c = tariff["march"]["simplified"][kind], tariff["march"]["cents"][kind]
        what = (
            "instant win (the Trull and the four Kings)" if instant else f"march: the {march} won every trick"
        )
        settle(
            f"{title}, {'instant win' if instant else 'march'}",
            f"{what}: {c} cents {'from' if won else 'to'} each opponent; Simplified {s} VP",
            s,
            c,
            won,
        )
    else:
        loser_points = GAME.total - points if won else points
        column = (
            "dapp_challenge"
            if challenger
            else "dapp"
            if contract == "dapp"
            else "solo_won"
            if won
            else "solo_lost"
        )
        row, srow = _row(tariff["cents"], loser_points), _row(tariff["simplified"], loser_points)
        c, s = row[column], srow[column]
        settle(
            f"{title} {'won' if won else 'lost'}",
            f"the loser has {GAME.format(loser_points)} Card Points: the row from {row['from']}, "
            f"{column.replace('_', ' ')} column, {c} cents {'from' if won else 'to'} each opponent; "
            f"Simplified {s} VP to {'the Dapper' if won else 'each opponent'}",
            s,
            c,
            won,
        )
    for i, b in enumerate(read.unique_bonuses(read.bonuses(hand, BONUS_IDS))):
        if b["side"] != "declarer":
            raise HandFormatError(
                f"bonuses[{i}].side", "Dappen's bonuses are the Dapper's Ultimos: side is declarer"
            )
        u = tariff["ultimos"][b["bonus"]]
        settle(
            f"{NAMES[b['bonus']]} {'made' if b['made'] else 'failed'}",
            f"{u['cents']} cents {'from' if b['made'] else 'to'} each opponent, never doubled by the Challenge",
            u["simplified"],
            u["cents"],
            b["made"],
        )
    return ledger.result(GAME.id, unit="cents", facts={**facts, "won": won, "half_game": half})


def session_end(totals: dict, hands_played: int, options: dict | None = None) -> dict:
    """First to 300, or to 150 for the shorter evening (options["short_evening"]).

    >>> session_end({"Anna": 150, "Ben": 40, "Clara": 90}, 12, {"short_evening": True})
    {'target': 150, 'ended': True, 'winners': ['Anna']}
    """
    options = options or {}
    targets = read.merged_tariff(TARIFF, options)["targets"]
    target = targets["short" if options.get("short_evening") else "evening"]
    return first_to(totals, target, "target")


GAME = Game(
    id="dappen",
    name="Dappen",
    aliases=("dapp", "black forest tarock"),
    deck=DECK,
    players=(3, 4, 5, 6),
    counter=count_in_pairs,
    to_win=Fraction(40),
    contracts=CONTRACTS,
    bonuses=BONUSES,
    tariff=TARIFF,
    score=score,
    session_end=session_end,
)
