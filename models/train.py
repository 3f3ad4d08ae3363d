"""Train the index detector and the index classifier on generated photos (CPU, seeded, resumable).

    python -m models.train --stage all --work /tmp/tarokcam-train          # generate sets if missing, train both
    python -m models.train --stage det --det-steps 3000 --threads 2
    python -m models.train --faces my_deck/ --finetune --work /tmp/my-deck      # a club's enrolled deck
    python -m models.export --work /tmp/my-deck --tag my-deck --deck my_deck/deck.json
    python -m models.evaluate --check-release models/cards/<date>-my-deck --faces my_deck/   # before switching

Every det*.npz and cls*.npz in --work is trained on (det.npz and cls.npz are made where none is; add more sets
with `python -m models.dataset`, e.g. detector-mined classifier crops, or sets from other printings made by
`python -m models.printings`). With --finetune the current release's checkpoints (models/checkpoints/) are
copied into --work, sets are generated from --faces and, for a quarter of the photos, from the reference
faces (so the reference deck is not forgotten), half of them whole trick piles and the classifier's crops also
where the release's detector puts its frames, as the hand reader sees cards (`--trick-piles`, `--no-mine`;
session 16: the hand reader's settled share on an enrolled printing +5 to +11 hands of 40-80 against sets
without them), and a new schedule starts from those weights at --lr
(default 5e-4 then); a rerun resumes it, so a fine-tune interrupted by a power cut goes on. Checkpoints (<work>/det.pt,
<work>/cls.pt) are written every `--ckpt-every` steps and at the end; a rerun resumes from them. Then `python -m models.export` writes the release folder.
`--device cuda` trains on a GPU (`models/device_train.sh`: one lease of the `device` tool's machine), batches
made on the CPU (`--loader-threads` for the detector's); checkpoints are written as CPU tensors either way.
`--stage sliver` trains the detector's sliver channel (every index that shows at all) on whole trick piles,
into <work>/sliver.pt (README, "Session 18": trained, not kept).
"""
from __future__ import annotations

import argparse
import math
import shutil
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from models.dataset import BACKGROUND, HARD_VISIBLE, MIN_VISIBLE, make_cls, make_det, progress
from models.nets import IndexClassifier, IndexDetector
from models.synth import FACES_DIR, Deck
from vision.geometry import INDEX_ASPECT
from vision.recogniser import latest_release

WORK = Path("/tmp/tarokcam-train")
STRIDE = 4
CHECKPOINTS = Path(__file__).with_name("checkpoints")
PROGRESS_NAME = "progress.json"    # in --work: the run's state, shown on the table's Training page


def resolve_device(name: str) -> torch.device:
    """--device: "auto" is a CUDA GPU where torch sees one, else the CPU; "cuda" where none is, a clear error."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit(f"--device {name}: torch {torch.__version__} sees no CUDA device here (use --device cpu)")
    dev = torch.device(name)
    if dev.type == "cuda":
        torch.backends.cudnn.benchmark = True
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True
    return dev


def _cpu(net: torch.nn.Module) -> dict:
    """A net's weights as CPU tensors (what models.export and a CPU-only machine load)."""
    return {k: v.detach().cpu() for k, v in net.state_dict().items()}


def load_state(path: Path) -> dict:
    """A checkpoint, its tensors on the CPU whichever device wrote it (a GPU run's checkpoints load anywhere)."""
    return torch.load(path, map_location="cpu", weights_only=False)


def _resumed(net: torch.nn.Module, ck: Path, lr: float, restart: bool, device: torch.device, what: str,
             unit: str) -> tuple[torch.optim.Optimizer, int, float]:
    """The weights of checkpoint `ck` (when there) in `net`, moved to `device`, and an AdamW for it: its state and
    how far the schedule got (its `unit`, "step" or "epoch", and the minutes spent) resumed, or, `restart`, a new
    schedule from those weights. -> (optimiser, first unit, minutes spent)."""
    state = load_state(ck) if ck.exists() else None
    if state:
        net.load_state_dict(state["model"])
    net.to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    start, spent = 0, 0.0
    if state:
        if restart:
            print(f"{what}: new schedule from the weights of {unit} {state[unit]}")
        else:
            opt.load_state_dict(state["opt"])
            start, spent = state[unit], state.get("minutes", 0.0)
            print(f"resumed {what} at {unit} {start}")
    return opt, start, spent


