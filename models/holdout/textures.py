"""Procedural tablecloths and table clutter, drawn in table millimetres.

Cloths: (H, W, 3) float32 BGR 0-255 at px_per_mm. Sprites: (H, W, 4) uint8 BGRA with premultiplied colour, plus their
px_per_mm, so the renderer can warp them like cards.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

CLOTHS = ("felt", "wood", "checks", "stripes", "paisley")


def noise(rng, shape, cell_px: float, octaves: int = 3) -> np.ndarray:
    """Smooth value noise in [-1, 1]-ish, (H, W) float32: random lattices upsampled with bicubic interpolation."""
    h, w = shape
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for _ in range(octaves):
        gh, gw = max(2, int(h / cell_px) + 3), max(2, int(w / cell_px) + 3)
        grid = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
        big = cv2.resize(grid, (int(gw * cell_px), int(gh * cell_px)), interpolation=cv2.INTER_CUBIC)
        oy, ox = rng.integers(0, max(1, big.shape[0] - h)), rng.integers(0, max(1, big.shape[1] - w))
        out += amp * big[oy:oy + h, ox:ox + w]
        total += amp
        amp, cell_px = amp * 0.5, max(1.5, cell_px / 2.3)
    return out / total


def scale3(img: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """img (H, W, 3) float32 *= factor (H, W), in place; cv2 is ~10x faster than numpy's [..., None] broadcast."""
    f = factor.astype(np.float32)
    return cv2.multiply(img, cv2.merge([f, f, f]), dst=img)


