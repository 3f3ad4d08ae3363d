"""Speed and memory of recognition on this machine, model loaded: per-stage median times and peak RSS.

    python -m models.benchmark [--photos 12] [--runs 3] [--model models/cards/<release>]

For each size (2028x1520 and 4608x2592) --photos generated photos like the validation ones (random piles and
card sizes; the first is two full piles of a 54-card deal) are each recognised --runs times; the medians are
over all runs of all photos. The photos are made by a child process, so the peak RSS printed is that of a
process that only loads the model, decodes and recognises. With --hand, --photos / 2 whole hands per size (both
sides' trick piles of one deal, rendered as `models.handbench` renders them, seed 81000) are read as hands and
recognised photo by photo.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SIZES = ((2028, 1520), (4608, 2592))


def make_photos(folder: Path, n: int) -> None:
    import cv2

    from models.synth import Deck, random_scene, render
    deck, rng = Deck.load(), np.random.default_rng(7)
    for w, h in SIZES:
        for k in range(n):
            scene = random_scene(rng, n_cards=54 if k == 0 else None, size=(w, h))
            img, _ = render(scene, deck)
            cv2.imwrite(str(folder / f"{w}x{h}-{k:02d}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 90])


HAND_SEED = 81000    # hands for timing: a seed range of their own (training 0-99, evaluation 1000+, hands 70000+)


def make_hands(folder: Path, n: int) -> None:
    """n // 2 whole hands per size: `<w>x<h>-<k>-declarer.jpg`, `-defenders.jpg` and `<w>x<h>-<k>.json` (its game)."""
    import cv2

    from models.handbench import hand_photos
    from models.synth import Deck

    deck = Deck.load()
    for w, h in SIZES:
        for k in range(max(1, n // 2)):
            truth, photos = hand_photos(HAND_SEED, k, deck, size=(w, h))
            for side, img in photos.items():
                cv2.imwrite(str(folder / f"{w}x{h}-{k:02d}-{side}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
            (folder / f"{w}x{h}-{k:02d}.json").write_text(json.dumps({"game": truth["game"]}))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=int, default=12, help="photos per size")
    ap.add_argument("--runs", type=int, default=3, help="runs per photo")
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--make", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--hand", action="store_true",
                    help="time the hand reader on whole hands (both sides' piles of one deal, rendered as the hand "
                         "benchmark renders them, --photos / 2 hands per size) against recognising the same two "
                         "photos one by one, in the same run")
    args = ap.parse_args(argv)
    if args.make:
        (make_hands if args.hand else make_photos)(args.make, args.photos)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "models.benchmark", "--make", tmp, "--photos", str(args.photos)]
                       + (["--hand"] if args.hand else []), check=True)
        from vision import Recogniser, read_image
        t = time.perf_counter()
        rec = Recogniser.load(args.model)
        print(f"model {rec.name}: loaded in {(time.perf_counter() - t) * 1000:.0f} ms")
        if args.hand:
            _hand(rec, Path(tmp), args.runs)
        for w, h in ([] if args.hand else SIZES):
            stages = {"decode": [], "detect": [], "classify": [], "total": [], "cpu": []}
            cards = candidates = 0
            for path in sorted(Path(tmp).glob(f"{w}x{h}-*.jpg")):
                for _ in range(args.runs):
                    c0 = time.process_time()
                    t0 = time.perf_counter()
                    img = read_image(path)
                    t1 = time.perf_counter()
                    found = rec.recognise(img)
                    t2 = time.perf_counter()
                    stages["decode"].append((t1 - t0) * 1000)
                    stages["detect"].append(rec.timings["detect_ms"])
                    stages["classify"].append(rec.timings["classify_ms"])
                    stages["total"].append((t2 - t0) * 1000)
                    stages["cpu"].append((time.process_time() - c0) * 1000)   # all threads; wall time on a busy box lies
                cards, candidates = cards + len(found), candidates + rec.timings["candidates"]
            med = {k: float(np.median(v)) for k, v in stages.items()}
            print(f"{w}x{h}: {args.photos} photos, {cards} cards, {candidates} candidates; median ms: "
                  + ", ".join(f"{k} {v:.1f}" for k, v in med.items())
                  + f"; slowest photo total {max(stages['total']):.0f}")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the recognising process: {peak:.0f} MB")
    return 0


def _hand(rec, folder: Path, runs: int) -> None:
    """Whole hands of one size (each side's pile its own photo): hand reader vs two plain recognitions (each
    timed from the JPEG file, decoding included)."""
    import scoring
    from vision import read_image
    from vision.hand import HandReader

    reader = HandReader(rec)
    for w, h in SIZES:
        plain, hand, decode, cpu = [], [], [], []
        for meta in sorted(folder.glob(f"{w}x{h}-*.json")):
            game = scoring.find_game(json.loads(meta.read_text())["game"])
            a, b = (meta.with_name(f"{meta.stem}-{side}.jpg") for side in ("declarer", "defenders"))
            for _ in range(runs):   # one decoded photo at a time, as the table holds them
                c0, t0 = time.process_time(), time.perf_counter()
                for path in (a, b):
                    rec.recognise(read_image(path))
                c1, t1 = time.process_time(), time.perf_counter()
                piles = {"declarer": reader.read_pile(read_image(a), game),
                         "defenders": reader.read_pile(read_image(b), game)}
                t2 = time.perf_counter()
                reader.decode(game, piles)
                c3, t3 = time.process_time(), time.perf_counter()
                plain.append((t1 - t0) * 1000)
                hand.append((t3 - t1) * 1000)
                decode.append((t3 - t2) * 1000)
                cpu.append((c3 - c1) / max(c1 - c0, 1e-9))   # all threads' CPU time: a busy box's wall time lies
        ratio = np.array(hand) / np.array(plain)
        print(f"{w}x{h}: {len(plain) // max(runs, 1)} hands x {runs} runs; median ms: two photos recognised "
              f"{np.median(plain):.1f}, "
              f"hand read {np.median(hand):.1f} (of it decoding {np.median(decode):.1f}, slowest decoding "
              f"{max(decode):.0f}); hand / two photos {np.median(ratio):.2f} (target 1.5; slowest hand "
              f"{ratio.max():.2f}; CPU time {np.median(cpu):.2f})")


if __name__ == "__main__":
    sys.exit(main())
