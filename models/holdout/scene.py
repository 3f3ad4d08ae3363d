"""Sample one table scene: which piles, laid out how, where the camera is, where the clutter lies, and how much of
each card's index stays uncovered. Geometry only; drawing is render.py's job."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from models.holdout.camera import Camera
from models.holdout.deal import (
    CARD_H,
    CARD_W,
    INDEX_BR,
    INDEX_TL,
    Deal,
    DeckCard,
    Pose,
    lay_out,
    outline,
    place,
    random_deal,
)

MIN_CARD_PX, MAX_CARD_PX = 150.0, 520.0    # a card's 60 mm width in the photo (product issue)
THICKNESS_MM = 0.3
RASTER_PPM = 2.0                           # occlusion raster, px per table mm
CARD_RECT = np.array([[-CARD_W / 2, -CARD_H / 2], [CARD_W / 2, -CARD_H / 2], [CARD_W / 2, CARD_H / 2],
                      [-CARD_W / 2, CARD_H / 2]])


@dataclass(frozen=True, slots=True)
class PlacedCard:
    id: str
    side: str          # "declarer" or "defenders"
    pose: Pose
    z: float           # mm, negative = nearer the camera
    curl: tuple[float, float]   # mm the card's long / short edges rise towards the camera


@dataclass(frozen=True, slots=True)
class Clutter:
    kind: str          # coin, pencil, score_pad, card_back
    pose: Pose
    on_top: bool       # drawn after the piles (may hide an index)
    size_mm: tuple[float, float]
    circles: tuple[tuple[float, float, float], ...]   # footprint as (x, y, r) mm


@dataclass
class Scene:
    deal: Deal
    sides: tuple[str, ...]
    styles: tuple[str, ...]
    cards: list[PlacedCard]
    camera: Camera
    clutter: list[Clutter] = field(default_factory=list)


def _pile_styles(rng, n: int) -> str:
    weights = {"straight": 0.3, "fan": 0.25, "sloppy": 0.3, "two_rows": 0.15}
    if n > 28:      # a big pile is more often laid in two rows than in one long fan
        weights.update(fan=0.1, two_rows=0.35)
    names = list(weights)
    p = np.array([weights[k] for k in names])
    return names[int(rng.choice(len(names), p=p / p.sum()))]


def _lay_piles(rng, piles: list[tuple[str, tuple[str, ...]]], compact: bool) -> tuple[list[PlacedCard], list[str]]:
    cards, styles, prev = [], [], None
    layer0 = 0
    for side, ids in piles:
        style = "two_rows" if compact and len(ids) > 16 else _pile_styles(rng, len(ids))
        poses = place(lay_out(rng, len(ids), style), rng.uniform(0, 360), 0.0, 0.0)
        pts = np.concatenate([p.corners(CARD_RECT) for p in poses])
        if prev is not None:
            # Separate along a random direction by the two piles' extents along it (a separating axis).
            d = rng.uniform(0, 2 * math.pi)
            u = np.array([math.cos(d), math.sin(d)])
            gap = prev @ u
            shift = gap.max() - (pts @ u).min() + rng.uniform(15, 70)
            off = u * shift + np.array([-u[1], u[0]]) * rng.normal(0, 25)
            poses = [Pose(p.x + off[0], p.y + off[1], p.angle, p.layer) for p in poses]
            pts = pts + off
        prev = pts if prev is None else np.concatenate([prev, pts])
        styles.append(style)
        for p, cid in zip(poses, ids):
            layer = layer0 + p.layer
            curl = (rng.normal(0, 0.6), rng.normal(0, 0.4)) if rng.random() < 0.6 else (0.0, 0.0)
            # A card rests on the few neighbours under it, not on the whole pile.
            cards.append(PlacedCard(cid, side, Pose(p.x, p.y, p.angle, layer),
                                    -THICKNESS_MM * min(p.layer, 3), curl))
        layer0 += len(ids)
    return cards, styles


def _fit_camera(rng, pts: np.ndarray, size, empty: bool) -> Camera | None:
    """A camera that sees all card corners with a card 150-520 px wide, or None when the scene is too big."""
    w, h = size
    lo, hi = MIN_CARD_PX / CARD_W, MAX_CARD_PX / CARD_W
    ppm = math.exp(rng.uniform(math.log(lo * 1.05), math.log(hi * 0.95)))
    centre = pts.mean(0) if len(pts) else np.zeros(2)
    if len(pts) > 2 and rng.random() < 0.65:
        # turn the long side of the scene along the photo's long side, as a player squares up the piles
        _evals, evecs = np.linalg.eigh(np.cov((pts - centre).T))
        main = evecs[:, -1]
        roll = math.degrees(math.atan2(main[1], main[0])) + rng.normal(0, 12) + 180 * rng.integers(2)
        if h > w:
            roll += 90
    else:
        roll = rng.uniform(0, 360)
    tilt, azim = rng.uniform(0, 15), rng.uniform(0, 360)
    focal = rng.uniform(0.75, 1.3)
    # mostly barrel (k1 > 0 here: a photo pixel samples farther out), as the Pi camera lenses
    k1, k2 = rng.uniform(-0.03, 0.08), rng.uniform(-0.01, 0.01)
    shift = rng.normal(0, 0.01 * w, 2)
    margin = 0.03 * min(w, h)
    for _ in range(10):
        cam = Camera.looking_at(centre, ppm, tilt, azim, roll, size, focal, shift, k1, k2)
        if empty or not len(pts):
            return cam
        img = cam.distort(cam.project_flat(pts))
        x0, y0 = img.min(0)
        x1, y1 = img.max(0)
        fit = min((w - 2 * margin) / (x1 - x0), (h - 2 * margin) / (y1 - y0))
        inside = x0 >= margin and y0 >= margin and x1 <= w - margin and y1 <= h - margin
        widths = np.hypot(*(img[1::4] - img[0::4]).T)
        if inside and widths.min() >= MIN_CARD_PX and widths.max() <= MAX_CARD_PX:
            return cam
        if fit < 1:
            ppm *= fit * 0.97
        elif widths.max() > MAX_CARD_PX:
            ppm *= MAX_CARD_PX / widths.max() * 0.98
        elif widths.min() < MIN_CARD_PX:   # the far side of a tilted view shrinks
            ppm *= MIN_CARD_PX / widths.min() * 1.02
        # re-aim at the middle of the piles as the camera sees them
        seen = cam.project_flat(pts)
        centre = cam.to_table((seen.min(0, keepdims=True) + seen.max(0, keepdims=True)) / 2)[0]
        if ppm < lo:
            return None
    return None


def sample_scene(rng: np.random.Generator, deck: list[DeckCard], size: tuple[int, int], empty: bool) -> Scene:
    """One photo's scene. empty: no face-up cards, only clutter and face-down cards."""
    deal = random_deal(rng, deck)
    if empty:
        sides: tuple[str, ...] = ()
    else:
        sides = (("declarer",), ("defenders",), ("declarer", "defenders"))[int(rng.choice(3, p=[0.35, 0.35, 0.3]))]
    for attempt in range(40):
        piles = [(s, getattr(deal, s)) for s in sides]
        cards, styles = _lay_piles(rng, piles, compact=attempt >= 15)
        pts = np.concatenate([c.pose.corners(CARD_RECT) for c in cards]) if cards else np.zeros((0, 2))
        cam = _fit_camera(rng, pts, size, empty)
        if cam is not None:
            scene = Scene(deal, sides, tuple(styles), cards, cam)
            scene.clutter = _clutter(rng, scene, empty)
            return scene
        if attempt == 30 and len(sides) == 2:
            sides = (sides[int(rng.integers(2))],)    # two big piles do not fit one photo: show one
    raise RuntimeError(f"no camera pose fits the piles {[len(p[1]) for p in piles]} into {size}")


