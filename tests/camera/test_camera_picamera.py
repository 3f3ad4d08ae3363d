"""picamera2 back end against a test double that follows the real picamera2 API.

The double is a module injected as `picamera2` in sys.modules; its Picamera2 records the calls and
returns frames the way the real one does: "RGB888" main arrays are B, G, R in memory, and "lores"
YUV420 arrays are (h * 3 // 2, stride) with stride padding.
"""
from __future__ import annotations

import sys
import types
from typing import ClassVar

import cv2
import numpy as np
import pytest

from device.camera import CameraError, open_camera
from device.camera.picamera import yuv420_to_bgr

SCENE_BGR = (40, 120, 220)  # orange-ish table: B < G < R, so a swapped channel order shows


class FakePicamera2:
    instances: ClassVar[list[FakePicamera2]] = []
    has_af = True
    fail_start = False

    def __init__(self, camera_num=0):
        self.camera_num = camera_num
        self.sensor_resolution = (4608, 2592)
        self.camera_controls = {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0)} if self.has_af else {}
        self.calls: list[tuple] = []
        self.controls: dict = {}
        self.config = None
        self.started = False
        FakePicamera2.instances.append(self)

    def create_still_configuration(self, main=None, lores=None, raw=None, buffer_count=1, queue=True, **kw):
        self.calls.append(("create_still_configuration",))
        return {"use_case": "still", "main": dict(main or {}), "lores": dict(lores) if lores else None,
                "buffer_count": buffer_count, "queue": queue}

    def configure(self, config):
        self.calls.append(("configure",))
        self.config = config

    def start(self):
        if self.fail_start:
            raise RuntimeError("Failed to start camera: Device or resource busy")
        self.calls.append(("start",))
        self.started = True

    def set_controls(self, controls):
        self.calls.append(("set_controls", dict(controls)))
        self.controls.update(controls)

    def autofocus_cycle(self, wait=True):
        assert self.started
        self.calls.append(("autofocus_cycle",))
        self.controls["LensPosition"] = 3.25
        return True

    def capture_metadata(self):
        assert self.started
        return {"ExposureTime": 16000, "AnalogueGain": 1.5, "ColourGains": (2.1, 1.7),
                "LensPosition": self.controls.get("LensPosition", 1.0), "Lux": 400.0}

    def capture_array(self, name="main"):
        assert self.started, "Camera is not started"
        self.calls.append(("capture_array", name))
        w, h = self.config[name]["size"]
        bgr = np.empty((h, w, 3), np.uint8)
        bgr[:] = SCENE_BGR
        if name == "main":
            assert self.config["main"]["format"] == "RGB888"
            return bgr  # "RGB888" is B, G, R in memory
        i420 = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420)  # (h*3/2, w): Y, U, V planes
        stride = w + 64
        out = np.zeros((h * 3 // 2, stride), np.uint8)
        out[:h, :w] = i420[:h]
        u = i420[h:h + h // 4].reshape(h // 2, w // 2)
        v = i420[h + h // 4:].reshape(h // 2, w // 2)
        for plane, row0 in ((u, h), (v, h + h // 4)):
            padded = np.zeros((h // 2, stride // 2), np.uint8)
            padded[:, :w // 2] = plane
            out[row0:row0 + h // 4] = padded.reshape(h // 4, stride)
        return out

    def stop(self):
        self.calls.append(("stop",))
        self.started = False

    def close(self):
        self.calls.append(("close",))


@pytest.fixture
def picamera2(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    FakePicamera2.instances, FakePicamera2.has_af, FakePicamera2.fail_start = [], True, False
    monkeypatch.setitem(sys.modules, "picamera2", module)
    return FakePicamera2


def test_still_configured_once_and_colour_order_is_bgr(picamera2):
    with open_camera("picamera2", size=(2304, 1296)) as cam:
        fake = picamera2.instances[0]
        for _ in range(3):
            still = cam.capture()
            small = cam.preview()
        assert [c[0] for c in fake.calls].count("configure") == 1  # no mode switch per shot
        assert fake.config["main"] == {"size": (2304, 1296), "format": "RGB888"}
        assert fake.config["lores"]["format"] == "YUV420" and fake.config["queue"] is False
        assert still.shape == (1296, 2304, 3) and tuple(int(v) for v in still[0, 0]) == SCENE_BGR
        assert small.shape == (360, 640, 3)
        assert np.abs(small[5, 5].astype(int) - SCENE_BGR).max() <= 3
    assert [c[0] for c in fake.calls][-2:] == ["stop", "close"]


def test_full_sensor_by_default_and_manual_focus(picamera2):
    with open_camera("picamera2", lens_position=2.5, exposure_time=12000, analogue_gain=2.0,
                     colour_gains=(1.8, 1.5)) as cam:
        fake = picamera2.instances[0]
        assert fake.config["main"]["size"] == (4608, 2592)
        assert fake.controls["AfMode"] == 0 and fake.controls["LensPosition"] == 2.5
        assert fake.controls["AeEnable"] is False and fake.controls["ExposureTime"] == 12000
        assert fake.controls["AwbEnable"] is False and fake.controls["ColourGains"] == (1.8, 1.5)
        assert ("autofocus_cycle",) not in fake.calls
        assert cam.capture().shape == (2592, 4608, 3)


def test_autofocus_then_lock_records_settings(picamera2):
    with open_camera("picamera2", autofocus=True) as cam:
        fake = picamera2.instances[0]
        assert ("autofocus_cycle",) in fake.calls and cam.focus_ok
        settings = cam.lock_exposure()
    assert settings == {"lens_position": 3.25, "exposure_time": 16000, "analogue_gain": 1.5,
                        "colour_gains": [2.1, 1.7]}
    assert fake.controls["AeEnable"] is False and fake.controls["AwbEnable"] is False
    assert fake.controls["AfMode"] == 0 and fake.controls["LensPosition"] == 3.25


def test_fixed_lens_hq_camera_skips_focus(picamera2):
    picamera2.has_af = False
    with open_camera("picamera2", lens_position=2.0, autofocus=True) as cam:
        fake = picamera2.instances[0]
        assert not any(c[0] == "set_controls" and "AfMode" in c[1] for c in fake.calls)
        assert cam.autofocus() is False


def test_failures_are_clear_and_reopen_retries(picamera2):
    picamera2.fail_start = True
    with pytest.raises(CameraError, match="Device or resource busy"):
        open_camera("picamera2")
    assert [c[0] for c in picamera2.instances[0].calls][-1] == "close"  # the busy camera was released
    picamera2.fail_start = False
    cam = open_camera("picamera2")
    cam.reopen()
    assert len(picamera2.instances) == 3 and cam.capture().ndim == 3
    cam.close()


def test_without_picamera2_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 -> ImportError
    with pytest.raises(CameraError, match="picamera2 is not installed"):
        open_camera("picamera2")


def test_yuv420_conversion_rejects_wrong_shape():
    with pytest.raises(CameraError, match="expected"):
        yuv420_to_bgr(np.zeros((100, 640), np.uint8), (640, 480))
