"""Replay camera: photos from a folder, in name order, looping; and the registry's errors."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from device.camera import CameraError, FakeCamera, ReplayCamera, make_camera, open_camera


def _photos(folder, n=3, size=(640, 480)):
    folder.mkdir(exist_ok=True)
    for k in range(n):
        img = np.full((size[1], size[0], 3), (30 * k, 100, 200 - 30 * k), np.uint8)
        cv2.putText(img, str(k), (50, 200), cv2.FONT_HERSHEY_SIMPLEX, 5, (255, 255, 255), 8)
        cv2.imwrite(str(folder / f"photo-{k:02d}.png"), img)
    (folder / "notes.txt").write_text("not a photo")
    return folder


def test_plays_in_name_order_and_loops(tmp_path):
    folder = _photos(tmp_path / "p")
    expected = [cv2.imread(str(folder / f"photo-{k:02d}.png")) for k in range(3)]
    with open_camera("replay", folder=folder) as cam:
        got = [cam.capture() for _ in range(4)]
    for img, exp in zip(got, expected + expected[:1]):
        assert img.shape == (480, 640, 3) and img.dtype == np.uint8
        assert np.array_equal(img, exp)


def test_preview_is_small_and_shows_the_piles_last_captured(tmp_path):
    folder = _photos(tmp_path / "p")
    with ReplayCamera(folder, preview_width=160) as cam:
        first, again = cam.preview(), cam.preview()
        assert first.shape == (120, 160, 3) and np.array_equal(first, again)
        taken = cam.capture()
        # A capture does not change the scene: the trigger must not see a new one (issue 13, item 1).
        assert np.array_equal(cam.preview(), first)
        assert not np.array_equal(cam.capture(), taken)  # the next press takes the next photo
        assert not np.array_equal(cam.preview(), first)


def test_no_loop_ends_with_a_clear_error(tmp_path):
    cam = open_camera("replay", folder=_photos(tmp_path / "p", n=2), loop=False)
    cam.capture(), cam.capture()
    with pytest.raises(CameraError, match="all 2 photos"):
        cam.capture()


def test_missing_and_empty_folders(tmp_path):
    with pytest.raises(CameraError, match="does not exist"):
        open_camera("replay", folder=tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CameraError, match="no photos"):
        open_camera("replay", folder=tmp_path / "empty")


def test_damaged_photo_is_named_and_reopen_recovers(tmp_path):
    folder = _photos(tmp_path / "p", n=1)
    (folder / "photo-00.png").write_bytes(b"\x89PNG broken")
    cam = open_camera("replay", folder=folder)
    with pytest.raises(CameraError, match="photo-00.png"):
        cam.capture()
    _photos(folder, n=1)
    cam.reopen()
    assert cam.capture().shape == (480, 640, 3)


def test_registry_errors():
    with pytest.raises(CameraError, match="unknown camera kind 'gopro'; known: picamera2, opencv, replay, fake"):
        make_camera("gopro")
    with pytest.raises(CameraError, match="unknown option.*fps.*known: folder"):
        make_camera("replay", folder=".", fps=3)
    assert isinstance(make_camera("files", folder="."), ReplayCamera)


def test_closed_camera_says_so():
    cam = FakeCamera()
    with pytest.raises(CameraError, match="not open"):
        cam.capture()


def test_fake_camera_fails_on_request_and_recovers():
    cam = FakeCamera(width=320, height=240, fail=True)
    with pytest.raises(CameraError, match="simulated failure"):
        cam.open()
    cam.fail = False
    cam.reopen()
    before = cam.capture()
    cam.cards = 5
    assert before.shape == (240, 320, 3) and not np.array_equal(cam.capture(), before)
    cam.fail = True
    with pytest.raises(CameraError):
        cam.preview()


def test_advance_every_lets_the_demo_run_by_itself(tmp_path):
    folder = _photos(tmp_path / "p", n=3)
    with open_camera("replay", folder=folder, advance_every=3) as cam:
        names = []
        for _ in range(7):
            cam.preview()
            names.append(cam.current.name)
        assert names == ["photo-00.png"] * 3 + ["photo-01.png"] * 3 + ["photo-02.png"]
        cam.capture()  # takes photo-02 and moves on
        assert cam.current.name == "photo-00.png"
    with pytest.raises(CameraError, match="advance_every"):
        make_camera("replay", folder=folder, advance_every=0)
