"""Calling the Twenty (Zwanzigerrufen): 40 cards, one point per card, the four blanks at 0, 88 Card Points."""
from fractions import Fraction

from scoring.counters import count_per_card
from scoring.deck import DECK
from scoring.game import Game

# The 40-card pack drops Taroks II and III and keeps one blank per suit: the red 1 and the black 10,
# as in the 42-card Hungarian pack. The blanks count 0, so the deck holds 52 pips + 36 = 88.
BLANKS = frozenset({"H1", "D1", "C10", "S10"})
DECK_40 = tuple(c for c in DECK if c.in_42_card_deck and c.id not in {"T2", "T3"})


def count(pile):
    return count_per_card(pile, BLANKS)


GAME = Game(
    id="zwanzigerrufen", name="Calling the Twenty", aliases=("zwanzigerrufen", "calling the twenty", "twenty"),
    deck=DECK_40, players=(4,), counter=count, to_win=Fraction(45),
)
