"""The camera lens: radial distortion around the photo's centre, and its fit from the mat's markers.

The model is OpenCV's (Brown's) radial model: a point at undistorted normalised position u = (x - c) / f
is photographed at u * (1 + k1 r^2 + k2 r^4), r = |u|. f only sets the units of k1 and k2; it is the
focal length of a 66-degree lens (Camera Module 3) across the calibration photo, so k1 reads like the
Camera Module 3's own. The homography of a `Calibration` maps *undistorted* px (same c and f) to mat mm.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

HFOV_DEG = 66.0  # Camera Module 3 (standard lens) across the photo's width


@dataclass(frozen=True, slots=True)
class Lens:
    """Radial distortion. centre: (cx, cy) photo px; focal_px: normalisation; k1, k2: OpenCV's coefficients."""

    centre: tuple[float, float]
    focal_px: float
    k1: float = 0.0
    k2: float = 0.0

    @classmethod
    def for_image(cls, width: int, height: int, k1: float = 0.0, k2: float = 0.0) -> Lens:
        """A lens centred on a width x height photo (pixel centres at integers)."""
        return cls(centre=((width - 1) / 2, (height - 1) / 2),
                   focal_px=width / 2 / math.tan(math.radians(HFOV_DEG) / 2), k1=k1, k2=k2)

    @property
    def is_identity(self) -> bool:
        return self.k1 == 0.0 and self.k2 == 0.0

    @property
    def camera_matrix(self) -> np.ndarray:
        """(3, 3) float64 OpenCV camera matrix (with `dist_coeffs`, for cv2.undistortPoints and the like)."""
        f, (cx, cy) = self.focal_px, self.centre
        return np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]], np.float64)

    @property
    def dist_coeffs(self) -> np.ndarray:
        """(5,) float64 OpenCV distortion coefficients k1, k2, p1, p2, k3."""
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0], np.float64)

    def distort(self, ideal_px: Any) -> np.ndarray:
        """(N, 2) undistorted px -> (N, 2) float64 photo px (closed form)."""
        pts = np.asarray(ideal_px, np.float64).reshape(-1, 2)
        if self.is_identity:
            return pts.copy()
        c = np.array(self.centre)
        u = (pts - c) / self.focal_px
        r2 = np.sum(u * u, axis=1, keepdims=True)
        return u * (1 + self.k1 * r2 + self.k2 * r2 * r2) * self.focal_px + c

    def undistort(self, photo_px: Any) -> np.ndarray:
        """(N, 2) photo px -> (N, 2) float64 undistorted px.

        Newton's method on the radius (the model is radial), to 1e-9 of f: OpenCV's undistortPoints
        stops after 5 fixed-point steps, which leaves over a pixel at the corners of a k1 = -0.08 lens.
        """
        pts = np.asarray(photo_px, np.float64).reshape(-1, 2)
        if self.is_identity:
            return pts.copy()
        c = np.array(self.centre)
        d = (pts - c) / self.focal_px
        rd = np.sqrt(np.sum(d * d, axis=1))
        ru = rd.copy()
        k1, k2 = self.k1, self.k2
        for _ in range(20):
            g = ru * (1 + k1 * ru ** 2 + k2 * ru ** 4) - rd
            slope = 1 + 3 * k1 * ru ** 2 + 5 * k2 * ru ** 4
            step = g / np.where(np.abs(slope) < 1e-6, 1e-6, slope)
            ru = ru - step
            if np.max(np.abs(step)) < 1e-10:
                break
        scale = np.where(rd > 1e-12, ru / np.maximum(rd, 1e-12), 1.0)
        return d * scale[:, None] * self.focal_px + c

    def to_json(self) -> dict[str, Any]:
        return {"model": "radial", "centre": list(self.centre), "focal_px": self.focal_px,
                "k1": self.k1, "k2": self.k2}

    @classmethod
    def from_json(cls, data: Any) -> Lens:
        if not isinstance(data, dict) or data.get("model") != "radial":
            raise ValueError("lens must be an object with model 'radial'")
        cx, cy = (float(v) for v in data["centre"])
        lens = cls(centre=(cx, cy), focal_px=float(data["focal_px"]), k1=float(data["k1"]),
                   k2=float(data.get("k2", 0.0)))
        values = (cx, cy, lens.focal_px, lens.k1, lens.k2)
        if not all(math.isfinite(v) for v in values) or lens.focal_px <= 0:
            raise ValueError("lens values must be finite numbers and focal_px > 0")
        return lens


@dataclass(frozen=True, slots=True)
class LensFit:
    """One fit of lens + homography to marker corners. h: (3, 3) undistorted px -> mm; residuals: (N, 2) mm."""

    lens: Lens
    h: np.ndarray
    residuals: np.ndarray


def _homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        raise np.linalg.LinAlgError("degenerate marker corners")
    return h / h[2, 2]


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), h).reshape(-1, 2)


def fit_lens(src_px: np.ndarray, dst_mm: np.ndarray, base: Lens, n_coeffs: int) -> LensFit:
    """Least-squares k1 (n_coeffs 1) or k1, k2 (2), or none (0), with the homography refitted for each.

    src_px: (N, 2) photo px of marker corners; dst_mm: (N, 2) their mat mm. base: centre and focal.
    Levenberg-Marquardt on the lens coefficients; the homography is solved exactly inside
    (variable projection), so only 1-2 parameters are searched.
    """
    def lens_of(p: np.ndarray) -> Lens:
        k = list(p) + [0.0] * (2 - len(p))
        return Lens(base.centre, base.focal_px, float(k[0]), float(k[1]))

    def residual(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        und = lens_of(p).undistort(src_px)
        h = _homography(und, dst_mm)
        return (_apply(h, und) - dst_mm).ravel(), h

    p = np.zeros(n_coeffs)
    r, h = residual(p)
    if n_coeffs:
        damping, cost = 1e-3, float(r @ r)
        for _ in range(30):
            jac = np.empty((r.size, n_coeffs))
            for j in range(n_coeffs):
                e = np.zeros(n_coeffs)
                e[j] = 1e-6
                jac[:, j] = (residual(p + e)[0] - r) / 1e-6
            jtj, jtr = jac.T @ jac, jac.T @ r
            improved = False
            for _ in range(8):
                step = -np.linalg.solve(jtj + damping * np.diag(np.diag(jtj) + 1e-12), jtr)
                try:
                    r2, h2 = residual(p + step)
                except np.linalg.LinAlgError:
                    r2 = None
                if r2 is not None and float(r2 @ r2) < cost:
                    p, r, h, cost, improved = p + step, r2, h2, float(r2 @ r2), True
                    damping = max(damping / 10, 1e-9)
                    break
                damping *= 10
            if not improved or np.max(np.abs(step)) < 1e-9:
                break
    return LensFit(lens=lens_of(p), h=h, residuals=r.reshape(-1, 2))
