"""The covered-card model: does a card lie under a read card with too little of its index showing to be read?

A card whose index shows less than a third is not read, and the hand reader can place it only by elimination:
which pile it lies in is a question unless something counts it. Beside the read that covers it a sliver of its
index, or only its edge, shows. The model looks at the stretch around each read index (`vision.geometry.
crop_beside`, the same crop at training and at the table) and gives the chance that such a card lies there.

    python -m models.covered make --work W --hands 240 --seed 132000 --tight               # pushed-together piles
    python -m models.covered make --work W --hands 240 --start 240 --seed 132000 --tight   # (in parts, at once)
    python -m models.covered train --work W --minutes 30 --threads 2                       # resumes from W/cover.pt
    python -m models.covered make --work W --faces DECK --tight; ... train --work W --lr 5e-4   # a deck's fine-tune
    python -m models.export --work W --tag synth7c          # a release with it (det/cls from models/checkpoints)
    python -m models.covered measure --cache C --release R --hands 90   # counts against a hand benchmark's cache
    python -m models.covered recount --cache C --release R --model M --out C2 [--agree M2]   # M's counts, same reads
    python -m models.covered make --work S --hands 360 --seed 141000 --tight --slots --workers 2   # the slot kind
    python -m models.covered make --work S --hands 200 --seed 142000 --slots --workers 2          # (session 44)
    python -m models.covered make --work R --hands 280 --seed 145000 --tight --reads --workers 2  # the reader's
    python -m models.covered make --work R --hands 160 --seed 146000 --reads --workers 2          # own reads

With `--reads` (session 45) the anchors are the reads the bundled hand reader makes of each photo (`read_crops`),
not the generator's labels, and the target is any card of the pile whose index no read lies on, hidden or
missed by the detector: what the decoder counts as lost, framed as the table frames it. Session 45 trained one
(`models/checkpoints/cover-reads.pt`); not bundled: README, "Session 45".

The slot kind (`--slots`; `slot_targets`): one crop per slot of a spread (before its first read, between each two
neighbours, after its last: `vision.geometry.spread_slots`), the target whether a card no read shows lies there,
so that a hidden card has one place to be counted rather than one beside each of its neighbours. A release of
that kind says so in its model.json (`covered_slots`), and the hand reader then crops its slots
(`HandReader._slots_covered`). Session 44 trained one (`models/checkpoints/cover-slots.pt`); not bundled: README,
"Session 44".

`recount` gives a hand benchmark cache's pile reads another release's covered-card chances (the very same reads,
so that two covered-card models are compared hand for hand), with `--agree` the lesser of two releases' chances:
session 46 made synth7c's model and the slot kind agree that way; not bundled: README, "Session 46".

Photos are the hand benchmark's own draw (`models.handbench.hand_scenes`, other seeds), with `--tight` most
spreads pushed together (`models.synth._tight_pile`: 15 times more covered cards a photo). The anchors are the
generator's indices showing 40 % or more (what the reader reads), each jittered as the detector's frames are
off; a covered card (its best index showing 3-33 %) belongs to the read nearest the centre of the part that
shows, within 0.8 index heights.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from models.dataset import progress
from models.synth import FACES_DIR, render
from vision.geometry import BESIDE_H, BESIDE_W, crop_beside, spread_slots, turning

READ_VISIBLE = 0.4         # an index showing this much is one the reader reads: an anchor
COVERED = (0.03, 1 / 3)    # a card whose best index shows this much is covered (3 %: nothing to see)
NEAREST = 0.8              # ... and belongs to the read nearest its visible part, this many index heights at most
POSITIVE_COPIES = 3        # jittered crops per anchor with a covered card beside it
KEEP_NEAR = 0.5            # anchors with no covered card: kept at this rate where another read is close ...
KEEP_FAR = 0.075           # ... and at this rate elsewhere (most reads stand in plain spreads)
SLOT_COPIES = 2            # slots (`--slots`) with a lost card: jittered crops of each
SLOT_NEAR = 0.7            # slots with no lost card: kept at this rate at the ends and between close reads ...
SLOT_KEEP = 0.3            # ... and at this rate between reads a step apart
SLOT_MISSED = (0.6, 0.15)  # a read showing less than this is left out at this rate (the detector misses some)
FAN_DEGREES = 20.0         # a pile turning more (`vision.geometry.turning`) is a fan: no slot crops


def covered_by(labels: list[dict]) -> tuple[list[dict], list[int]]:
    """The anchors (labels of indices the reader reads) and how many covered cards lie beside each."""
    reads = [lab for lab in labels if lab["visible"] >= READ_VISIBLE]
    count = [0] * len(reads)
    if not reads:
        return reads, count
    centres = np.array([r["center"] for r in reads], np.float64)
    heights = np.array([r["height"] for r in reads], np.float64)
    for lab in best_indices(labels).values():
        k = nearest(centres, heights, lab) if COVERED[0] <= lab["visible"] < COVERED[1] else None
        if k is not None:
            count[k] += 1
    return reads, count


def best_indices(labels: list[dict]) -> dict[str, dict]:
    """Each card's label of its index showing most."""
    best: dict[str, dict] = {}
    for lab in labels:
        if lab["card"] not in best or lab["visible"] > best[lab["card"]]["visible"]:
            best[lab["card"]] = lab
    return best