def _clutter(rng, scene: Scene, empty: bool) -> list[Clutter]:
    """Clutter in free table space; a coin now and then lies on a pile, on top of the cards."""
    cam = scene.camera
    w, h = cam.size
    hulls = []
    if scene.cards:
        for side in scene.sides:
            pts = np.concatenate([c.pose.corners(CARD_RECT) for c in scene.cards if c.side == side])
            hulls.append(cv2.convexHull(pts.astype(np.float32)))
    kinds = ["card_back"] * int(rng.integers(1, 4)) if empty else []
    for kind, p in (("coin", 0.5), ("coin", 0.3), ("coin", 0.2), ("pencil", 0.45), ("score_pad", 0.4),
                    ("card_back", 0.3), ("card_back", 0.15)):
        if rng.random() < p:
            kinds.append(kind)
    placed: list[Clutter] = []
    for kind in kinds:
        size_mm = {"coin": (d := rng.uniform(16, 28), d), "pencil": (rng.uniform(110, 180), 7.0),
                   "score_pad": (rng.uniform(90, 150), rng.uniform(130, 210)), "card_back": (CARD_W, CARD_H)}[kind]
        on_top = kind == "coin" and rng.random() < 0.15 and bool(hulls)
        for _ in range(30):
            c = cam.to_table(np.array([[rng.uniform(0.02, 0.98) * w, rng.uniform(0.02, 0.98) * h]]))[0]
            pose = Pose(float(c[0]), float(c[1]), rng.uniform(0, 360), 0)
            circles = _footprint(pose, size_mm)
            if on_top or not any(_hits(circles, other.circles) for other in placed) and \
                    not any(cv2.pointPolygonTest(hull, (x, y), True) > -r for hull in hulls for x, y, r in circles):
                placed.append(Clutter(kind, pose, on_top, size_mm, circles))
                break
    return placed