def _batches(make, steps: range, seed: int, threads: int):
    """det_batch-like batches for each step, `make(rng)`; with threads, made ahead in that many threads, each
    step's from a generator of its own (seed, step), so the run is the same however many threads make them."""
    if threads <= 0:
        return None
    from concurrent.futures import ThreadPoolExecutor

    def gen():
        with ThreadPoolExecutor(threads) as pool:
            ahead = [pool.submit(make, np.random.default_rng([seed, k])) for k in steps[:2 * threads]]
            for j, k in enumerate(steps):
                if j + 2 * threads < len(steps):
                    ahead.append(pool.submit(make, np.random.default_rng([seed, steps[j + 2 * threads]])))
                yield ahead[j].result()
                ahead[j] = None
    return gen()


# ---------------------------------------------------------------- detector targets

def det_targets(labels: np.ndarray, ox: int, oy: int, size: int, hard: float = HARD_VISIBLE,
                least: float = MIN_VISIBLE, seen: bool = False) -> tuple[np.ndarray, ...]:
    """Heat (S, S), weight (S, S), regression (5, S, S), reg mask (S, S) for a crop at (ox, oy), S = size/4.
    An index at least `least` visible is a peak; one between `hard` and `least` is neither rewarded nor punished.
    seen: the heat peaks at the centre of the part of the index that shows (sets made with it), not the box's."""
    s = size // STRIDE
    heat = np.zeros((s, s), np.float32)
    weight = np.ones((s, s), np.float32)
    reg = np.zeros((5, s, s), np.float32)
    rmask = np.zeros((s, s), np.float32)
    gy, gx = np.mgrid[0:s, 0:s].astype(np.float32)
    dist = np.full((s, s), np.inf, np.float32)
    boost: list[tuple[int, int]] = []      # the peaks of indices that show only a sliver: rare, weighed more
    for row in labels:
        cx, cy, ux, uy, h, vis = row[:6]
        if vis < hard:
            continue
        if seen and len(row) >= 8:
            cx, cy = row[6], row[7]
        px, py = (cx - ox) / STRIDE - 0.5, (cy - oy) / STRIDE - 0.5    # cell-centre coordinates
        if not (-3 <= px < s + 3 and -3 <= py < s + 3):
            continue
        if vis < least:   # may or may not be read: neither reward nor punish
            r = 2
            weight[max(0, int(py) - r):int(py) + r + 1, max(0, int(px) - r):int(px) + r + 1] = 0
            continue
        w = h * INDEX_ASPECT * (min(1.0, float(vis)) if seen else 1.0)
        sa, sb = max(0.8, 0.12 * h / STRIDE), max(0.7, 0.3 * w / STRIDE)
        dx, dy = gx - px, gy - py
        a, b = dx * ux + dy * uy, -dx * uy + dy * ux
        np.maximum(heat, np.exp(-(a * a / (2 * sa * sa) + b * b / (2 * sb * sb))), out=heat)
        ix, iy = round(float(px)), round(float(py))
        if 0 <= ix < s and 0 <= iy < s:
            heat[iy, ix] = 1.0
            if seen and vis < MIN_VISIBLE:
                boost.append((iy, ix))
        # Regress from the 3x3 cells round the centre too: at inference the peak may land one cell off.
        for jy in range(iy - 1, iy + 2):
            for jx in range(ix - 1, ix + 2):
                if 0 <= jx < s and 0 <= jy < s:
                    d = (px - jx) ** 2 + (py - jy) ** 2
                    if d < dist[jy, jx]:
                        dist[jy, jx] = d
                        reg[:, jy, jx] = (px - jx, py - jy, ux, uy, math.log(h / 32))
                        rmask[jy, jx] = 1.0 if (jx, jy) == (ix, iy) else 0.5
    for iy, ix in boost:
        weight[iy, ix] = SLIVER_BOOST
    return heat, weight, reg, rmask


