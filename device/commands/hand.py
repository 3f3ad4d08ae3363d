"""`tarokcam hand DECLARER_IMG DEFENDERS_IMG --game GAME --json`: read both piles of a hand as one hand."""
from __future__ import annotations

import argparse
import json
import time


def register(sub) -> None:
    p = sub.add_parser(
        "hand", help="read both sides' trick piles as one hand: cards, Card Points and the questions left",
        description="Read the photos of one hand together against the game's deck: every card lies in exactly "
                    "one pile. Prints one JSON object with both sides' cards and Card Points and the questions "
                    "whose answers change the score (none: the hand is settled).")
    p.add_argument("images", nargs="+", metavar="IMG",
                   help="DECLARER_IMG DEFENDERS_IMG; or one photo with --rest; or one photo of both piles "
                        "with --both")
    p.add_argument("--game", required=True, help="game id or alias (its deck and counter)")
    p.add_argument("--rest", choices=("declarer", "defenders"),
                   help="one photo only: this side holds every card not seen (\"the rest is theirs\")")
    p.add_argument("--both", action="store_true",
                   help="one photo holding both piles: the Declarer's is the one on the left (or top)")
    p.add_argument("--talon", type=int, metavar="N",
                   help="cards in the Declarer's pile not won in a trick (the discards, or the Talon cards the "
                        "contract gives it): with it the count of whole tricks places a card no photo shows")
    p.add_argument("--contract", metavar="ID",
                   help="the hand's contract (a game's contract id, e.g. three): says --talon as its rules do "
                        "(the Declarer's discards)")
    p.add_argument("--players", type=int, metavar="N",
                   help="with --talon or --contract: cards in each trick (default: the game's player count, where "
                        "it has one)")
    p.add_argument("--json", action="store_true", help="print JSON (the default output format)")
    p.add_argument("--model", help="model release folder (default: newest under models/cards/)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import vision
    from device.handread import count_warning
    from vision.hand import SIDES, HandReader

    game, code = load_game(args.game)
    if game is None:
        return code
    want = 1 if (args.rest or args.both) else 2
    if len(args.images) != want:
        shape = "one photo" if want == 1 else "two photos (the Declarer's, then the Defenders')"
        _print({"error": f"{len(args.images)} photo(s) given; this needs {shape}"})
        return 2
    if args.rest and args.both:
        _print({"error": "--rest and --both do not go together"})
        return 2
    talon, why = contract_talon(game, args.talon, args.contract)
    sizes, why = pile_sizes(game, talon, args.players) if not why else (None, why)
    if why:
        _print({"error": why})
        return 2
    try:
        reader = HandReader(vision.Recogniser.load(args.model))
    except vision.ModelError as exc:
        _print({"error": str(exc)})
        return 3
    t0 = time.perf_counter()
    images: dict[str, str] = {}
    piles = {}
    sides = [s for s in SIDES if s != args.rest] if not args.both else ["table"]
    for side, path in zip(sides, args.images):
        try:
            piles[side] = reader.read_pile(vision.read_image(path), game)
        except vision.ImageError as exc:
            _print({"image": path, "error": str(exc)})
            return 1
        images[side] = path
    switched = None
    if args.model is None:      # the table's watch (vision.printing): another printing reads with its release
        piles, reader, switched = _other_printing(piles, reader, game, args.images, sides)
    if args.both:
        piles = piles["table"].split_by_gap()
        images = {s: args.images[0] for s in SIDES}
        if piles is None:
            _print({"image": args.images[0], "error": "cannot tell the two piles apart in this photo: "
                                                      "lay them further apart, or photograph each"})
            return 1
    hand = reader.decode(game, piles, rest=args.rest, sizes=sizes)
    out = hand.to_json(game)
    for side in SIDES:
        out["sides"][side] = {"image": images.get(side), **out["sides"][side]}
    said = talon if args.contract is not None or args.talon is not None else None   # not a game's unsaid 0
    warning = count_warning(game, trick_size(game, args.players)[0], said, args.contract,
                            len(out["sides"]["declarer"]["cards"]))
    if warning:     # the count said and the cards read disagree: the contract may be wrong (and with it the score)
        out["count_warning"] = warning[0].lower() + warning[1:]
    out["ms"] = round((time.perf_counter() - t0) * 1000)
    out["model"] = reader.rec.name
    if switched:
        out["switched"] = switched
    _print(out)
    return 0


def _other_printing(piles: dict, reader, game, paths: list[str], sides: list[str]):
    """The piles read again with the release for other printings when the default reads them as the table's
    watch says another printing reads (a quarter of at least 40 cards unsure); else as they are."""
    import vision
    from device.handread import recognitions_of
    from vision.hand import HandReader
    from vision.printing import PrintingWatch
    from vision.recogniser import printing_release

    watch = PrintingWatch()
    for pile in piles.values():
        watch.observe(r["flagged"] for r in recognitions_of(pile, game))
    other = printing_release() if watch.unlike_reference() else None
    if other is None:
        return piles, reader, None
    try:
        again = HandReader(vision.Recogniser.load(other))
        piles = {side: again.read_pile(vision.read_image(path), game) for side, path in zip(sides, paths)}
    except (vision.ModelError, vision.ImageError):
        return piles, reader, None      # read with the default, as before
    return piles, again, f"read with {other.name}, the release for other printings: {watch.reason()}"


def contract_talon(game, talon: int | None, contract: str | None) -> tuple[int | None, str]:
    """--talon, or the count --contract says (`scoring.Game.contract_talon`); a game dealt without a talon needs
    neither (every pile is whole tricks). (None, why) when they disagree or the contract says none."""
    if contract is not None:
        try:
            said = game.contract_talon(contract)
        except ValueError as exc:
            return None, str(exc)
        if talon is not None and talon != said:
            return None, f"--talon {talon} and --contract {contract} ({said} cards) disagree: say one"
        return said, ""
    return (talon if talon is not None else game.unsaid_talon()), ""


def pile_sizes(game, talon: int | None, players: int | None) -> tuple[frozenset[int] | None, str]:
    """The Declarer's pile's possible sizes from --talon and --players, or (None, why not)."""
    if talon is None:
        return None, ("--players needs --talon (how many cards lie in the Declarer's pile without a trick)"
                      if players is not None else "")
    players, why = trick_size(game, players)
    if why:
        return None, why
    try:
        return game.pile_sizes(players, talon), ""
    except ValueError as exc:
        return None, str(exc)


def trick_size(game, players: int | None) -> tuple[int | None, str]:
    """Cards in each trick: --players, or the one size every seating of the game plays (Hungarian: four or five at
    the table, tricks of four), or the game's one player count; (None, why) where the seatings differ."""
    if players is not None:
        return players, ""
    per_trick = set(game.tricks.values())
    if len(per_trick) == 1:
        return per_trick.pop(), ""
    if len(game.players) != 1:
        return None, (f"{game.name} is played by {' or '.join(map(str, game.players))}: "
                      "say --players (cards in each trick)")
    return game.players[0], ""


def load_game(name: str):
    """The game, or None and the exit code after printing why."""
    import scoring

    try:
        return scoring.find_game(name), 0
    except ValueError as exc:
        _print({"error": str(exc)})
        return None, 2


def _print(obj: dict) -> None:
    print(json.dumps(obj), flush=True)
