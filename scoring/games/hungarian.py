"""Hungarian Tarokk: the 42-card pack, one point per card plus pips, 94 Card Points.

Document 003 (the rules) and 000 (Traditional Scoring): the values are the same under both systems; under
Traditional Scoring the losing side pays the winning side item by item, and a Tarok declaration is paid
by each of the other players.
"""

from __future__ import annotations

from fractions import Fraction

from scoring import hand as read
from scoring.counters import count_per_card
from scoring.deck import DECK
from scoring.game import Game
from scoring.games._shared import both, kontra_level
from scoring.result import HandFormatError, HandResult
from scoring.settlement import settle_lone

DECK_42 = tuple(c for c in DECK if c.in_42_card_deck)

TARIFF = {
    "source": "document 003 (Hungarian Tarokk rules: contracts, bonus table, multipliers, Tarok declarations) "
    "and document 000 (Traditional Scoring: same values, losers pay winners, declarations paid by each)",
    "contracts": {"three": 1, "two": 2, "one": 3, "solo": 4},
    # Silent and announced value, and what the other side earns when a silent or an announced attempt fails.
    "bonuses": {
        "trull": {"silent": 1, "announced": 2, "silent_failed": 0, "announced_failed": 2},
        "four_kings": {"silent": 1, "announced": 2, "silent_failed": 0, "announced_failed": 2},
        "pagat_ultimo": {"silent": 5, "announced": 10, "silent_failed": 5, "announced_failed": 10},
        "xxi_catch": {"silent": 21, "announced": 42, "silent_failed": 0, "announced_failed": 42},
    },
    # Feats that multiply the contract alone; Valat counts instead of the double game.
    "multipliers": {"double_game": {"silent": 2, "announced": 4}, "valat": {"silent": 3, "announced": 6}},
    "double_game_at": 71,
    "tarok_declarations": {"8": 1, "9": 2},
    "kontra_levels": [1, 2, 4, 8],
    "deals_per_round": {"4": 4, "5": 5},
}

CONTRACTS = (
    ("three", "Three (Három)"),
    ("two", "Two (Kettő)"),
    ("one", "One (Egy)"),
    ("solo", "Solo (Szóló)"),
)
BONUSES = (
    ("trull", "Trull (tuletroá)"),
    ("four_kings", "Four Kings (négykirály)"),
    ("pagat_ultimo", "Pagat Ultimo"),
    ("xxi_catch", "XXI-catch (XXI-fogás)"),
    ("double_game", "Double game"),
    ("valat", "Valat (volát)"),
)
NAMES = dict(CONTRACTS + BONUSES)
BONUS_IDS = tuple(b for b, _ in BONUSES)
LAST_TRICK = {"pagat": "pagat_ultimo"}  # a silent Ultimo attempt, read from the last trick
SIDE_WORDS = {"declarer": "Declarer's", "defenders": "Defenders'"}


def _kontra_words(level: int) -> str:
    return {1: "", 2: ", with Kontra", 4: ", with Rekontra", 8: ", with Subkontra"}.get(
        level, f", kontra x{level}"
    )