def det_batch(data, rng: np.random.Generator, bs: int, size: int, focus: tuple[float, float] | None = None,
              sliver: dict | None = None):
    """focus: (lo, hi), half the crops centred on an index that shows between lo and hi of itself (rare ones).
    sliver: `det_targets` options of a second heat and weight, returned after the first targets."""
    xs, hs, ws, rs, ms, hs2, ws2 = [], [], [], [], [], [], []
    n = len(data["jpg"])
    rare = None if focus is None else [i for i, labs in enumerate(data["labels"])
                                       if ((labs[:, 5] >= focus[0]) & (labs[:, 5] < focus[1])).any()]
    for _ in range(bs):
        aim = bool(rare) and rng.random() < 0.5
        i = int(rare[rng.integers(len(rare))]) if aim else int(rng.integers(n))
        img = cv2.imdecode(data["jpg"][i], cv2.IMREAD_COLOR)
        labs = data["labels"][i]
        H, W = img.shape[:2]
        if aim:
            pick = np.nonzero((labs[:, 5] >= focus[0]) & (labs[:, 5] < focus[1]))[0]
            centre = labs[rng.choice(pick), :2]
        elif len(labs) and rng.random() < 0.85:
            centre = labs[rng.integers(len(labs)), :2]
        else:
            centre = None
        if centre is not None:
            ox, oy = int(centre[0] - rng.uniform(0.15, 0.85) * size), int(centre[1] - rng.uniform(0.15, 0.85) * size)
        else:
            ox, oy = int(rng.integers(-32, max(W - size, 0) + 32)), int(rng.integers(-32, max(H - size, 0) + 32))
        ox, oy = ox // STRIDE * STRIDE, oy // STRIDE * STRIDE
        crop = np.zeros((size, size, 3), np.uint8)
        x0, y0, x1, y1 = max(ox, 0), max(oy, 0), min(ox + size, W), min(oy + size, H)
        if x1 > x0 and y1 > y0:
            crop[y0 - oy:y1 - oy, x0 - ox:x1 - ox] = img[y0:y1, x0:x1]
        crop = np.clip(crop.astype(np.float32) * rng.uniform(0.8, 1.2) + rng.uniform(-20, 20), 0, 255)
        heat, weight, reg, rmask = det_targets(labs, ox, oy, size)
        xs.append(crop.transpose(2, 0, 1)); hs.append(heat); ws.append(weight); rs.append(reg); ms.append(rmask)
        if sliver is not None:
            heat2, weight2, _, _ = det_targets(labs, ox, oy, size, **sliver)
            hs2.append(heat2); ws2.append(weight2)
    t = lambda a: torch.from_numpy(np.stack(a))
    return (t(xs), t(hs), t(ws), t(rs), t(ms)) + ((t(hs2), t(ws2)) if sliver is not None else ())


def focal(logit: torch.Tensor, heat, weight) -> tuple[torch.Tensor, torch.Tensor]:
    """CenterNet focal loss of one heat channel, and the number of peaks it was divided by."""
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = (heat >= 1.0).float()
    neg = (1 - pos) * weight
    n_pos = pos.sum().clamp(min=1)
    lpos = -(torch.log(p) * (1 - p) ** 2 * pos * weight.clamp(min=1)).sum()   # a weight over 1: a rare peak
    lneg = -(torch.log(1 - p) * p ** 2 * (1 - heat) ** 4 * neg).sum()
    return (lpos + lneg) / n_pos, n_pos


