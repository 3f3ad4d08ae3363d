"""Calling the King (Königrufen): 54 cards, four players, counted in thirds exactly, 70 Card Points."""
from fractions import Fraction

from scoring.counters import count_in_thirds
from scoring.deck import DECK
from scoring.game import Game

GAME = Game(
    id="koenigrufen", name="Calling the King", aliases=("königrufen", "konigrufen", "calling the king", "king"),
    # Königrufen: 35 1/3 is rounded down, and 35:35 loses for the declarer (Styrian option: 35 1/3 wins).
    deck=DECK, players=(4,), counter=count_in_thirds, to_win=Fraction(107, 3),
)
