"""python -m models.holdout --n 200 --seed 7 --out DIR [--faces DIR] [--sizes 2028x1520,4608x2592] [--workers 2]

Writes hold-out photos (JPEG) and one label JSON per photo next to it. Never used for training.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
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
                    help="share of photos with no face-up card (default %(default)s)")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                    help="processes (default %(default)s); output does not depend on it")
    args = ap.parse_args(argv)
    if args.n < 1 or args.workers < 1 or not 0 <= args.empty_share <= 1:
        ap.error("--n and --workers must be at least 1, --empty-share within 0-1")
    try:
        render.init_worker(args.faces, 0)   # fail early, in this process, on a bad faces folder
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    # photo i depends only on (seed, i): the same whatever --n or --workers is
    jobs = [(args.seed, i, args.sizes[i % len(args.sizes)], (i * 7919 + args.seed) % 1000 < args.empty_share * 1000)
            for i in range(args.n)]
    t0 = time.perf_counter()
    empties = cards = 0
    # spawn, not fork: a child forked after cv2 has started its thread pool can hang in its first cv2 call
    pool = ProcessPoolExecutor(args.workers, multiprocessing.get_context("spawn"), render.init_worker,
                               (args.faces, 1)) if args.workers > 1 else None
    try:
        results = pool.map(render.render_job, jobs) if pool else map(render.render_job, jobs)
        for done, (name, jpeg, label) in enumerate(results, 1):
            (args.out / name).write_bytes(jpeg)
            (args.out / name).with_suffix(".json").write_text(json.dumps(label, indent=1))
            empties += not label["cards"]
            cards += len(label["cards"])
            if done % 10 == 0 or done == args.n:
                rate = done / (time.perf_counter() - t0)
                print(f"{done}/{args.n} photos, {rate:.2f}/s, {cards} cards, {empties} empty", flush=True)
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