def det_loss(out: torch.Tensor, heat, weight, reg, rmask) -> tuple[torch.Tensor, dict]:
    """CenterNet focal loss on the heat, L1 on offset / direction / log height at the centre cells."""
    lh, n_pos = focal(out[:, 0], heat, weight)
    m = rmask.unsqueeze(1)
    lr = (F.l1_loss(out[:, 1:6] * m, reg * m, reduction="sum")) / n_pos
    return lh + lr, {"heat": float(lh.detach()), "reg": float(lr.detach())}


def train_det(work: Path, steps: int, bs: int, size: int, seed: int, ckpt_every: int, lr: float,
              minutes: float = 1e9, restart: bool = False, device: str | torch.device = "cpu",
              loader_threads: int = 0) -> None:
    """The detector on <work>/det*.npz. device: where it trains (batches are made on the CPU); loader_threads:
    batches made ahead in threads (a GPU outruns one thread decoding photos)."""
    sets = [np.load(f, allow_pickle=True) for f in sorted(work.glob("det*.npz")) if ".tmp." not in f.name]
    data = {k: np.concatenate([d[k] for d in sets]) for k in ("jpg", "labels")}   # det.npz, det-more.npz ...
    torch.manual_seed(seed)
    device = torch.device(device)
    net = IndexDetector()
    ck = work / "det.pt"
    opt, start, spent = _resumed(net, ck, lr, restart, device, "detector", "step")
    rng = np.random.default_rng(seed + start)
    ahead = _batches(lambda r: det_batch(data, r, bs, size), range(start, steps), seed, loader_threads)
    t0, avg = time.time(), None
    net.train()
    step = next_step = start
    for step in range(start, steps):
        # Cosine schedule over whichever runs out first, steps or the time budget (shared 2-core machine).
        done = max(step / steps, (spent + (time.time() - t0) / 60) / minutes)
        if done >= 1:
            break
        for g in opt.param_groups:
            g["lr"] = lr * 0.5 * (1 + math.cos(math.pi * done)) * min(1.0, (step + 1) / 100)
        batch = next(ahead) if ahead is not None else det_batch(data, rng, bs, size)
        batch = [t.to(device, non_blocking=True) for t in batch]
        loss, parts = det_loss(net(batch[0]), *batch[1:])
        opt.zero_grad(); loss.backward(); opt.step()
        next_step = step + 1
        avg = parts if avg is None else {k: 0.98 * avg[k] + 0.02 * v for k, v in parts.items()}
        if (step + 1) % 10 == 0 or step + 1 == steps:
            progress(step - start, steps - start, t0, f"det heat {avg['heat']:.3f} reg {avg['reg']:.3f}")
        if (step + 1) % ckpt_every == 0 or step + 1 == steps:
            torch.save({"model": _cpu(net), "opt": opt.state_dict(), "step": step + 1,
                        "minutes": spent + (time.time() - t0) / 60}, ck)
    if ahead is not None:
        ahead.close()
    # The steps done, so a rerun resumes after the last one (not at it, nor past one the budget cut off).
    torch.save({"model": _cpu(net), "opt": opt.state_dict(), "step": next_step,
                "minutes": spent + (time.time() - t0) / 60}, ck)
    print(f"\ndetector: {next_step - start} steps in {(time.time() - t0) / 60:.1f} min", flush=True)


# ---------------------------------------------------------------- sliver branch

SLIVER_BOOST = 8.0       # a sliver's peak weighs this many read indices' in the loss (about 1 index in 100)
SLIVER_VISIBLE = 0.06    # the sliver channel's peaks: every index showing this much (a covered card's strip)
SLIVER_HARD = 0.02       # below: nothing shows (a negative); between: neither rewarded nor punished


