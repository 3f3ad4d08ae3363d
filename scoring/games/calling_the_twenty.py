"""Calling the Twenty (Zwanzigerrufen): 40 cards, one point per card, the four blanks at 0, 88 Card Points.

Values from document 000 (the Call 1, No-Trump 4, Solo 4, Dodge Round 5, Valat 12; bonuses as its worked
example shows). Under Traditional Scoring each loser pays their counterpart on the winning side, and a
lone Declarer settles with all three.
"""

from __future__ import annotations

from fractions import Fraction

from scoring import hand as read
from scoring.counters import count_per_card
from scoring.deck import DECK
from scoring.game import Game
from scoring.games._shared import both, dodge_round, kontra_level, leaders, sides
from scoring.result import HandResult

# The 40-card pack drops Taroks II and III and keeps one blank per suit: the red 1 and the black 10,
# as in the 42-card Hungarian pack. The blanks count 0, so the deck holds 52 pips + 36 = 88.
BLANKS = frozenset({"H1", "D1", "C10", "S10"})
DECK_40 = tuple(c for c in DECK if c.in_42_card_deck and c.id not in {"T2", "T3"})


def count(pile):
    return count_per_card(pile, BLANKS)


# partner: "called" (the XX is called; calling it while holding it plays alone), "alone" or "none" (every
# player for themselves). won_by: "card_points" (the calling side needs more than 44 of 88) or "made" (the
# hand says whether the trick target was met: No-Trump's and Valat's targets are tricks, not points).
TARIFF = {
    "source": "document 000 (Traditional Scoring: the Call 1, No-Trump 4, Solo 4, Dodge Round 5, Valat 12; "
    "Trull and a silent Pagat Ultimo 1, an announced Pagat Ultimo 2, a failed announced one 2 to the "
    "other side); the Calling the Twenty rules page is not among the documents",
    "contracts": {
        "call": {"value": 1, "partner": "called", "won_by": "card_points"},
        "no_trump": {"value": 4, "partner": "alone", "won_by": "made"},
        "solo": {"value": 4, "partner": "alone", "won_by": "card_points"},
        "dodge_round": {"value": 5, "partner": "none", "won_by": "dodge_round"},
        "valat": {"value": 12, "partner": "alone", "won_by": "made"},
    },
    "bonuses": {
        "trull": {"silent": 1, "announced": 2, "silent_failed": 0, "announced_failed": 2},
        "four_kings": {"silent": 1, "announced": 2, "silent_failed": 0, "announced_failed": 2},
        "pagat_ultimo": {"silent": 1, "announced": 2, "silent_failed": 1, "announced_failed": 2},
    },
    "kontra_levels": [1, 2, 4, 8],
    "finish_at": 30,
}
CONTRACTS = (
    ("call", "the Call"),
    ("no_trump", "No-Trump"),
    ("solo", "Solo"),
    ("dodge_round", "Dodge Round"),
    ("valat", "Valat"),
)
BONUSES = (("trull", "Trull"), ("four_kings", "Four Kings"), ("pagat_ultimo", "Pagat Ultimo"))
NAMES = dict(CONTRACTS + BONUSES)
BONUS_IDS = tuple(b for b, _ in BONUSES)
LAST_TRICK = {"pagat": "pagat_ultimo"}  # a silent Ultimo attempt, read from the last trick


