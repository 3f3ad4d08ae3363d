"""Replay camera: a folder of photos played as if taken, in name order. The demo's and the tests' camera."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from device.camera.base import BaseCamera, CameraError, shrink

PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}


class ReplayCamera(BaseCamera):
    """Photos in `folder` in name order; `capture()` returns the current one and moves on.

    `preview()` shows what lies under the camera: the photo last captured, until the scene changes
    (before the first capture: the first photo). A capture alone never changes the scene, so the
    still-scene trigger sees the same piles after it and does not fire again; the demo captures only
    when asked. With `advance_every=N` the scene moves on to the next photo after N previews, as if
    players laid new piles: the trigger then fires once per photo and the demo runs by itself.
    loop=False raises CameraError after the last photo.
    """

    name = "replay camera"

    def __init__(self, folder: str | Path, loop: bool = True, preview_width: int = 320,
                 advance_every: int | None = None) -> None:
        super().__init__()
        if advance_every is not None and advance_every < 1:
            raise ValueError(f"advance_every must be at least 1, got {advance_every}")
        self.advance_every = advance_every
        self._previews = 0
        self.folder = Path(folder)
        self.loop = loop
        self.preview_width = preview_width
        self.photos: list[Path] = []
        self.index = 0
        self._cache: tuple[Path, np.ndarray] | None = None
        self._on_table: Path | None = None  # the photo last captured, while its piles still lie there

    def _open(self) -> None:
        if not self.folder.is_dir():
            raise CameraError(f"{self.name}: folder {self.folder} does not exist")
        self.photos = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES)
        if not self.photos:
            raise CameraError(f"{self.name}: no photos ({', '.join(sorted(PHOTO_SUFFIXES))}) in {self.folder}")
        self.index = 0
        self._on_table = None

    def _close(self) -> None:
        self._cache = None

    @property
    def current(self) -> Path:
        """The photo the next capture returns."""
        self._require_open()
        if self.index >= len(self.photos):
            if not self.loop:
                raise CameraError(f"{self.name}: all {len(self.photos)} photos in {self.folder} were played")
            self.index = 0
        return self.photos[self.index]

    def _read(self, path: Path) -> np.ndarray:
        if self._cache and self._cache[0] == path:
            return self._cache[1]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise CameraError(f"{self.name}: cannot decode {path} (not an image, or damaged)")
        self._cache = (path, image)
        return image

    def _capture(self) -> np.ndarray:
        path = self.current
        image = self._read(path).copy()
        self.index += 1
        self._previews = 0
        self._on_table = path
        return image

    def _preview(self) -> np.ndarray:
        self._previews += 1
        if self.advance_every and self._previews > self.advance_every:
            if self._on_table is not None:
                self._on_table = None  # the captured piles are taken away: the next photo's are laid
            else:
                self.index += 1
            self._previews = 1
        return shrink(self._read(self._on_table or self.current), self.preview_width).copy()
