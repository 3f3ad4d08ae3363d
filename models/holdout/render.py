"""Draw a sampled scene as a Pi-camera-like JPEG and write its labels.

Pipeline: cloth -> clutter under the piles -> cards (drop shadow, edge, curl) -> clutter on top -> light
(colour temperature, uneven light, soft shadow, vignetting, glare) -> lens (radial distortion, lateral chromatic
shift) -> defocus and motion blur -> Bayer sensor with signal-dependent noise and demosaicing -> per-channel tone
curves, sharpening -> JPEG (sometimes twice).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from models.holdout import textures
from models.holdout.camera import dense, grid_nodes
from models.holdout.deal import CARD_H, CARD_W, INDEX_BR, INDEX_TL, DeckCard, load_deck
from models.holdout.scene import PlacedCard, Scene, sample_scene, visibility

MAIN_FACES = Path(__file__).resolve().parents[1] / "faces"
SHARED_FACES = Path("/work/shared/deck/faces")
PI_SIZES = ((1640, 1232), (2028, 1520), (2304, 1296), (4056, 3040), (4608, 2592))
EMPTY_SHARE = 0.08


def default_faces() -> Path:
    """models/faces when it holds every face of its deck.json, else the shared deck."""
    try:
        deck = load_deck(MAIN_FACES / "deck.json")
    except ValueError:
        return SHARED_FACES
    return MAIN_FACES if all((MAIN_FACES / f"{c.id}.png").is_file() for c in deck) else SHARED_FACES


@dataclass(frozen=True, slots=True)
class Photo:
    jpeg: bytes
    label: dict
    quality: int


class Sprite:
    """An RGBA picture of a flat object with a mip pyramid; colour premultiplied by alpha, uint8."""

    def __init__(self, bgra: np.ndarray, px_per_mm: float):
        a = bgra[..., 3:4].astype(np.float32) / 255
        top = np.dstack([(bgra[..., :3] * a + 0.5).astype(np.uint8), bgra[..., 3:]])
        self.levels = [(px_per_mm, top)]
        while self.levels[-1][1].shape[1] > 80:
            ppm, img = self.levels[-1]
            self.levels.append((ppm / 2, cv2.pyrDown(img)))

    def level(self, px_per_mm: float) -> tuple[float, np.ndarray]:
        """The coarsest level still at least as sharp as the photo wants (no aliasing from the bilinear warp)."""
        for ppm, img in reversed(self.levels):
            if ppm >= px_per_mm * 0.9:
                return ppm, img
        return self.levels[0]

    @classmethod
    def premultiplied(cls, pm: np.ndarray, px_per_mm: float) -> Sprite:
        s = cls.__new__(cls)
        s.levels = [(px_per_mm, pm)]
        return s


def _read_face(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise ValueError(f"{path}: not an RGBA card face PNG")
    return img


class HoldoutRenderer:
    """Renders labelled hold-out photos. faces: a folder of <ID>.png faces plus back.png (deck.json there or one up)."""

    def __init__(self, faces: Path | str | None = None):
        self.faces_dir = Path(faces) if faces else default_faces()
        deck_json = next((p for p in (self.faces_dir / "deck.json", self.faces_dir.parent / "deck.json")
                          if p.is_file()), None)
        if deck_json is None:
            raise ValueError(f"{self.faces_dir}: no deck.json in it or next to it")
        self.deck: list[DeckCard] = load_deck(deck_json)
        missing = [c.id for c in self.deck if not (self.faces_dir / f"{c.id}.png").is_file()]
        if missing:
            raise ValueError(f"{self.faces_dir}: missing faces {', '.join(missing)}")
        self.pips = {c.id: c.pips for c in self.deck}
        self._faces: dict[str, Sprite] = {}
        back = next((p for p in (self.faces_dir / "back.png", self.faces_dir.parent / "back.png") if p.is_file()), None)
        if back is None:
            raise ValueError(f"{self.faces_dir}: no back.png in it or next to it")
        self.back = Sprite(_read_face(back), 10.0)

    def face(self, card_id: str) -> Sprite:
        if card_id not in self._faces:
            self._faces[card_id] = Sprite(_read_face(self.faces_dir / f"{card_id}.png"), 10.0)
        return self._faces[card_id]

    def render(self, seed, size: tuple[int, int] = (2028, 1520), empty: bool | None = None,
               name: str = "photo.jpg") -> Photo:
        """One photo from a seed (int, sequence of ints or Generator): JPEG bytes and its label dict."""
        rng = np.random.default_rng(seed)
        if empty is None:
            empty = bool(rng.random() < EMPTY_SHARE)
        scene = sample_scene(rng, self.deck, size, empty)
        chroma = rng.uniform(0, 0.0015)
        margin = scene.camera.lens_margin(chroma)
        canvas, light = _Drawing(self, scene, rng, scene.camera.padded(margin)).draw()
        img = _camera_pipeline(rng, canvas, scene.camera, margin, chroma)
        quality = int(rng.integers(85, 96))
        label = self._label(scene, name, light)
        sampling = [cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_422,
                    cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444][int(rng.integers(3))]
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality,
                                             cv2.IMWRITE_JPEG_SAMPLING_FACTOR, sampling])
        if not ok:
            raise RuntimeError("JPEG encoding failed")
        return Photo(buf.tobytes(), label, quality)

    def _label(self, scene: Scene, name: str, light: dict) -> dict:
        cam = scene.camera
        w, h = cam.size
        cards = []
        for card, (vis_tl, vis_br) in zip(scene.cards, visibility(scene)):
            indices = []
            for box, vis in ((INDEX_TL, vis_tl), (INDEX_BR, vis_br)):
                quad = cam.distort(cam.project(_lift(card, box)))
                vis *= _inside_fraction(quad, w, h)
                indices.append({"quad": _round(quad), "visible": round(vis, 3)})
            k = int(indices[1]["visible"] > indices[0]["visible"])   # the exposed corner; ties keep the first
            cards.append({"id": card.id, "pips": self.pips[card.id], "side": card.side, "quad": indices[k]["quad"],
                          "visible": indices[k]["visible"], "index": k, "indices": indices})
        clutter = []
        for c in scene.clutter:
            wmm, hmm = c.size_mm
            rect = np.array([[-wmm / 2, -hmm / 2], [wmm / 2, -hmm / 2], [wmm / 2, hmm / 2], [-wmm / 2, hmm / 2]])
            clutter.append({"kind": c.kind, "on_top": c.on_top,
                            "quad": _round(cam.distort(cam.project_flat(c.pose.corners(rect))))})
        shown = set(scene.sides)
        return {"image": name, "width": w, "height": h, "cards": cards, "clutter": clutter,
                "pile_cards": {s: list(getattr(scene.deal, s)) if s in shown else [] for s in ("declarer", "defenders")},
                "deck_size": scene.deal.deck_size, "styles": list(scene.styles), "sides": list(scene.sides),
                "camera": {"px_per_mm": round(cam.px_per_mm(), 3),
                           "tilt_deg": round(math.degrees(math.acos(min(1.0, cam.r[2, 2]))), 2),
                           "k1": round(cam.k1, 4)},
                "light": light}


_WORKER: HoldoutRenderer | None = None


def init_worker(faces, threads: int) -> None:
    """Load the faces once per process; threads > 0 caps cv2's threads (one worker per core)."""
    global _WORKER
    if threads:
        cv2.setNumThreads(threads)
    _WORKER = HoldoutRenderer(faces)


