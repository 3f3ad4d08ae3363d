"""Calling the King (Königrufen): 54 cards, four players, counted in thirds exactly, 70 Card Points.

Its rules page is not among the documents: the values are the Austrian cup tariff (tarockapp.at's table of
the Raiffeisen Tarockcup values), with the Blind Solo (Sechserdreier) at 5 as document 000's worked example
prints it. The Call's side settles two against two, contracts played alone one against three.
"""

from __future__ import annotations

from fractions import Fraction

from scoring import hand as read
from scoring.counters import count_in_thirds
from scoring.deck import DECK
from scoring.game import Game
from scoring.games._shared import both, dodge_round, kontra_level, sides
from scoring.result import HandResult

# partner: "called" (a King is called; calling one's own King plays alone) or "alone".
# won_by: "card_points" (positive contracts) or "made" (the hand says whether the trick target was met).
# lost_factor: a lost Blind Solo pays double (document 000: won 5, lost 10).
TARIFF = {
    "source": "Austrian cup values (Raiffeisen Tarockcup, as tabled on tarockapp.at); Blind Solo 5, lost double, "
    "and Pagat Ultimo 1 silent / 2 announced as in document 000's worked example",
    "contracts": {
        "call": {"value": 1, "partner": "called", "won_by": "card_points", "lost_factor": 1},
        "dodge_round": {"value": 1, "partner": "none", "won_by": "dodge_round", "lost_factor": 1},
        "blind_solo": {"value": 5, "partner": "alone", "won_by": "card_points", "lost_factor": 2},
        "piccolo": {"value": 1, "partner": "alone", "won_by": "made", "lost_factor": 1},
        "zwiccolo": {"value": 1, "partner": "alone", "won_by": "made", "lost_factor": 1},
        "solo_call": {"value": 2, "partner": "called", "won_by": "card_points", "lost_factor": 1},
        "better_call": {"value": 1, "partner": "called", "won_by": "card_points", "lost_factor": 1},
        "beggar": {"value": 3, "partner": "alone", "won_by": "made", "lost_factor": 1},
        "colour_three": {"value": 4, "partner": "alone", "won_by": "card_points", "lost_factor": 1},
        "three": {"value": 4, "partner": "alone", "won_by": "card_points", "lost_factor": 1},
        "open_piccolo": {"value": 5, "partner": "alone", "won_by": "made", "lost_factor": 1},
        "open_beggar": {"value": 7, "partner": "alone", "won_by": "made", "lost_factor": 1},
        "colour_solo": {"value": 8, "partner": "alone", "won_by": "card_points", "lost_factor": 1},
        "solo_three": {"value": 8, "partner": "alone", "won_by": "card_points", "lost_factor": 1},
    },
    # A failed announced bonus gives the other side its announced value; a silent Ultimo that fails, its silent one.
    "bonuses": {
        "trull": {"silent": 1, "announced": 2, "silent_failed": 0, "announced_failed": 2},
        "four_kings": {"silent": 1, "announced": 2, "silent_failed": 0, "announced_failed": 2},
        "pagat_ultimo": {"silent": 1, "announced": 2, "silent_failed": 1, "announced_failed": 2},
        "uhu": {"silent": 2, "announced": 4, "silent_failed": 2, "announced_failed": 4},
        "kakadu": {"silent": 3, "announced": 6, "silent_failed": 3, "announced_failed": 6},
        "king_ultimo": {"silent": 1, "announced": 2, "silent_failed": 1, "announced_failed": 2},
    },
    # Valat: the contract x4 silent, x8 announced, instead of the contract and every other bonus.
    "valat": {"silent": 4, "announced": 8},
    "kontra_levels": [1, 2, 4, 8, 16],
}

