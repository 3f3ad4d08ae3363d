"""Slovenian Tarok: 54 cards, four (or three) players, count in threes rounded, 70 Card Points."""
from fractions import Fraction

from scoring.counters import count_thirds_rounded
from scoring.deck import DECK
from scoring.game import Game

GAME = Game(
    id="slovenian", name="Slovenian Tarok", aliases=("tarok", "slovenski tarok"),
    deck=DECK, players=(4, 3), counter=count_thirds_rounded, to_win=Fraction(36),
)