def nearest(centres: np.ndarray, heights: np.ndarray, lab: dict) -> int | None:
    """The read nearest the centre of the part of a label's index that shows, within `NEAREST` of its heights."""
    d = np.hypot(*(centres - np.asarray(lab["seen_center"], np.float64)).T) / heights
    k = int(d.argmin())
    return k if d[k] <= NEAREST else None


def kept(rng: np.random.Generator, centres: np.ndarray, k: int, height: float) -> int:
    """Crops of an anchor with nothing beside it: one at `KEEP_NEAR` where another read is close, else `KEEP_FAR`."""
    d = np.hypot(*(centres - centres[k]).T) / height
    d[k] = np.inf
    return int(rng.random() < (KEEP_NEAR if d.min() <= 0.5 else KEEP_FAR))


def jittered(rng: np.random.Generator, center, up, h: float) -> tuple[np.ndarray, np.ndarray, float]:
    """A frame (centre, up, height) as a detector would give it: each a little off."""
    a = rng.normal(0, 0.05)
    u = np.asarray(up, np.float64)
    u = np.array([math.cos(a) * u[0] - math.sin(a) * u[1], math.sin(a) * u[0] + math.cos(a) * u[1]])
    return np.asarray(center, np.float64) + rng.normal(0, 0.04, 2) * h, u, h * rng.uniform(0.92, 1.08)


def photo_crops(rng: np.random.Generator, image: np.ndarray, labels: list[dict]) -> tuple[list, list]:
    """Training crops of one photo and their targets (1: a covered card beside the anchor)."""
    reads, count = covered_by(labels)
    if not reads:
        return [], []
    centres = np.array([r["center"] for r in reads], np.float64)
    xs, ys = [], []
    for k, lab in enumerate(reads):
        for _ in range(POSITIVE_COPIES if count[k] else kept(rng, centres, k, lab["height"])):
            c, u, h = jittered(rng, lab["center"], lab["up"], lab["height"])
            xs.append(crop_beside(image, c[None], u[None], np.array([h]))[0])
            ys.append(1 if count[k] else 0)
    return xs, ys


def slot_targets(rng: np.random.Generator, labels: list[dict]):
    """The slots of one spread photo as the reader will see them (`vision.geometry.spread_slots`) and how many
    cards no read shows lie in each: None for a fan (the reader counts no covered card there) or fewer than two
    reads. The reads are each card's best index showing 40 % or more, some of the barely readable ones left out as
    the detector misses them (their card then lies in a slot too), each jittered as the detector's frames are
    off. A lost card (its best index showing 3 % or more) lies in the slot beside its nearest read, on the side
    where it shows, within 0.8 index heights. Returns (centres, ups, heights, counts, steps between reads)."""
    best = best_indices(labels)
    reads = [lab for lab in best.values() if lab["visible"] >= READ_VISIBLE
             and not (lab["visible"] < SLOT_MISSED[0] and rng.random() < SLOT_MISSED[1])]
    if len(reads) < 2 or (len(reads) >= 3 and turning([r["up"] for r in reads]) > FAN_DEGREES):
        return None
    named = {r["card"] for r in reads}
    frames = [jittered(rng, r["center"], r["up"], r["height"]) for r in reads]
    centres = np.array([f[0] for f in frames])
    order, sc, su, sh = spread_slots(centres, [f[1] for f in frames], [f[2] for f in frames])
    ordered, heights = centres[order], np.array([f[2] for f in frames])[order]
    count = np.zeros(len(sc), int)
    for card, lab in best.items():
        if card in named or lab["visible"] < COVERED[0]:
            continue
        k = nearest(ordered, heights, lab)
        if k is not None:       # slot k lies before read k along the way, slot k + 1 after it
            seen = np.asarray(lab["seen_center"], np.float64)
            count[k + 1 if float((seen - ordered[k]) @ (sc[k + 1] - sc[k])) > 0 else k] += 1
    steps = np.hypot(*np.diff(ordered, axis=0).T) / heights[1:]
    return sc, su, sh, count, steps


