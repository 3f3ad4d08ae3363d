"""Strawman (Strohmandeln): two players and two dummies, 54 cards, count in threes rounded, 70 Card Points."""
from fractions import Fraction

from scoring.counters import count_thirds_rounded
from scoring.deck import DECK
from scoring.game import Game

GAME = Game(
    id="strawman", name="Strawman", aliases=("strohmandeln", "strohmandl"),
    deck=DECK, players=(2,), counter=count_thirds_rounded, to_win=Fraction(36),
)
