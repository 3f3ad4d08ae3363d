"""Raspberry Pi camera (Camera Module 3, HQ camera) through picamera2. The only module importing picamera2.

The full-resolution still configuration is set once and the camera keeps running: a mode switch costs
0.5-0.7 s and fragments the CMA memory over hundreds of switches. The preview for the still-scene trigger
comes from the low-resolution "lores" stream of the same configuration.
"""
from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from device.camera.base import BaseCamera, CameraError

AF_MODE_MANUAL, AF_MODE_AUTO = 0, 1  # libcamera controls.AfModeEnum.Manual / .Auto


class PicameraCamera(BaseCamera):
    """picamera2 back end.

    size: (width, height) of the still, default the sensor's full resolution. lores_width: preview width
    (height follows the still's aspect). lens_position (dioptres) sets manual focus on a Camera Module 3;
    autofocus=True runs one autofocus cycle at open instead. exposure_time (us) with analogue_gain, and
    colour_gains (red, blue), lock exposure and white balance, as recorded by calibration.
    """

    name = "Raspberry Pi camera"

    def __init__(self, size: tuple[int, int] | None = None, lores_width: int = 640, camera_num: int = 0,
                 lens_position: float | None = None, autofocus: bool = False, exposure_time: int | None = None,
                 analogue_gain: float | None = None, colour_gains: tuple[float, float] | None = None) -> None:
        super().__init__()
        self.size = tuple(size) if size else None
        self.lores_width = lores_width
        self.camera_num = camera_num
        self.lens_position = lens_position
        self.autofocus_at_open = autofocus
        self.exposure_time, self.analogue_gain = exposure_time, analogue_gain
        self.colour_gains = tuple(colour_gains) if colour_gains else None
        self.focus_ok: bool | None = None
        self._cam: Any = None
        self._lores_size: tuple[int, int] = (0, 0)

    def _open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise CameraError(f"{self.name}: picamera2 is not installed ({exc}); on Raspberry Pi OS run "
                              "`sudo apt install python3-picamera2`, or choose camera kind 'opencv' or 'replay'")
        try:
            cam = Picamera2(self.camera_num)
        except Exception as exc:  # libcamera raises IndexError/RuntimeError when no camera answers
            raise CameraError(f"{self.name}: no camera {self.camera_num} found ({exc}); check the ribbon cable "
                              "and `rpicam-hello --list-cameras`") from exc
        try:
            main_w, main_h = self.size or tuple(cam.sensor_resolution)
            lores_h = max(2, round(self.lores_width * main_h / main_w / 2) * 2)  # YUV420 needs even sizes
            self._lores_size = (self.lores_width, lores_h)
            # "RGB888" is B, G, R in memory: already OpenCV's order.
            config = cam.create_still_configuration(main={"size": (main_w, main_h), "format": "RGB888"},
                                                    lores={"size": self._lores_size, "format": "YUV420"},
                                                    buffer_count=2, queue=False)
            cam.configure(config)
            cam.start()
            self._cam = cam
            self._apply_controls()
        except Exception:
            self._cam = None
            _quiet_close(cam)
            raise

    def _apply_controls(self) -> None:
        cam = self._cam
        has_af = "AfMode" in getattr(cam, "camera_controls", {})
        if has_af and self.lens_position is not None:
            cam.set_controls({"AfMode": AF_MODE_MANUAL, "LensPosition": float(self.lens_position)})
        elif has_af and self.autofocus_at_open:
            self._autofocus()
        if self.exposure_time and self.analogue_gain:
            cam.set_controls({"AeEnable": False, "ExposureTime": int(self.exposure_time),
                              "AnalogueGain": float(self.analogue_gain)})
        if self.colour_gains:
            cam.set_controls({"AwbEnable": False, "ColourGains": tuple(float(g) for g in self.colour_gains)})

    def autofocus(self) -> bool:
        """Run one autofocus cycle (Camera Module 3); False when it failed or the lens is fixed (HQ camera)."""
        self._require_open()
        return self._autofocus()

    def _autofocus(self) -> bool:
        if "AfMode" not in getattr(self._cam, "camera_controls", {}):
            self.focus_ok = False
            return False
        self._cam.set_controls({"AfMode": AF_MODE_AUTO})
        self.focus_ok = bool(self._call(self._cam.autofocus_cycle, "autofocus"))
        return self.focus_ok

    def lock_exposure(self) -> dict[str, Any]:
        """Freeze the exposure, gain and white balance the camera has settled on; returns `settings()`."""
        self._require_open()
        settings = self.settings()
        controls: dict[str, Any] = {}
        if "exposure_time" in settings and "analogue_gain" in settings:
            controls.update(AeEnable=False, ExposureTime=int(settings["exposure_time"]),
                            AnalogueGain=float(settings["analogue_gain"]))
        if "colour_gains" in settings:
            controls.update(AwbEnable=False, ColourGains=tuple(settings["colour_gains"]))
        if "lens_position" in settings and "AfMode" in getattr(self._cam, "camera_controls", {}):
            controls.update(AfMode=AF_MODE_MANUAL, LensPosition=float(settings["lens_position"]))
        if controls:
            self._cam.set_controls(controls)
        return settings

    def settings(self) -> dict[str, Any]:
        """Focus, exposure and white balance from the camera's metadata, keyed as this class's options."""
        self._require_open()
        md = self._call(self._cam.capture_metadata, "metadata") or {}
        out: dict[str, Any] = {}
        for key, name, conv in (("LensPosition", "lens_position", float), ("ExposureTime", "exposure_time", int),
                                ("AnalogueGain", "analogue_gain", float)):
            if md.get(key) is not None:
                out[name] = conv(md[key])
        if md.get("ColourGains") is not None:
            out["colour_gains"] = [float(g) for g in md["ColourGains"]]
        return out

    def _close(self) -> None:
        cam, self._cam = self._cam, None
        _quiet_close(cam)

    def _capture(self) -> np.ndarray:
        return self._cam.capture_array("main")

    def _preview(self) -> np.ndarray:
        return yuv420_to_bgr(self._cam.capture_array("lores"), self._lores_size)


def yuv420_to_bgr(buf: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """picamera2 YUV420 array ((h * 3 // 2, stride) uint8: Y rows, then U and V planes at half size, two
    half-width rows per array row) -> (h, w, 3) uint8 BGR. Stride padding is cut off."""
    w, h = size
    if buf.ndim != 2 or buf.shape[0] != h * 3 // 2 or buf.shape[1] < w:
        raise CameraError(f"lores frame has shape {buf.shape}, expected ({h * 3 // 2}, >= {w}) for {w}x{h} YUV420")
    stride = buf.shape[1]
    y = buf[:h, :w]
    u = buf[h:h + h // 4].reshape(h // 2, stride // 2)[:, :w // 2]
    v = buf[h + h // 4:h + h // 2].reshape(h // 2, stride // 2)[:, :w // 2]
    i420 = np.concatenate([y.ravel(), u.ravel(), v.ravel()]).reshape(h * 3 // 2, w)
    return cv2.cvtColor(i420, cv2.COLOR_YUV2BGR_I420)


def _quiet_close(cam: Any) -> None:
    for step in ("stop", "close"):
        try:
            getattr(cam, step)()
        except Exception:  # noqa: BLE001, S110 -- already stopped, or the camera vanished: nothing left to release
            pass
