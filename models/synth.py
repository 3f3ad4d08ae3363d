"""Synthetic table photos of fanned trick piles, composed from the deck faces, with index labels.

A scene is laid out in table millimetres (cards, clutter, camera pose) and rendered at any output scale, so
the detector set is rendered straight at detector resolution and the classifier set at full resolution.
Faces come from a folder of 54 `<id>.png` RGBA images plus `back.png` and the deck file (`deck.json`).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from models.readability import index_strips, seen_grid, tell_apart

FACES_DIR = Path(__file__).with_name("faces")
# Pi camera still sizes (HQ / v2 / v3 modes), width x height.
PHOTO_SIZES = ((1640, 1232), (2028, 1520), (2304, 1296), (3280, 2464), (4056, 3040), (4608, 2592))
CARD_PX = (150.0, 520.0)           # a 60 mm card spans this many pixels at full resolution
CARD_MM = (60.0, 112.0)
MARK = 0.4                         # numeral + suit sign: the top 40 % of the index box


@dataclass(frozen=True, slots=True)
class Deck:
    """Face images as a mip pyramid (level k holds 10/2**k px/mm), ids, pips and the index box in mm."""
    ids: tuple[str, ...]
    pips: tuple[int, ...]
    index_box: tuple[float, float, float, float]     # x0, y0, x1, y1 mm from the top-left of an upright face
    px_per_mm: float
    faces: tuple[tuple[np.ndarray, ...], ...]         # [card][level] (h, w, 4) uint8 BGRA
    back: tuple[np.ndarray, ...]

    @classmethod
    def load(cls, faces_dir: Path = FACES_DIR, deck_file: Path | None = None) -> Deck:
        deck_file = deck_file or faces_dir / "deck.json"
        data = json.loads(Path(deck_file).read_text())
        ids = tuple(c["id"] for c in data["cards"])
        box = data["index_box_mm"]

        def pyramid(path: Path) -> tuple[np.ndarray, ...]:
            img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
            if img is None or img.ndim != 3 or img.shape[2] != 4:
                raise ValueError(f"{path}: need an RGBA face image")
            levels = [img]
            for _ in range(5):
                levels.append(cv2.pyrDown(levels[-1]))
            return tuple(levels)

        missing = [i for i in ids if not (faces_dir / f"{i}.png").exists()]
        if missing:
            raise ValueError(f"{faces_dir}: no face image for {', '.join(missing)}")
        return cls(ids, tuple(int(c["pips"]) for c in data["cards"]),
                   (box["x0"], box["y0"], box["x1"], box["y1"]), float(data.get("face_px_per_mm", 10)),
                   tuple(pyramid(faces_dir / f"{i}.png") for i in ids), pyramid(faces_dir / "back.png"))


@dataclass(slots=True)
class Card:
    """One card on the table: centre (mm), angle of its 'up' direction (radians, table frame), face up or not."""
    index: int            # deck index, or -1 for a face-down card
    cx: float
    cy: float
    angle: float


@dataclass(slots=True)
class Scene:
    size: tuple[int, int]                      # full-res photo (w, h)
    cards: list[Card]                          # bottom to top
    clutter: list[dict] = field(default_factory=list)
    table: dict = field(default_factory=dict)
    ppm: float = 4.0                           # px per mm at full resolution
    origin: tuple[float, float] = (0.0, 0.0)   # table mm at image (0, 0)
    tilt: np.ndarray = field(default_factory=lambda: np.eye(3))
    look: dict = field(default_factory=dict)


# ---------------------------------------------------------------- layout

def _pile(rng: np.random.Generator, n: int, style: str) -> list[tuple[float, float, float]]:
    """Card poses (x, y, angle) in pile mm, before the pile is turned and placed."""
    poses = []
    if style == "arc":
        step = math.radians(rng.uniform(5.5, 9.5))
        radius = rng.uniform(70, 95)
        start = -step * (n - 1) / 2
        for i in range(n):
            a = start + i * step + rng.normal(0, 0.01)
            poses.append((radius * math.sin(a), radius * (1 - math.cos(a)), a))
        return poses
    rows = 2 if style == "rows" else 1
    per_row = math.ceil(n / rows)
    row_gap = rng.uniform(52, 75)
    for i in range(n):
        r, k = divmod(i, per_row)
        if style == "sloppy":
            d = rng.uniform(7, 17)
            x = (poses[-1][0] + d) if k else 0.0
            poses.append((x, r * row_gap + rng.normal(0, 2.5), rng.normal(0, math.radians(5))))
        else:
            if k == 0:
                step = rng.uniform(8, 16)
            poses.append((k * step, r * row_gap + rng.normal(0, 0.4), rng.normal(0, 0.008)))
    return poses


def _tight_pile(rng: np.random.Generator, n: int) -> list[tuple[float, float, float]]:
    """A sloppy spread pushed together: short uneven steps and turned cards, so that some cards' indices show
    only a sliver (the covered-card model's training photos)."""
    poses: list[tuple[float, float, float]] = []
    rows = 2 if n > 30 else 1
    per_row = math.ceil(n / rows)
    row_gap = rng.uniform(52, 75)
    shortest = rng.uniform(4, 7)
    for i in range(n):
        r, k = divmod(i, per_row)
        x = (poses[-1][0] + rng.uniform(shortest, shortest + 9)) if k else 0.0
        poses.append((x, r * row_gap + rng.normal(0, 2.5), rng.normal(0, math.radians(rng.uniform(2, 7)))))
    return poses


def random_scene(rng: np.random.Generator, n_cards: int | None = None, size: tuple[int, int] | None = None,
                 face_up: bool = True, cards: list[int] | None = None, n_piles: int | None = None,
                 tight: bool = False) -> Scene:
    """A random photo: one or two piles of distinct cards, clutter, camera pose and photo defects.

    cards: deck indices to lay out (default: a random draw); n_piles: 1 or 2 (default: random); tight: most
    spreads (not the arcs) pushed together (`_tight_pile`)."""
    size = size or PHOTO_SIZES[rng.integers(len(PHOTO_SIZES))]
    w, h = size
    order = rng.permutation(54)
    if cards is not None:
        order = np.array(list(cards) + [i for i in order if i not in set(cards)])
        n_cards = len(cards)
    n_piles = n_piles or (1 if rng.random() < 0.45 else 2)
    if n_cards is None:
        n_cards = int(rng.integers(1, 55)) if rng.random() < 0.7 else int(rng.integers(1, 14))
    n_cards = n_cards if face_up else 0
    splits = [n_cards] if n_piles == 1 or n_cards < 2 else [k := int(rng.integers(1, n_cards)), n_cards - k]
    piles, used = [], 0
    for n in (s for s in splits if s > 0):
        style = rng.choice(["straight", "arc", "sloppy", "rows"], p=[0.35, 0.2, 0.3, 0.15])
        if style == "arc" and n > 22:
            style = "rows"
        if style != "rows" and n > 30:
            style = "rows"
        poses = _tight_pile(rng, n) if tight and style != "arc" and rng.random() >= 0.3 else _pile(rng, n, style)
        piles.append([(order[used + i], *p, rng.random() < 0.5) for i, p in enumerate(poses)])
        used += n
    # Turn each pile, then place the piles side by side and find the scale that fits the photo.
    placed, x_cursor = [], 0.0
    for pile in piles:
        rot = rng.uniform(0, 2 * math.pi)
        c, s = math.cos(rot), math.sin(rot)
        pts = [(c * x - s * y, s * x + c * y, a + rot, idx, flip) for idx, x, y, a, flip in pile]
        corners = np.array([_card_corners(px, py, a) for px, py, a, _, _ in pts]).reshape(-1, 2)
        lo, hi = corners.min(0), corners.max(0)
        dx = x_cursor - lo[0]
        dy = -(lo[1] + hi[1]) / 2 + rng.normal(0, 20)
        placed += [(px + dx, py + dy, a, idx, flip) for px, py, a, idx, flip in pts]
        x_cursor += hi[0] - lo[0] + rng.uniform(15, 60)
    cards = [Card(int(idx), px, py, a + (math.pi if flip else 0.0)) for px, py, a, idx, flip in placed]
    ppm = rng.uniform(*CARD_PX) / CARD_MM[0]
    if cards:
        allc = np.array([_card_corners(k.cx, k.cy, k.angle) for k in cards]).reshape(-1, 2)
        lo, hi = allc.min(0), allc.max(0)
        ext = hi - lo
        fit = min(w * 0.94 / ext[0], h * 0.94 / ext[1])
        ppm = max(min(ppm, fit), CARD_PX[0] / CARD_MM[0])
        span = np.array([w, h]) / ppm
        slack = np.maximum(span - ext, 0)
        origin = lo - slack * rng.uniform(0.1, 0.9, 2) + np.minimum(span - ext, 0) / 2
    else:
        origin = np.array([0.0, 0.0])
    scene = Scene(size=size, cards=cards, ppm=ppm, origin=(float(origin[0]), float(origin[1])))
    _add_clutter(rng, scene, face_down_only=not face_up)
    scene.tilt = _tilt(rng, w, h)
    scene.table = {"kind": rng.choice(["felt", "wood", "cloth", "plain"]), "seed": int(rng.integers(1 << 30)),
                   "color": rng.uniform(20, 230, 3).tolist()}
    scene.look = {
        "gain": rng.uniform(0.55, 1.25), "wb": rng.uniform(0.8, 1.2, 3).tolist(),
        "grad": rng.uniform(-0.35, 0.35, 2).tolist(), "vignette": rng.uniform(0, 0.35),
        "glare": rng.random() < 0.35, "glare_at": rng.uniform(0, 1, 2).tolist(), "glare_r": rng.uniform(0.03, 0.15),
        "glare_a": rng.uniform(0.3, 0.9), "shadow": rng.random() < 0.35, "shadow_poly": rng.uniform(0, 1, (4, 2)).tolist(),
        "shadow_a": rng.uniform(0.25, 0.55), "blur": rng.uniform(0, 1.6) if rng.random() < 0.5 else 0.0,
        "motion": rng.uniform(0, 6) if rng.random() < 0.2 else 0.0, "motion_a": rng.uniform(0, 180),
        "noise": rng.uniform(1, 9), "jpeg": int(rng.integers(45, 96)), "seed": int(rng.integers(1 << 30)),
        "card_shadow": rng.uniform(0.15, 0.5),
    }
    return scene


def _add_clutter(rng: np.random.Generator, scene: Scene, face_down_only: bool) -> None:
    w, h = scene.size
    span = np.array([w, h]) / scene.ppm
    org = np.array(scene.origin)
    n = int(rng.integers(0, 5)) if not face_down_only else int(rng.integers(0, 6))
    for _ in range(n):
        kind = rng.choice(["coin", "pencil", "pad", "back"], p=[0.35, 0.25, 0.2, 0.2])
        at = org + rng.uniform(0.05, 0.95, 2) * span
        item = {"kind": kind, "at": at.tolist(), "angle": rng.uniform(0, 2 * math.pi), "seed": int(rng.integers(1 << 30))}
        if kind == "back":
            scene.cards.insert(int(rng.integers(0, len(scene.cards) + 1)) if rng.random() < 0.3 else len(scene.cards),
                               Card(-1, float(at[0]), float(at[1]), item["angle"]))
            continue
        if kind == "coin":
            item["r"] = rng.uniform(8, 14)
            item["color"] = rng.choice([(60, 140, 190), (150, 150, 155), (40, 90, 150)]).tolist()
        scene.clutter.append(item)
    if face_down_only and rng.random() < 0.5:   # a face-down pile
        at = org + rng.uniform(0.3, 0.7, 2) * span
        a = rng.uniform(0, 2 * math.pi)
        for i in range(int(rng.integers(2, 12))):
            scene.cards.append(Card(-1, float(at[0] + 10 * i * math.cos(a)), float(at[1] + 10 * i * math.sin(a)), a))


def _tilt(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Homography of the image plane for a camera tilted up to ~15 degrees (pinhole, focal ~ image width)."""
    f = w * rng.uniform(0.9, 1.4)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    ax, ay = np.radians(rng.uniform(-15, 15, 2)) * rng.uniform(0, 1)
    rx = np.array([[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]])
    ry = np.array([[math.cos(ay), 0, math.sin(ay)], [0, 1, 0], [-math.sin(ay), 0, math.cos(ay)]])
    hom = k @ rx @ ry @ np.linalg.inv(k)
    # Keep the photo centre where it was so the piles stay in frame.
    c = hom @ np.array([w / 2, h / 2, 1])
    t = np.array([[1, 0, w / 2 - c[0] / c[2]], [0, 1, h / 2 - c[1] / c[2]], [0, 0, 1]])
    return t @ hom


def _card_corners(cx: float, cy: float, angle: float) -> np.ndarray:
    """(4, 2) table-mm corners of a card whose 'up' points along `angle` (0 = -y)."""
    c, s = math.cos(angle), math.sin(angle)
    hw, hh = CARD_MM[0] / 2, CARD_MM[1] / 2
    loc = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
    return np.stack([cx + c * loc[:, 0] - s * loc[:, 1], cy + s * loc[:, 0] + c * loc[:, 1]], 1)


def _card_affine(card: Card) -> np.ndarray:
    """3x3 card-local mm (origin top-left of the upright face) -> table mm."""
    c, s = math.cos(card.angle), math.sin(card.angle)
    hw, hh = CARD_MM[0] / 2, CARD_MM[1] / 2
    return np.array([[c, -s, card.cx - c * hw + s * hh], [s, c, card.cy - s * hw - c * hh], [0, 0, 1]])


# ---------------------------------------------------------------- rendering

def scene_homography(scene: Scene, scale: float) -> np.ndarray:
    """3x3 table mm -> output pixels at `scale` x full resolution."""
    a = np.array([[scene.ppm, 0, -scene.ppm * scene.origin[0]], [0, scene.ppm, -scene.ppm * scene.origin[1]], [0, 0, 1]])
    return np.diag([scale, scale, 1.0]) @ scene.tilt @ a


def _project(hom: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.c_[pts, np.ones(len(pts))] @ hom.T
    return p[:, :2] / p[:, 2:3]


def _table(scene: Scene, w: int, h: int) -> np.ndarray:
    rng = np.random.default_rng(scene.table["seed"])
    base = np.array(scene.table["color"], np.float32)
    kind = scene.table["kind"]

    def noise(cells: int, amp: float) -> np.ndarray:
        small = rng.normal(0, amp, (max(2, h * cells // max(w, 1)), cells)).astype(np.float32)
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)

    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    if kind == "felt":
        img += (noise(w // 3 + 2, 10) + noise(40, 8))[..., None]
    elif kind == "wood":
        yy = np.linspace(0, 1, h, dtype=np.float32)[:, None] + noise(8, 0.03)
        grain = np.sin(yy * rng.uniform(40, 160) + noise(6, 1.5)) * 18 + noise(w // 4 + 2, 6)
        img += grain[..., None] * np.array([1.0, 0.8, 0.6], np.float32)
    elif kind == "cloth":
        period = rng.uniform(0.02, 0.08) * w
        xx, yy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        other = rng.uniform(20, 230, 3).astype(np.float32)
        if rng.random() < 0.5:
            m = ((xx // period + yy // period) % 2)[..., None]
        else:
            m = (np.hypot(xx % period - period / 2, yy % period - period / 2) < period * 0.25)[..., None]
        img = img * (1 - m * 0.8) + other * m * 0.8 + noise(w // 4 + 2, 5)[..., None]
    else:
        img += noise(30, 6)[..., None]
    return img


def _paste(canvas: np.ndarray, src: np.ndarray, hom: np.ndarray, shadow: float = 0.0) -> np.ndarray | None:
    """Warp BGRA `src` through `hom` (src px -> canvas px) onto float canvas in place; returns its alpha ROI info."""
    h, w = canvas.shape[:2]
    sh, sw = src.shape[:2]
    quad = _project(hom, np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], float))
    x0, y0 = np.floor(quad.min(0)).astype(int) - 4
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 4
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return None
    t = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float) @ hom
    warped = cv2.warpPerspective(src, t, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    alpha = warped[..., 3:4].astype(np.float32) / 255
    roi = canvas[y0:y1, x0:x1]
    if shadow > 0:   # soft contact shadow of the card onto whatever lies below
        k = max(3, int(min(x1 - x0, y1 - y0) * 0.02) | 1)
        sa = cv2.GaussianBlur(alpha[..., 0], (k * 2 + 1, k * 2 + 1), 0)
        sa = np.roll(sa, (k // 2, k // 2), (0, 1))[..., None]
        roi *= 1 - shadow * sa
    roi[:] = roi * (1 - alpha) + warped[..., :3].astype(np.float32) * alpha
    return alpha


def render(scene: Scene, deck: Deck, scale: float = 1.0, crop_to_cards: bool = False,
           tell: bool = False) -> tuple[np.ndarray, list[dict]]:
    """Render the scene at `scale` x full resolution (only the part around the cards if `crop_to_cards`).

    Returns the photo, (H, W, 3) uint8 BGR, and one label per printed index of a face-up card:
    {"card": id, "pips": int, "center": (x, y), "up": (ux, uy) unit vector, "height": px, "quad": (4, 2),
     "visible": fraction of the index box not covered, "seen_center": the centre of the part that shows, "mark_visible": the same for its numeral and suit sign}; the quad runs top-left, top-right, bottom-right,
    bottom-left of the upright-looking index. With `tell`, each label also gets "tell_mm2" and "like": the
    uncovered area in which the index differs from the likest other card's, and that card (models.readability).
    """
    w, h = round(scene.size[0] * scale), round(scene.size[1] * scale)
    hom = scene_homography(scene, scale)
    if crop_to_cards and scene.cards:   # training crops need only the piles: render that window, much faster
        pts = _project(hom, np.concatenate([_card_corners(c.cx, c.cy, c.angle) for c in scene.cards]))
        lo = np.clip(pts.min(0) - 40, 0, [w, h]).astype(int)
        hi = np.clip(pts.max(0) + 40, 0, [w, h]).astype(int)
        if (hi - lo).min() >= 64:
            hom = np.array([[1, 0, -lo[0]], [0, 1, -lo[1]], [0, 0, 1]], float) @ hom
            w, h = int(hi[0] - lo[0]), int(hi[1] - lo[1])
    img = _table(scene, w, h)
    ids = np.full((h, w), -1, np.int16)
    px_per_mm_out = scene.ppm * scale
    # Mip level: at most 2x downsampling by the warp, so small renders do not alias.
    lvl = int(np.clip(math.floor(math.log2(deck.px_per_mm / max(px_per_mm_out, 1e-3))), 0, 5))
    look = scene.look
    for item in scene.clutter:
        if item["kind"] != "pad":
            continue
        _draw_pad(img, item, hom, px_per_mm_out)
    labels: list[dict] = []
    x0, y0, x1, y1 = deck.index_box
    for slot, card in enumerate(scene.cards):
        face = (deck.faces[card.index] if card.index >= 0 else deck.back)[lvl]
        f = deck.px_per_mm / 2 ** lvl
        local = np.diag([1 / f, 1 / f, 1.0])
        h_card = hom @ _card_affine(card) @ local
        _paste(img, face, h_card, shadow=look.get("card_shadow", 0.3))
        poly = _project(hom @ _card_affine(card), np.array([[0, 0], [60, 0], [60, 112], [0, 112]], float))
        cv2.fillConvexPoly(ids, np.round(poly * 16).astype(np.int32), slot, lineType=cv2.LINE_8, shift=4)
        if card.index < 0:
            continue
        for corner in ("tl", "br"):
            if corner == "tl":
                box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
            else:   # the same index printed turned 180 degrees; list it starting from its own top-left
                box = np.array([[60 - x0, 112 - y0], [60 - x1, 112 - y0], [60 - x1, 112 - y1], [60 - x0, 112 - y1]])
            quad = _project(hom @ _card_affine(card), box)
            labels.append({"card": deck.ids[card.index], "pips": deck.pips[card.index], "slot": slot, "quad": quad})
    for item in scene.clutter:
        if item["kind"] != "pad":
            _draw_item(img, ids, item, hom, px_per_mm_out)
    strips = index_strips(deck) if tell else None
    for lab in labels:
        q = lab.pop("quad")
        lab.update(_quad_geometry(q))
        slot = lab.pop("slot")
        lab["visible"] = _visible(ids, q, slot)
        lab["seen_center"] = _seen_centre(ids, q, slot) if 0 < lab["visible"] < 1 else lab["center"]
        # The numeral and suit sign fill the top ~40 % of the box: without them no one can name the card.
        mark = np.array([q[0], q[1], q[1] + MARK * (q[2] - q[1]), q[0] + MARK * (q[3] - q[0])])
        lab["mark_visible"] = _visible(ids, mark, slot)
        if strips is not None:
            area, like = tell_apart(strips, deck.ids.index(lab["card"]), seen_grid(ids, q, slot, strips.shape[1:3]))
            lab["tell_mm2"], lab["like"] = round(area, 2), deck.ids[like]
    img = _look(img, look, scale)
    return img, labels


def _quad_geometry(q: np.ndarray) -> dict:
    top, bottom = (q[0] + q[1]) / 2, (q[2] + q[3]) / 2
    up = top - bottom
    height = float(np.hypot(*up))
    return {"quad": q.round(2).tolist(), "center": q.mean(0).round(2).tolist(),
            "up": (up / max(height, 1e-6)).round(4).tolist(), "height": round(height, 2)}


def _index_pixels(ids: np.ndarray, quad: np.ndarray, slot: int):
    """An index box's pixels in the photo: (inside the box, inside and showing, x offset, y offset), or None
    when the box lies off the photo or covers no pixel."""
    x0, y0 = np.floor(quad.min(0)).astype(int)
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 1
    H, W = ids.shape
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round((quad - [x0, y0]) * 16).astype(np.int32), 1, shift=4)
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if int(mask.sum()) == 0 or cx1 <= cx0 or cy1 <= cy0:
        return None
    sub = mask[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0].astype(bool)
    return mask, sub & (ids[cy0:cy1, cx0:cx1] == slot), cx0, cy0


def _visible(ids: np.ndarray, quad: np.ndarray, slot: int) -> float:
    px = _index_pixels(ids, quad, slot)
    return 0.0 if px is None else round(float(px[1].sum()) / int(px[0].sum()), 3)


def _seen_centre(ids: np.ndarray, quad: np.ndarray, slot: int) -> list[float]:
    """Centre of the part of an index box that shows (the box's own centre when none does)."""
    px = _index_pixels(ids, quad, slot)
    if px is not None and px[1].any():
        ys, xs = np.nonzero(px[1])
        return [round(float(xs.mean()) + px[2] + 0.5, 2), round(float(ys.mean()) + px[3] + 0.5, 2)]
    return quad.mean(0).round(2).tolist()


def _draw_pad(img: np.ndarray, item: dict, hom: np.ndarray, ppm: float) -> None:
    """A score pad: paper with ruled lines and handwritten-looking numbers (digits that are not card indices)."""
    rng = np.random.default_rng(item["seed"])
    pw, ph = rng.uniform(70, 110), rng.uniform(100, 150)
    res = 4.0
    pad = np.full((int(ph * res), int(pw * res), 4), 255, np.uint8)
    pad[..., :3] = rng.integers(225, 255, 3)
    for y in range(int(12 * res), pad.shape[0], int(7 * res)):
        cv2.line(pad, (0, y), (pad.shape[1], y), (200, 170, 150, 255), 1)
    for y in range(int(12 * res), pad.shape[0] - int(7 * res), int(7 * res)):
        for col in range(int(rng.integers(1, 4))):
            txt = str(int(rng.integers(-70, 120)))
            cv2.putText(pad, txt, (int((5 + col * 25) * res), y + int(6 * res)), int(rng.choice([0, 2, 3, 6])),
                        rng.uniform(0.6, 1.0), (int(rng.integers(0, 120)), 40, 30, 255), 2)
    c, s = math.cos(item["angle"]), math.sin(item["angle"])
    at = item["at"]
    aff = np.array([[c / res, -s / res, at[0]], [s / res, c / res, at[1]], [0, 0, 1]])
    _paste(img, pad, hom @ aff, shadow=0.2)


def _draw_item(img: np.ndarray, ids: np.ndarray, item: dict, hom: np.ndarray, ppm: float) -> None:
    at = np.array(item["at"])
    rng = np.random.default_rng(item["seed"])
    if item["kind"] == "coin":
        ring = np.array([[math.cos(t), math.sin(t)] for t in np.linspace(0, 2 * math.pi, 40)]) * item["r"] + at
        poly = np.round(_project(hom, ring) * 16).astype(np.int32)
        cv2.fillPoly(img, [poly], tuple(float(v) for v in item["color"]), cv2.LINE_AA, 4)
        inner = np.round(_project(hom, (ring - at) * 0.8 + at) * 16).astype(np.int32)
        cv2.polylines(img, [inner], True, tuple(float(v) * 0.7 for v in item["color"]), max(1, int(ppm * 0.4)),
                      cv2.LINE_AA, 4)
        cv2.fillPoly(ids, [poly], -2, cv2.LINE_8, 4)
    elif item["kind"] == "pencil":
        length, wid = rng.uniform(90, 170), rng.uniform(6, 8)
        d = np.array([math.cos(item["angle"]), math.sin(item["angle"])])
        n = np.array([-d[1], d[0]])
        body = np.array([at - d * length / 2 + n * wid / 2, at + d * length / 2 + n * wid / 2,
                         at + d * length / 2 - n * wid / 2, at - d * length / 2 - n * wid / 2])
        tip = np.array([at + d * length / 2 + n * wid / 2, at + d * (length / 2 + 18), at + d * length / 2 - n * wid / 2])
        col = tuple(float(v) for v in rng.choice([(30, 200, 230), (40, 40, 180), (60, 120, 40), (50, 50, 50)]))
        for pts, colour in ((body, col), (tip, (150, 190, 220))):
            poly = np.round(_project(hom, pts) * 16).astype(np.int32)
            cv2.fillPoly(img, [poly], colour, cv2.LINE_AA, 4)
            cv2.fillPoly(ids, [poly], -2, cv2.LINE_8, 4)


def _look(img: np.ndarray, look: dict, scale: float) -> np.ndarray:
    """Light, white balance, glare, shadow, blur, noise and JPEG; float canvas in, (H, W, 3) uint8 BGR out."""
    h, w = img.shape[:2]
    rng = np.random.default_rng(look["seed"])
    yy, xx = np.meshgrid(np.linspace(-1, 1, h, dtype=np.float32), np.linspace(-1, 1, w, dtype=np.float32), indexing="ij")
    gain = look["gain"] * (1 + look["grad"][0] * xx + look["grad"][1] * yy) * (1 - look["vignette"] * (xx**2 + yy**2) / 2)
    img = img * gain[..., None] * np.array(look["wb"], np.float32)
    if look["shadow"]:
        m = np.zeros((h, w), np.float32)
        cv2.fillConvexPoly(m, np.round(np.array(look["shadow_poly"]) * [w, h]).astype(np.int32), 1.0)
        k = int(0.08 * max(w, h)) | 1
        m = cv2.GaussianBlur(cv2.resize(m, (w // 4 + 1, h // 4 + 1)), (k // 4 | 1, k // 4 | 1), 0)
        img *= (1 - look["shadow_a"] * cv2.resize(m, (w, h)))[..., None]
    if look["glare"]:
        gx, gy = look["glare_at"]
        r = look["glare_r"]
        g = np.exp(-(((xx + 1) / 2 - gx) ** 2 * (w / h) ** 2 + ((yy + 1) / 2 - gy) ** 2) / (2 * r * r))
        img = img + (255 * 1.3 - img) * (look["glare_a"] * g)[..., None]
    img = np.clip(img, 0, 255)
    blur = look["blur"] * scale * 2   # defocus in px scales with resolution
    if blur > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    if look["motion"] * scale > 1:
        k = int(look["motion"] * scale * 2) | 1
        ker = np.zeros((k, k), np.float32)
        ker[k // 2] = 1
        ker = cv2.warpAffine(ker, cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), look["motion_a"], 1), (k, k))
        img = cv2.filter2D(img, -1, ker / max(ker.sum(), 1e-6))
    noise = rng.standard_normal((h // 2 + 1, w // 2 + 1, 3), dtype=np.float32) * look["noise"]
    img = img + cv2.resize(noise, (w, h), interpolation=cv2.INTER_NEAREST) * 0.5 + \
        rng.standard_normal((h, w, 1), dtype=np.float32) * look["noise"] * 0.5
    out = np.clip(img, 0, 255).astype(np.uint8)
    _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, look["jpeg"]])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)