def score(hand: dict, options: dict | None = None) -> HandResult:
    """Score a Hungarian Tarokk hand under both systems.

    Document 000's worked example: Two with Kontra won with 60 Card Points, a silent Trull, Clara's eight Taroks.

    >>> r = score({"game": "hungarian", "players": ["Anna", "Ben", "Clara", "Dora"], "declarer": "Anna",
    ...     "partner": "Dora", "contract": "two", "card_points": "60", "kontra": {"contract": 2},
    ...     "bonuses": [{"bonus": "trull", "side": "declarer"}], "tarok_declarations": {"Clara": 8}})
    >>> {p: int(v) for p, v in r.traditional.items()}
    {'Anna': 4, 'Ben': -6, 'Clara': -2, 'Dora': 4}
    >>> {p: int(v) for p, v in r.simplified.items()}
    {'Anna': 5, 'Ben': 0, 'Clara': 1, 'Dora': 5}
    """
    tariff = read.merged_tariff(TARIFF, options)
    names = read.players(hand, GAME.players)
    dealer = read.player(hand, "dealer", names, optional=len(names) == 4)
    # Five players: the Dealer deals for the other four, sits the hand out and never scores.
    active = tuple(p for p in names if p != dealer) if len(names) == 5 else names
    declarer = read.player(hand, "declarer", names)
    if declarer not in active:
        raise HandFormatError("declarer", f"{declarer} deals and sits this hand out")
    partner = read.player(hand, "partner", names, optional=True)
    if partner is not None and partner not in active:
        raise HandFormatError("partner", f"{partner} deals and sits this hand out")
    contract = read.choice(hand, "contract", tariff["contracts"])
    base = Fraction(tariff["contracts"][contract])
    # Calling one's own XX (or a Tarok lying in the discards) means the Declarer plays alone.
    side = (declarer,) if partner in (None, declarer) else (declarer, partner)
    others = tuple(p for p in active if p not in side)
    of = {"declarer": side, "defenders": others}
    ledger = read.Ledger(names)
    facts: dict = {"declarer_side": list(side), "defenders": list(others)}
    if dealer and len(names) == 5:
        facts["sitting_out"] = dealer

    if read.field(hand, "trial_three_failed", bool, False):
        # The trial Three brought no honour: play stops and each opponent adds the contract's value.
        if contract != "three":
            raise HandFormatError(
                "trial_three_failed", f"only a trial Three can fail this way, not {contract}"
            )
        opponents = [p for p in active if p != declarer]
        ledger.add(
            "Trial Three failed",
            f"the three talon cards brought no honour; each opponent adds {base} VP",
            {p: base for p in opponents},
            settle_lone(declarer, opponents, -base),
        )
        declared = _tarok_declarations(hand, active, tariff, ledger)
        return ledger.result(
            GAME.id, facts={**facts, "trial_three_failed": True, "tarok_declarations": declared}
        )

    read.check_kontra_items(hand, ("contract", *BONUS_IDS))
    points = read.declarer_card_points(hand, GAME)
    won = points >= GAME.to_win
    winners, losers = (side, others) if won else (others, side)
    winner_name = "declarer" if won else "defenders"
    winner_points = points if won else GAME.total - points
    entries = read.last_trick_bonuses(hand, read.unique_bonuses(read.bonuses(hand, BONUS_IDS)), LAST_TRICK)
    feats = {b["bonus"]: b for b in entries if b["bonus"] in tariff["multipliers"]}

    # The contract: doubled by double game (71+ Card Points) or tripled by Valat, each doubled again if announced.
    level = kontra_level(hand, "contract", tariff)
    side_points = {"declarer": points, "defenders": GAME.total - points}
    for i, b in enumerate(entries):
        if b["bonus"] == "double_game" and b["made"] != (side_points[b["side"]] >= tariff["double_game_at"]):
            raise HandFormatError(
                f"bonuses[{i}].made",
                f"the {SIDE_WORDS[b['side']]} side has {GAME.format(side_points[b['side']])} "
                f"Card Points; a double game takes {tariff['double_game_at']}",
            )
        if b["bonus"] == "valat" and b["made"] and b["side"] != winner_name:
            raise HandFormatError(f"bonuses[{i}].made", "a side that made Valat has won the contract")
    valat, double = feats.get("valat"), feats.get("double_game")
    factor, feat_text, feat_kontra = 1, "", 1
    if valat and valat["made"]:
        how = "announced" if valat["announced"] else "silent"
        factor = tariff["multipliers"]["valat"][how]
        feat_text, feat_kontra = f", Valat {how} x{factor}", kontra_level(hand, "valat", tariff)
    elif winner_points >= tariff["double_game_at"]:
        how = "announced" if double and double["announced"] and double["side"] == winner_name else "silent"
        factor = tariff["multipliers"]["double_game"][how]
        feat_text = f", double game {how} x{factor}"
        feat_kontra = kontra_level(hand, "double_game", tariff) if how == "announced" else 1
    value = base * factor * level * feat_kontra
    title = f"{NAMES[contract].split(' (')[0]}{_kontra_words(level)}, {'won' if won else 'lost'}"
    detail = (
        f"{GAME.format(points)} of {GAME.total} Card Points for the Declarer's side, {GAME.to_win} needed; "
        f"{base} VP{feat_text}{f' x{level} kontra' if level > 1 else ''}"
        f"{f' x{feat_kontra} kontra' if feat_kontra > 1 else ''} = {value} VP to each of {' and '.join(winners)}"
    )
    ledger.add(title, detail, *both(winners, losers, value))

    # An announced multiplier that fails pays the opponents the contract at the multiplied rate.
    for feat in (valat, double):
        if feat and feat["announced"] and not feat["made"]:
            rate = tariff["multipliers"][feat["bonus"]]["announced"]
            paid = base * rate * level * kontra_level(hand, feat["bonus"], tariff)
            gainers = of["defenders" if feat["side"] == "declarer" else "declarer"]
            ledger.add(
                f"{NAMES[feat['bonus']]}, announced, failed",
                f"the opponents add the contract at x{rate}: {paid} VP each",
                *both(gainers, of[feat["side"]], paid),
            )

    for b in entries:
        if b["bonus"] in tariff["multipliers"]:
            continue
        earners, paid = read.bonus_payment(b, tariff["bonuses"][b["bonus"]])
        paid *= kontra_level(hand, b["bonus"], tariff)
        if paid == 0:
            continue  # a silent Trull or Four Kings that nobody made costs nothing
        payers = "defenders" if earners == "declarer" else "declarer"
        step = (
            f"{NAMES[b['bonus']].split(' (')[0]}, {'announced' if b['announced'] else 'silent'}"
            f"{_kontra_words(read.kontra(hand, b['bonus']))}{'' if b['made'] else ', failed'}"
        )
        ledger.add(
            step, f"{paid} VP to each of {' and '.join(of[earners])}", *both(of[earners], of[payers], paid)
        )
    declared = _tarok_declarations(hand, active, tariff, ledger)
    facts.update(card_points=GAME.format(points), won=won, tarok_declarations=declared)
    return ledger.result(GAME.id, facts=facts)


