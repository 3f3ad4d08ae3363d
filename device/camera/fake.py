"""Fake camera: synthetic table frames for tests of the service and the web view."""
from __future__ import annotations

import cv2
import numpy as np

from device.camera.base import BaseCamera, CameraError, shrink


class FakeCamera(BaseCamera):
    """A green table with `cards` white rectangles. Set `fail = True` to make open/capture fail.

    `cards` may be changed between calls to simulate players laying piles.
    """

    name = "fake camera"

    def __init__(self, width: int = 1280, height: int = 960, cards: int = 3, preview_width: int = 320,
                 fail: bool = False) -> None:
        super().__init__()
        self.size = (int(width), int(height))
        self.cards = cards
        self.preview_width = preview_width
        self.fail = fail
        self.captures = 0

    def _open(self) -> None:
        if self.fail:
            raise CameraError(f"{self.name}: simulated failure (fail=True)")

    def frame(self) -> np.ndarray:
        """(H, W, 3) uint8 BGR synthetic table with the current number of cards."""
        w, h = self.size
        img = np.empty((h, w, 3), np.uint8)
        img[:] = (60, 110, 40)
        cw, ch = w // 12, h // 5
        for k in range(self.cards):
            x, y = w // 10 + k * cw // 3, h // 3 + (k % 2) * ch // 10
            cv2.rectangle(img, (x, y), (x + cw, y + ch), (235, 235, 235), -1)
            cv2.rectangle(img, (x, y), (x + cw, y + ch), (30, 30, 30), 2)
            cv2.putText(img, str(k + 1), (x + 6, y + 30), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 200), 2)
        return img

    def _capture(self) -> np.ndarray:
        if self.fail:
            raise CameraError(f"{self.name}: simulated failure (fail=True)")
        self.captures += 1
        return self.frame()

    def _preview(self) -> np.ndarray:
        if self.fail:
            raise CameraError(f"{self.name}: simulated failure (fail=True)")
        return shrink(self.frame(), self.preview_width)
