"""When to take the photo: by itself once the table changed and then lay still, or on a push-button.

`StillSceneTrigger` is fed preview frames with their timestamps and reads no clock, so the service's
loop owns time and tests replay synthetic sequences exactly.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

import cv2
import numpy as np


@dataclass(frozen=True, slots=True)
class TriggerSettings:
    still_s: float = 1.0  # the scene must hold this long before a shot
    work_width: int = 96  # frames are compared at this width: enough for a card, blind to sensor noise
    pixel_threshold: float = 28.0  # grey levels (on brightness normalised to a mean of 128) that count as changed
    motion_fraction: float = 0.004  # share of changed pixels that means "still moving"
    change_fraction: float = 0.01  # share of changed pixels against the last shot that means "new scene"


class StillSceneTrigger:
    """Says when to shoot: the table changed from the last settled scene and then stayed still.

    >>> trig = StillSceneTrigger()
    >>> empty, piles = np.full((48, 64, 3), 90, np.uint8), np.full((48, 64, 3), 90, np.uint8)
    >>> piles[10:30, 10:30] = 240
    >>> [trig.feed(f, t) for f, t in [(empty, 0.0), (empty, 1.2), (piles, 2.0), (piles, 2.5), (piles, 3.1)]]
    [False, False, False, False, True]

    The first scene that settles is taken as the empty table and gives no shot. A scene that settles
    and looks like the last settled one gives none either: the same piles are never shot twice, and a
    hand that passes and leaves changes nothing. Each frame is divided by its mean brightness, and
    while the scene holds still the reference follows it, so a slow change of light never adds up.
    """

    def __init__(self, settings: TriggerSettings | None = None, **overrides: Any) -> None:
        self.settings = dataclasses.replace(settings or TriggerSettings(), **overrides)
        self.reset()

    def reset(self) -> None:
        """Forget everything: the next settled scene becomes the reference."""
        self._reference: np.ndarray | None = None
        self._anchor: np.ndarray | None = None  # the frame the current still period started with
        self._still_since = 0.0
        self._last_t: float | None = None

    def _small(self, frame: np.ndarray) -> np.ndarray:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        w = self.settings.work_width
        h = max(1, round(gray.shape[0] * w / gray.shape[1]))
        small = cv2.resize(gray, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
        small = cv2.GaussianBlur(small, (3, 3), 0)
        return small * (128.0 / max(float(small.mean()), 1.0))

    def _changed(self, a: np.ndarray, b: np.ndarray) -> float:
        return float(np.mean(np.abs(a - b) > self.settings.pixel_threshold))

    def feed(self, frame: np.ndarray, timestamp: float) -> bool:
        """Take one preview frame ((h, w, 3) uint8 BGR or (h, w) grey) seen at `timestamp` seconds;
        True means: take one full-resolution still now."""
        small = self._small(frame)
        s = self.settings
        if (self._anchor is None or self._anchor.shape != small.shape or self._last_t is None
                or timestamp < self._last_t):
            if self._reference is not None and self._reference.shape != small.shape:
                self._reference = None  # the preview size changed: the old scene cannot be compared
            self._anchor, self._still_since = small, timestamp
            self._last_t = timestamp
            return False
        self._last_t = timestamp
        if self._changed(small, self._anchor) > s.motion_fraction:
            self._anchor, self._still_since = small, timestamp
            return False
        if timestamp - self._still_since < s.still_s:
            return False
        shoot = self._reference is not None and self._changed(small, self._reference) > s.change_fraction
        # From here on the scene holds still: follow it frame by frame, so the same piles never give a
        # second shot and a slow change of light never adds up to one.
        self._anchor = self._reference = small
        return shoot

    def note_capture(self, frame: np.ndarray) -> None:
        """A still was taken another way (button, web view): its scene must not trigger again.

        frame: the still itself ((H, W, 3) uint8 BGR, any size with the preview's aspect) or a preview of it.
        """
        small = self._small(frame)
        if self._anchor is not None and small.shape != self._anchor.shape:
            small = cv2.resize(small, self._anchor.shape[::-1], interpolation=cv2.INTER_AREA)
        self._reference = small


class GpioButton:
    """A push-button between a GPIO pin (BCM numbering) and ground; calls `on_press()` when pressed.

    gpiozero is imported here only, so machines without GPIO never need it.
    """

    def __init__(self, pin: int, on_press: Callable[[], Any], bounce_time: float = 0.05) -> None:
        try:
            from gpiozero import Button
        except ImportError as exc:
            raise RuntimeError(f"GPIO button on pin {pin}: gpiozero is not installed ({exc}); "
                               "`sudo apt install python3-gpiozero`, or leave the button out of the config") from exc
        try:
            self._button = Button(pin, pull_up=True, bounce_time=bounce_time)
        except Exception as exc:
            raise RuntimeError(f"GPIO button on pin {pin}: cannot use the pin ({type(exc).__name__}: {exc})") from exc
        self.pin = pin
        self._button.when_pressed = lambda *_: on_press()

    def close(self) -> None:
        self._button.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
