"""Card Point counters: pips plus the number of cards divided by a group size, per game.

Each counter takes cards already checked against the game's deck and returns an exact Fraction.
"""
from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from scoring.deck import Card, cards  # noqa: F401  (cards is used in the doctests)


def count_in_thirds(pile: Iterable[Card]) -> Fraction:
    """Königrufen: every card is worth its pips plus a Blatt (1/3), exact; 70 in the deck.

    >>> count_in_thirds(cards("T1 HK HC HJ"))   # Pagat, King, Cavalier, Jack
    Fraction(37, 3)
    """
    pile = tuple(pile)
    return sum((c.pips for c in pile), Fraction(0)) + Fraction(len(pile), 3)


def count_thirds_rounded(pile: Iterable[Card]) -> Fraction:
    """Slovenian Tarok, Strawman: count the cards, divide by three, round to the nearest, add the pips.

    The two sides of a 54-card deal always make 70: their card counts' remainders are 1/3 and 2/3.
    >>> count_thirds_rounded(cards("T1 T21 SKUS HK DK HJ") + cards("T2 T3 T4 T5 T6 T7 T8 T9 T10 T11 T12 "
    ...     "T13 T14 T15 T16 T17 T18 T19 T20"))   # 25 cards with 21 pips: 8 + 21
    Fraction(29, 1)
    """
    pile = tuple(pile)
    # n/3 is never exactly a half, so round() needs no tie rule.
    return Fraction(sum(c.pips for c in pile) + round(Fraction(len(pile), 3)))


def count_per_card(pile: Iterable[Card], blanks: frozenset[str] = frozenset()) -> Fraction:
    """Hungarian Tarokk, Zwanzigerrufen: one point per card plus its pips; `blanks` count 0.

    >>> count_per_card(cards("T1 HK HQ"))
    Fraction(14, 1)
    >>> count_per_card(cards("C10 HK"), blanks=frozenset({"C10"}))
    Fraction(5, 1)
    """
    return Fraction(sum(0 if c.id in blanks else c.pips + 1 for c in pile))


def count_in_pairs(pile: Iterable[Card]) -> Fraction:
    """Dappen: pips plus half a point per card (count in pairs, minus one per pair); 79 in the deck.

    >>> count_in_pairs(cards("HK HQ"))   # (5 + 4) - 1
    Fraction(8, 1)
    """
    pile = tuple(pile)
    return sum((c.pips for c in pile), Fraction(0)) + Fraction(len(pile), 2)


def shortcut_rounded_up(pile: Iterable[Card]) -> Fraction:
    """Königrufen shortcut: rounded-up values (pips + 1) in threes minus 2; a lone card -2/3, two cards -1 1/3.

    >>> shortcut_rounded_up(cards("SK SJ S7"))   # (5 + 2 + 1) - 2
    Fraction(6, 1)
    >>> shortcut_rounded_up(cards("T1 HK HC HJ"))   # (5 + 5 + 3) - 2 + 2 - 2/3
    Fraction(37, 3)
    """
    pile = tuple(pile)
    total = Fraction(0)
    for start in range(0, len(pile), 3):
        group = pile[start:start + 3]
        total += sum(c.pips + 1 for c in group) - {3: Fraction(2), 2: Fraction(4, 3), 1: Fraction(2, 3)}[len(group)]
    return total


def shortcut_rounded_down(pile: Iterable[Card]) -> Fraction:
    """Königrufen shortcut: rounded-down values (the pips) in threes plus 1; each left-over card adds 1/3.

    >>> shortcut_rounded_down(cards("SK SJ S7"))   # (4 + 1 + 0) + 1
    Fraction(6, 1)
    >>> shortcut_rounded_down(cards("T1 HK HC HJ"))   # (4 + 4 + 2 + 1) + 1 1/3
    Fraction(37, 3)
    """
    pile = tuple(pile)
    full, rest = divmod(len(pile), 3)
    return Fraction(sum(c.pips for c in pile) + full) + Fraction(rest, 3)


def format_points(points: Fraction) -> str:
    """Card Points in the players' notation: a whole number, or whole and a fraction.

    >>> format_points(Fraction(106, 3))
    '35 1/3'
    >>> format_points(Fraction(29))
    '29'
    >>> format_points(Fraction(1, 3))
    '1/3'
    """
    points = Fraction(points)
    sign = "-" if points < 0 else ""
    points = abs(points)
    whole, part = divmod(points.numerator, points.denominator)
    if part == 0:
        return f"{sign}{whole}"
    frac = f"{part}/{points.denominator}"
    return f"{sign}{whole} {frac}" if whole else f"{sign}{frac}"


def parse_points(text: str | float | Fraction) -> Fraction:
    """Read Card Points written as '35', '35 1/3', '1/3', '35.5' or a number.

    >>> parse_points("35 2/3")
    Fraction(107, 3)
    >>> parse_points("lots")
    Traceback (most recent call last):
    ...
    ValueError: cannot read Card Points from 'lots'; write e.g. 35, 35 1/3 or 39 1/2
    """
    if isinstance(text, (int, Fraction)) and not isinstance(text, bool):
        return Fraction(text)
    if isinstance(text, float):
        return Fraction(text).limit_denominator(6)
    try:
        parts = str(text).split()
        if len(parts) == 2:
            whole, frac = int(parts[0]), Fraction(parts[1])
            if not 0 <= frac < 1 or "/" not in parts[1]:
                raise ValueError
            return whole - frac if parts[0].startswith("-") else whole + frac
        if len(parts) == 1:
            return Fraction(parts[0]).limit_denominator(6)
    except (ValueError, ZeroDivisionError):
        pass
    raise ValueError(f"cannot read Card Points from {text!r}; write e.g. 35, 35 1/3 or 39 1/2")
