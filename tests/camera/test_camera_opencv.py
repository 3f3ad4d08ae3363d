"""OpenCV VideoCapture back end, driven by a small video file instead of a webcam."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from device.camera import CameraError, open_camera


def _video(path, frames=6, size=(320, 240)):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, size)
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for k in range(frames):
        writer.write(np.full((size[1], size[0], 3), (40 * k, 80, 120), np.uint8))
    writer.release()
    return path


def test_reads_frames_and_previews(tmp_path):
    with open_camera("opencv", device=str(_video(tmp_path / "v.avi")), flush=0, preview_width=160) as cam:
        still = cam.capture()
        assert still.shape == (240, 320, 3) and still.dtype == np.uint8
        assert cam.preview().shape == (120, 160, 3)


def test_end_of_frames_is_a_camera_error(tmp_path):
    with open_camera("opencv", device=str(_video(tmp_path / "v.avi", frames=2)), flush=0) as cam:
        cam.capture(), cam.capture()
        with pytest.raises(CameraError, match="no frame"):
            cam.capture()


def test_missing_device_is_a_clear_error(tmp_path):
    with pytest.raises(CameraError, match="cannot open"):
        open_camera("opencv", device=str(tmp_path / "no-such-camera.avi"))
