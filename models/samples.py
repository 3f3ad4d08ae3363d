"""Write labelled sample photos: test samples (tests/vision/data) and the demo camera's photos (device/demo/photos).

    python -m models.samples tests --out tests/vision/data
    python -m models.samples demo --out device/demo/photos

Each photo `<name>.jpg` gets `<name>.json`: {"cards": ids that must be read (index >= 1/3 visible),
"optional": ids whose index is barely visible, "indices": [{"card", "quad", "visible"}], "size", "seed"}.
Demo photos are two hands of a real 54-card deal: each hand's declarer pile and defenders pile.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from models.dataset import MIN_VISIBLE
from models.synth import Deck, random_scene, render

DONT_CARE = 0.05


def write_photo(out: Path, name: str, img: np.ndarray, labels: list[dict], meta: dict, quality: int) -> dict:
    best: dict[str, float] = {}
    for lab in labels:
        best[lab["card"]] = max(best.get(lab["card"], 0.0), lab["visible"])
    record = {"image": f"{name}.jpg", **meta,
              "cards": sorted(c for c, v in best.items() if v >= MIN_VISIBLE),
              "optional": sorted(c for c, v in best.items() if DONT_CARE <= v < MIN_VISIBLE),
              "indices": [{"card": lab["card"], "quad": lab["quad"], "visible": lab["visible"]}
                          for lab in labels if lab["visible"] >= DONT_CARE]}
    cv2.imwrite(str(out / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    (out / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")
    return record


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=["tests", "demo"])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    deck = Deck.load()
    if args.kind == "tests":
        rng = np.random.default_rng(args.seed if args.seed is not None else 4242)
        for i, n in enumerate((6, 12, 20)):
            scene = random_scene(rng, n_cards=n, size=(1640, 1232))
            img, labels = render(scene, deck)
            write_photo(args.out, f"sample{i + 1}", img, labels, {"size": list(scene.size)}, 80)
        scene = random_scene(rng, face_up=False, size=(1640, 1232))
        img, labels = render(scene, deck)
        write_photo(args.out, "no_face_up", img, labels, {"size": list(scene.size)}, 80)
    else:
        rng = np.random.default_rng(args.seed if args.seed is not None else 2028)
        for hand in (1, 2):
            order = [int(i) for i in rng.permutation(54)]
            k = int(rng.integers(24, 34))
            for side, cards in (("declarer", order[:k]), ("defenders", order[k:])):
                scene = random_scene(rng, cards=cards, n_piles=1, size=(2028, 1520))
                img, labels = render(scene, deck)
                rec = write_photo(args.out, f"hand{hand}_{side}", img, labels,
                                  {"hand": hand, "side": side, "pile": [deck.ids[i] for i in cards],
                                   "size": list(scene.size)}, 85)
                print(rec["image"], len(rec["cards"]), "readable of", len(cards))
    return 0


if __name__ == "__main__":
    sys.exit(main())
