"""python -m models.holdout --n 200 --seed 7 --out DIR [--faces DIR] [--sizes 2028x1520,4608x2592] [--empty-share 0.08]

Writes hold-out photos (JPEG) and one label JSON per photo next to it. Never used for training.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from models.holdout import render


def parse_sizes(text: str) -> list[tuple[int, int]]:
    sizes = []
    for part in text.split(","):
        try:
            w, h = (int(v) for v in part.lower().strip().split("x"))
        except ValueError:
            raise argparse.ArgumentTypeError(f"size {part!r} is not WIDTHxHEIGHT, e.g. 2028x1520") from None
        if not (320 <= w <= 8000 and 240 <= h <= 8000):
            raise argparse.ArgumentTypeError(f"size {part!r} out of range (320-8000 x 240-8000)")
        sizes.append((w, h))
    return sizes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.holdout", description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200, help="number of photos")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, required=True, help="output folder (created)")
    ap.add_argument("--faces", type=Path, default=None, help="card faces folder (default: models/faces or the "
                                                             "shared deck)")
    ap.add_argument("--sizes", type=parse_sizes, default=list(render.PI_SIZES),
                    help="comma-separated WxH photo sizes, cycled (default: the Pi camera still sizes)")
    ap.add_argument("--empty-share", type=float, default=render.EMPTY_SHARE,
                    help="share of photos with no face-up card")
    args = ap.parse_args(argv)
    if args.n < 1:
        ap.error("--n must be at least 1")
    try:
        renderer = render.HoldoutRenderer(args.faces)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    empties = cards = 0
    for i in range(args.n):
        size = args.sizes[i % len(args.sizes)]
        name = f"holdout_{args.seed}_{i:05d}.jpg"
        # each photo has its own stream, so photo i is the same whatever --n is
        empty = (i * 7919 + args.seed) % 1000 < args.empty_share * 1000
        photo = renderer.render([args.seed, i], size, empty=empty, name=name)
        (args.out / name).write_bytes(photo.jpeg)
        (args.out / name).with_suffix(".json").write_text(json.dumps(photo.label, indent=1))
        empties += not photo.label["cards"]
        cards += len(photo.label["cards"])
        if (i + 1) % 10 == 0 or i + 1 == args.n:
            rate = (i + 1) / (time.perf_counter() - t0)
            print(f"{i + 1}/{args.n} photos, {rate:.2f}/s, {cards} cards, {empties} empty", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