def slot_crops(rng: np.random.Generator, image: np.ndarray, labels: list[dict]) -> tuple[list, list]:
    """Training crops of one spread photo for the slot kind and their targets (1: a card no read shows lies in
    the slot; `slot_targets`): each such slot twice, framed a little off the second time; the others at the ends
    and between close reads at 0.7, elsewhere at 0.3."""
    found = slot_targets(rng, labels)
    if found is None:
        return [], []
    sc, su, sh, count, steps = found
    xs, ys = [], []
    for j in range(len(sc)):
        if count[j]:
            copies = SLOT_COPIES
        else:
            near = j in (0, len(sc) - 1) or steps[j - 1] < 0.6
            copies = int(rng.random() < (SLOT_NEAR if near else SLOT_KEEP))
        for c in range(copies):
            fc, u, fh = jittered(rng, sc[j], su[j], sh[j]) if c else (sc[j], su[j], sh[j])
            xs.append(crop_beside(image, fc[None], u[None], np.array([fh]))[0])
            ys.append(1 if count[j] else 0)
    return xs, ys


def read_targets(pile, labels: list[dict], settings) -> list[int] | None:
    """How many cards of a photographed pile that no read shows lie beside each of the reader's own reads
    (`--reads`): the cards whose index no read lies on (`models.handbench.shown_cards`; hidden ones and those
    the detector missed alike: the decoder's lost cards), each given to the read nearest the centre of the part
    of its best index that shows, within 0.8 index heights (3 % or more showing). None for a fan (the reader
    counts no covered card there)."""
    from models.handbench import _label_places, shown_cards

    if pile.fanned(settings):
        return None
    reads = pile.sightings
    count = [0] * len(reads)
    if not reads:
        return count
    shown = shown_cards(_label_places(labels), pile)
    centres = np.array([s.centre for s in reads], np.float64)
    heights = np.array([s.height for s in reads], np.float64)
    for card, lab in best_indices(labels).items():
        k = None if card in shown or lab["visible"] < COVERED[0] else nearest(centres, heights, lab)
        if k is not None:
            count[k] += 1
    return count


def read_crops(rng: np.random.Generator, image: np.ndarray, pile, labels: list[dict], settings
               ) -> tuple[list, list]:
    """Training crops around the reader's own reads of one photo (`read_targets`; 1: a card no read shows lies
    beside): each such read three times (framed as read, then twice a little off), the others as `photo_crops`
    keeps them."""
    count = read_targets(pile, labels, settings)
    if not count:
        return [], []
    reads = pile.sightings
    centres = np.array([s.centre for s in reads], np.float64)
    xs, ys = [], []
    for k, s in enumerate(reads):
        for c in range(POSITIVE_COPIES if count[k] else kept(rng, centres, k, s.height)):
            frame = jittered(rng, s.centre, s.up, s.height) if c else (np.asarray(s.centre, np.float64),
                                                                        np.asarray(s.up, np.float64), s.height)
            xs.append(crop_beside(image, frame[0][None], frame[1][None], np.array([frame[2]]))[0])
            ys.append(1 if count[k] else 0)
    return xs, ys


_READERS: dict = {}


def _reader(release: str):
    """The hand reader of a release without its covered-card model (once per worker process)."""
    if release not in _READERS:
        from vision.hand import HandReader, HandSettings
        from vision.recogniser import Recogniser

        _READERS[release] = HandReader(Recogniser.load(Path(release) if release else None),
                                       HandSettings(cover_card=None))
    return _READERS[release]


def _make_hands(job: tuple) -> tuple[np.ndarray, np.ndarray]:
    import scoring
    from models.handbench import _deck, hand_scenes

    seed, start, stop, tight, faces, slots, reads = job
    deck = _deck(Path(faces))      # once per worker process, not per chunk
    xs, ys = [], []
    for i in range(start, stop):
        truth, scenes = hand_scenes(seed, i, deck, tight=tight)
        rng = np.random.default_rng([seed, i, 1])
        for scene in scenes.values():
            image, labels = render(scene, deck, 1.0)
            if reads is not None:
                reader = _reader(reads)
                pile = reader.read_pile(image, scoring.find_game(truth["game"]))
                x, y = read_crops(rng, image, pile, labels, reader.settings)
            else:
                x, y = (slot_crops if slots else photo_crops)(rng, image, labels)
            xs += x
            ys += y
    return np.array(xs, np.uint8).reshape(-1, BESIDE_H, BESIDE_W, 3), np.array(ys, np.int8)