def score(hand: dict, options: dict | None = None) -> HandResult:
    """Score a Calling the Twenty hand under both systems.

    Document 000's worked example: the Call won with 49 Card Points, Ben's declared Trull, a silent Pagat Ultimo.

    >>> r = score({"game": "zwanzigerrufen", "players": ["Anna", "Ben", "Clara", "Dora"], "declarer": "Anna",
    ...     "partner": "Ben", "contract": "call", "card_points": "49",
    ...     "bonuses": [{"bonus": "trull", "side": "declarer"}, {"bonus": "pagat_ultimo", "side": "declarer"}]})
    >>> {p: int(v) for p, v in r.traditional.items()}, {p: int(v) for p, v in r.simplified.items()}
    ({'Anna': 3, 'Ben': 3, 'Clara': -3, 'Dora': -3}, {'Anna': 3, 'Ben': 3, 'Clara': 0, 'Dora': 0})
    """
    tariff = read.merged_tariff(TARIFF, options)
    names = read.players(hand, GAME.players)
    contract = read.choice(hand, "contract", tariff["contracts"])
    terms = tariff["contracts"][contract]
    read.check_kontra_items(hand, ("contract", *BONUS_IDS))
    ledger = read.Ledger(names)
    level = kontra_level(hand, "contract", tariff)
    value = Fraction(terms["value"]) * level
    if terms["won_by"] == "dodge_round":
        loser = dodge_round(
            ledger, hand, names, value, "{loser} took the most Card Points: {value} VP to each other player"
        )
        return ledger.result(GAME.id, facts={"dodge_round_loser": loser})

    side, others = sides(hand, names, terms, NAMES[contract])
    of = {"declarer": side, "defenders": others}
    facts: dict = {"declarer_side": list(side), "defenders": list(others)}
    if terms["won_by"] == "made":
        won = read.field(hand, "won", bool)
        how = "made" if won else "missed"
    else:
        points = read.declarer_card_points(hand, GAME)
        won = points >= GAME.to_win  # more than 44 of the 88
        how = f"{GAME.format(points)} of {GAME.total} Card Points, more than 44 needed"
        facts["card_points"] = GAME.format(points)
    winners, losers = (side, others) if won else (others, side)
    kontra = f", kontra x{level}" if level > 1 else ""
    ledger.add(
        f"{NAMES[contract][0].upper()}{NAMES[contract][1:]}{kontra} {'won' if won else 'lost'}",
        f"{how}; {value} VP to each of {' and '.join(winners)}",
        *both(winners, losers, value),
    )
    for b in read.last_trick_bonuses(hand, read.unique_bonuses(read.bonuses(hand, BONUS_IDS)), LAST_TRICK):
        earners, paid = read.bonus_payment(b, tariff["bonuses"][b["bonus"]])
        paid *= kontra_level(hand, b["bonus"], tariff)
        if paid == 0:
            continue
        payers = "defenders" if earners == "declarer" else "declarer"
        # A Trull is declared by its holder, so its unannounced value is the declared one.
        how = "announced" if b["announced"] else "declared" if b["bonus"] == "trull" else "silent"
        step = f"{'Failed ' if not b['made'] else ''}{NAMES[b['bonus']]}, {how}"
        ledger.add(
            step, f"{paid} VP to each of {' and '.join(of[earners])}", *both(of[earners], of[payers], paid)
        )
    return ledger.result(GAME.id, facts={**facts, "won": won})


def session_end(totals: dict, hands_played: int, options: dict | None = None) -> dict:
    """Simplified Scoring finishes when a player reaches 30 VP; a traditional session ends at an agreed time,
    after a final round in which everyone has dealt (options: "system", "final_round_called").

    >>> session_end({"Anna": 31, "Ben": 12, "Clara": 3, "Dora": 30}, 17)
    {'system': 'simplified', 'finish_at': 30, 'ended': True, 'winners': ['Anna']}
    """
    options = options or {}
    tariff = read.merged_tariff(TARIFF, options)
    system = options.get("system", "simplified")
    if system == "traditional":
        left = -hands_played % len(totals)
        ended = bool(options.get("final_round_called")) and left == 0 and hands_played > 0
        out = {"system": system, "deals_left_in_round": left, "ended": ended}
    else:
        ended = any(v >= tariff["finish_at"] for v in totals.values())
        out = {"system": system, "finish_at": tariff["finish_at"], "ended": ended}
    if out["ended"]:
        out["winners"] = leaders(totals)
    return out


GAME = Game(
    id="zwanzigerrufen",
    name="Calling the Twenty",
    aliases=("zwanzigerrufen", "calling the twenty", "twenty"),
    deck=DECK_40,
    players=(4,),
    tricks={4: 4},
    talon=0,  # ten cards each and no talon: every pile is whole tricks
    counter=count,
    to_win=Fraction(45),
    contracts=CONTRACTS,
    bonuses=BONUSES,
    tariff=TARIFF,
    score=score,
    session_end=session_end,
)
