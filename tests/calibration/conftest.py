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


def distorted_camera(paper: str, *, k1: float, k2: float = 0.0, tilt_deg: float, yaw_deg: float,
                     fill: float, size: tuple[int, int] = (2304, 1296), hfov_deg: float = 66.0,
                     shift: tuple[float, float] = (0, 0)) -> dict:
    """A Camera Module 3-like camera (66 degrees across, principal point at the centre) with Brown radial
    distortion k1, k2 (OpenCV's normalisation, x / f), placed so that the mat spans `fill` of the frame.

    Returns {"K", "dist", "h_mm_to_ideal", "size"}: the mat mm -> undistorted px homography and the lens.
    """
    lay = layout_for(paper)
    w, hgt = size
    f = w / 2 / math.tan(math.radians(hfov_deg) / 2)
    ppm = fill * min(w / lay.width, hgt / lay.height)  # at the centre, before tilt and distortion
    h = mat_to_photo_homography(paper, tilt_deg=tilt_deg, yaw_deg=yaw_deg, px_per_mm=ppm, size=size,
                                shift=shift)
    k = np.array([[f, 0, w / 2 - 0.5], [0, f, hgt / 2 - 0.5], [0, 0, 1]])
    return {"K": k, "dist": np.array([k1, k2, 0, 0, 0], np.float64), "h_mm_to_ideal": h, "size": size}


def camera_mm_to_photo(cam: dict, points_mm) -> np.ndarray:
    """(N, 2) mat mm -> (N, 2) distorted photo px through the camera from `distorted_camera`."""
    pts = cv2.perspectiveTransform(np.asarray(points_mm, np.float64).reshape(-1, 1, 2), cam["h_mm_to_ideal"])
    k = cam["K"]
    norm = (pts.reshape(-1, 2) - k[:2, 2]) / k[0, 0]
    r2 = np.sum(norm ** 2, axis=1, keepdims=True)
    k1, k2 = cam["dist"][:2]
    return norm * (1 + k1 * r2 + k2 * r2 ** 2) * k[0, 0] + k[:2, 2]


def camera_photo_to_mm(cam: dict, points_px) -> np.ndarray:
    """(N, 2) distorted photo px -> (N, 2) true mat mm (inverts the lens with OpenCV's iteration)."""
    k = cam["K"]
    k1, k2 = cam["dist"][:2]
    d = (np.asarray(points_px, np.float64).reshape(-1, 2) - k[:2, 2]) / k[0, 0]
    rd = np.linalg.norm(d, axis=1)
    ru = rd.copy()
    for _ in range(30):  # Newton on rd = ru (1 + k1 ru^2 + k2 ru^4), independent of the code under test
        g = ru * (1 + k1 * ru ** 2 + k2 * ru ** 4) - rd
        ru -= g / (1 + 3 * k1 * ru ** 2 + 5 * k2 * ru ** 4)
    scale = np.where(rd > 0, ru / np.maximum(rd, 1e-12), 1.0)
    ideal = (d * scale[:, None] * k[0, 0] + k[:2, 2]).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(ideal, np.linalg.inv(cam["h_mm_to_ideal"])).reshape(-1, 2)


def distorted_photo(paper: str, cam: dict, *, noise: float = 3.0, blur: float = 0.7, seed: int = 0,
                    mat_dpi: int = 150) -> np.ndarray:
    """(H, W, 3) uint8 BGR photo of the printed mat through the distorting camera `cam`."""
    rng = np.random.default_rng(seed)
    mat = render_mat(paper, mat_dpi).astype(np.float32) * np.array([0.82, 0.85, 0.88], np.float32)
    w, hgt = cam["size"]
    # The lens is smooth: invert it on a 4 px grid and interpolate (under 0.01 px of error).
    step = 4
    gw, gh = w // step + 2, hgt // step + 2
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float64) * step
    mm = camera_photo_to_mm(cam, np.stack([xs.ravel(), ys.ravel()], axis=1))
    s = mat_dpi / 25.4
    coarse = (mm * s - 0.5).reshape(gh, gw, 2).astype(np.float32)
    fine = cv2.resize(coarse, (gw * step, gh * step), interpolation=cv2.INTER_LINEAR)
    # cv2.resize aligns pixel areas: fine pixel (i, j) samples coarse ((i + 0.5) / step - 0.5)
    shift = np.float32([[1, 0, 0.5 - 0.5 * step], [0, 1, 0.5 - 0.5 * step]])
    fine = cv2.warpAffine(fine, shift, (gw * step, gh * step), flags=cv2.INTER_LINEAR)[:hgt, :w]
    map_x, map_y = np.ascontiguousarray(fine[..., 0]), np.ascontiguousarray(fine[..., 1])
    photo = cv2.remap(mat, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                      borderValue=(-1, -1, -1))
    table = np.empty_like(photo)
    table[:] = (40, 70, 110)
    table += rng.normal(0, 8, (hgt, w, 1)).astype(np.float32)
    photo = np.where(photo < 0, table, photo)
    if blur:
        photo = cv2.GaussianBlur(photo, (0, 0), blur)
    photo = photo + rng.normal(0, noise, photo.shape).astype(np.float32)
    return np.clip(photo, 0, 255).astype(np.uint8)


@pytest.fixture
def lens_camera():
    return distorted_camera


@pytest.fixture
def lens_photo():
    return distorted_photo
