"""Pre-generate the training sets from synthetic photos (2 CPU cores: generating once beats generating per epoch).

    python -m models.dataset det --n 2500 --seed 1 --out /tmp/tarokcam-train/det.npz
    python -m models.dataset cls --n 1500 --seed 2 --out /tmp/tarokcam-train/cls.npz

det: photos rendered at detector resolution, stored as JPEG bytes, with index labels (centre, up, height, visible).
cls: (N, 128, 32, 3) uint8 BGR index crops cut like inference cuts them, with card class (54 = not a card) and pips.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from models.synth import FACES_DIR, Deck, random_scene, render
from vision.geometry import crop_indices, index_offset

DET_LONG = 1024          # detector input long side (px)
BACKGROUND = 54          # classifier class for "not a card index"
MIN_VISIBLE = 0.33       # an index at least a third visible must be read
HARD_VISIBLE = 0.15      # below this an index counts as covered (a negative)
FAINT_HEAT = 0.08        # trick piles: weaker peaks down to this heat are cut too (a covered index peaks faintly)


PROGRESS_FILE: Path | None = None   # set by models.train: the table's Training page reads it
_written = [0.0]


def progress(i: int, n: int, t0: float, label: str) -> None:
    """One-line progress bar on stderr (no tqdm on the Pi image), and into PROGRESS_FILE when set."""
    done = (i + 1) / n
    bar = "#" * int(30 * done)
    eta = (time.time() - t0) / done * (1 - done)
    sys.stderr.write(f"\r{label} [{bar:<30}] {i + 1}/{n} eta {eta:5.0f}s")
    if i + 1 == n:
        sys.stderr.write("\n")
    sys.stderr.flush()
    if PROGRESS_FILE is not None and (time.time() - _written[0] > 2.0 or i + 1 == n):
        _written[0] = time.time()
        write_progress(PROGRESS_FILE, {"step": label.split(" [")[0], "done": i + 1, "of": n,
                                       "eta_s": round(eta), "running": True})


def write_progress(path: Path, state: dict) -> None:
    """The training's state as JSON, written whole (a reader never sees half a file, a power cut leaves the
    last one)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({**state, "updated": round(time.time(), 1)}))
    tmp.replace(path)


def det_label_array(labels: list[dict]) -> np.ndarray:
    """(K, 8) float32: cx, cy, ux, uy, height, visible, and the centre of the part that shows (detector px)."""
    rows = [[*lab["center"], *lab["up"], lab["height"], lab["visible"], *lab.get("seen_center", lab["center"])]
            for lab in labels]
    return np.array(rows, np.float32).reshape(-1, 8)


def _decks(deck: Deck | Sequence[Deck]) -> list[Deck]:
    return [deck] if isinstance(deck, Deck) else list(deck)


def _pick(rng: np.random.Generator, decks: list[Deck]) -> Deck:
    """One deck per photo; a single deck draws nothing, so its seeds give the same photos as before printings."""
    return decks[0] if len(decks) == 1 else decks[int(rng.integers(len(decks)))]


def make_det(n: int, seed: int, deck: Deck | Sequence[Deck], trick_piles: float = 0.0) -> dict:
    """Detector photos; deck may be several printings, one drawn per photo (domain randomisation).
    trick_piles: share of photos holding one side's whole trick pile (6-48 cards in one spread, as the hand
    reader sees them) instead of the usual random piles."""
    rng = np.random.default_rng(seed)
    decks = _decks(deck)
    jpgs, labels, t0 = [], [], time.time()
    for i in range(n):
        if trick_piles and rng.random() < trick_piles:
            k = int(rng.integers(6, 49))
            scene = random_scene(rng, cards=[int(c) for c in rng.permutation(54)[:k]], n_piles=1)
        else:
            scene = random_scene(rng, face_up=rng.random() > 0.06)
        img, labs = render(scene, _pick(rng, decks), DET_LONG / max(scene.size))
        jpgs.append(np.frombuffer(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 94])[1], np.uint8))
        labels.append(det_label_array(labs))
        progress(i, n, t0, "det photos")
    return {"jpg": object_array(jpgs), "labels": object_array(labels)}


def object_array(items: list) -> np.ndarray:
    """1-D object array of arrays (np.array would stack equal-length ones into a 2-D array)."""
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


