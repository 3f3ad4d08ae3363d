"""`tarokcam recognize IMG [IMG ...] --json [--game GAME]`: read the cards in photos of trick piles."""
from __future__ import annotations

import argparse
import json
import time


def register(sub) -> None:
    p = sub.add_parser("recognize", help="recognise the cards in photos of trick piles",
                       description="Recognise every card (id, confidence, pips, index quad) in each photo. "
                                   "One JSON line per photo, printed as soon as it is done.")
    p.add_argument("images", nargs="+", metavar="IMG", help="JPEG or PNG photo(s)")
    p.add_argument("--json", action="store_true", help="print JSON lines (the default output format)")
    p.add_argument("--game", help="game id or alias: add Card Points, and a missing/duplicated summary line")
    p.add_argument("--model", help="model release folder (default: newest under models/cards/)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import vision  # heavy imports only when the command runs, so `tarokcam --help` stays fast

    game = None
    if args.game:
        import scoring
        try:
            game = scoring.find_game(args.game)
        except ValueError as exc:
            print(json.dumps({"error": str(exc)}), flush=True)
            return 2
    try:
        rec = vision.Recogniser.load(args.model)
    except vision.ModelError as exc:
        print(json.dumps({"error": str(exc)}), flush=True)
        return 3
    failed, piles = 0, []
    for path in args.images:
        line: dict = {"image": path}
        try:
            t0 = time.perf_counter()
            image = vision.read_image(path)
            cards = rec.recognise(image)
            line["cards"] = [c.to_json() for c in cards]
            line["ms"] = round((time.perf_counter() - t0) * 1000, 1)
            if game is not None:
                ids = [c.card_id for c in cards]
                piles.append(ids)
                try:
                    line["card_points"] = game.format(game.count(ids))
                except ValueError as exc:   # foreign or repeated cards: the players must correct first
                    line["card_points"] = None
                    line["card_points_error"] = str(exc)
        except vision.ImageError as exc:
            failed += 1
            line = {"image": path, "error": str(exc)}
        print(json.dumps(line), flush=True)
    if game is not None and len(args.images) > 1 and piles:   # both sides' piles of a hand: check the deal
        missing, duplicated = game.missing_and_duplicated(*piles)
        print(json.dumps({"summary": {"game": game.id, "images": len(piles),
                                      "missing": [c.id for c in missing],
                                      "duplicated": [c.id for c in duplicated]}}), flush=True)
    return 1 if failed else 0