def make(work: Path, hands: int, seed: int, tight: bool, workers: int = 1, faces: Path = FACES_DIR,
         start: int = 0, slots: bool = False, reads: str | None = None) -> Path:
    """Render hands start .. start + hands (both sides) and write their crops to
    <work>/cover-<seed>-<start>-<stop>[-tight][-slots|-reads].npz (`slots`: the slot kind's crops, `slot_crops`;
    `reads`: around the reads of that release's hand reader ("" the bundled one), `read_crops`)."""
    if slots and reads is not None:
        raise SystemExit("--slots and --reads: one kind of crop at a time")
    work.mkdir(parents=True, exist_ok=True)
    chunk = 10
    stop = start + hands
    jobs = [(seed, a, min(a + chunk, stop), tight, str(faces), slots, reads) for a in range(start, stop, chunk)]
    xs, ys, t0 = [], [], time.time()
    with ProcessPoolExecutor(workers) as pool:
        for j, (x, y) in enumerate(pool.map(_make_hands, jobs)):
            xs.append(x)
            ys.append(y)
            progress(j, len(jobs), t0, "covered-card crops")
    kind = "-slots" if slots else "-reads" if reads is not None else ""
    out = work / f"cover-{seed}-{start}-{stop}{'-tight' if tight else ''}{kind}.npz"
    x, y = np.concatenate(xs), np.concatenate(ys)
    np.savez(out, x=x, y=y, slots=np.array(slots))
    print(f"{out}: {len(y)} crops, {int(y.sum())} with a covered card beside ({time.time() - t0:.0f} s)")
    return out


def train(work: Path, minutes: float, threads: int = 2, batch: int = 64, lr: float = 2e-3, seed: int = 0,
          layers=None, restart: bool = False) -> Path:
    """Train CoverNet on every <work>/cover-*.npz for `minutes` of wall time (cosine schedule over them),
    resuming from <work>/cover.pt; a tenth of the crops is kept out and reported. A checkpoint without optimiser
    state (the release's `models/checkpoints/cover.pt`, which a deck's fine-tune copies in), or `restart`, starts
    a new schedule from its weights: fine-tuning on a deck's own crops."""
    import torch
    import torch.nn.functional as F

    from models.nets import COVER_LAYERS, CoverNet
    from models.train import load_state

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    sets = sorted(work.glob("cover-*.npz"))
    if not sets:
        raise SystemExit(f"{work}: no cover-*.npz (run `python -m models.covered make` first)")
    data = [np.load(s) for s in sets]
    kinds = {bool(d.get("slots", False)) for d in data}
    if len(kinds) > 1:
        raise SystemExit(f"{work}: crops of both kinds (slots and reads); keep them in separate folders")
    slots = kinds.pop()
    x = np.concatenate([d["x"] for d in data])
    y = np.concatenate([d["y"] for d in data]).astype(np.float32)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    val, fit = order[: len(y) // 10], order[len(y) // 10:]
    ckpt = work / "cover.pt"
    state = load_state(ckpt) if ckpt.exists() else None
    if state and "opt" in state and not restart and bool(state.get("slots", False)) != slots:
        raise SystemExit(f"{ckpt}: a checkpoint of the other kind; --restart to fine-tune it on these crops")
    net = CoverNet(state.get("layers", COVER_LAYERS) if state else layers or COVER_LAYERS)
    opt = torch.optim.AdamW(net.parameters(), lr, weight_decay=1e-4)
    step, spent = 0, 0.0
    if state:
        net.load_state_dict(state["model"])
        if "opt" in state and not restart:      # the same schedule, on after a stop or a power cut
            opt.load_state_dict(state["opt"])
            step, spent = state["step"], state["minutes"] * 60
    rate = float(y[fit].mean())
    pos_weight = torch.tensor((1 - rate) / max(rate, 1e-6) / 4)     # positives weigh more, not fully balanced
    total = minutes * 60

    def tensors(idx, augment: bool):
        b = x[idx].astype(np.float32)
        if augment:
            n = len(idx)
            b = np.clip(b * rng.uniform(0.7, 1.3, (n, 1, 1, 1)) + rng.uniform(-25, 25, (n, 1, 1, 1))
                        + rng.normal(0, 3, b.shape), 0, 255).astype(np.float32)
        return torch.from_numpy(b).permute(0, 3, 1, 2).contiguous(), torch.from_numpy(y[idx])

    def save(extra: dict) -> None:
        tmp = ckpt.with_suffix(".tmp")
        torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "step": step, "layers": net.layers,
                    "minutes": round(spent / 60, 2), "crops": len(y), "positives": int(y.sum()), "slots": slots,
                    **extra}, tmp)
        tmp.replace(ckpt)

    print(f"{len(y)} crops ({int(y.sum())} with a covered card) from {len(sets)} sets; from step {step}",
          flush=True)
    t0 = time.time() - spent
    report: dict = {}
    while (spent := time.time() - t0) < total:
        for g in opt.param_groups:
            g["lr"] = lr * 0.5 * (1 + math.cos(math.pi * spent / total))
        net.train()
        xb, yb = tensors(rng.choice(fit, batch), True)
        loss = F.binary_cross_entropy_with_logits(net(xb)[:, 0], yb, pos_weight=pos_weight)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 250 == 0:
            report = evaluate(net, lambda idx: tensors(idx, False), val, y)
            print(f"step {step} {spent / 60:.1f} min loss {loss.item():.3f} " + " ".join(
                f"{k} {v}" for k, v in report.items()), flush=True)
            save({"val": report})
    save({"val": evaluate(net, lambda idx: tensors(idx, False), val, y)})
    return ckpt


