"""How well a release's sliver channel finds the cards no read takes, on generated hands (README, "Session 18").

    python -m models.slivers --model /tmp/rel/R --hands 30 --seed 70000 --cache /tmp/hands --heat 0.5,0.6,0.7,0.8

Renders each hand's labels again from its seed (`models.handbench.hand_scenes`), reads each pile photo of
the cache (or reuses `<i>-<side>.<release>.pile.json` beside it) and counts, per threshold, the peaks no read
explains (`PileRead.hidden`) that lie on a card no read takes (found) and the others (false).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

import scoring
from models.handbench import SIDES, hand_scenes, pile_path, render_all
from models.synth import FACES_DIR, Deck, render


def pile_labels(seed: int, i: int, deck: Deck) -> tuple[str, dict[str, list]]:
    """Hand i's game and, per side, its index labels (card, centre, visible), from a quarter-size render."""
    truth, scenes = hand_scenes(seed, i, deck)
    out = {}
    for side, scene in scenes.items():
        _, labels = render(scene, deck, 0.25)
        out[side] = [(lab["card"], [4 * v for v in lab["center"]], lab["visible"]) for lab in labels]
    return truth["game"], out


def score(pile, labels: list, settings) -> tuple[int, int, int]:
    """(found, false, cards no read takes) for one pile read: a read takes the card whose index centre lies within
    0.12 index heights; a peak no read explains finds a card no read takes within 0.2 index heights."""
    if not pile.sightings:
        return 0, 0, 0
    h = float(np.median([s.height for s in pile.sightings]))
    taken = {c for s in pile.sightings for c, p, v in labels if v > 0.05 and math.dist(s.centre, p) < 0.12 * h}
    untaken = {c for c, _, _ in labels} - taken
    found: set[str] = set()
    false = 0
    for x, y, _ in pile.hidden(settings):
        d, c = min(((math.dist((x, y), p), c) for c, p, v in labels if v > 0), default=(math.inf, None))
        if d < 0.2 * h and c in untaken and c not in found:
            found.add(c)
        else:
            false += 1
    return len(found), false, len(untaken)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, required=True, help="a release with the sliver channel")
    ap.add_argument("--hands", type=int, default=30)
    ap.add_argument("--seed", type=int, default=70000)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--heat", default="0.5,0.6,0.7,0.8", help="sliver_card thresholds to count at")
    args = ap.parse_args(argv)
    from vision import Recogniser
    from vision.hand import HandReader, PileRead

    render_all(args.seed, args.hands, args.cache, FACES_DIR, 1)
    deck = Deck.load(FACES_DIR)
    rec = Recogniser.load(args.model)
    reader = HandReader(rec)
    reads = []
    for i in range(args.hands):
        game, labels = pile_labels(args.seed, i, deck)
        for side in SIDES:
            path = pile_path(args.cache, i, side, rec.name)
            if path.exists():
                pile = PileRead.from_json(json.loads(path.read_text()))
            else:
                pile = reader.read_pile(cv2.imread(str(args.cache / f"{i:04d}-{side}.jpg")), scoring.find_game(game))
                path.write_text(json.dumps(pile.to_json()))
            reads.append((pile, labels[side]))
    for heat in (float(v) for v in args.heat.split(",")):
        st = replace(reader.settings, sliver_card=heat)
        found, false, untaken = (sum(t) for t in zip(*(score(p, lab, st) for p, lab in reads)))
        print(f"heat {heat}: cards no read takes {untaken}, found {found}, false {false}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
