"""The calibration value and its versioned JSON file."""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.lens import Lens
from calibration.mat import Paper, Polygon, write_atomic

# Version 2 adds the lens (radial distortion); version 1 files have none and read as a distortion-free lens.
VERSION = 2
READABLE_VERSIONS = (1, 2)


class CalibrationError(ValueError):
    """A photo without a usable mat, or a calibration file that cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """Where the mat lies in the camera's photos.

    homography: 3x3 row-major, maps undistorted photo pixels (x right, y down, pixel centres at
    integers; `lens.undistort` of the photo's pixels) to mat mm. lens: radial distortion, None for none
    (version 1 files). map_error_mm: leave-one-marker-out estimate of the map's error, None when unknown.
    px_per_mm: scale of the top-down view made by `warp_to_table`.
    sides: side name ("declarer", "defenders") -> polygon in mat mm. camera_settings: lens position,
    exposure and white balance at calibration time (keys lens_position, exposure_time, analogue_gain,
    colour_gains), empty when the camera does not report them.
    """

    version: int
    homography: tuple[tuple[float, float, float], ...]
    px_per_mm: float
    paper: Paper
    image_size: tuple[int, int]  # (width, height) of the calibration photo
    play_area: Polygon
    sides: dict[str, Polygon] = field(hash=False)
    camera_settings: dict[str, Any] = field(default_factory=dict, hash=False)
    created: str = ""  # ISO 8601 UTC
    lens: Lens | None = None
    map_error_mm: float | None = None

    @property
    def matrix(self) -> np.ndarray:
        """(3, 3) float64 homography undistorted photo px -> mat mm (see `lens`)."""
        return np.array(self.homography, dtype=np.float64)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "paper": self.paper.value,
            "homography": [list(row) for row in self.homography],
            "px_per_mm": self.px_per_mm,
            "image_size": list(self.image_size),
            "play_area": [list(p) for p in self.play_area],
            "sides": {name: [list(p) for p in poly] for name, poly in self.sides.items()},
            "camera_settings": self.camera_settings,
            "created": self.created,
            **({"lens": self.lens.to_json()} if self.lens is not None else {}),
            **({"map_error_mm": self.map_error_mm} if self.map_error_mm is not None else {}),
        }

    @classmethod
    def from_json(cls, data: Any) -> Calibration:
        if not isinstance(data, dict):
            raise CalibrationError("expected a JSON object")
        version = data.get("version")
        if version not in READABLE_VERSIONS:
            raise CalibrationError(f"version {version!r} is not supported (this tarokcam reads versions "
                                   f"{', '.join(map(str, READABLE_VERSIONS))})")
        try:
            h = np.array(data["homography"], dtype=np.float64)
            if h.shape != (3, 3) or not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-15:
                raise CalibrationError("homography must be an invertible 3x3 matrix of numbers")
            ppm = float(data["px_per_mm"])
            if not (math.isfinite(ppm) and 0.1 <= ppm <= 100):
                raise CalibrationError(f"px_per_mm {ppm} is outside 0.1..100")
            sides = {str(k): _polygon(v, f"sides.{k}") for k, v in dict(data["sides"]).items()}
            w, hgt = (int(v) for v in data["image_size"])
            settings = data.get("camera_settings") or {}
            if not isinstance(settings, dict):
                raise CalibrationError("camera_settings must be an object")
            lens = Lens.from_json(data["lens"]) if data.get("lens") is not None else None
            map_error = None if data.get("map_error_mm") is None else float(data["map_error_mm"])
            return cls(version=int(version), homography=tuple(tuple(float(v) for v in row) for row in h),
                       px_per_mm=ppm, paper=Paper(str(data["paper"])), image_size=(w, hgt),
                       play_area=_polygon(data["play_area"], "play_area"), sides=sides,
                       camera_settings=settings, created=str(data.get("created", "")), lens=lens,
                       map_error_mm=map_error)
        except KeyError as exc:
            raise CalibrationError(f"missing key {exc.args[0]!r}") from None
        except (TypeError, ValueError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            raise CalibrationError(f"bad value: {exc}") from None


def _polygon(value: Any, name: str) -> Polygon:
    try:
        pts = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        pts = np.zeros((0,))
    if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) < 3 or not np.all(np.isfinite(pts)):
        raise CalibrationError(f"{name} must be a list of at least 3 [x, y] points")
    return tuple((float(x), float(y)) for x, y in pts)


def save_calibration(calib: Calibration, path: str | os.PathLike) -> Path:
    """Write the calibration as JSON atomically (tmp + fsync + os.replace)."""
    path = Path(path)
    text = json.dumps(calib.to_json(), indent=2) + "\n"
    return write_atomic(path, text.encode())


def load_calibration(path: str | os.PathLike) -> Calibration:
    """Read a calibration file; raises CalibrationError naming the file and the problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationError(f"{path}: no calibration file (run `tarokcam calibrate`)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CalibrationError(f"{path}: cannot read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
                               "run `tarokcam calibrate` again") from None
    try:
        return Calibration.from_json(data)
    except CalibrationError as exc:
        raise CalibrationError(f"{path}: {exc}") from None
