"""Strawman (Strohmandeln): two players and two dummies, 54 cards, count in threes rounded, 70 Card Points.

The Tyrolean way (document 000): nobody pays and nobody subtracts, so Traditional Scoring gives the same
Victory Points as Simplified Scoring, and the first player to 11 wins the match.
"""

from __future__ import annotations

from fractions import Fraction

from scoring import hand as read
from scoring.counters import count_thirds_rounded
from scoring.deck import DECK
from scoring.game import Game
from scoring.games._shared import first_to
from scoring.result import HandFormatError, HandResult

TARIFF = {
    "source": "document 000 (Strawman: Declarer Challenge 2 won / 3 to the opponent lost, Dodge Round 2, "
    "Pagat Ultimo, Four Kings and Trull 1 silent / 2 announced; 'pay less': Dodge Round 1)",
    "contracts": {"challenge": {"won": 2, "lost": 3}, "dodge_round": {"won": 2}},
    # A failed announced bonus gives the opponent its announced value; a silent one that fails costs nothing.
    "bonuses": {
        "pagat_ultimo": {"silent": 1, "announced": 2, "silent_failed": 0, "announced_failed": 2},
        "four_kings": {"silent": 1, "announced": 2, "silent_failed": 0, "announced_failed": 2},
        "trull": {"silent": 1, "announced": 2, "silent_failed": 0, "announced_failed": 2},
    },
    # Some groups pay less for the contract (option "pay_less"); it names no value for a failed Challenge.
    "pay_less": {"challenge": {"won": 2, "lost": 3}, "dodge_round": {"won": 1}},
    "match_to": 11,
}
CONTRACTS = (("challenge", "Declarer Challenge"), ("dodge_round", "Dodge Round"))
BONUSES = (("pagat_ultimo", "Pagat Ultimo"), ("four_kings", "Four Kings"), ("trull", "Trull"))
NAMES = dict(CONTRACTS + BONUSES)
BONUS_IDS = tuple(b for b, _ in BONUSES)
LAST_TRICK = {"pagat": "pagat_ultimo"}  # a silent Ultimo attempt, read from the last trick


class _NoSettlement(read.Ledger):
    """Nobody pays: each step's traditional column repeats the simplified one."""

    def add(
        self, step: str, detail: str, simplified: dict | None = None, traditional: dict | None = None
    ) -> None:
        super().add(step, detail, simplified, simplified)


def score(hand: dict, options: dict | None = None) -> HandResult:
    """Score a Strawman hand; both systems give the same Victory Points.

    Document 000's worked example: Anna's Declarer Challenge fails with 33, Ben's announced Four Kings,
    Anna's silent Pagat Ultimo.

    >>> r = score({"game": "strawman", "players": ["Anna", "Ben"], "declarer": "Anna", "contract": "challenge",
    ...     "card_points": "33", "bonuses": [{"bonus": "four_kings", "side": "defenders", "announced": True},
    ...     {"bonus": "pagat_ultimo", "side": "declarer"}]})
    >>> {p: int(v) for p, v in r.simplified.items()}, r.simplified == r.traditional
    ({'Anna': 1, 'Ben': 5}, True)
    """
    options = options or {}
    tariff = read.merged_tariff(TARIFF, options)
    contracts = (
        tariff["pay_less"]
        if read.field(options, "pay_less", bool, False, "options.pay_less")
        else tariff["contracts"]
    )
    names = read.players(hand, GAME.players)
    contract = read.choice(hand, "contract", tariff["contracts"])
    declarer = read.player(hand, "declarer", names)
    opponent = next(p for p in names if p != declarer)
    of = {"declarer": declarer, "defenders": opponent}
    ledger = _NoSettlement(names)
    facts: dict = {}
    if any(level != 1 for level in read.field(hand, "kontra", dict, {}).values()):
        raise HandFormatError("kontra", "Strawman has no kontra")
    if contract == "dodge_round":
        # Both players passed: the hand's winner is entered by the players.
        winner = read.player(hand, "dodge_round_winner", names)
        value = Fraction(contracts["dodge_round"]["won"])
        ledger.add(
            "Dodge Round won", f"{winner} wins the hand both players passed: +{value} VP", {winner: value}
        )
        facts["winner"] = winner
    else:
        points = read.declarer_card_points(hand, GAME)
        won = points >= GAME.to_win
        value = Fraction(contracts["challenge"]["won" if won else "lost"])
        gainer = declarer if won else opponent
        ledger.add(
            f"Declarer Challenge {'won' if won else 'failed'}",
            f"{declarer} has {GAME.format(points)} of {GAME.total} Card Points, {GAME.to_win} needed: "
            f"{gainer} adds {value} VP",
            {gainer: value},
        )
        facts.update(card_points=GAME.format(points), won=won)
    for b in read.last_trick_bonuses(hand, read.unique_bonuses(read.bonuses(hand, BONUS_IDS)), LAST_TRICK):
        earners, paid = read.bonus_payment(b, tariff["bonuses"][b["bonus"]])
        if paid == 0:
            continue
        step = f"{'Failed ' if not b['made'] else ''}{NAMES[b['bonus']]}, {'announced' if b['announced'] else 'silent'}"
        ledger.add(step, f"{of[earners]} adds {paid} VP", {of[earners]: paid})
    return ledger.result(GAME.id, facts=facts)


def session_end(totals: dict, hands_played: int, options: dict | None = None) -> dict:
    """The first player to reach 11 Victory Points wins the match.

    >>> session_end({"Anna": 11, "Ben": 7}, 5)
    {'match_to': 11, 'ended': True, 'winners': ['Anna']}
    """
    target = read.merged_tariff(TARIFF, options)["match_to"]
    return first_to(totals, target, "match_to")


GAME = Game(
    id="strawman",
    name="Strawman",
    aliases=("strohmandeln", "strohmandl"),
    deck=DECK,
    players=(2,),
    counter=count_thirds_rounded,
    to_win=Fraction(36),
    contracts=CONTRACTS,
    bonuses=BONUSES,
    tariff=TARIFF,
    score=score,
    session_end=session_end,
)
