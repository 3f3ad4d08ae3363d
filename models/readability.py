"""Can anyone tell this index from every other card's, from what of it is in view?

A label's index is compared, pixel by pixel over its uncovered part, with the same box of each other card
face; the area where the two differ clearly is how much evidence the photo holds at best. With a two-digit
Tarok numeral half under the next card (13 and 18 share the 1 and the left edge of the second digit), that
area can be a fraction of a square millimetre, and no reader can name the card: a diagnostic for the
evaluation, not a label the networks learn from.
"""
from __future__ import annotations

import cv2
import numpy as np

PX_PER_MM = 4.0        # strip resolution
DIFFERENT = 80         # a pixel differs when some BGR channel differs by more than this (of 255)
_STRIPS: dict[int, tuple] = {}   # id(deck.faces) -> (deck.faces, strips): the faces kept, so the id stays theirs


def index_strips(deck) -> np.ndarray:
    """(cards, H, W, 3) int16: each face's upright index box at PX_PER_MM, on grey where the face is clear."""
    key = id(deck.faces)
    if key not in _STRIPS or _STRIPS[key][0] is not deck.faces:
        x0, y0, x1, y1 = deck.index_box
        f = deck.px_per_mm
        size = (round((x1 - x0) * PX_PER_MM), round((y1 - y0) * PX_PER_MM))
        strips = []
        for levels in deck.faces:
            box = levels[0][round(y0 * f):round(y1 * f), round(x0 * f):round(x1 * f)].astype(np.float32)
            alpha = box[..., 3:] / 255.0
            bgr = box[..., :3] * alpha + 128 * (1 - alpha)
            strips.append(cv2.resize(bgr, size, interpolation=cv2.INTER_AREA))
        _STRIPS[key] = (deck.faces, np.round(np.stack(strips)).astype(np.int16))
    return _STRIPS[key][1]


def seen_grid(ids: np.ndarray, quad: np.ndarray, slot: int, shape: tuple[int, int]) -> np.ndarray:
    """(H, W) bool over the strip grid: which of the index's strip pixels show in the photo (ids == slot).

    quad: the index's image corners, top-left, top-right, bottom-right, bottom-left of the upright index."""
    h, w = shape
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    hom = cv2.getPerspectiveTransform(src, np.float32(quad))
    gx, gy = np.meshgrid(np.arange(w) + 0.5, np.arange(h) + 0.5)
    pts = cv2.perspectiveTransform(np.stack([gx, gy], -1).reshape(-1, 1, 2).astype(np.float32), hom).reshape(h, w, 2)
    x, y = np.floor(pts[..., 0]).astype(int), np.floor(pts[..., 1]).astype(int)
    inside = (x >= 0) & (y >= 0) & (x < ids.shape[1]) & (y < ids.shape[0])
    seen = np.zeros((h, w), bool)
    seen[inside] = ids[y[inside], x[inside]] == slot
    return seen


def tell_apart(strips: np.ndarray, card: int, seen: np.ndarray) -> tuple[float, int]:
    """(mm², card) of the other card whose index differs least from this one's over the seen pixels."""
    differs = (np.abs(strips - strips[card]).max(-1) > DIFFERENT) & seen
    area = differs.sum((1, 2)) / PX_PER_MM**2
    area[card] = np.inf
    k = int(np.argmin(area))
    return float(area[k]), k
