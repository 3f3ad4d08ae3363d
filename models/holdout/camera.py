"""A virtual pinhole camera over the table, with radial lens distortion applied after rendering.

World frame: table millimetres, x right, y down, z into the table (the camera sits at negative z).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True, slots=True)
class Camera:
    k: np.ndarray          # (3, 3) intrinsics, px
    r: np.ndarray          # (3, 3) world -> camera rotation, rows are the camera axes
    centre: np.ndarray     # (3,) camera position, mm
    size: tuple[int, int]  # width, height px
    k1: float = 0.0        # radial distortion on the half-diagonal-normalised radius
    k2: float = 0.0

    @classmethod
    def looking_at(cls, target, px_per_mm: float, tilt_deg: float, azimuth_deg: float, roll_deg: float,
                   size: tuple[int, int], focal_frac: float, shift=(0.0, 0.0), k1=0.0, k2=0.0) -> Camera:
        """Aim at a table point so that 1 mm there spans px_per_mm px; tilt is the optical axis from vertical."""
        w, h = size
        f = focal_frac * w
        t, a = math.radians(tilt_deg), math.radians(azimuth_deg)
        axis = np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), math.cos(t)])
        ref = np.array([math.cos(math.radians(roll_deg)), math.sin(math.radians(roll_deg)), 0.0])
        x_axis = ref - ref.dot(axis) * axis
        x_axis /= np.linalg.norm(x_axis)
        y_axis = np.cross(axis, x_axis)
        # A table patch seen obliquely is foreshortened by cos(tilt) only along one direction; use the mean.
        dist = f / px_per_mm * math.sqrt(math.cos(t))
        centre = np.array([target[0], target[1], 0.0]) - dist * axis
        k = np.array([[f, 0, w / 2 + shift[0]], [0, f, h / 2 + shift[1]], [0, 0, 1.0]])
        return cls(k, np.stack([x_axis, y_axis, axis]), centre, (int(w), int(h)), k1, k2)

    def padded(self, margin: int) -> Camera:
        """The same view on a canvas grown by margin px on every side (room for the lens to pull in)."""
        k = self.k.copy()
        k[0, 2] += margin
        k[1, 2] += margin
        return Camera(k, self.r, self.centre, (self.size[0] + 2 * margin, self.size[1] + 2 * margin), 0.0, 0.0)

    def lens_margin(self, chroma: float = 0.0) -> int:
        """px the undistortion map reaches outside the photo (barrel distortion samples beyond the frame)."""
        _, rad = self._norm()
        return math.ceil(rad * (max(0.0, self.k1 + self.k2) + chroma * (1 + self.k1 + self.k2))) + 3

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World mm (N, 3) -> undistorted image px (N, 2)."""
        cam = (np.asarray(pts, float) - self.centre) @ self.r.T
        uvw = cam @ self.k.T
        return uvw[:, :2] / uvw[:, 2:3]

    def project_flat(self, xy: np.ndarray, z: float = 0.0) -> np.ndarray:
        xy = np.asarray(xy, float).reshape(-1, 2)
        return self.project(np.column_stack([xy, np.full(len(xy), z)]))

    def px_per_mm(self) -> float:
        """Mean image px per table mm at the table point seen at the photo's centre."""
        c = self.to_table(np.array([[self.size[0] / 2, self.size[1] / 2]]))[0]
        p = self.project_flat(np.array([c, c + [10, 0], c + [0, 10]]))
        return float(math.sqrt(np.linalg.norm(p[1] - p[0]) * np.linalg.norm(p[2] - p[0])) / 10)

    def table_homography(self, z: float = 0.0) -> np.ndarray:
        """(3, 3) table mm at height z -> undistorted image px."""
        src = np.array([[-100, -100], [100, -100], [100, 100], [-100, 100]], float) + self.centre[:2]
        return cv2.getPerspectiveTransform(src.astype(np.float32), self.project_flat(src, z).astype(np.float32))

    def to_table(self, px: np.ndarray, z: float = 0.0) -> np.ndarray:
        """Undistorted image px (N, 2) -> table mm (N, 2) on the plane at height z."""
        inv = np.linalg.inv(self.table_homography(z))
        return cv2.perspectiveTransform(np.asarray(px, np.float64).reshape(-1, 1, 2), inv).reshape(-1, 2)

    # ------------------------------------------------------------ lens

    def _norm(self) -> tuple[np.ndarray, float]:
        w, h = self.size
        return np.array([w / 2, h / 2]), math.hypot(w, h) / 2

    def distort(self, px: np.ndarray) -> np.ndarray:
        """Undistorted px (N, 2) -> where the lens puts them in the photo (inverts undistort_map by iteration)."""
        c, rad = self._norm()
        p = (np.asarray(px, float) - c) / rad
        d = p.copy()
        for _ in range(8):
            r2 = (d ** 2).sum(1, keepdims=True)
            d = p / (1 + self.k1 * r2 + self.k2 * r2 ** 2)
        return d * rad + c

    def undistort_map(self, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """cv2.remap maps (H, W) float32: photo px -> rendered (undistorted) px, magnified by scale about the centre
        (scale != 1 gives one colour channel's lateral chromatic shift)."""
        w, h = self.size
        c, rad = self._norm()
        # the map is smooth: compute it on a coarse grid and let bilinear resizing fill in
        gx, gy = grid_nodes(w), grid_nodes(h)
        xs, ys = (gx - c[0]) / rad, (gy - c[1]) / rad
        r2 = xs[None, :] ** 2 + ys[:, None] ** 2
        g = (1 + self.k1 * r2 + self.k2 * r2 * r2) * scale * rad
        big = dense(np.dstack([xs[None, :] * g + c[0], ys[:, None] * g + c[1]]), w, h)
        return big[..., 0].copy(), big[..., 1].copy()


STEP = 16


def grid_nodes(length: int, step: int = STEP) -> np.ndarray:
    """Pixel positions of coarse grid nodes that dense() spreads over 0..length-1 (one node before 0)."""
    n = length // step + 3
    return (np.arange(n, dtype=np.float32) - 0.5) * step - 0.5


def dense(grid: np.ndarray, w: int, h: int, step: int = STEP) -> np.ndarray:
    """Bilinear upsampling of values on grid_nodes() x grid_nodes() to every pixel, (h, w, C) float32."""
    gh, gw = grid.shape[:2]
    # cv2.resize puts source node j at destination (j + 0.5) * step - 0.5, i.e. pixel position + step
    big = cv2.resize(grid.astype(np.float32), (gw * step, gh * step), interpolation=cv2.INTER_LINEAR)
    return big[step:step + h, step:step + w]
