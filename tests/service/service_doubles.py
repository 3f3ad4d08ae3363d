"""Small test doubles for the table service: a camera that can be told to fail, a fixed recogniser."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from device.camera import CameraError


class FlakyCamera:
    """A camera whose next capture/preview fails while `broken` is set; counts opens and closes."""

    def __init__(self, shape=(120, 160, 3)):
        self.shape = shape
        self.broken = False
        self.is_open = False
        self.opens = self.closes = self.captures = 0

    def open(self):
        self.opens += 1
        self.is_open = True

    def close(self):
        self.closes += 1
        self.is_open = False

    def capture(self) -> np.ndarray:
        if self.broken:
            raise CameraError("Raspberry Pi camera: frame timeout (cable loose?)")
        self.captures += 1
        img = np.zeros(self.shape, np.uint8)
        img[10:50, 10:40] = (255, 255, 255)
        return img

    def preview(self) -> np.ndarray:
        if self.broken:
            raise CameraError("Raspberry Pi camera: preview timeout")
        return np.zeros((30, 40, 3), np.uint8)


class CameraSupply:
    """camera_factory double: hands out `camera` while `available`, else fails like a missing camera."""

    def __init__(self, camera=None):
        self.camera = camera or FlakyCamera()
        self.available = True
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if not self.available:
            raise CameraError("no camera found (is it connected and enabled?)")
        self.camera.open()
        return self.camera


@dataclass(frozen=True)
class Rec:
    card_id: str
    confidence: float
    pips: int
    quad: tuple
    flagged: bool = False

    def to_json(self) -> dict:
        return {"id": self.card_id, "confidence": self.confidence, "pips": self.pips,
                "quad": [list(p) for p in self.quad], "flagged": self.flagged}


class FixedRecogniser:
    def __init__(self, fail: bool = False):
        self.fail = fail
        self.calls = 0

    def recognise(self, image):
        self.calls += 1
        if self.fail:
            raise ValueError("model output has 53 columns, labels.txt has 54")
        return [Rec("T21", 0.98, 5, ((10, 10), (30, 10), (30, 40), (10, 40))),
                Rec("HK", 0.55, 5, ((100, 60), (130, 60), (130, 90), (100, 90)), flagged=True)]


class Clock:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t