def render_job(job) -> tuple[str, bytes, dict]:
    """(seed, i, size, empty) -> (name, JPEG bytes, label) of photo i, in the process init_worker set up."""
    seed, i, size, empty = job
    name = f"holdout_{seed}_{i:05d}.jpg"
    photo = _WORKER.render([seed, i], size, empty=empty, name=name)
    return name, photo.jpeg, photo.label


def _round(quad: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 1), round(float(y), 1)] for x, y in quad]


def _inside_fraction(quad: np.ndarray, w: int, h: int) -> float:
    area = abs(cv2.contourArea(quad.astype(np.float32)))
    if area <= 0:
        return 0.0
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    inter, _ = cv2.intersectConvexConvex(quad.astype(np.float32), frame)
    return float(min(1.0, inter / area))


def _lift(card: PlacedCard, local: np.ndarray) -> np.ndarray:
    """Card-centred mm points (N, 2) -> world mm (N, 3), raised by the card's curl (parabolic across each axis)."""
    u, v = local[:, 0] / (CARD_W / 2), local[:, 1] / (CARD_H / 2)
    z = card.z - card.curl[0] * u ** 2 - card.curl[1] * v ** 2
    return np.column_stack([card.pose.corners(local), z])


class _Drawing:
    """Draws the scene into a float32 BGR canvas, 0-255 (values above 255 are glare, clipped by the sensor)."""

    def __init__(self, renderer: HoldoutRenderer, scene: Scene, rng: np.random.Generator, cam):
        self.r, self.scene, self.rng, self.cam = renderer, scene, rng, cam
        w, h = self.cam.size
        self.w, self.h = w, h
        d = rng.uniform(0, 2 * math.pi)
        self.ppm = self.cam.px_per_mm()
        self.shadow_dir = np.array([math.cos(d), math.sin(d)])
        self.shadow_mm = rng.uniform(0.3, 1.6)
        self.shadow_blur_mm = rng.uniform(0.4, 2.0)
        self.shadow_strength = rng.uniform(0.2, 0.5)
        self.edge_grey = rng.uniform(150, 230)

    def draw(self) -> tuple[np.ndarray, dict]:
        canvas = self._cloth()
        for c in self.scene.clutter:
            if not c.on_top and c.kind in ("score_pad", "card_back"):
                self._clutter(canvas, c)
        for card in sorted(self.scene.cards, key=lambda c: c.pose.layer):
            tint = np.array([1.0, 1.0 - self.rng.uniform(0, 0.04), 1.0 - self.rng.uniform(0, 0.02)]) \
                * self.rng.uniform(0.93, 1.04)
            self._paste(canvas, self.r.face(card.id), card, tint)
        for c in self.scene.clutter:
            if c.on_top or c.kind not in ("score_pad", "card_back"):
                self._clutter(canvas, c)
        light = self._light(canvas)
        return canvas, light

    def _cloth(self) -> np.ndarray:
        cam = self.cam
        corners = cam.to_table(np.array([[0, 0], [self.w, 0], [self.w, self.h], [0, self.h]], float) * 1.15
                               - np.array([self.w, self.h]) * 0.075)
        x0, y0 = corners.min(0)
        x1, y1 = corners.max(0)
        ppm = min(self.ppm * 0.8, math.sqrt(1.6e6 / ((x1 - x0) * (y1 - y0))))
        tw, th = int((x1 - x0) * ppm) + 2, int((y1 - y0) * ppm) + 2
        kind = textures.CLOTHS[int(self.rng.choice(5, p=[0.35, 0.2, 0.15, 0.15, 0.15]))]
        tex = textures.cloth(self.rng, kind, (th, tw), ppm)
        to_table = np.array([[1 / ppm, 0, x0], [0, 1 / ppm, y0], [0, 0, 1]])
        hom = cam.table_homography(0.0) @ to_table
        self.cloth_kind = kind
        return cv2.warpPerspective(tex, hom, (self.w, self.h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)

    def _clutter(self, canvas, c) -> None:
        rng = self.rng
        if c.kind == "card_back":
            card = PlacedCard("back", "none", c.pose, -0.1, (rng.normal(0, 0.5), 0.0))
            self._paste(canvas, self.r.back, card, np.ones(3) * rng.uniform(0.9, 1.05))
            return
        wmm, hmm = c.size_mm
        if c.kind == "coin":
            pm, ppm = textures.coin(rng, wmm)
        elif c.kind == "pencil":
            pm, ppm = textures.pencil(rng, wmm, hmm)
        else:
            pm, ppm = textures.score_pad(rng, wmm, hmm)
        sprite = Sprite.premultiplied(pm, ppm)
        size = (pm.shape[1] / ppm, pm.shape[0] / ppm)   # whole sprite pixels: within a pixel of size_mm
        z = -1.0 if c.kind != "score_pad" else -0.5
        self._paste(canvas, sprite, PlacedCard(c.kind, "none", c.pose, z, (0.0, 0.0)), np.ones(3),
                    size_mm=size, shadow_scale=3.0 if c.kind != "score_pad" else 1.0)

    def _paste(self, canvas: np.ndarray, sprite: Sprite, card: PlacedCard, tint: np.ndarray,
               size_mm=(CARD_W, CARD_H), shadow_scale: float = 1.0) -> None:
        cam = self.cam
        wmm, hmm = size_mm
        rect = np.array([[-wmm / 2, -hmm / 2], [wmm / 2, -hmm / 2], [wmm / 2, hmm / 2], [-wmm / 2, hmm / 2]])
        dst = cam.project(_lift(card, rect))
        local_ppm = float(np.hypot(*(dst[1] - dst[0])) / wmm)
        ppm, img = sprite.level(local_ppm)
        sh, sw = img.shape[:2]
        src = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float32)
        hom = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
        off = self.shadow_dir * self.shadow_mm * shadow_scale * local_ppm
        blur = max(0.8, self.shadow_blur_mm * shadow_scale * local_ppm)
        pad = int(abs(off).max() + 3 * blur + 4)
        x0, y0 = np.floor(dst.min(0)).astype(int) - pad
        x1, y1 = np.ceil(dst.max(0)).astype(int) + pad
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, self.w), min(y1, self.h)
        if x1 - x0 < 2 or y1 - y0 < 2:
            return
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
        size = (x1 - x0, y1 - y0)
        curled = card.curl != (0.0, 0.0)
        if curled:
            warped, u = self._curl_warp(img, ppm, card, shift @ hom, size, x0, y0, wmm, hmm)
        else:
            warped = cv2.warpPerspective(img, shift @ hom, size, flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_CONSTANT)
        # cv2 arithmetic throughout: numpy broadcasting over a 3-wide last axis is ~10x slower here
        a = warped[..., 3].astype(np.float32) * (1 / 255)
        col = cv2.multiply(cv2.cvtColor(warped, cv2.COLOR_BGRA2BGR), (*map(float, tint), 0.0), dtype=cv2.CV_32F)
        if curled:   # a bent card tilts towards or away from the lamp
            shade = (1 - 3 * card.curl[0] * u / (CARD_W / 2) ** 2 * self.shadow_dir[0]).astype(np.float32)
            col = cv2.multiply(col, cv2.merge([shade] * 3))
        sa = cv2.stackBlur(a, (2 * int(blur) + 1, 2 * int(blur) + 1))
        sa = cv2.warpAffine(sa, np.float32([[1, 0, off[0]], [0, 1, off[1]]]), size)
        # the card's thickness: its cut edge shows as a thin rim on the side away from the lamp
        edge = max(0.6, EDGE_MM * local_ppm) / (np.abs(off).max() + 1e-6)
        ea = cv2.warpAffine(a, np.float32([[1, 0, off[0] * edge], [0, 1, off[1] * edge]]), size)
        # one pass over the colour: shadow, rim and card folded into region * keep + add
        cover = 1 - a
        keep = (1 - self.shadow_strength * sa) * (1 - ea) * cover
        ea *= cover
        col = cv2.scaleAdd(cv2.merge([ea] * 3), self.edge_grey, col)
        region = canvas[y0:y1, x0:x1]
        cv2.multiply(region, cv2.merge([keep] * 3), dst=region)
        cv2.add(region, col, dst=region)

    def _curl_warp(self, img, ppm, card, hom, size, x0, y0, wmm, hmm):
        """Mesh warp of a bent card: one fixed-point step from the flat homography, on an 8 px grid."""
        cam = self.cam
        gx, gy = grid_nodes(size[0], 8), grid_nodes(size[1], 8)
        grid = np.stack(np.meshgrid(gx, gy), -1).reshape(-1, 2).astype(np.float64)
        inv = np.linalg.inv(hom)
        q0 = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), inv).reshape(-1, 2)
        local = q0 / ppm - [wmm / 2, hmm / 2]
        true = cam.project(_lift(card, local)) - [x0, y0]
        q1 = cv2.perspectiveTransform((2 * grid - true).reshape(-1, 1, 2), inv).reshape(len(gy), len(gx), 2)
        maps = dense(q1, size[0], size[1], 8)
        warped = cv2.remap(img, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        return warped, maps[..., 0] / ppm - wmm / 2

    def _light(self, canvas: np.ndarray) -> dict:
        """Multiply by a low-resolution light field and add a glare patch, in place."""
        rng, w, h = self.rng, self.w, self.h
        lw, lh = 160, max(2, int(160 * h / w))
        ys, xs = np.mgrid[0:lh, 0:lw].astype(np.float32)
        xs, ys = xs / lw - 0.5, ys / lh - 0.5
        kelvin = rng.uniform(2700, 6800)
        t = (kelvin - 5000) / 2500
        gains = np.array([1 + 0.22 * t, 1 + rng.normal(0, 0.03), 1 - 0.18 * t], np.float32)   # B, G, R
        gains *= rng.uniform(0.75, 1.15)
        g = rng.normal(0, 0.25, 2)
        field = 1 + g[0] * xs + g[1] * ys
        lx, ly, ls = rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), rng.uniform(0.3, 1.0)
        field *= 0.75 + 0.35 * np.exp(-((xs - lx) ** 2 + (ys - ly) ** 2) / ls ** 2)       # lamp pool
        field *= 1 - rng.uniform(0.1, 0.45) * (xs ** 2 + ys ** 2) ** 2 * 4                  # vignetting
        shadow = np.zeros((lh, lw), np.float32)
        if rng.random() < 0.5:   # a head, hand or lamp arm between the lamp and the table
            cx, cy = rng.uniform(0, lw), rng.uniform(0, lh)
            cv2.ellipse(shadow, (int(cx), int(cy)), (int(rng.uniform(10, 60)), int(rng.uniform(5, 30))),
                        rng.uniform(0, 180), 0, 360, 1.0, -1)
            shadow = cv2.GaussianBlur(shadow, (0, 0), rng.uniform(2, 8))
            field *= 1 - rng.uniform(0.15, 0.45) * shadow
        full = cv2.resize(field.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        cv2.multiply(canvas, cv2.merge([full * float(g) for g in gains]), dst=canvas)
        glare = None
        if rng.random() < 0.6:
            gx, gy = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
            if self.scene.cards and rng.random() < 0.6:   # lamps reflect off the glossy cards
                card = self.scene.cards[int(rng.integers(len(self.scene.cards)))]
                gx, gy = self.cam.project_flat([[card.pose.x, card.pose.y]])[0]
            sx, sy = rng.uniform(0.01, 0.08) * w, rng.uniform(0.01, 0.06) * w
            peak = rng.uniform(40, 170)   # strong enough to wash out, weak enough to leave the ink readable
            x0, x1 = int(max(0, gx - 3 * sx)), int(min(w, gx + 3 * sx))
            y0, y1 = int(max(0, gy - 3 * sy)), int(min(h, gy + 3 * sy))
            if x1 > x0 and y1 > y0:
                px = np.exp(-0.5 * ((np.arange(x0, x1) - gx) / sx) ** 2).astype(np.float32)
                py = np.exp(-0.5 * ((np.arange(y0, y1) - gy) / sy) ** 2).astype(np.float32)
                blob = (np.outer(py, px) ** rng.uniform(0.6, 1.5)).astype(np.float32)
                tinted = cv2.merge([(peak * float(g) / gains.max()) * blob for g in gains])
                region = canvas[y0:y1, x0:x1]
                cv2.add(region, tinted.astype(np.float32), dst=region)
                glare = [round(float(gx), 1), round(float(gy), 1)]
        return {"kelvin": round(kelvin), "glare": glare, "cloth": self.cloth_kind}


EDGE_MM = 0.12   # the part of a 0.3 mm card edge that a camera tilted up to 15 degrees sees


def _camera_pipeline(rng: np.random.Generator, canvas: np.ndarray, cam, margin: int, chroma: float) -> np.ndarray:
    """Lens, blur, sensor and ISP: (H + 2m, W + 2m, 3) float32 BGR scene, rendered margin px beyond the photo on
    every side -> (H, W, 3) uint8 BGR photo."""
    w, h = cam.size
    sigma = rng.uniform(0.0, 1.3) * max(1.0, w / 2028)
    motion = rng.uniform(0, 4.0) if rng.random() < 0.4 else 0.0
    kern = None
    if motion > 0.5:
        k = 2 * int(motion / 2 + 2) + 1
        kern = np.zeros((k, k), np.float32)
        a = rng.uniform(0, math.pi)
        d = np.array([math.cos(a), math.sin(a)]) * motion / 2
        cv2.line(kern, tuple(round(v) for v in (k // 2 - d[0], k // 2 - d[1])),
                 tuple(round(v) for v in (k // 2 + d[0], k // 2 + d[1])), 1.0, 1, cv2.LINE_AA)
        kern /= kern.sum()
    # Bayer sensor (R G / G B): each photosite keeps one colour of the lens image.
    bayer = np.empty((h, w), np.float32)
    planes = cv2.split(canvas)
    sites = {2: ((0, 0),), 1: ((0, 1), (1, 0)), 0: ((1, 1),)}
    base_x, base_y = cam.undistort_map()
    cx, cy = w / 2 + margin, h / 2 + margin
    base_x += margin
    base_y += margin
    for c, scale in ((0, 1 - chroma), (1, 1.0), (2, 1 + chroma)):   # B, G, R: red lands farthest out
        # magnify about the photo centre: map * scale + centre * (1 - scale)
        mx = cv2.addWeighted(base_x, scale, base_x, 0.0, cx * (1 - scale))
        my = cv2.addWeighted(base_y, scale, base_y, 0.0, cy * (1 - scale))
        chan = cv2.remap(planes[c], mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        if kern is not None:
            chan = cv2.filter2D(chan, -1, kern)
        if sigma > 0.3:
            chan = cv2.GaussianBlur(chan, (0, 0), sigma)
        for dy, dx in sites[c]:
            bayer[dy::2, dx::2] = chan[dy::2, dx::2]
    # noise that grows with the signal (shot noise) plus read noise
    shot, read = rng.uniform(0.05, 0.5), rng.uniform(0.5, 3.0)
    np.clip(bayer, 0, 255, out=bayer)
    noise = rng.standard_normal((h, w), dtype=np.float32)
    noise *= np.sqrt(bayer * shot + read ** 2)
    bayer += noise
    raw = np.clip(bayer + 0.5, 0, 255).astype(np.uint8)
    code = cv2.COLOR_BayerBG2BGR_EA if rng.random() < 0.5 else cv2.COLOR_BayerBG2BGR
    out = cv2.cvtColor(raw, code)
    gammas = rng.uniform(0.88, 1.12, 3)
    lut = np.stack([255 * (np.arange(256) / 255) ** g for g in gammas], -1)
    contrast = rng.uniform(0, 0.25)   # a gentle S-curve, as the Pi's ISP tone map
    lut += contrast * (255 * (0.5 - 0.5 * np.cos(np.pi * lut / 255)) - lut)
    out = cv2.LUT(out, np.clip(lut, 0, 255).astype(np.uint8).reshape(1, 256, 3))
    amount = rng.uniform(0.0, 0.8)
    if amount > 0.1:
        soft = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.8, 1.6))
        out = cv2.addWeighted(out, 1 + amount, soft, -amount, 0)
    if rng.random() < 0.4:   # the photo was saved once by the camera and re-saved by the app
        _ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 93))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