CONTRACTS = (
    ("call", "the Call (Rufer)"),
    ("dodge_round", "Dodge Round (Trischaken)"),
    ("blind_solo", "Blind Solo (Sechserdreier)"),
    ("piccolo", "Piccolo"),
    ("zwiccolo", "Zwiccolo"),
    ("solo_call", "Solo Call (Solorufer)"),
    ("better_call", "Better Call (Besserrufer)"),
    ("beggar", "Beggar (Bettler)"),
    ("colour_three", "Colour Three (Farbendreier)"),
    ("three", "Three (Dreier)"),
    ("open_piccolo", "Open Piccolo"),
    ("open_beggar", "Open Beggar (Bettler ouvert)"),
    ("colour_solo", "Colour Solo (Farbensolo)"),
    ("solo_three", "Solo Three (Solodreier)"),
)
BONUSES = (
    ("trull", "Trull"),
    ("four_kings", "Four Kings"),
    ("pagat_ultimo", "Pagat Ultimo"),
    ("uhu", "Uhu (II Ultimo)"),
    ("kakadu", "Kakadu (III Ultimo)"),
    ("king_ultimo", "King Ultimo"),
    ("valat", "Valat"),
)
NAMES = dict(CONTRACTS + BONUSES)
BONUS_IDS = tuple(b for b, _ in BONUSES)
LAST_TRICK = {
    "pagat": "pagat_ultimo",
    "called_king": "king_ultimo",
}  # a silent Ultimo attempt, read from the last trick


def _short(item: str) -> str:
    return NAMES[item].split(" (")[0]