def evaluate(net, tensors, idx: np.ndarray, y: np.ndarray) -> dict:
    """Kept-out crops: share of covered cards found and of plain reads flagged, at 0.5 and 0.9."""
    import torch

    net.eval()
    with torch.no_grad():
        p = np.concatenate([torch.sigmoid(net(tensors(idx[k:k + 256])[0])[:, 0]).numpy()
                            for k in range(0, len(idx), 256)])
    pos, neg = p[y[idx] > 0], p[y[idx] == 0]
    return {f"{name}@{t}": round(float((v >= t).mean()), 4) if len(v) else None
            for t in (0.5, 0.9) for name, v in (("found", pos), ("flagged", neg))}


def measure(cache: Path, release: str, hands: int, thresholds=(0.5, 0.9, 0.95, 0.97, 0.99)) -> dict:
    """Per pile of a hand benchmark's cache (pile reads kept by `models.handbench --reuse-reads`): how the covered
    cards counted (reads at least t sure) compare with the cards of the pile no read names (its lost cards)."""
    from models.handbench import pile_path
    from vision.hand import PileRead

    piles = []
    for i in range(hands):
        truth = json.loads((cache / f"{i:04d}.json").read_text())
        for side, cards in truth["piles"].items():
            read = PileRead.from_json(json.loads(pile_path(cache, i, side, release).read_text()))
            lost = len(set(cards) - {s.likely[0][0] for s in read.sightings})
            piles.append((lost, [s.covered for s in read.sightings]))
    out = {"piles": len(piles), "piles_with_lost_cards": sum(1 for lost, _ in piles if lost)}
    for t in thresholds:
        counted = [(lost, sum(1 for p in ps if p >= t)) for lost, ps in piles]
        out[str(t)] = {"more_than_lost": sum(1 for lost, n in counted if n > lost),
                       "counted": sum(min(n, lost) for lost, n in counted),
                       "lost": sum(lost for lost, _ in counted),
                       "piles_counted_right": sum(1 for lost, n in counted if n == lost > 0)}
    return out


