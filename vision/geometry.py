"""Index geometry: rotated index boxes, their quads, and upright crops cut from the full-resolution photo.

An index is described by its centre (x, y), the unit vector pointing to the top of its numeral ("up"), and
its height in pixels; its width follows from the deck's index box (10.4 x 44.5 mm). All coordinates are image
pixels, x right, y down. The same crop function serves training (models/) and inference, so they cannot drift.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

CROP_W, CROP_H = 32, 128          # classifier input, pixels (width, height), upright index
INDEX_ASPECT = 10.4 / 44.5        # index box width / height (deck.json index_box_mm)
CROP_MARGIN = 1.1                 # crop height = 1.1 x index height, so a slightly off centre still fits


def index_quad(center: np.ndarray, up: np.ndarray, height: np.ndarray) -> np.ndarray:
    """Quads of index boxes.

    center: (N, 2) float px; up: (N, 2) unit vectors; height: (N,) px.
    Returns (N, 4, 2) float32: top-left, top-right, bottom-right, bottom-left of the upright-looking index.
    """
    center, up = np.asarray(center, np.float64).reshape(-1, 2), np.asarray(up, np.float64).reshape(-1, 2)
    height = np.asarray(height, np.float64).reshape(-1, 1)
    right = np.stack([-up[:, 1], up[:, 0]], 1)
    hu, hr = up * height / 2, right * height * INDEX_ASPECT / 2
    return np.stack([center + hu - hr, center + hu + hr, center - hu + hr, center - hu - hr], 1).astype(np.float32)


# The turned bottom-right index from the top-left one, in index heights (deck.json: 60 x 112 mm card, index
# box 1.8-12.2 x 2.5-47.0 mm): 46 mm to the right and 62.5 mm down the card.
OTHER_INDEX = (46.0 / 44.5, 62.5 / 44.5)


def other_index(center, up, height: float) -> np.ndarray:
    """Centre of the same card's other index (top-left <-> turned bottom-right), px."""
    u = np.asarray(up, np.float64)
    right = np.array([-u[1], u[0]])
    return np.asarray(center, np.float64) + height * (OTHER_INDEX[0] * right - OTHER_INDEX[1] * u)


def index_offset(point: np.ndarray, center: np.ndarray, up: np.ndarray, height: float) -> tuple[float, float]:
    """Where a point lies from an index's centre, in the index's own frame: (along its up vector in index
    heights, across it in index widths), both unsigned."""
    d = np.asarray(point, np.float64) - np.asarray(center, np.float64)
    along = abs(d[0] * up[0] + d[1] * up[1]) / height
    across = abs(d[1] * up[0] - d[0] * up[1]) / (height * INDEX_ASPECT)
    return along, across


