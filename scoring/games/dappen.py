"""Dappen (Black Forest): 54 cards, three players, counted in pairs, 79 Card Points."""
from fractions import Fraction

from scoring.counters import count_in_pairs
from scoring.deck import DECK
from scoring.game import Game

GAME = Game(
    id="dappen", name="Dappen", aliases=("dapp", "black forest tarock"),
    deck=DECK, players=(3,), counter=count_in_pairs, to_win=Fraction(40),
)