def train_sliver(work: Path, steps: int, bs: int, size: int, seed: int, ckpt_every: int, lr: float,
                 minutes: float = 1e9, whole: bool = False, device: str | torch.device = "cpu") -> None:
    """Train the detector's sliver channel on <work>/det*.npz (whole trick piles). The branch alone, the rest of
    the detector frozen as the release has it, so its six channels and every read stay as they were; or, whole,
    the detector with it (its six channels kept on their own targets, at a quarter of the learning rate)."""
    sets = [np.load(f, allow_pickle=True) for f in sorted(work.glob("det*.npz")) if ".tmp." not in f.name]
    data = {k: np.concatenate([d[k] for d in sets]) for k in ("jpg", "labels")}
    torch.manual_seed(seed)
    base = work / "det.pt" if (work / "det.pt").exists() else CHECKPOINTS / "det.pt"
    net = IndexDetector(sliver=True)
    net.load_state_dict(load_state(base)["model"], strict=False)
    device = torch.device(device)
    net.to(device)
    branch = list(net.sliver.parameters())
    rest = [p for n, p in net.named_parameters() if not n.startswith("sliver.")]
    for p in rest:
        p.requires_grad_(whole)
    groups = [{"params": branch, "scale": 1.0}] + ([{"params": rest, "scale": 0.25}] if whole else [])
    opt = torch.optim.AdamW(groups, lr=lr, weight_decay=1e-4)
    start, ck, spent = 0, work / "sliver.pt", 0.0
    part = net if whole else net.sliver
    if ck.exists():
        state = load_state(ck)
        part.load_state_dict(state["model"]); opt.load_state_dict(state["opt"])
        start, spent = state["step"], state.get("minutes", 0.0)
        print(f"resumed sliver training at step {start}")
    rng = np.random.default_rng(seed + 7 + start)
    t0, avg = time.time(), None
    net.train(whole)
    net.sliver.train()
    step = next_step = start
    sliver_targets = {"hard": SLIVER_HARD, "least": SLIVER_VISIBLE, "seen": True}

    def save(n: int) -> None:
        tmp = ck.with_suffix(".tmp")
        torch.save({"model": _cpu(part), "opt": opt.state_dict(), "step": n, "whole": whole,
                    "minutes": spent + (time.time() - t0) / 60, "base": str(base)}, tmp)
        tmp.replace(ck)

    for step in range(start, steps):
        done = max(step / steps, (spent + (time.time() - t0) / 60) / minutes)
        if done >= 1:
            break
        for g in opt.param_groups:
            g["lr"] = g["scale"] * lr * 0.5 * (1 + math.cos(math.pi * done)) * min(1.0, (step + 1) / 50)
        batch = det_batch(data, rng, bs, size, focus=(SLIVER_VISIBLE, MIN_VISIBLE), sliver=sliver_targets)
        batch = [t.to(device, non_blocking=True) for t in batch]
        x, heat, weight = batch[0], batch[5], batch[6]
        if whole:
            out = net(x)
            loss = focal(out[:, 6], heat, weight)[0] + det_loss(out[:, :6], *batch[1:5])[0]
        else:
            with torch.no_grad():
                y4 = net.fused(x)
                index_heat = net.head(net.m4(y4))[:, 0]
            loss = focal(index_heat + net.sliver(y4)[:, 0], heat, weight)[0]
        opt.zero_grad(); loss.backward(); opt.step()
        next_step = step + 1
        avg = loss.item() if avg is None else 0.98 * avg + 0.02 * loss.item()
        if (step + 1) % 10 == 0 or step + 1 == steps:
            progress(step - start, steps - start, t0, f"sliver loss {avg:.3f}")
        if (step + 1) % ckpt_every == 0:
            save(step + 1)
    save(next_step)
    print(f"\nsliver training: {next_step - start} steps in {(time.time() - t0) / 60:.1f} min", flush=True)


# ---------------------------------------------------------------- classifier

