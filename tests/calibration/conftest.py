"""Synthetic photos of the calibration mat with a known mm -> px homography."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from calibration import layout_for, render_mat


def mat_to_photo_homography(paper: str, *, tilt_deg: float, yaw_deg: float, px_per_mm: float,
                            size: tuple[int, int], shift: tuple[float, float] = (0, 0)) -> np.ndarray:
    """3x3 mm -> photo px for a pinhole camera 600 mm above the mat, tilted about the x axis by tilt_deg."""
    lay = layout_for(paper)
    d = 600.0
    f = px_per_mm * d
    t, y = math.radians(tilt_deg), math.radians(yaw_deg)
    rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    r = rx @ rz
    k = np.array([[f, 0, size[0] / 2 + shift[0]], [0, f, size[1] / 2 + shift[1]], [0, 0, 1]])
    centre = np.array([[1, 0, -lay.width / 2], [0, 1, -lay.height / 2], [0, 0, 1]])
    h = k @ np.column_stack([r[:, 0], r[:, 1], [0, 0, d]]) @ centre
    return h / h[2, 2]


def synthetic_photo(paper: str, h_mm_to_px: np.ndarray, size: tuple[int, int], *, gain: float = 1.0,
                    gradient: float = 0.0, noise: float = 3.0, blur: float = 0.7, seed: int = 0,
                    mat_dpi: int = 150) -> np.ndarray:
    """(H, W, 3) uint8 BGR photo of the printed mat on a wooden-brown table."""
    rng = np.random.default_rng(seed)
    mat = render_mat(paper, mat_dpi).astype(np.float32)
    mat = mat * np.array([0.82, 0.85, 0.88], np.float32)  # paper exposed below white, as calibration asks
    s = mat_dpi / 25.4
    mm_to_matpx = np.array([[s, 0, -0.5], [0, s, -0.5], [0, 0, 1]])
    m = h_mm_to_px @ np.linalg.inv(mm_to_matpx)
    w, hgt = size
    photo = cv2.warpPerspective(mat, m, (w, hgt), flags=cv2.INTER_AREA | cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(-1, -1, -1))
    table = np.empty_like(photo)
    table[:] = (40, 70, 110)
    table += rng.normal(0, 8, (hgt, w, 1)).astype(np.float32)
    photo = np.where(photo < 0, table, photo)
    if blur:
        photo = cv2.GaussianBlur(photo, (0, 0), blur)
    ramp = np.linspace(1 - gradient, 1 + gradient, w, dtype=np.float32)[None, :, None]
    photo = photo * gain * ramp + rng.normal(0, noise, photo.shape).astype(np.float32)
    return np.clip(photo, 0, 255).astype(np.uint8)


@pytest.fixture
def mat_photo():
    return synthetic_photo


@pytest.fixture
def mat_homography():
    return mat_to_photo_homography
