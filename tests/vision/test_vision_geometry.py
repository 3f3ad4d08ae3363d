"""Index quads and upright crops: the crop of a drawn index, at any rotation, looks the same."""
import math

import cv2
import numpy as np
import pytest

from vision.geometry import CROP_H, CROP_W, INDEX_ASPECT, crop_indices, index_quad, quad_frame


def test_quad_of_upright_index():
    q = index_quad(np.array([[100.0, 200.0]]), np.array([[0.0, -1.0]]), np.array([100.0]))[0]
    w = 100 * INDEX_ASPECT
    np.testing.assert_allclose(q, [[100 - w / 2, 150], [100 + w / 2, 150], [100 + w / 2, 250], [100 - w / 2, 250]],
                               atol=1e-4)


@pytest.mark.parametrize("angle", [0, 37, 90, 180, 251])
def test_quad_frame_round_trip(angle):
    a = math.radians(angle)
    up = np.array([math.sin(a), -math.cos(a)])
    q = index_quad(np.array([[321.0, 123.0]]), up[None], np.array([80.0]))[0]
    c, u, h = quad_frame(q)
    np.testing.assert_allclose(c, [321, 123], atol=1e-3)
    np.testing.assert_allclose(u, up, atol=1e-5)
    assert h == pytest.approx(80, abs=1e-3)


def _index_image(angle_deg: float, size=400):
    """A synthetic index: dark bar at the top of a white box, drawn upright then rotated about the centre."""
    img = np.full((size, size, 3), 120, np.uint8)
    c = size // 2
    cv2.rectangle(img, (c - 12, c - 50), (c + 12, c + 50), (255, 255, 255), -1)
    cv2.rectangle(img, (c - 8, c - 45), (c + 8, c - 30), (0, 0, 0), -1)
    rot = cv2.getRotationMatrix2D((c, c), angle_deg, 1.0)
    return cv2.warpAffine(img, rot, (size, size), borderValue=(120, 120, 120))


@pytest.mark.parametrize("angle", [0, 30, 90, 180, 300])
def test_crop_is_upright_whatever_the_rotation(angle):
    img = _index_image(angle)
    a = math.radians(angle)
    # cv2 rotates counter-clockwise on screen for positive angles, so 'up' (0, -1) turns to (-sin, -cos).
    up = np.array([[-math.sin(a), -math.cos(a)]])
    crop = crop_indices(img, np.array([[200.0, 200.0]]), up, np.array([100.0]))[0]
    assert crop.shape == (CROP_H, CROP_W, 3)
    gray = crop[..., 0].astype(float)
    top, bottom = gray[: CROP_H // 4].mean(), gray[-CROP_H // 4:].mean()
    assert top < bottom - 40      # the dark mark stays at the top


def test_crop_outside_photo_is_black_and_big_index_is_antialiased():
    img = np.full((100, 100, 3), 200, np.uint8)
    crop = crop_indices(img, np.array([[-500.0, -500.0]]), np.array([[0.0, -1.0]]), np.array([60.0]))
    assert crop.max() == 0
    big = crop_indices(img, np.array([[50.0, 50.0]]), np.array([[0.0, -1.0]]), np.array([300.0]))
    assert big.shape == (1, CROP_H, CROP_W, 3)
