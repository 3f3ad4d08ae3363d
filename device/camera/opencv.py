"""OpenCV VideoCapture camera, for a USB webcam (or a video file, for tests)."""
from __future__ import annotations

import cv2
import numpy as np

from device.camera.base import BaseCamera, CameraError, shrink


class OpenCVCamera(BaseCamera):
    """cv2.VideoCapture on `device` (index like 0, or a path/URL).

    Webcams queue a few frames; `capture()` drops `flush` of them so the still shows the table now,
    not the table of a moment ago.
    """

    def __init__(self, device: int | str = 0, width: int | None = None, height: int | None = None,
                 flush: int = 2, preview_width: int = 320) -> None:
        super().__init__()
        self.device = int(device) if isinstance(device, str) and device.isdigit() else device
        self.width, self.height = width, height
        self.flush = flush
        self.preview_width = preview_width
        self.name = f"opencv camera {self.device!r}"
        self._cap: cv2.VideoCapture | None = None

    def _open(self) -> None:
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            raise CameraError(f"{self.name}: cannot open (is the webcam plugged in, and not used by "
                              "another program? `ls /dev/video*` lists cameras)")
        if self.width and self.height:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        self._cap = cap

    def _close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def _read(self) -> np.ndarray:
        assert self._cap is not None
        ok, frame = self._cap.read()
        if not ok or frame is None:
            raise CameraError(f"{self.name}: no frame (camera unplugged, or end of video)")
        return frame

    def _capture(self) -> np.ndarray:
        assert self._cap is not None
        for _ in range(self.flush):
            self._cap.grab()
        return self._read()

    def _preview(self) -> np.ndarray:
        return shrink(self._read(), self.preview_width)