def _tarok_declarations(hand: dict, active: tuple[str, ...], tariff: dict, ledger: read.Ledger) -> dict:
    """Eight or nine Taroks: the declarer alone adds 1 or 2 (Simplified), or collects it from each other player."""
    declared = read.field(hand, "tarok_declarations", dict, {})
    for name, count in declared.items():
        if name not in active:
            raise HandFormatError(f"tarok_declarations.{name}", "not a player of this hand")
        if isinstance(count, bool) or str(count) not in tariff["tarok_declarations"]:
            raise HandFormatError(f"tarok_declarations.{name}", f"expected 8 or 9, got {count!r}")
        value = Fraction(tariff["tarok_declarations"][str(count)])
        words = {8: "eight", 9: "nine"}[int(count)]
        ledger.add(
            f"{words} Taroks",
            f"{name} declares {words} Taroks: {value} VP from each other player",
            {name: value},
            settle_lone(name, [p for p in active if p != name], value),
        )
    return dict(declared)


def session_end(totals: dict, hands_played: int, options: dict | None = None) -> dict:
    """Rounds of four deals (five with five players); the session ends when the round in which a player
    gave notice (options["notice_given"]) completes.

    >>> session_end({"Anna": 3, "Ben": -3, "Clara": 1, "Dora": -1}, 6, {"notice_given": True})
    {'deals_per_round': 4, 'rounds_complete': 1, 'deals_left_in_round': 2, 'ended': False}
    """
    tariff = read.merged_tariff(TARIFF, options)
    per_round = int(tariff["deals_per_round"].get(str(len(totals)), 4))
    left = -hands_played % per_round
    notice = bool((options or {}).get("notice_given", False))
    return {
        "deals_per_round": per_round,
        "rounds_complete": hands_played // per_round,
        "deals_left_in_round": left,
        "ended": notice and left == 0 and hands_played > 0,
    }


# Document 003: the Declarer takes the contract's talon cards and discards as many; the Declarer's discard
# counts for the Declarer's side, the other three for the Defenders (a Solo takes none and leaves none).
DISCARDS = {"three": 3, "two": 2, "one": 1, "solo": 0}

GAME = Game(
    id="hungarian",
    name="Hungarian Tarokk",
    aliases=("tarokk", "paskievics", "paskievics tarokk", "magyar tarokk"),
    deck=DECK_42,
    players=(4, 5),
    tricks={4: 4, 5: 4},  # five at a table: the Dealer sits out
    discards=DISCARDS,
    talon=6,
    counter=count_per_card,
    to_win=Fraction(48),
    contracts=CONTRACTS,
    bonuses=BONUSES,
    tariff=TARIFF,
    score=score,
    session_end=session_end,
)
