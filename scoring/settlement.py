"""Zero-sum settlement between players (Traditional Scoring, document 000).

"The winning side does not only add; it collects from the losing side. Each loser subtracts what each
winner adds, pair by pair. A player who plays alone collects from every opponent separately, or pays
every opponent separately." Slovenian Tarok settles instead by each total's distance from the average.

Every helper returns a fresh dict {player: Fraction} that sums to zero; merge steps with `add_up`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

Points = int | Fraction


def _distinct(*groups: Sequence[str]) -> None:
    names = [p for g in groups for p in g]
    if len(set(names)) != len(names):
        raise ValueError(f"a player sits on both sides or twice: {', '.join(names)}")


def settle_sides(winners: Sequence[str], losers: Sequence[str], value: Points) -> dict[str, Fraction]:
    """Each loser pays `value` to the winning side, pair by pair.

    Equal sides settle counterpart against counterpart (two against two: each adds or subtracts the
    value). A lone player settles with every opponent separately, so collects or pays it once per opponent.
    Zwanzigerrufen, the Call won (1 VP), two against two:

    >>> settle_sides(["Anna", "Ben"], ["Clara", "Dora"], 1)
    {'Anna': Fraction(1, 1), 'Ben': Fraction(1, 1), 'Clara': Fraction(-1, 1), 'Dora': Fraction(-1, 1)}

    Königrufen, Blind Solo won (5 VP), Anna alone: 5 x 3 = 15 for her.

    >>> settle_sides(["Anna"], ["Ben", "Clara", "Dora"], 5)["Anna"]
    Fraction(15, 1)

    A lone loser pays every opponent:

    >>> settle_sides(["Ben", "Clara", "Dora"], ["Anna"], 2)["Anna"]
    Fraction(-6, 1)
    """
    winners, losers = tuple(winners), tuple(losers)
    if not winners or not losers:
        raise ValueError("both sides need at least one player")
    _distinct(winners, losers)
    value = Fraction(value)
    # Every member of the larger side pays or receives the value once; the smaller side shares the
    # sum evenly: one each for counterparts, one per opponent for a lone player.
    if len(winners) >= len(losers):
        out = {w: value for w in winners}
        share = value * len(winners) / len(losers)
        out.update({l: -share for l in losers})
    else:
        share = value * len(losers) / len(winners)
        out = {w: share for w in winners}
        out.update({l: -value for l in losers})
    return out


def settle_lone(player: str, opponents: Sequence[str], value: Points) -> dict[str, Fraction]:
    """A player alone collects `value` from every opponent (a negative value: pays every opponent).

    Königrufen, failed Pagat Ultimo earns Anna 2 VP from each Defender:

    >>> settle_lone("Anna", ["Ben", "Clara", "Dora"], 2)
    {'Anna': Fraction(6, 1), 'Ben': Fraction(-2, 1), 'Clara': Fraction(-2, 1), 'Dora': Fraction(-2, 1)}
    >>> settle_lone("Anna", ["Ben", "Clara"], -5)["Anna"]
    Fraction(-10, 1)
    """
    opponents = tuple(opponents)
    if not opponents:
        raise ValueError("a lone player needs at least one opponent")
    _distinct((player,), opponents)
    value = Fraction(value)
    out = {player: value * len(opponents)}
    out.update({o: -value for o in opponents})
    return out


def settle_counterparts(pairs: Iterable[tuple[str, str]], value: Points) -> dict[str, Fraction]:
    """Each (winner, loser) pair settles `value`: the loser pays their counterpart on the winning side.

    Zwanzigerrufen: Clara pays Anna, Dora pays Ben.

    >>> settle_counterparts([("Anna", "Clara"), ("Ben", "Dora")], 1)
    {'Anna': Fraction(1, 1), 'Clara': Fraction(-1, 1), 'Ben': Fraction(1, 1), 'Dora': Fraction(-1, 1)}
    """
    out: dict[str, Fraction] = {}
    value = Fraction(value)
    for winner, loser in pairs:
        if winner == loser:
            raise ValueError(f"{winner} cannot pay themselves")
        out[winner] = out.get(winner, Fraction(0)) + value
        out[loser] = out.get(loser, Fraction(0)) - value
    return out


def settle_by_average(totals: Mapping[str, Points]) -> dict[str, Fraction]:
    """Slovenian Tarok: each player pays or receives the distance between their total and the average.

    Document 000's worked example: totals +40, -20, +40, 0 average 15.

    >>> settle_by_average({"Anna": 40, "Ben": -20, "Clara": 40, "Dora": 0})
    {'Anna': Fraction(25, 1), 'Ben': Fraction(-35, 1), 'Clara': Fraction(25, 1), 'Dora': Fraction(-15, 1)}
    """
    if not totals:
        raise ValueError("no players to settle")
    average = sum((Fraction(v) for v in totals.values()), Fraction(0)) / len(totals)
    return {p: Fraction(v) - average for p, v in totals.items()}


def add_up(*steps: Mapping[str, Points], players: Iterable[str] = ()) -> dict[str, Fraction]:
    """The sum of several settlements, player by player; `players` are listed even if they never settled.

    >>> add_up({"Anna": 1, "Ben": -1}, {"Anna": 2, "Ben": -2}, players=["Anna", "Ben", "Clara"])
    {'Anna': Fraction(3, 1), 'Ben': Fraction(-3, 1), 'Clara': Fraction(0, 1)}
    """
    out: dict[str, Fraction] = {p: Fraction(0) for p in players}
    for step in steps:
        for p, v in step.items():
            out[p] = out.get(p, Fraction(0)) + Fraction(v)
    return out


def is_zero_sum(mapping: Mapping[str, Points]) -> bool:
    """True when the players' points add up to exactly zero.

    >>> is_zero_sum({"Anna": 25, "Ben": -35, "Clara": 25, "Dora": -15})
    True
    >>> is_zero_sum({"Anna": 40, "Ben": -20, "Clara": 40})
    False
    """
    return sum((Fraction(v) for v in mapping.values()), Fraction(0)) == 0