def jitter_frames(rng: np.random.Generator, center: np.ndarray, up: np.ndarray, height: float, k: int):
    """k perturbed (centre, up, height) triples, about as far off as the detector's errors."""
    ang = math.atan2(up[1], up[0]) + rng.normal(0, math.radians(4), k)
    ups = np.stack([np.cos(ang), np.sin(ang)], 1)
    rights = np.stack([-ups[:, 1], ups[:, 0]], 1)
    hs = height * np.exp(rng.normal(0, 0.07, k))
    cs = center + ups * (rng.normal(0, 0.05, k) * height)[:, None] + rights * (rng.normal(0, 0.03, k) * height)[:, None]
    return cs, ups, hs


def detector_frames(rec, img: np.ndarray, labs: list[dict], faint: float | None = None):
    """Index frames where a trained detector puts them, labelled from the scene: (centres, ups, heights,
    classes, pips). A candidate on no index is "not a card"; one on a barely visible index is left out.
    faint: also the weaker peaks down to this heat (`Recogniser.peaks`)."""
    found, weaker = rec.peaks(img, None, faint)
    cs, us, hs = (np.concatenate([a, b]) for a, b in zip(found[:3], weaker[:3]))
    ys, ps, keep = [], [], []
    for k, (c, u) in enumerate(zip(cs, us)):
        hit = None
        for lab in labs:
            along, across = index_offset(c, lab["center"], lab["up"], lab["height"])
            if along < 0.2 and across < 0.35 and np.dot(lab["up"], u) > 0.8:
                hit = lab
                break
        if hit is not None and hit["visible"] < MIN_VISIBLE:
            continue
        keep.append(k)
        ys.append(BACKGROUND if hit is None else hit["class"])
        ps.append(0 if hit is None else hit["pips"])
    return cs[keep], us[keep], hs[keep], ys, ps