def score(hand: dict, options: dict | None = None) -> HandResult:
    """Score a Königrufen hand under both systems.

    Document 000's worked example: Anna's Blind Solo won with 38 Card Points, Ben's announced Pagat Ultimo fails.

    >>> r = score({"game": "koenigrufen", "players": ["Anna", "Ben", "Clara", "Dora"], "declarer": "Anna",
    ...     "contract": "blind_solo", "card_points": "38",
    ...     "bonuses": [{"bonus": "pagat_ultimo", "side": "defenders", "announced": True, "made": False}]})
    >>> {p: int(v) for p, v in r.traditional.items()}, {p: int(v) for p, v in r.simplified.items()}
    ({'Anna': 21, 'Ben': -7, 'Clara': -7, 'Dora': -7}, {'Anna': 7, 'Ben': 0, 'Clara': 0, 'Dora': 0})

    Card Points in thirds: 35 1/3 does not win (option "styrian": it does).
    >>> score({"game": "koenigrufen", "players": ["A", "B", "C", "D"], "declarer": "A", "partner": "C",
    ...     "contract": "call", "card_points": "35 1/3"}).simplified
    {'A': Fraction(0, 1), 'B': Fraction(1, 1), 'C': Fraction(0, 1), 'D': Fraction(1, 1)}
    """
    options = options or {}
    tariff = read.merged_tariff(TARIFF, options)
    names = read.players(hand, GAME.players)
    contract = read.choice(hand, "contract", tariff["contracts"])
    terms = tariff["contracts"][contract]
    read.check_kontra_items(hand, ("contract", *BONUS_IDS))
    ledger = read.Ledger(names)
    value = Fraction(terms["value"]) * kontra_level(hand, "contract", tariff)
    if terms["won_by"] == "dodge_round":
        loser = dodge_round(
            ledger,
            hand,
            names,
            value,
            "{loser} took the most Card Points and pays {value} VP to each other player",
        )
        return ledger.result(GAME.id, facts={"dodge_round_loser": loser})

    side, others = sides(hand, names, terms, _short(contract))
    of = {"declarer": side, "defenders": others}
    facts: dict = {"declarer_side": list(side), "defenders": list(others)}
    if terms["won_by"] == "made":
        won = read.field(hand, "won", bool)
        how = "the trick target was met" if won else "the trick target was missed"
    else:
        points = read.declarer_card_points(hand, GAME)
        # Königrufen: 35 1/3 is rounded down, and 35:35 loses; Styrian groups let 35 1/3 win.
        need = Fraction(106, 3) if options.get("styrian") else GAME.to_win
        won = points >= need
        how = f"{GAME.format(points)} of {GAME.total} Card Points, {GAME.format(need)} needed"
        facts["card_points"] = GAME.format(points)
    winners, losers = (side, others) if won else (others, side)
    if not won:
        value *= terms["lost_factor"]

    entries = read.last_trick_bonuses(hand, read.unique_bonuses(read.bonuses(hand, BONUS_IDS)), LAST_TRICK)
    valat = next((b for b in entries if b["bonus"] == "valat"), None)
    if valat and valat["made"]:
        how_v = "announced" if valat["announced"] else "silent"
        factor = tariff["valat"][how_v] * kontra_level(hand, "valat", tariff)
        paid = Fraction(terms["value"]) * kontra_level(hand, "contract", tariff) * factor
        ledger.add(
            f"Valat, {how_v}",
            f"{_short(contract)} {terms['value']} VP x{factor} instead of the contract "
            f"and the bonuses, to each of {' and '.join(of[valat['side']])}",
            *both(of[valat["side"]], of[_other(valat["side"])], paid),
        )
        return ledger.result(GAME.id, facts={**facts, "won": valat["side"] == "declarer", "valat": True})

    level = read.kontra(hand, "contract")
    doubled = terms["lost_factor"] if not won and terms["lost_factor"] != 1 else None
    ledger.add(
        f"{_short(contract)}{f', kontra x{level}' if level > 1 else ''} {'won' if won else 'lost'}",
        f"{how}; {value} VP to each of {' and '.join(winners)}"
        f"{f' (a lost {_short(contract)} pays x{doubled})' if doubled else ''}",
        *both(winners, losers, value),
    )
    for b in entries:
        if b["bonus"] == "valat":
            # An announced Valat that fails: the other side adds the announced value of the contract.
            paid = (
                Fraction(terms["value"]) * tariff["valat"]["announced"] * kontra_level(hand, "valat", tariff)
            )
            if b["announced"]:
                ledger.add(
                    "Valat, announced, failed",
                    f"{paid} VP to each of {' and '.join(of[_other(b['side'])])}",
                    *both(of[_other(b["side"])], of[b["side"]], paid),
                )
            continue
        earners, paid = read.bonus_payment(b, tariff["bonuses"][b["bonus"]])
        paid *= kontra_level(hand, b["bonus"], tariff)
        if paid == 0:
            continue
        how = "announced" if b["announced"] else "silent"
        step = f"{'' if b['made'] else 'Failed '}{_short(b['bonus'])}, {how}"
        ledger.add(
            step,
            f"{paid} VP to each of {' and '.join(of[earners])}",
            *both(of[earners], of[_other(earners)], paid),
        )
    return ledger.result(GAME.id, facts={**facts, "won": won})


def _other(side: str) -> str:
    return "defenders" if side == "declarer" else "declarer"


# The usual Austrian rules (no rules page here): the Call and the Threes take half the talon and discard three
# into the Declarer's pile, the other half going to the Defenders; the Blind Solo takes all six and discards six;
# the solos leave the talon to the Defenders. The Better Call is left to the players' count (groups differ).
DISCARDS = {"call": 3, "three": 3, "colour_three": 3, "blind_solo": 6, "solo_call": 0, "solo_three": 0,
            "colour_solo": 0}

GAME = Game(
    id="koenigrufen",
    name="Calling the King",
    aliases=("königrufen", "konigrufen", "calling the king", "king"),
    # Königrufen: 35 1/3 is rounded down, and 35:35 loses for the declarer (Styrian option: 35 1/3 wins).
    deck=DECK,
    players=(4,),
    tricks={4: 4},
    discards=DISCARDS,
    talon=6,
    counter=count_in_thirds,
    to_win=Fraction(107, 3),
    contracts=CONTRACTS,
    bonuses=BONUSES,
    tariff=TARIFF,
    score=score,
)