def _footprint(pose: Pose, size_mm) -> tuple[tuple[float, float, float], ...]:
    """Circles covering a w x h rectangle at pose (enough to keep clutter off the piles)."""
    wmm, hmm = size_mm
    r = min(wmm, hmm) / 2
    n = max(1, math.ceil(max(wmm, hmm) / (2 * r)))
    along = np.linspace(-(max(wmm, hmm) / 2 - r), max(wmm, hmm) / 2 - r, n)
    local = np.column_stack([along, np.zeros(n)]) if wmm >= hmm else np.column_stack([np.zeros(n), along])
    pts = pose.corners(local)
    return tuple((float(x), float(y), r * 1.45) for x, y in pts)


def _hits(a, b) -> bool:
    return any(math.hypot(x1 - x2, y1 - y2) < r1 + r2 for x1, y1, r1 in a for x2, y2, r2 in b)


def visibility(scene: Scene) -> list[tuple[float, float]]:
    """Uncovered fraction of each card's two index boxes (upright-face top-left one, turned one), table-plane
    occlusion by later cards and by clutter lying on top."""
    if not scene.cards:
        return []
    pts = np.concatenate([c.pose.corners(CARD_RECT) for c in scene.cards])
    origin = pts.min(0) - 5
    w, h = (np.ceil((pts.max(0) + 5 - origin) * RASTER_PPM)).astype(int)
    owner = np.zeros((h, w), np.uint16)
    shape = outline()
    order = sorted(range(len(scene.cards)), key=lambda i: scene.cards[i].pose.layer)
    for i in order:
        poly = ((scene.cards[i].pose.corners(shape) - origin) * RASTER_PPM * 16).astype(np.int32)
        cv2.fillPoly(owner, [poly], i + 1, cv2.LINE_8, 4)
    for c in scene.clutter:
        if c.on_top:
            for x, y, r in c.circles:
                centre = tuple(int(v) for v in (np.array([x, y]) - origin) * RASTER_PPM)
                cv2.circle(owner, centre, int(r / 1.45 * RASTER_PPM), 65535, -1)
    out = []
    for i, card in enumerate(scene.cards):
        fr = []
        for box in (INDEX_TL, INDEX_BR):
            poly = ((card.pose.corners(box) - origin) * RASTER_PPM).astype(np.float32)
            x0, y0 = np.floor(poly.min(0)).astype(int)
            x1, y1 = np.ceil(poly.max(0)).astype(int) + 1
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillPoly(mask, [((poly - [x0, y0]) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
            inside = mask.astype(bool)
            region = owner[max(y0, 0):y1, max(x0, 0):x1]
            own = region[inside[max(0, -y0):, max(0, -x0):][:region.shape[0], :region.shape[1]]] == i + 1
            fr.append(float(own.sum()) / max(1, int(inside.sum())))
        out.append((fr[0], fr[1]))
    return out