def quad_frame(quad: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Centre (2,), up unit vector (2,) and height (px) of one (4, 2) quad ordered as `index_quad` returns."""
    quad = np.asarray(quad, np.float64)
    top, bottom = (quad[0] + quad[1]) / 2, (quad[2] + quad[3]) / 2
    up = top - bottom
    h = float(np.hypot(*up))
    return quad.mean(0), up / max(h, 1e-9), h


def crop_indices(image: np.ndarray, center: np.ndarray, up: np.ndarray, height: np.ndarray) -> np.ndarray:
    """Cut each index upright out of the photo.

    image: (H, W, 3) uint8 BGR, full-resolution photo. center: (N, 2) px, up: (N, 2) unit vectors,
    height: (N,) index heights in px. Returns (N, CROP_H, CROP_W, 3) uint8 BGR; outside the photo is black.
    """
    center = np.asarray(center, np.float64).reshape(-1, 2)
    up = np.asarray(up, np.float64).reshape(-1, 2)
    height = np.asarray(height, np.float64).reshape(-1)
    out = np.zeros((len(center), CROP_H, CROP_W, 3), np.uint8)
    for i, (c, u, h) in enumerate(zip(center, up, height)):
        scale = CROP_MARGIN * h / CROP_H          # image px per crop px
        over = 2 if scale > 1.2 else 1            # warp at 2x then area-average, against aliasing
        s = scale / over
        right = np.array([-u[1], u[0]])
        cw, ch = CROP_W * over, CROP_H * over
        # crop (x, y) -> image: c + (x - cw/2 + .5) s right - (y - ch/2 + .5) s up
        m = np.array([[s * right[0], -s * u[0], 0.0], [s * right[1], -s * u[1], 0.0]])
        m[:, 2] = c - m[:, 0] * (cw / 2 - 0.5) - m[:, 1] * (ch / 2 - 0.5)
        crop = _upright(image, m, (cw, ch))
        out[i] = cv2.resize(crop, (CROP_W, CROP_H), interpolation=cv2.INTER_AREA) if over > 1 else crop
    return out


# The stretch beside an index where the index of a card lying under its card peeks out (a covered card's
# sliver), in the index's own frame: across its width (right +) and along its up vector, index heights.
BESIDE_ACROSS = (-0.7, 0.7)
BESIDE_ALONG = (-0.5, 0.7)
BESIDE_PX = 80                    # crop px per index height
BESIDE_W = round((BESIDE_ACROSS[1] - BESIDE_ACROSS[0]) * BESIDE_PX)
BESIDE_H = round((BESIDE_ALONG[1] - BESIDE_ALONG[0]) * BESIDE_PX)


def crop_beside(image: np.ndarray, center: np.ndarray, up: np.ndarray, height: np.ndarray) -> np.ndarray:
    """Cut the stretch around each index upright out of the photo (the covered-card model's input).

    Same arguments as `crop_indices`; returns (N, BESIDE_H, BESIDE_W, 3) uint8 BGR, outside the photo black."""
    center = np.asarray(center, np.float64).reshape(-1, 2)
    up = np.asarray(up, np.float64).reshape(-1, 2)
    height = np.asarray(height, np.float64).reshape(-1)
    out = np.zeros((len(center), BESIDE_H, BESIDE_W, 3), np.uint8)
    for i, (c, u, h) in enumerate(zip(center, up, height)):
        u = u / max(float(np.hypot(*u)), 1e-9)
        right = np.array([-u[1], u[0]])
        s = h / BESIDE_PX                          # image px per crop px
        m = np.zeros((2, 3))
        m[:, 0], m[:, 1] = s * right, -s * u
        m[:, 2] = c + (BESIDE_ACROSS[0] * h + 0.5 * s) * right + (BESIDE_ALONG[1] * h - 0.5 * s) * u
        out[i] = _upright(image, m, (BESIDE_W, BESIDE_H))
    return out


# The slots of a spread (the slot kind of covered-card model): before its first index, between each two
# neighbours along the spread's way, after its last. A card lying under another with too little of its index
# showing peeks out in one of them, so each hidden card has one place to be counted, not one beside each read.
SLOT_END = 0.35          # an end slot's centre lies this many index heights beyond the end index, along the way


def spread_slots(center, up, height) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The indices of a spread in order along its way (the principal axis of their centres) and the frames of its
    n + 1 slots for `crop_beside`: (order (n,), centres (n+1, 2), ups (n+1, 2), heights (n+1,)); n >= 2. A slot
    between two indices is centred between them, turned as the two on average, as tall as the two on average."""
    c = np.asarray(center, np.float64).reshape(-1, 2)
    u = np.asarray(up, np.float64).reshape(-1, 2)
    u = u / np.maximum(np.hypot(u[:, 0], u[:, 1]), 1e-9)[:, None]
    h = np.asarray(height, np.float64).reshape(-1)
    mean = c.mean(0)
    axis = np.linalg.svd(c - mean, full_matrices=False)[2][0]
    order = np.argsort((c - mean) @ axis, kind="stable")
    c, u, h = c[order], u[order], h[order]
    turn = np.where(np.sum(u[:-1] * u[1:], 1) >= 0, 1.0, -1.0)[:, None]   # a card turned half round: its up back
    mid_u = u[:-1] + turn * u[1:]
    mid_u /= np.maximum(np.hypot(mid_u[:, 0], mid_u[:, 1]), 1e-9)[:, None]
    centres = np.vstack([c[0] - axis * SLOT_END * h[0], (c[:-1] + c[1:]) / 2, c[-1] + axis * SLOT_END * h[-1]])
    ups = np.vstack([u[:1], mid_u, u[-1:]])
    heights = np.concatenate([h[:1], (h[:-1] + h[1:]) / 2, h[-1:]])
    return order, centres, ups, heights


def turning(up) -> float:
    """How far the indices turn from their pile's way, degrees (the 80th percentile; ways are axes: a card's
    other corner, turned half round, runs with its pile). A fan's turn far; a spread's little."""
    u = np.asarray(up, np.float64).reshape(-1, 2)
    axis = 2 * np.arctan2(u[:, 1], u[:, 0])
    mean = math.atan2(float(np.sin(axis).sum()), float(np.cos(axis).sum()))
    off = np.degrees((axis - mean + np.pi) % (2 * np.pi) - np.pi) / 2
    return float(np.percentile(np.abs(off), 80))


def _upright(image: np.ndarray, m: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The crop of `size` (w, h) whose pixel (x, y) is the photo's point m @ (x, y, 1); outside the photo black."""
    return cv2.warpAffine(image, m, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
