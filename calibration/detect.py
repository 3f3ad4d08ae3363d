"""Find the mat in a photo, fit the homography, and use it: warp, side assignment, alignment check."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import cv2
import numpy as np

from calibration.lens import Lens, fit_lens
from calibration.mat import ARUCO_DICTIONARY, LAYOUTS, MatLayout, Paper, layout_for
from calibration.model import VERSION, Calibration, CalibrationError

MIN_MARKERS = 3  # 12 corners: enough for a well-conditioned homography, so a card may cover the rest
SHARP_EDGE_BLUR_MM = 0.35  # card index strokes are ~0.7 mm; blur beyond half that smears the digits
MIN_PX_PER_MM = 4.0  # a ~7 mm index glyph then spans 28 px
CLIPPED_LEVEL, CLIPPED_WARN = 250, 0.01
MAX_MAP_ERROR_MM = 1.0  # enrolment cuts card faces by the mat's mm


@dataclass(frozen=True, slots=True)
class Report:
    """What calibration found; `text()` is the printed report."""

    paper: Paper
    markers_found: tuple[int, ...]
    markers_expected: tuple[int, ...]
    marker_corners: dict[int, np.ndarray] = field(hash=False)  # id -> (4, 2) float32 photo px
    fit_rms_mm: float = 0.0  # residual of marker corners after the fit
    map_error_mm: float | None = None  # leave-one-marker-out estimate of the map's error; None: too few markers
    lens: Lens | None = None  # the lens fitted (k1 = k2 = 0 when distortion did not help)
    photo_px_per_mm: float = 0.0  # photo resolution at the centre of the play area
    edge_blur_mm: float = 0.0  # Gaussian sigma of marker edges, in mm on the mat
    clipped_fraction: float = 0.0  # share of play-area pixels with a channel >= 250
    warnings: tuple[str, ...] = ()

    @property
    def sharp(self) -> bool:
        return self.edge_blur_mm <= SHARP_EDGE_BLUR_MM

    def text(self) -> str:
        lines = [
            f"paper: {self.paper.value}",
            (f"markers: {len(self.markers_found)} of {len(self.markers_expected)} found "
             f"(ids {', '.join(map(str, self.markers_found))})"),
            f"fit residual: {self.fit_rms_mm:.2f} mm RMS over the marker corners",
            ("map error: " + (f"{self.map_error_mm:.2f} mm (largest, leave-one-marker-out)"
                              if self.map_error_mm is not None else "unknown (too few markers)")),
            ("lens: " + ("no distortion" if self.lens is None or self.lens.is_identity else
                         f"radial k1 {self.lens.k1:+.4f}, k2 {self.lens.k2:+.4f} (f {self.lens.focal_px:.0f} px)")),
            f"resolution: {self.photo_px_per_mm:.2f} px/mm (a 7 mm card index is {7 * self.photo_px_per_mm:.0f} px tall)",
            (f"sharpness: edge blur {self.edge_blur_mm:.2f} mm ({'ok' if self.sharp else 'BLURRED'}, "
             f"want <= {SHARP_EDGE_BLUR_MM} mm)"),
            f"clipped highlights: {100 * self.clipped_fraction:.2f} % of the play area",
        ]
        lines += [f"WARNING: {w}" for w in self.warnings]
        return "\n".join(lines)


def _gray(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return image
    if image.ndim == 3 and image.shape[2] in (3, 4):
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY if image.shape[2] == 3 else cv2.COLOR_BGRA2GRAY)
    raise CalibrationError(f"expected a (H, W, 3) BGR photo, got shape {image.shape}")


def detect_markers(image: np.ndarray, max_side: int | None = None) -> dict[int, np.ndarray]:
    """Mat markers in a photo. image: (H, W, 3) uint8 BGR or (H, W) gray.

    Returns id -> (4, 2) float32 corners in photo px (top-left, top-right, bottom-right, bottom-left
    of the printed marker), for ids that belong to a known mat only. max_side: search a copy shrunk
    to this many px (faster on a 12 MP still, less exact); corners are given in the full photo's px.
    """
    if image.dtype != np.uint8:
        raise CalibrationError(f"expected a uint8 photo, got {image.dtype}")
    params = cv2.aruco.DetectorParameters()
    # Sub-pixel corners: the 1 mm accuracy target needs better than whole-pixel corners.
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY), params)
    gray, factor = _gray(image), 1.0
    if max_side and max(gray.shape) > max_side:
        factor = max(gray.shape) / max_side
        gray = cv2.resize(gray, (round(gray.shape[1] / factor), round(gray.shape[0] / factor)),
                          interpolation=cv2.INTER_AREA)
    corners, ids, _ = detector.detectMarkers(gray)
    known = {i for lay in LAYOUTS.values() for i in lay.marker_ids}
    found: dict[int, np.ndarray] = {}
    for c, i in zip(corners, [] if ids is None else ids.ravel()):
        if int(i) in known and int(i) not in found:  # a duplicate id is a reflection or a second mat
            # pixel centres sit at integers in both images: x_full = (x_small + 0.5) * factor - 0.5
            found[int(i)] = ((c.reshape(4, 2) + 0.5) * factor - 0.5).astype(np.float32)
    return found


def _pick_layout(found: dict[int, np.ndarray]) -> MatLayout:
    counts = {lay.paper: sum(i in found for i in lay.marker_ids) for lay in LAYOUTS.values()}
    return LAYOUTS[max(counts, key=counts.get)]


@dataclass(frozen=True, slots=True)
class _Fit:
    h: np.ndarray  # (3, 3) undistorted photo px -> mm
    lens: Lens
    rms_mm: float  # corner residual of the fit itself
    map_error_mm: float  # leave-one-marker-out estimate of the map's error on the play area
    used: list[int]


def _loo_errors(found: dict[int, np.ndarray], mm: dict[int, np.ndarray], ids: list[int], base: Lens,
                n_coeffs: int) -> np.ndarray:
    """(len(ids),) mm: how far each marker's centre lands from its printed place when the fit is made
    without it. The centre (mean of the 4 corners) cancels the symmetric pull of blur on corner
    detection, which is what made the plain fit residual read 0.35-0.4 mm whatever the real error."""
    errors = []
    for m in ids:
        rest = [i for i in ids if i != m]
        src = np.concatenate([found[i] for i in rest]).astype(np.float64)
        dst = np.concatenate([mm[i] for i in rest])
        fit = fit_lens(src, dst, base, n_coeffs)
        pred = cv2.perspectiveTransform(fit.lens.undistort(found[m]).reshape(-1, 1, 2), fit.h).reshape(-1, 2)
        errors.append(float(np.linalg.norm(pred.mean(axis=0) - mm[m].mean(axis=0))))
    return np.array(errors)


def _fit(found: dict[int, np.ndarray], lay: MatLayout, image_size: tuple[int, int]) -> _Fit:
    ids = [i for i in lay.marker_ids if i in found]
    if len(ids) < MIN_MARKERS:
        raise CalibrationError(
            f"found {len(ids)} of the {lay.paper.value} mat's 8 markers ({ids or 'none'}); need at least "
            f"{MIN_MARKERS}. Check that the whole mat is in view, lit, in focus and not covered by cards")
    mm = lay.marker_corners()
    src = np.concatenate([found[i] for i in ids]).astype(np.float64)
    dst = np.concatenate([mm[i] for i in ids])
    # A k1 = -0.08 lens bends the mat's corners by several mm from any homography, so the outlier
    # threshold is wide; the lens fit below then judges each marker.
    h, inliers = cv2.findHomography(src, dst, cv2.RANSAC, 8.0)
    if h is None:
        raise CalibrationError("the markers do not fit one flat mat; is the mat folded or are there two mats?")
    used = [i for k, i in enumerate(ids) if inliers[4 * k: 4 * k + 4].all()]
    if len(used) < MIN_MARKERS:
        raise CalibrationError("the markers do not fit one flat mat; is the mat folded or are there two mats?")
    base = Lens.for_image(*image_size)
    # k2 needs the corner markers and the mid-side ones to tell it from k1: only with 6 or more.
    models = [0, 1] + ([2] if len(used) >= 6 else [])
    if len(used) == MIN_MARKERS:
        models = [0]  # 3 markers: leaving one out leaves too few to fit, and 12 corners barely fix a homography
        loo = {0: np.array([float("nan")])}
    else:
        loo = {n: _loo_errors(found, mm, used, base, n) for n in models}
    # The simplest model unless a richer one predicts left-out markers clearly better (10 %).
    best = models[0]
    for n in models[1:]:
        if _rms(loo[n]) < 0.9 * _rms(loo[best]):
            best = n
    src = np.concatenate([found[i] for i in used]).astype(np.float64)
    dst = np.concatenate([mm[i] for i in used])
    fit = fit_lens(src, dst, base, best)
    rms = float(np.sqrt(np.mean(np.sum(fit.residuals ** 2, axis=1))))
    estimate = float(np.max(loo[best])) if np.all(np.isfinite(loo[best])) else float("nan")
    return _Fit(h=fit.h, lens=fit.lens, rms_mm=rms, map_error_mm=estimate, used=used)


def _rms(values: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(values))))


def _local_px_per_mm(h_px_to_mm: np.ndarray, at_mm: tuple[float, float]) -> float:
    """Photo px per mat mm at a point: sqrt of the Jacobian determinant of mm -> px there."""
    inv = np.linalg.inv(h_px_to_mm)
    x, y = at_mm
    pts = np.array([[[x, y]], [[x + 1, y]], [[x, y + 1]]], np.float64)
    p = cv2.perspectiveTransform(pts, inv).reshape(3, 2)
    jac = np.stack([p[1] - p[0], p[2] - p[0]], axis=1)
    return math.sqrt(abs(np.linalg.det(jac)))


def _edge_blur_mm(gray: np.ndarray, found: dict[int, np.ndarray], px_per_mm: float) -> float:
    """Blur of the marker edges as a Gaussian sigma in mm.

    A step of contrast C blurred by sigma has peak gradient C / (sqrt(2 pi) sigma), so
    sigma = C / (sqrt(2 pi) g_peak); photo pixels are converted to mm with the local scale.
    """
    sigmas = []
    for quad in found.values():
        x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 4
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 4
        patch = gray[max(y0, 0):y1, max(x0, 0):x1].astype(np.float32)
        if patch.size < 100:
            continue
        # Scharr kernels sum to 32 per unit step: scale to intensity per pixel.
        gx = cv2.Scharr(patch, cv2.CV_32F, 1, 0) / 32
        gy = cv2.Scharr(patch, cv2.CV_32F, 0, 1) / 32
        g = np.hypot(gx, gy)
        contrast = np.percentile(patch, 95) - np.percentile(patch, 5)
        peak = np.percentile(g, 99.5)
        if contrast > 20 and peak > 0:
            sigmas.append(contrast / (math.sqrt(2 * math.pi) * peak))
    if not sigmas:
        return float("inf")
    return float(np.median(sigmas)) / px_per_mm


def calibrate_from_image(image: np.ndarray, *, camera_settings: dict[str, Any] | None = None,
                         px_per_mm: float | None = None) -> tuple[Calibration, Report]:
    """Calibrate from one photo of the whole mat.

    image: (H, W, 3) uint8 BGR photo. px_per_mm: scale of the top-down view; default the photo's own
    resolution at the play area's centre, rounded down to 0.5. Raises CalibrationError when the mat
    is not found.
    """
    found = detect_markers(image)
    if not found:
        raise CalibrationError("no calibration-mat markers found in the photo; print the mat with "
                               "`tarokcam mat`, lay it flat under the camera and keep it all in view")
    lay = _pick_layout(found)
    size = (int(image.shape[1]), int(image.shape[0]))
    fit = _fit(found, lay, size)
    h, rms, used, lens = fit.h, fit.rms_mm, fit.used, fit.lens
    (x0, y0), _, (x1, y1), _ = lay.play_area
    photo_ppm = _local_px_per_mm(h, ((x0 + x1) / 2, (y0 + y1) / 2))
    ppm = px_per_mm or max(1.0, math.floor(photo_ppm * 2) / 2)
    blur = _edge_blur_mm(_gray(image), {i: found[i] for i in used}, photo_ppm)
    warnings = []
    missing = [i for i in lay.marker_ids if i not in found]
    if missing:
        warnings.append(f"markers {missing} not found; uncover them for the best fit")
    dropped = [i for i in lay.marker_ids if i in found and i not in used]
    if dropped:
        warnings.append(f"markers {dropped} do not fit the others and were left out: is the mat flat?")
    if rms > 1.0:
        warnings.append(f"markers fit poorly ({rms:.1f} mm RMS): is the mat flat?")
    if fit.map_error_mm is None or not math.isfinite(fit.map_error_mm):
        warnings.append(f"only {len(used)} markers: the map's error cannot be estimated; uncover more markers")
    elif fit.map_error_mm > MAX_MAP_ERROR_MM:
        warnings.append(f"the map may be off by {fit.map_error_mm:.1f} mm (want <= {MAX_MAP_ERROR_MM:g} mm): "
                        "uncover all markers, lay the mat flat and fill more of the photo with it")
    if photo_ppm < MIN_PX_PER_MM:
        warnings.append(f"only {photo_ppm:.1f} px/mm: card indices may be too small to read; "
                        f"use a higher resolution or move the camera closer (want >= {MIN_PX_PER_MM})")
    if blur > SHARP_EDGE_BLUR_MM:
        warnings.append(f"photo is blurred (edge blur {blur:.2f} mm): refocus the camera")
    estimate = fit.map_error_mm if fit.map_error_mm is not None and math.isfinite(fit.map_error_mm) else None
    calib = Calibration(
        version=VERSION, homography=tuple(tuple(float(v) for v in row) for row in h), px_per_mm=float(ppm),
        paper=lay.paper, image_size=size, play_area=lay.play_area,
        sides=lay.sides, camera_settings=dict(camera_settings or {}),
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        lens=None if lens.is_identity else lens, map_error_mm=estimate)
    clipped = _clipped_fraction(image, calib, lay)
    if clipped > CLIPPED_WARN:
        warnings.append(f"{100 * clipped:.1f} % of the play area is clipped white: lower the exposure "
                        "or move the lamp to avoid glare")
    report = Report(paper=lay.paper, markers_found=tuple(sorted(found)), markers_expected=lay.marker_ids,
                    marker_corners=found, fit_rms_mm=rms, photo_px_per_mm=photo_ppm, edge_blur_mm=blur,
                    clipped_fraction=clipped, warnings=tuple(warnings), map_error_mm=estimate,
                    lens=lens)
    return calib, report


def _clipped_fraction(image: np.ndarray, calib: Calibration, lay: MatLayout) -> float:
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(to_photo(calib, _densify(lay.play_area))).astype(np.int32)], 255)
    inside = mask > 0
    if not inside.any():
        return 0.0
    bright = image.max(axis=2) if image.ndim == 3 else image
    return float(np.mean(bright[inside] >= CLIPPED_LEVEL))


def _densify(poly: Any, step_mm: float = 10.0) -> np.ndarray:
    """(M, 2) mm: the polygon's outline with a point every step_mm, so it stays curved through the lens."""
    pts = np.asarray(poly, np.float64)
    out = []
    for a, b in zip(pts, np.roll(pts, -1, axis=0)):
        n = max(1, math.ceil(np.linalg.norm(b - a) / step_mm))
        out.extend(a + (b - a) * t for t in np.arange(n) / n)
    return np.array(out)


