"""Hungarian Tarokk: the 42-card pack, one point per card plus pips, 94 Card Points."""
from fractions import Fraction

from scoring.counters import count_per_card
from scoring.deck import DECK
from scoring.game import Game

DECK_42 = tuple(c for c in DECK if c.in_42_card_deck)

GAME = Game(
    id="hungarian", name="Hungarian Tarokk", aliases=("tarokk", "paskievics", "paskievics tarokk", "magyar tarokk"),
    deck=DECK_42, players=(4, 5), counter=count_per_card, to_win=Fraction(48),
)