def recount(cache: Path, release: str, model: Path, out: Path, agree: Path | None = None) -> int:
    """A hand benchmark's cached pile reads (`models.handbench --reuse-reads`, made with `release`) with their
    covered-card chances made again by another release's covered-card model (`model`), written to `out` under that
    release's name, the photos and truths linked: `models.handbench --cache OUT --model MODEL --reuse-reads` then
    decodes the very same reads with the new counts. With `agree`, each read's chance is the lesser of the two
    releases' (a cover both models see; session 46). Returns the number of piles."""
    from dataclasses import replace

    import cv2

    from models.handbench import pile_path
    from vision.hand import HandReader, PileRead
    from vision.recogniser import Recogniser

    if out.resolve() == cache.resolve():
        raise SystemExit("recount: --out must be another folder than --cache")
    piles = sorted(cache.glob(f"*.{release}.pile.json"))
    if not piles:
        raise SystemExit(f"recount: no pile reads of release {release!r} in {cache}")
    readers = [HandReader(Recogniser.load(m)) for m in (model, *((agree,) if agree else ()))]
    for m, r in zip((model, agree), readers):
        if r.rec.cover is None:
            raise SystemExit(f"recount: {m} has no covered-card model")
    name = readers[0].rec.name
    out.mkdir(parents=True, exist_ok=True)
    for f in piles:
        stem = f.name.split(".")[0]                     # "0007-declarer"
        i, side = stem.split("-", 1)
        image = cv2.imread(str(cache / f"{stem}.jpg"))
        if image is None:
            raise SystemExit(f"recount: {cache / stem}.jpg is missing or unreadable")
        pile = PileRead.from_json(json.loads(f.read_text()))
        reads = [replace(s, covered=0.0) for s in pile.sightings]
        chances = [[s.covered for s in r._covered(image, reads)] for r in readers]
        sightings = [replace(s, covered=min(c)) for s, *c in zip(reads, *chances)]
        pile_path(out, int(i), side, name).write_text(json.dumps(replace(pile, sightings=sightings).to_json()))
    for f in cache.iterdir():                           # the photos and the truths
        if ".pile." not in f.name and not (out / f.name).exists():
            (out / f.name).symlink_to(f.resolve())
    return len(piles)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make", help="render hands and cut the training crops")
    mk.add_argument("--work", type=Path, required=True)
    mk.add_argument("--hands", type=int, default=600)
    mk.add_argument("--start", type=int, default=0, help="first hand (to make a set in parts)")
    mk.add_argument("--seed", type=int, default=133000)
    mk.add_argument("--tight", action="store_true", help="most spreads pushed together (more covered cards)")
    mk.add_argument("--workers", type=int, default=1)
    mk.add_argument("--faces", type=Path, default=FACES_DIR)
    mk.add_argument("--slots", action="store_true",
                    help="the slot kind: a crop per slot of a spread (before, between and after its reads)")
    mk.add_argument("--reads", nargs="?", const="", default=None, metavar="RELEASE",
                    help="crops around a hand reader's own reads (its release; the bundled one if none given), "
                         "the target any card no read shows, not only hidden ones")
    tr = sub.add_parser("train", help="train (or go on training) <work>/cover.pt")
    tr.add_argument("--work", type=Path, required=True)
    tr.add_argument("--minutes", type=float, default=30.0)
    tr.add_argument("--threads", type=int, default=2)
    tr.add_argument("--lr", type=float, default=2e-3, help="peak learning rate (5e-4 suits a fine-tune)")
    tr.add_argument("--restart", action="store_true",
                    help="a new schedule from <work>/cover.pt's weights (fine-tuning on new crops)")
    tr.add_argument("--layers", default=None,
                    help="a new net's convs as channels/stride pairs, e.g. 16/2,24/2,32/1,48/2,64/2,96/2")
    me = sub.add_parser("measure", help="counted covered cards against the lost cards of a hand benchmark's piles")
    me.add_argument("--cache", type=Path, required=True)
    me.add_argument("--release", required=True, help="the release name the cached pile reads were made with")
    me.add_argument("--hands", type=int, default=90)
    rc = sub.add_parser("recount", help="a hand benchmark cache's pile reads, counted by another covered-card model")
    rc.add_argument("--cache", type=Path, required=True)
    rc.add_argument("--release", required=True, help="the release name the cached pile reads were made with")
    rc.add_argument("--model", type=Path, required=True, help="the release whose covered-card model counts anew")
    rc.add_argument("--agree", type=Path, default=None,
                    help="a second release: each read's chance is the lesser of the two (a cover both see)")
    rc.add_argument("--out", type=Path, required=True, help="the new cache (pile reads under --model's name)")
    args = ap.parse_args(argv)
    if args.cmd == "recount":
        n = recount(args.cache, args.release, args.model, args.out, args.agree)
        print(json.dumps({"piles": n, "out": str(args.out)}))
    elif args.cmd == "measure":
        print(json.dumps(measure(args.cache, args.release, args.hands), indent=1))
    elif args.cmd == "make":
        make(args.work, args.hands, args.seed, args.tight, args.workers, args.faces, args.start, args.slots,
             args.reads)
    else:
        layers = tuple(tuple(int(v) for v in x.split("/")) for x in args.layers.split(",")) if args.layers else None
        ck = train(args.work, args.minutes, args.threads, lr=args.lr, layers=layers, restart=args.restart)
        print(json.dumps({"checkpoint": str(ck)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
