"""Calibration on synthetic photos of the mat with a known homography: the play area lands within 1 mm."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration import (
    CalibrationError,
    assign_side,
    calibrate_from_image,
    check_alignment,
    detect_markers,
    layout_for,
    to_mat,
    warp_to_table,
)

# (paper, tilt deg, yaw deg, camera px/mm, photo size, lighting)
CASES = [
    ("A3", 0, 0, 3.2, (1600, 1200), {}),
    ("A3", 5, 30, 3.2, (1800, 1600), {"gain": 0.55, "noise": 5}),
    ("A3", 10, -12, 4.0, (2000, 1500), {"gradient": 0.35}),
    ("A3", 15, 4, 2.6, (1400, 1100), {"gain": 1.1, "gradient": -0.25, "noise": 6}),
    ("A4", 0, 90, 3.5, (1000, 1200), {"gain": 0.7}),
    ("A4", 7, 180, 4.5, (1600, 1200), {"gradient": 0.4, "noise": 2}),
    ("A4", 15, -20, 5.0, (1900, 1500), {"gain": 0.45, "noise": 4}),
]


def _truth_error_mm(calib, paper, h_true):
    """Max distance (mm) between the mapped and the true mat position, over a grid across the play area."""
    (x0, y0), _, (x1, y1), _ = layout_for(paper).play_area
    grid = np.array([(x, y) for x in np.linspace(x0, x1, 7) for y in np.linspace(y0, y1, 5)], np.float64)
    px = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), h_true).reshape(-1, 2)
    return float(np.linalg.norm(to_mat(calib, px) - grid, axis=1).max())


@pytest.mark.parametrize("paper,tilt,yaw,ppm,size,light", CASES)
def test_play_area_within_1mm(mat_photo, mat_homography, paper, tilt, yaw, ppm, size, light):
    h_true = mat_homography(paper, tilt_deg=tilt, yaw_deg=yaw, px_per_mm=ppm, size=size)
    photo = mat_photo(paper, h_true, size, seed=abs(tilt + yaw), **light)
    calib, report = calibrate_from_image(photo)
    assert calib.paper == paper
    assert len(report.markers_found) == 8
    assert _truth_error_mm(calib, paper, h_true) < 1.0
    assert report.photo_px_per_mm == pytest.approx(ppm, rel=0.08)


def test_card_over_two_markers_still_calibrates(mat_photo, mat_homography):
    size = (1600, 1200)
    h_true = mat_homography("A3", tilt_deg=8, yaw_deg=3, px_per_mm=3.2, size=size)
    photo = mat_photo("A3", h_true, size)
    lay = layout_for("A3")
    for marker_id in (lay.first_id, lay.first_id + 4):  # a card lies over two markers
        corners = cv2.perspectiveTransform(lay.marker_corners()[marker_id].reshape(-1, 1, 2), h_true)
        cv2.fillPoly(photo, [np.round(corners).astype(np.int32)], (200, 40, 40))
    calib, report = calibrate_from_image(photo)
    assert len(report.markers_found) == 6
    assert any("not found" in w for w in report.warnings)
    assert _truth_error_mm(calib, "A3", h_true) < 1.0


def test_photo_without_markers_is_a_clear_error():
    rng = np.random.default_rng(1)
    photo = rng.integers(0, 255, (600, 800, 3), dtype=np.uint8)
    with pytest.raises(CalibrationError, match="no calibration-mat markers"):
        calibrate_from_image(photo)


def test_too_few_markers_names_the_count(mat_photo, mat_homography):
    size = (1600, 1200)
    h_true = mat_homography("A3", tilt_deg=0, yaw_deg=0, px_per_mm=3.2, size=size)
    photo = mat_photo("A3", h_true, size)
    photo[:, 300:1300] = 60  # only the two top corner markers stay in view
    photo[500:, :] = 60
    with pytest.raises(CalibrationError, match=r"found 2 of the A3 mat's 8 markers"):
        calibrate_from_image(photo)


def test_blur_and_glare_are_reported(mat_photo, mat_homography):
    size = (1600, 1200)
    h_true = mat_homography("A3", tilt_deg=5, yaw_deg=0, px_per_mm=3.5, size=size)
    _, sharp = calibrate_from_image(mat_photo("A3", h_true, size))
    _, blurred = calibrate_from_image(mat_photo("A3", h_true, size, blur=3.0))
    _, glare = calibrate_from_image(mat_photo("A3", h_true, size, gain=1.6))
    assert sharp.sharp and not blurred.sharp
    assert blurred.edge_blur_mm > 2 * sharp.edge_blur_mm
    assert any("blurred" in w for w in blurred.warnings)
    assert glare.clipped_fraction > 0.5 and sharp.clipped_fraction < 0.01
    assert any("clipped" in w for w in glare.warnings)


def test_warp_to_table_is_top_down(mat_photo, mat_homography):
    size = (1800, 1500)
    h_true = mat_homography("A3", tilt_deg=12, yaw_deg=10, px_per_mm=3.5, size=size)
    calib, _ = calibrate_from_image(mat_photo("A3", h_true, size), px_per_mm=2.0)
    table = warp_to_table(mat_photo("A3", h_true, size), calib)
    assert table.shape == (594, 840, 3) and table.dtype == np.uint8
    found = detect_markers(table)
    lay = layout_for("A3")
    for marker_id, corners_mm in lay.marker_corners().items():
        expected_px = corners_mm * 2.0 - 0.5
        assert np.abs(found[marker_id] - expected_px).max() < 1.5  # 0.75 mm at 2 px/mm


def test_assign_side(mat_photo, mat_homography):
    size = (1600, 1200)
    h_true = mat_homography("A4", tilt_deg=10, yaw_deg=180, px_per_mm=4.0, size=size)  # camera sees it upside down
    calib, _ = calibrate_from_image(mat_photo("A4", h_true, size))
    (x0, y0), _, (x1, y1), _ = layout_for("A4").play_area

    def photo_px(x_mm, y_mm):
        return tuple(cv2.perspectiveTransform(np.array([[[x_mm, y_mm]]], np.float64), h_true)[0, 0])

    ym = (y0 + y1) / 2
    assert assign_side(calib, photo_px(x0 + 20, ym)) == "declarer"
    assert assign_side(calib, photo_px(x1 - 20, ym)) == "defenders"
    assert assign_side(calib, photo_px((x0 + x1) / 2 - 3, y0 + 5)) == "declarer"
    assert assign_side(calib, photo_px((x0 + x1) / 2 + 3, y1 - 5)) == "defenders"
    assert assign_side(calib, photo_px(x0 - 10, ym)) is None
    assert assign_side(calib, (0.0, 0.0)) is None


def test_check_alignment_warns_when_bumped(mat_photo, mat_homography):
    size = (1600, 1200)
    h_true = mat_homography("A3", tilt_deg=8, yaw_deg=2, px_per_mm=3.2, size=size)
    calib, _ = calibrate_from_image(mat_photo("A3", h_true, size))
    assert check_alignment(calib, mat_photo("A3", h_true, size, seed=5, gain=0.8)) is None
    bumped = mat_homography("A3", tilt_deg=9, yaw_deg=3, px_per_mm=3.2, size=size, shift=(25, -10))
    warning = check_alignment(calib, mat_photo("A3", bumped, size))
    assert warning is not None and "moved" in warning
    assert "cannot check" in check_alignment(calib, np.full((1200, 1600, 3), 90, np.uint8))
    assert "recalibrate" in check_alignment(calib, np.full((600, 800, 3), 90, np.uint8))


def test_shrunk_marker_search_maps_back_to_full_pixels(mat_photo, mat_homography):
    size = (2800, 2100)
    h_true = mat_homography("A3", tilt_deg=10, yaw_deg=5, px_per_mm=5.5, size=size)
    photo = mat_photo("A3", h_true, size)
    full, small = detect_markers(photo), detect_markers(photo, max_side=1000)
    assert sorted(small) == sorted(full)
    assert max(np.abs(small[i] - full[i]).max() for i in full) < 2.0  # px, at 2.8x shrink
    calib, _ = calibrate_from_image(photo)
    assert check_alignment(calib, photo) is None
    bumped = mat_homography("A3", tilt_deg=10, yaw_deg=6.5, px_per_mm=5.5, size=size)
    assert "moved" in check_alignment(calib, mat_photo("A3", bumped, size))