def make_cls(n_scenes: int, seed: int, deck: Deck | Sequence[Deck], per_index: int = 3, negatives: int = 16,
             detector: Path | None = None, trick_piles: float = 0.0, tight: bool = False, partial: int = 2) -> dict:
    """Index crops; with `detector` (a model release) also crops where that release's detector finds
    indices, so the classifier learns the frames it will really get, and the detector's false finds.
    deck may be several printings (models.printings), one drawn per photo; they share one card order.
    trick_piles: share of photos holding one side's whole trick pile (6-48 cards, as the hand reader sees
    them: many indices partly covered); there the detector's faint peaks are cut too, and a partly covered
    index (a third to 0.7 visible) gets `partial` times the jittered crops. tight: the trick piles' spreads mostly
    pushed together (`models.synth._tight_pile`, as the covered-card model's data), so more indices show only in
    part."""
    rng = np.random.default_rng(seed)
    decks = _decks(deck)
    deck = decks[0]
    rec = None
    if detector is not None:
        from vision import Recogniser
        rec = Recogniser.load(detector)
    crops, cls, pips, t0 = [], [], [], time.time()
    index_of = {c: i for i, c in enumerate(deck.ids)}
    for i in range(n_scenes):
        pile = bool(trick_piles) and rng.random() < trick_piles
        if pile:
            n_pile = int(rng.integers(6, 49))
            scene = random_scene(rng, cards=[int(c) for c in rng.permutation(len(deck.ids))[:n_pile]], n_piles=1,
                                 tight=tight)
        else:
            # Small piles: an index crop only sees its neighbours, and small scenes render fast on 2 cores.
            scene = random_scene(rng, n_cards=int(rng.integers(3, 19)), face_up=rng.random() > 0.05)
        # The crop looks the same once the index is >= ~3 px/mm, so render big photos smaller (much faster).
        scale = min(1.0, rng.uniform(2.6, 5.0) / scene.ppm)
        img, labs = render(scene, _pick(rng, decks), scale, crop_to_cards=True)
        cs, us, hs, ys, ps = [], [], [], [], []
        if rec is not None:
            for lab in labs:
                lab["class"] = index_of[lab["card"]]
            dc, du, dh, dy, dp = detector_frames(rec, img, labs, FAINT_HEAT if pile else None)
            cs += list(dc); us += list(du); hs += list(dh); ys += dy; ps += dp
        for lab in labs:
            c, u, h = np.array(lab["center"]), np.array(lab["up"]), lab["height"]
            if lab["visible"] >= MIN_VISIBLE:
                n_crops = per_index * (partial if pile and lab["visible"] < 0.7 else 1)
                jc, ju, jh = jitter_frames(rng, c, u, h, n_crops)
                cs += list(jc); us += list(ju); hs += list(jh)
                ys += [index_of[lab["card"]]] * n_crops; ps += [lab["pips"]] * n_crops
            if lab["visible"] >= HARD_VISIBLE and rng.random() < 0.5:   # upside down or sideways: not an index
                turn = rng.choice([math.pi, math.pi / 2, -math.pi / 2])
                ca, sa = math.cos(turn), math.sin(turn)
                cs.append(c); us.append(np.array([ca * u[0] - sa * u[1], sa * u[0] + ca * u[1]])); hs.append(h)
                ys.append(BACKGROUND); ps.append(0)
            elif lab["visible"] < HARD_VISIBLE and rng.random() < 0.5:
                cs.append(c); us.append(u); hs.append(h); ys.append(BACKGROUND); ps.append(0)
        # Random places: table, card bodies, backs, clutter.
        hh, ww = img.shape[:2]
        typical = 44.5 * scene.ppm * scale
        for _ in range(negatives):
            a = rng.uniform(0, 2 * math.pi)
            cs.append(np.array([rng.uniform(0, ww), rng.uniform(0, hh)]))
            us.append(np.array([math.cos(a), math.sin(a)])); hs.append(typical * math.exp(rng.normal(0, 0.2)))
            ys.append(BACKGROUND); ps.append(0)
        if cs:
            crops.append(crop_indices(img, np.array(cs), np.array(us), np.array(hs)))
            cls += ys; pips += ps
        progress(i, n_scenes, t0, "cls photos")
    return {"x": np.concatenate(crops), "y": np.array(cls, np.int64), "pips": np.array(pips, np.int64)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=["det", "cls"])
    ap.add_argument("--n", type=int, required=True, help="number of photos")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--faces", type=Path, default=FACES_DIR, help="folder of <id>.png faces + back.png")
    ap.add_argument("--deck", type=Path, default=None, help="deck file (default: FACES/deck.json)")
    ap.add_argument("--printings", type=int, default=0,
                    help="draw each photo's deck from --faces and this many training printings of it "
                         "(models.printings), made once under --printings-dir")
    ap.add_argument("--printing-seed", type=int, default=100, help="seed of the first printing")
    ap.add_argument("--printings-dir", type=Path, default=Path("/tmp/tarokcam-printings"))
    ap.add_argument("--detector", type=Path, default=None,
                    help="cls: also cut crops where this release's detector finds indices")
    ap.add_argument("--trick-piles", type=float, default=0.0,
                    help="share of photos holding one whole trick pile of 6-48 cards (the hand reader's view)")
    ap.add_argument("--per-index", type=int, default=3, help="cls: jittered crops per index")
    ap.add_argument("--partial", type=int, default=2,
                    help="cls: in a trick pile, crops per partly covered index (a third to 0.7 visible) per --per-index")
    ap.add_argument("--tight", action="store_true", help="cls: trick piles' spreads mostly pushed together")
    ap.add_argument("--negatives", type=int, default=16, help="cls: random non-index crops per photo")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    deck = Deck.load(args.faces, args.deck)
    if args.printings:
        from models.printings import write_printing

        deck = [deck]
        for k in range(args.printings):
            folder = args.printings_dir / f"train-{args.printing_seed + k}"
            if not (folder / "deck.json").exists():
                write_printing(folder, args.printing_seed + k, faces_dir=args.faces)
            deck.append(Deck.load(folder))
    data = make_det(args.n, args.seed, deck, args.trick_piles) if args.kind == "det" else \
        make_cls(args.n, args.seed, deck, args.per_index, args.negatives, args.detector, args.trick_piles,
                 args.tight, args.partial)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp.npz")
    np.savez(tmp, **data)
    tmp.replace(args.out)
    print(f"wrote {args.out}", {k: getattr(v, "shape", None) for k, v in data.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
