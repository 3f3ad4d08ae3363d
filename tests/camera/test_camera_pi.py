"""On a Raspberry Pi with a camera: the real picamera2 back end (skipped elsewhere)."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("picamera2")

from device.camera import open_camera

pytestmark = pytest.mark.pi


def test_real_camera_still_and_preview():
    with open_camera("picamera2", autofocus=True) as cam:
        still, small = cam.capture(), cam.preview()
        settings = cam.lock_exposure()
    assert still.ndim == 3 and still.shape[2] == 3 and still.dtype == np.uint8
    assert small.shape[1] == 640 and small.shape[2] == 3
    assert abs(still.shape[1] / still.shape[0] - small.shape[1] / small.shape[0]) < 0.02
    assert "exposure_time" in settings