def _axis(shape, angle_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates turned by angle: along and across, (H, W) float32 each."""
    h, w = shape
    a = math.radians(angle_deg)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    return xs * math.cos(a) + ys * math.sin(a), -xs * math.sin(a) + ys * math.cos(a)


def _band_profile(rng, period_px: int, palette: np.ndarray) -> np.ndarray:
    """A repeating 1-D pattern of coloured bands of random widths, (period_px, 3)."""
    prof = np.empty((period_px, 3), np.float32)
    i = 0
    while i < period_px:
        wdt = int(rng.integers(max(1, period_px // 14), max(2, period_px // 3)))
        prof[i:i + wdt] = palette[rng.integers(len(palette))]
        i += wdt
    return prof


def _palette(rng, n: int) -> np.ndarray:
    hue = rng.uniform(0, 180)
    cols = []
    for _ in range(n):
        hsv = np.uint8([[[(hue + rng.normal(0, 25)) % 180, rng.uniform(40, 220), rng.uniform(50, 235)]]])
        cols.append(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    return np.array(cols, np.float32)


def cloth(rng: np.random.Generator, kind: str, shape: tuple[int, int], px_per_mm: float) -> np.ndarray:
    """A tablecloth of the given kind, (H, W, 3) float32 BGR 0-255, px_per_mm px per table mm."""
    h, w = shape
    if kind == "felt":
        base = _palette(rng, 1)[0] * rng.uniform(0.4, 0.9)
        img = np.broadcast_to(base, (h, w, 3)).copy()
        scale3(img, 1 + 0.07 * noise(rng, shape, 25 * px_per_mm) + 0.05 * noise(rng, shape, 1.2, 1))   # fibres
    elif kind == "wood":
        along, across = _axis(shape, rng.uniform(0, 180))
        plank = rng.uniform(70, 180) * px_per_mm
        idx = np.floor(across / plank)
        # growth rings cut lengthwise: thin lines 2-6 mm apart, bent gently by knots and slightly wavy
        warp = (noise(rng, shape, 180 * px_per_mm, 2) * rng.uniform(4, 12)
                + noise(rng, shape, 25 * px_per_mm, 2) * rng.uniform(0.3, 1.2)) * px_per_mm
        wavelength = rng.uniform(2, 6) * px_per_mm
        rings = np.sin((across + warp + idx * 37.0) * (2 * math.pi / wavelength) + idx * 1.7)
        streaks = noise(rng, shape, 12 * px_per_mm, 2)   # some rings darker than others
        grain = np.clip(0.6 + 0.3 * rings ** 3 * (0.6 + streaks) + 0.2 * streaks, 0, 1)
        light = np.array([rng.uniform(50, 120), rng.uniform(100, 160), rng.uniform(150, 215)], np.float32)
        dark = light * rng.uniform(0.45, 0.75)
        g = grain.astype(np.float32)
        img = cv2.merge([dark[c] + (light[c] - dark[c]) * g for c in range(3)])
        scale3(img, 1 + 0.08 * np.sin(idx * 2.3))        # each plank a slightly different board
        seam = np.abs(across - (idx + 1) * plank) < max(1.0, 0.7 * px_per_mm)
        img[seam] *= 0.45
    elif kind in ("checks", "stripes"):
        pal = _palette(rng, 3)
        pal[0] = np.clip(pal[0] + rng.uniform(40, 120), 0, 245)   # a pale ground, as most table cloths have
        period = max(8, int(rng.uniform(12, 50) * px_per_mm))
        along, across = _axis(shape, rng.uniform(0, 180))
        prof = _band_profile(rng, period, pal)
        img = prof[(across.astype(np.int64)) % period]
        if kind == "checks":
            img = 0.5 * (img + prof[(along.astype(np.int64)) % period])
        twill = np.sin((along + across) * (2.2 / max(px_per_mm, 0.5)))
        scale3(img, 1 + 0.04 * twill)
    elif kind == "paisley":
        img = _paisley(rng, shape, px_per_mm)
    else:
        raise ValueError(f"unknown cloth {kind!r}; known: {', '.join(CLOTHS)}")
    scale3(img, 1 + 0.05 * noise(rng, shape, 8 * px_per_mm, 2))
    return np.clip(img, 0, 255).astype(np.float32)


def _paisley(rng, shape, ppm) -> np.ndarray:
    """Teardrop motifs with nested rings and curled tails, stamped at random over a mottled ground."""
    h, w = shape
    pal = _palette(rng, 4)
    img = np.empty((h, w, 3), np.float32)
    img[:] = pal[0] * 0.8
    scale3(img, 1 + 0.15 * noise(rng, shape, 20 * ppm))
    n = int(h * w / (55 * ppm) ** 2 * 1.6) + 1
    for _ in range(min(n, 400)):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        size = rng.uniform(10, 28) * ppm
        ang = rng.uniform(0, 360)
        for ring, scale in enumerate((1.0, 0.7, 0.4)):
            col = tuple(float(v) for v in pal[1 + (ring + int(cx)) % 3])
            cv2.ellipse(img, (int(cx), int(cy)), (max(1, int(size * scale * 0.55)), max(1, int(size * scale))),
                        ang, 0, 360, col, -1, cv2.LINE_AA)
        t = np.linspace(0, 1, 12)
        a = math.radians(ang) + t * rng.uniform(1.5, 3.0)
        tail = np.stack([cx + np.cos(a) * size * (1 + t), cy + np.sin(a) * size * (1 + t)], 1)
        cv2.polylines(img, [tail.astype(np.int32)], False, tuple(float(v) for v in pal[1]),
                      max(1, int(2 * ppm)), cv2.LINE_AA)
    return img


# ------------------------------------------------------------ clutter sprites

def _premultiply(bgr: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    a = np.clip(alpha, 0, 1)[..., None]
    return np.dstack([np.clip(bgr * a, 0, 255), a * 255]).astype(np.uint8)


def coin(rng, dia: float, ppm: float = 8.0) -> tuple[np.ndarray, float]:
    """A metal coin dia mm across: (sprite, px_per_mm)."""
    n = int(dia * ppm) + 4
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
    r = np.hypot(xs - n / 2, ys - n / 2) / (dia * ppm / 2)
    metal = np.array([[60, 150, 200], [170, 170, 175], [60, 110, 190]], np.float32)[rng.integers(3)]
    light = 0.75 + 0.35 * ((xs - ys) / n)                            # one side catches the lamp
    relief = 1 + 0.12 * noise(rng, (n, n), 3 * ppm, 2) * (r < 0.8)   # embossed picture
    rim = 1 + 0.25 * np.exp(-((r - 0.9) / 0.04) ** 2)
    bgr = metal * (light * relief * rim)[..., None]
    alpha = np.clip((1 - r) * dia * ppm / 2 + 0.5, 0, 1)
    return _premultiply(bgr, alpha), ppm


def pencil(rng, length: float, width: float, ppm: float = 6.0) -> tuple[np.ndarray, float]:
    """A hexagonal pencil lying along x, length x width mm: (sprite, px_per_mm)."""
    h, w = int(width * ppm), int(length * ppm)
    body = np.array([[30, 200, 240], [40, 40, 190], [60, 130, 40], [170, 90, 30]], np.float32)[rng.integers(4)]
    facets = np.array([0.7, 1.0, 1.15, 0.85])[np.minimum((np.arange(h) * 4) // h, 3)]
    img = np.broadcast_to(body, (h, w, 3)) * facets[:, None, None]
    alpha = np.ones((h, w), np.float32)
    tip = int(18 * ppm)
    xs = np.arange(tip, dtype=np.float32)
    taper = np.abs(np.arange(h) - h / 2)[:, None] <= (xs[None, :] / tip) * h / 2
    alpha[:, :tip] = taper
    img[:, :tip] = (np.array([130, 180, 215], np.float32) * facets[:, None, None]).repeat(tip, 1)
    img[:, :int(5 * ppm)] = 50
    ferrule, eraser = int(w - 14 * ppm), int(w - 8 * ppm)
    img[:, ferrule:eraser] = np.array([170, 175, 180]) * facets[:, None, None]
    img[:, eraser:] = np.array([150, 140, 230]) * facets[:, None, None]
    return _premultiply(img, alpha), ppm


def score_pad(rng, wmm: float, hmm: float, ppm: float = 5.0) -> tuple[np.ndarray, float]:
    """The score pad, wmm x hmm: ruled paper with columns of handwriting-like scribbles, (sprite, px_per_mm)."""
    w, h = int(wmm * ppm), int(hmm * ppm)
    paper = np.array([rng.uniform(215, 245), rng.uniform(230, 250), rng.uniform(235, 252)], np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = paper
    img *= (1 + 0.03 * noise(rng, (h, w), 10 * ppm, 2))[..., None]
    line_gap = rng.uniform(7, 10) * ppm
    for y in np.arange(line_gap * 2, h, line_gap):
        cv2.line(img, (0, int(y)), (w, int(y)), (210, 170, 150), 1, cv2.LINE_AA)
    cv2.line(img, (int(w * 0.5), 0), (int(w * 0.5), h), (120, 120, 220), 1, cv2.LINE_AA)
    ink = tuple(float(v) for v in np.array([[140, 40, 20], [40, 30, 30], [90, 90, 90]])[rng.integers(3)])
    for y in np.arange(line_gap * 2, h - line_gap, line_gap):
        for col in (0, 1):
            if rng.random() < 0.3:
                continue
            x = col * w * 0.5 + rng.uniform(2, 8) * ppm
            _scribble(rng, img, x, y - 1.5 * ppm, rng.uniform(10, 35) * ppm, line_gap * 0.45, ink, ppm)
    return _premultiply(img, np.ones((h, w), np.float32)), ppm


def _scribble(rng, img, x0, base, length, height, ink, ppm):
    """Cursive-looking loops: a pen moving right while circling, with random letter heights."""
    n = int(length / ppm * 4) + 8
    t = np.linspace(0, length / (2.2 * ppm), n)
    amp = np.repeat(rng.uniform(0.3, 1.0, n // 6 + 1), 6)[:n] * height
    xs = x0 + t * 2.2 * ppm + np.cos(t * 2 * math.pi) * 0.9 * ppm
    ys = base - (0.5 + 0.5 * np.sin(t * 2 * math.pi)) * amp
    cv2.polylines(img, [np.stack([xs, ys], 1).astype(np.int32)], False, ink, max(1, int(0.35 * ppm)), cv2.LINE_AA)