def _lens(calib: Calibration | np.ndarray) -> Lens | None:
    return calib.lens if isinstance(calib, Calibration) else None


def _matrix(calib: Calibration | np.ndarray) -> np.ndarray:
    return calib.matrix if isinstance(calib, Calibration) else np.asarray(calib, np.float64)


def to_photo(calib: Calibration | np.ndarray, points_mm: Any) -> np.ndarray:
    """Map mat mm points ((N, 2)) to photo px ((N, 2) float64), through the lens.

    calib: a Calibration, or a bare (3, 3) photo px -> mm homography (no lens)."""
    pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
    ideal = cv2.perspectiveTransform(pts, np.linalg.inv(_matrix(calib))).reshape(-1, 2)
    lens = _lens(calib)
    return ideal if lens is None else lens.distort(ideal)


def to_mat(calib: Calibration, points_px: Any) -> np.ndarray:
    """Map photo px points ((N, 2)) to mat mm ((N, 2) float64), undoing the lens first."""
    pts = np.asarray(points_px, np.float64).reshape(-1, 2)
    if calib.lens is not None:
        pts = calib.lens.undistort(pts)
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), calib.matrix).reshape(-1, 2)


def warp_to_table(image: np.ndarray, calib: Calibration) -> np.ndarray:
    """Top-down view of the whole paper. image: (H, W, 3) uint8 BGR photo.

    Returns (round(height_mm * px_per_mm), round(width_mm * px_per_mm), 3) uint8 BGR; output pixel
    (i, j) is centred on mat mm ((j + 0.5) / px_per_mm, (i + 0.5) / px_per_mm).
    """
    lay = layout_for(calib.paper)
    s = calib.px_per_mm
    mm_to_out = np.array([[s, 0, -0.5], [0, s, -0.5], [0, 0, 1]], np.float64)
    size = (round(lay.width * s), round(lay.height * s))
    if calib.lens is None:
        return cv2.warpPerspective(image, mm_to_out @ calib.matrix, size, flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    cols, rows = np.meshgrid(np.arange(size[0]), np.arange(size[1]))
    mm = np.stack([(cols.ravel() + 0.5) / s, (rows.ravel() + 0.5) / s], axis=1)
    src = to_photo(calib, mm).astype(np.float32).reshape(size[1], size[0], 2)
    return cv2.remap(image, src[..., 0], src[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                     borderValue=(0, 0, 0))


def assign_side(calib: Calibration, point_px: tuple[float, float]) -> str | None:
    """Side whose area holds a photo point (x_px, y_px): "declarer", "defenders", or None off the mat."""
    x, y = to_mat(calib, [point_px])[0]
    for name, poly in calib.sides.items():
        if cv2.pointPolygonTest(np.array(poly, np.float32).reshape(-1, 1, 2), (float(x), float(y)), False) >= 0:
            return name
    return None


def check_alignment(calib: Calibration, image: np.ndarray, tolerance_mm: float = 2.0) -> str | None:
    """None when the visible mat markers still lie where the calibration puts them, else a warning.

    image: (H, W, 3) uint8 BGR photo taken with the calibrated camera. Markers are searched at
    <= 1600 px: a bump moves them by millimetres, and a 12 MP still is searched several times faster.
    """
    if (image.shape[1], image.shape[0]) != tuple(calib.image_size):
        return (f"photo is {image.shape[1]}x{image.shape[0]} but the calibration was made at "
                f"{calib.image_size[0]}x{calib.image_size[1]}; recalibrate (`tarokcam calibrate`)")
    lay = layout_for(calib.paper)
    found = {i: c for i, c in detect_markers(image, max_side=1600).items() if i in lay.marker_ids}
    if len(found) < 2:
        return (f"only {len(found)} mat marker(s) visible, cannot check that the camera is still aligned; "
                "keep the marker corners uncovered")
    mm = lay.marker_corners()
    errors = np.concatenate([np.linalg.norm(to_mat(calib, found[i]) - mm[i], axis=1) for i in found])
    err = float(np.median(errors))
    if err > tolerance_mm:
        return (f"mat markers are {err:.1f} mm away from where the calibration expects them: the camera or "
                "the mat moved; put it back or recalibrate (`tarokcam calibrate`)")
    return None


def draw_markers(image: np.ndarray, markers: dict[int, np.ndarray], message: str = "") -> np.ndarray:
    """Picture of the markers found (outline and id), with an optional message across the top.

    image: (H, W, 3) uint8 BGR photo; markers: id -> (4, 2) photo px. Returns a new (H, W, 3) uint8 BGR
    image. Drawn also when calibration fails, so the picture shows which markers were missed.
    """
    out = image.copy()
    if markers:
        ids = sorted(markers)
        cv2.aruco.drawDetectedMarkers(out, [np.asarray(markers[i], np.float32).reshape(1, 4, 2) for i in ids],
                                      np.array(ids, np.int32).reshape(-1, 1), (0, 0, 255))
    if message:
        scale = max(out.shape[:2]) / 1600
        thick = max(1, round(max(out.shape[:2]) / 800))
        cv2.putText(out, message, (10, int(40 * scale) + 10), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 255),
                    thick, cv2.LINE_AA)
    return out


def draw_calibration(image: np.ndarray, calib: Calibration, report: Report | None = None) -> np.ndarray:
    """Picture of what calibration found: markers, play area, side areas.

    image: (H, W, 3) uint8 BGR photo. Returns a new (H, W, 3) uint8 BGR image.
    """
    out = draw_markers(image, report.marker_corners if report is not None else {})
    thick = max(2, round(max(out.shape[:2]) / 600))
    colours = {"declarer": (255, 128, 0), "defenders": (0, 160, 255)}
    for name, poly in calib.sides.items():
        pts = np.round(to_photo(calib, _densify(poly))).astype(np.int32)
        cv2.polylines(out, [pts], True, colours.get(name, (255, 0, 255)), thick, cv2.LINE_AA)
        cx, cy = pts.mean(axis=0).astype(int)
        scale = max(out.shape[:2]) / 1200
        (tw, _), _ = cv2.getTextSize(name, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        cv2.putText(out, name, (int(cx - tw / 2), int(cy)), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    colours.get(name, (255, 0, 255)), thick, cv2.LINE_AA)
    pts = np.round(to_photo(calib, _densify(calib.play_area))).astype(np.int32)
    cv2.polylines(out, [pts], True, (0, 200, 0), thick, cv2.LINE_AA)
    return out