def augment_crops(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Per-crop brightness, contrast, colour cast and noise on (N, 3, H, W) float 0..255."""
    n = x.shape[0]
    r = lambda *s: torch.rand(*s, generator=gen)
    mean = x.mean((1, 2, 3), keepdim=True)
    x = (x - mean) * (0.6 + 0.8 * r(n, 1, 1, 1)) + mean * (0.6 + 0.8 * r(n, 1, 1, 1))
    x = x * (0.85 + 0.3 * r(n, 3, 1, 1)) + torch.randn(x.shape, generator=gen) * 6 * r(n, 1, 1, 1)
    return x.clamp(0, 255)


def jitter_geometry(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Small random turn (+-6 deg), scale (+-8 %) and shift of (N, 3, H, W) crops: the detector's typical errors."""
    n = x.shape[0]
    r = lambda: torch.rand(n, generator=gen) * 2 - 1
    a, s = r() * math.radians(6), 1 + 0.08 * r()
    h, w = x.shape[2:]
    cos, sin = torch.cos(a) * s, torch.sin(a) * s
    theta = torch.stack([torch.stack([cos, -sin * h / w, 0.06 * r()], 1),
                         torch.stack([sin * w / h, cos, 0.04 * r()], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


def train_cls(work: Path, epochs: int, bs: int, seed: int, lr: float, minutes: float = 1e9,
              geometry: bool = False, restart: bool = False, device: str | torch.device = "cpu") -> None:
    """The classifier on <work>/cls*.npz; crops are augmented on the CPU, the net steps on `device`."""
    sets = [np.load(f) for f in sorted(work.glob("cls*.npz")) if ".tmp." not in f.name]   # cls.npz, cls-mined.npz ...
    x = torch.from_numpy(np.concatenate([d["x"] for d in sets])).permute(0, 3, 1, 2).contiguous()   # uint8 N,3,128,32
    y = torch.from_numpy(np.concatenate([d["y"] for d in sets]))
    pips = torch.from_numpy(np.concatenate([d["pips"] for d in sets]))
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    n = len(y)
    perm = torch.randperm(n, generator=gen)
    val, tr = perm[: n // 20], perm[n // 20:]
    device = torch.device(device)
    net = IndexClassifier()
    ck = work / "cls.pt"
    opt, start, _ = _resumed(net, ck, lr, restart, device, "classifier", "epoch")
    steps_per = math.ceil(len(tr) / bs)
    total = epochs * steps_per
    t0 = time.time()
    for ep in range(start, epochs):
        net.train()
        order = tr[torch.randperm(len(tr), generator=gen)]
        for k in range(steps_per):
            step = ep * steps_per + k
            done = max(step / total, (time.time() - t0) / 60 / minutes)
            if done >= 1:
                break
            for g in opt.param_groups:
                g["lr"] = lr * 0.5 * (1 + math.cos(math.pi * min(done, 1.0)))
            idx = order[k * bs:(k + 1) * bs]
            xb = x[idx].float()
            xb = augment_crops(jitter_geometry(xb, gen) if geometry else xb, gen).to(device, non_blocking=True)
            yb, pb = y[idx].to(device), pips[idx].to(device)
            out = net(xb)
            card_loss = F.cross_entropy(out[:, :55], yb, label_smoothing=0.05)
            is_card = (yb != BACKGROUND).float()
            pip_loss = (F.cross_entropy(out[:, 55:], pb, reduction="none") * is_card).sum() / is_card.sum().clamp(min=1)
            loss = card_loss + 0.5 * pip_loss
            opt.zero_grad(); loss.backward(); opt.step()
            if (k + 1) % 10 == 0 or k + 1 == steps_per:
                progress(step - start * steps_per, total - start * steps_per, t0,
                         f"cls ep {ep + 1}/{epochs} loss {loss.item():.3f}")
        acc, pacc = eval_cls(net, x[val], y[val], pips[val])
        print(f"\nepoch {ep + 1}: val card acc {acc:.4f} pips acc {pacc:.4f}", flush=True)
        torch.save({"model": _cpu(net), "opt": opt.state_dict(), "epoch": ep + 1, "val_acc": acc,
                    "val_pips_acc": pacc, "minutes": (time.time() - t0) / 60}, ck)
        if (time.time() - t0) / 60 >= minutes:
            break
    print(f"classifier: {(time.time() - t0) / 60:.1f} min", flush=True)


@torch.no_grad()
def eval_cls(net, x, y, pips) -> tuple[float, float]:
    net.eval()
    dev = next(net.parameters()).device
    outs = torch.cat([net(x[i:i + 512].float().to(dev)).cpu() for i in range(0, len(x), 512)])
    acc = float((outs[:, :55].argmax(1) == y).float().mean())
    card = y != BACKGROUND
    pacc = float((outs[card, 55:].argmax(1) == pips[card]).float().mean()) if card.any() else 1.0
    return acc, pacc


def prepare_finetune(args: argparse.Namespace) -> None:
    """Set --work up for a fine-tune on --faces: the release's checkpoints, and the deck's and the reference's
    photo sets (made once, from seeds of their own)."""
    work = args.work
    for name, counter in (("det.pt", "step"), ("cls.pt", "epoch")):
        if not (work / name).exists():
            if not (CHECKPOINTS / name).exists():
                raise SystemExit(f"--finetune: no {CHECKPOINTS / name} to start from")
            # The release's weights and optimiser state with the schedule at its start: the run (and a rerun
            # after a power cut) then goes through the fine-tune's own schedule, resuming from its checkpoints.
            state = load_state(CHECKPOINTS / name)
            state[counter], state["minutes"] = 0, 0.0
            tmp = work / (name + ".tmp")
            torch.save(state, tmp)
            tmp.replace(work / name)
    # The covered-card model goes with the fine-tuned release (models.export takes WORK/cover.pt): it looks at
    # the card edges and slivers beside a read index, not at the deck's printing, and without it the hand
    # reader loses its count of covered cards. (`models.covered make --faces DECK --work WORK`, then `train`,
    # fine-tunes it on the deck; on a held-out printing that ranked covered cards no better, session 23.)
    if not (work / "cover.pt").exists() and (CHECKPOINTS / "cover.pt").exists():
        shutil.copyfile(CHECKPOINTS / "cover.pt", work / "cover.pt.tmp")
        (work / "cover.pt.tmp").replace(work / "cover.pt")
    deck = Deck.load(args.faces, args.deck)
    ref = Deck.load(FACES_DIR) if Path(args.faces).resolve() != FACES_DIR.resolve() else None
    share = args.ref_share if ref is not None else 0.0
    for kind, n, seed in (("det", args.det_photos, 101), ("cls", args.cls_photos, 102)):
        if args.stage not in (kind, "all"):
            continue
        n_ref = round(n * share)
        for name, d, k, sd in ((f"{kind}-deck.npz", deck, n - n_ref, args.seed + seed),
                               (f"{kind}-ref.npz", ref, n_ref, args.seed + seed + 1000)):
            if d is None or k <= 0 or (work / name).exists():
                continue
            # Cut as the hand reader will see the cards: whole trick piles (many indices partly covered), and
            # crops where the release's own detector puts its frames (`--trick-piles`, `--mine`).
            data = make_det(k, sd, d, args.trick_piles) if kind == "det" else \
                make_cls(k, sd, d, detector=latest_release() if args.mine else None, trick_piles=args.trick_piles)
            tmp = work / (name[:-4] + ".tmp.npz")
            np.savez(tmp, **data)
            tmp.replace(work / name)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stage", choices=["det", "cls", "all", "sliver"], default="all",
                    help="sliver: the detector's sliver branch alone (every index that shows at all), on the "
                         "release's frozen detector; give it whole trick piles (`models.dataset det --trick-piles 1`)")
    ap.add_argument("--work", type=Path, default=WORK, help="data sets and checkpoints")
    ap.add_argument("--faces", type=Path, default=FACES_DIR)
    ap.add_argument("--deck", type=Path, default=None)
    ap.add_argument("--det-photos", type=int, default=2400)
    ap.add_argument("--cls-photos", type=int, default=900)
    ap.add_argument("--det-steps", type=int, default=2500)
    ap.add_argument("--det-batch", type=int, default=12)
    ap.add_argument("--det-size", type=int, default=320)
    ap.add_argument("--sliver-whole", action="store_true",
                    help="--stage sliver: train the whole detector with the sliver branch (its six channels move)")
    ap.add_argument("--cls-epochs", type=int, default=6)
    ap.add_argument("--cls-batch", type=int, default=128)
    ap.add_argument("--ckpt-every", type=int, default=50)
    ap.add_argument("--det-minutes", type=float, default=1e9, help="time budget; the schedule fits it")
    ap.add_argument("--cls-minutes", type=float, default=1e9)
    ap.add_argument("--cls-geometry", action="store_true", help="also jitter crop turn/scale/shift")
    ap.add_argument("--lr", type=float, default=None, help="peak learning rate (cosine schedule; default 2e-3, "
                    "5e-4 with --finetune)")
    ap.add_argument("--restart", action="store_true",
                    help="start a new schedule from the checkpoints' weights (fine-tuning on new data)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu",
                    help="where the nets train: cpu, cuda (a GPU lent for a session: models/device_train.sh), auto")
    ap.add_argument("--loader-threads", type=int, default=0,
                    help="detector: threads making batches ahead (0: one at a time in the training loop, as before)")
    ap.add_argument("--finetune", action="store_true",
                    help="fine-tune the current release on photos of --faces mixed with the reference deck")
    ap.add_argument("--ref-share", type=float, default=0.25, help="--finetune: share of reference-deck photos")
    ap.add_argument("--trick-piles", type=float, default=0.5,
                    help="--finetune: share of photos holding one side's whole trick pile (the hand reader's view)")
    ap.add_argument("--mine", action=argparse.BooleanOptionalAction, default=True,
                    help="--finetune: also cut crops where the current release's detector finds indices")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    args.work.mkdir(parents=True, exist_ok=True)
    from models import dataset

    dataset.PROGRESS_FILE = args.work / PROGRESS_NAME
    run = {"faces": str(args.faces), "stage": args.stage, "finetune": args.finetune, "started": round(time.time())}
    dataset.write_progress(dataset.PROGRESS_FILE, {**run, "step": "starting", "running": True})
    try:
        _run(args)
    except BaseException as exc:
        dataset.write_progress(dataset.PROGRESS_FILE, {**run, "step": "stopped", "running": False,
                                                       "error": f"{type(exc).__name__}: {exc}"[:300]})
        raise
    dataset.write_progress(dataset.PROGRESS_FILE, {**run, "step": "finished", "running": False, "finished": True})
    return 0


def _run(args: argparse.Namespace) -> None:
    device = resolve_device(args.device)     # before any set is made: a missing GPU is said at once
    if args.finetune:
        prepare_finetune(args)
    deck = None
    for kind, n, make in (("det", args.det_photos, make_det), ("cls", args.cls_photos, make_cls)):
        made = [f for f in args.work.glob(f"{kind}*.npz") if ".tmp." not in f.name]
        if args.stage in (kind, "all") and not args.finetune and not made:
            deck = deck or Deck.load(args.faces, args.deck)
            np.savez(args.work / f"{kind}.npz", **make(n, args.seed + (1 if kind == "det" else 2), deck))
    if args.lr is None:
        args.lr = 5e-4 if args.finetune else 2e-3
    if args.stage in ("cls", "all"):
        train_cls(args.work, args.cls_epochs, args.cls_batch, args.seed, args.lr, args.cls_minutes, args.cls_geometry,
                  args.restart, device)
    if args.stage == "sliver":
        train_sliver(args.work, args.det_steps, args.det_batch, args.det_size, args.seed, args.ckpt_every, args.lr,
                     args.det_minutes, args.sliver_whole, device)
    if args.stage in ("det", "all"):
        train_det(args.work, args.det_steps, args.det_batch, args.det_size, args.seed, args.ckpt_every, args.lr,
                  args.det_minutes, args.restart, device, args.loader_threads)


if __name__ == "__main__":
    sys.exit(main())
