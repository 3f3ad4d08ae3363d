"""What every camera back end shares: the error type, the Protocol, and open/close bookkeeping."""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np


class CameraError(RuntimeError):
    """The camera is missing, busy or failed; the message says which camera and what to check."""


@runtime_checkable
class CameraBackend(Protocol):
    def open(self) -> None: ...
    def close(self) -> None: ...
    def capture(self) -> np.ndarray: ...  # (H, W, 3) uint8 BGR full-resolution still
    def preview(self) -> np.ndarray: ...  # (h, w, 3) uint8 BGR small frame for the still-scene trigger
    def settings(self) -> dict[str, Any]: ...  # focus, exposure, white balance now; {} when unknown


class BaseCamera:
    """Open/close bookkeeping, context manager and `reopen()` for the back ends.

    Subclasses implement `_open`, `_close`, `_capture` and `_preview`; errors from them that are not
    CameraError are wrapped with the camera's name, so the service can log one clear line and retry.
    """

    name = "camera"

    def __init__(self) -> None:
        self._is_open = False

    @property
    def is_open(self) -> bool:
        return self._is_open

    def open(self) -> None:
        if self._is_open:
            return
        self._call(self._open, "open")
        self._is_open = True

    def close(self) -> None:
        if not self._is_open:
            return
        self._is_open = False
        try:
            self._close()
        except Exception:  # noqa: BLE001, S110 -- closing a broken camera must not hide the error that made us close it
            pass

    def reopen(self) -> None:
        """Close and open again: the service's retry after a CameraError."""
        self.close()
        self.open()

    def capture(self) -> np.ndarray:
        self._require_open()
        return _check_bgr(self._call(self._capture, "capture"), self.name)

    def preview(self) -> np.ndarray:
        self._require_open()
        return _check_bgr(self._call(self._preview, "preview"), self.name)

    def settings(self) -> dict[str, Any]:
        return {}

    def __enter__(self):
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _require_open(self) -> None:
        if not self._is_open:
            raise CameraError(f"{self.name}: camera is not open (call open() or use `with`)")

    def _call(self, fn, what: str):
        try:
            return fn()
        except CameraError:
            raise
        except Exception as exc:
            raise CameraError(f"{self.name}: {what} failed: {type(exc).__name__}: {exc}") from exc

    def _open(self) -> None: ...
    def _close(self) -> None: ...
    def _capture(self) -> np.ndarray: raise NotImplementedError
    def _preview(self) -> np.ndarray: return shrink(self._capture(), 320)


def shrink(image: np.ndarray, width: int) -> np.ndarray:
    """Resize a (H, W, C) image to `width` px wide, keeping the aspect ratio (INTER_AREA)."""
    h, w = image.shape[:2]
    if w <= width:
        return image
    return cv2.resize(image, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)


def _check_bgr(frame, name: str) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim not in (2, 3):
        raise CameraError(f"{name}: camera returned no usable image ({type(frame).__name__})")
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    elif frame.shape[2] == 4:  # XRGB8888 and friends: drop the padding byte
        frame = frame[:, :, :3]
    if frame.shape[2] != 3 or frame.size == 0:
        raise CameraError(f"{name}: camera returned an image of shape {frame.shape}, expected (H, W, 3)")
    return np.ascontiguousarray(frame)
