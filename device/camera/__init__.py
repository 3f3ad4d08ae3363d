"""Camera back ends behind one small interface, chosen by configuration.

>>> cam = open_camera("fake", width=64, height=48)
>>> cam.capture().shape
(48, 64, 3)
>>> cam.close()
"""
from __future__ import annotations

import importlib
import inspect
from typing import Any

from device.camera.base import BaseCamera, CameraBackend, CameraError, shrink
from device.camera.fake import FakeCamera
from device.camera.replay import ReplayCamera

# kind -> (module, class). Modules import lazily so picamera2 is only needed when it is chosen.
KINDS: dict[str, tuple[str, str]] = {
    "picamera2": ("device.camera.picamera", "PicameraCamera"),
    "opencv": ("device.camera.opencv", "OpenCVCamera"),
    "replay": ("device.camera.replay", "ReplayCamera"),
    "fake": ("device.camera.fake", "FakeCamera"),
}
ALIASES = {"files": "replay", "picamera": "picamera2", "webcam": "opencv", "usb": "opencv"}


def camera_class(kind: str) -> type[BaseCamera]:
    key = ALIASES.get(kind, kind)
    if key not in KINDS:
        raise CameraError(f"unknown camera kind {kind!r}; known: {', '.join(KINDS)}")
    module, cls = KINDS[key]
    return getattr(importlib.import_module(module), cls)


def make_camera(kind: str, **options: Any) -> BaseCamera:
    """A camera of `kind`, not yet opened; unknown options give a CameraError listing the known ones."""
    cls = camera_class(kind)
    params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    unknown = sorted(set(options) - set(params))
    if unknown:
        raise CameraError(f"camera {kind!r}: unknown option(s) {', '.join(unknown)}; known: {', '.join(params)}")
    try:
        return cls(**options)
    except (TypeError, ValueError) as exc:
        raise CameraError(f"camera {kind!r}: bad options: {exc}") from exc


def open_camera(kind: str, **options: Any) -> BaseCamera:
    """Make and open a camera; raises CameraError with a clear reason. Call `.reopen()` to retry later."""
    camera = make_camera(kind, **options)
    camera.open()
    return camera


__all__ = ["KINDS", "BaseCamera", "CameraBackend", "CameraError", "FakeCamera", "ReplayCamera",
           "camera_class", "make_camera", "open_camera", "shrink"]
