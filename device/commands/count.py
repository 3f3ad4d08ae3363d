"""`tarokcam count --game GAME CARD [CARD ...]`: Card Points of one pile, as one JSON object."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "count",
        help="count the Card Points of a pile of cards",
        description="Count one side's pile the way the game counts it and print one JSON object: "
        '{"game", "cards", "pips", "card_points", "total"}.',
    )
    p.add_argument(
        "--game", required=True, help="game id, name or alias (slovenian, hungarian, koenigrufen, ...)"
    )
    p.add_argument("cards", nargs="+", metavar="CARD", help="card ids: T1..T21, SKUS, HK, CC, S10, D4 ...")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from scoring import find_game
    from scoring.deck import IllegalHandError, UnknownCardError, card
    from scoring.result import points_json

    try:
        game = find_game(args.game)
    except ValueError as exc:
        return _fail(str(exc))
    ids = [i for arg in args.cards for i in arg.replace(",", " ").split()]
    unknown = []
    for i in ids:
        try:
            card(i)
        except UnknownCardError:
            unknown.append(i)
    if unknown:
        return _fail(
            f"unknown card{'s' if len(unknown) > 1 else ''}: {' '.join(unknown)}; "
            "card ids look like T1..T21, SKUS, HK, CC, S10"
        )
    try:
        pile = game.check(ids)
        points = game.counter(pile)
    except (IllegalHandError, ValueError) as exc:
        return _fail(str(exc))
    print(
        json.dumps(
            {
                "game": game.id,
                "cards": len(pile),
                "pips": sum(c.pips for c in pile),
                "card_points": game.format(points),
                "total": points_json(game.total),
            }
        )
    )
    return 0


def _fail(message: str) -> int:
    print(f"tarokcam count: error: {message}", file=sys.stderr)
    return 2
