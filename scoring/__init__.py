"""Pure Tarock scoring: the deck, Card Point counters, hand scoring and settlement. Standard library only."""
from scoring.counters import format_points, parse_points
from scoring.deck import DECK, Card, IllegalHandError, UnknownCardError, card, cards
from scoring.game import Game
from scoring.games import GAMES, find_game
from scoring.result import HandFormatError, HandResult, LedgerStep, ScoringSystem
from scoring.session import score_sheet
from scoring.suggest import suggest_bonuses


def score_hand(hand: dict, options: dict | None = None) -> HandResult:
    """Score one hand record (see `scoring/schema/hand.schema.json`) under both systems."""
    if not isinstance(hand, dict):
        raise HandFormatError("hand", "expected a JSON object")
    if "game" not in hand:
        raise HandFormatError("game", f"missing; one of {', '.join(GAMES)}")
    try:
        game = find_game(str(hand["game"]))
    except ValueError as exc:
        raise HandFormatError("game", str(exc)) from None
    if game.score is None:
        raise HandFormatError("game", f"hand scoring for {game.name} is not available")
    return game.score(hand, options)

__all__ = [
    "DECK",
    "GAMES",
    "Card",
    "Game",
    "HandFormatError",
    "HandResult",
    "IllegalHandError",
    "LedgerStep",
    "ScoringSystem",
    "UnknownCardError",
    "card",
    "cards",
    "find_game",
    "format_points",
    "parse_points",
    "score_hand",
    "score_sheet",
    "suggest_bonuses",
]
