"""Photos on disk: atomic saving under photos/YYYY-MM-DD/, and rotation by age and total size.

A photo is written to a hidden temporary file in its final folder, fsynced, then renamed into place, so a power cut
or SIGKILL leaves either the whole JPEG or nothing under its real name. The database is never touched here.
"""
from __future__ import annotations

import errno
import logging
import os
import shutil
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

TMP_PREFIX = ".tmp-"
JPEG_QUALITY = 90


class PhotoSaveError(OSError, RuntimeError):
    """A photo could not be written; nothing was left behind. `disk_full` tells ENOSPC apart.

    Also a RuntimeError, like CameraError, so the web view answers 503 with this message."""

    def __str__(self) -> str:
        return self.strerror or super().__str__()

    @property
    def disk_full(self) -> bool:
        return self.errno in (errno.ENOSPC, errno.EDQUOT)


@dataclass(frozen=True, slots=True)
class Rotation:
    removed_files: int
    removed_bytes: int
    kept_files: int
    kept_bytes: int


def save_photo(photos_dir: Path, image: np.ndarray, when: datetime | None = None) -> str:
    """Encode `image` ((H, W, 3) uint8 BGR) as JPEG under photos_dir/YYYY-MM-DD/HHMMSS-ffffff.jpg.

    Returns the path relative to photos_dir (what `Store.add_capture(photo=...)` wants). Raises PhotoSaveError
    (an OSError; errno ENOSPC when the disk is full) and removes its temporary file first."""
    import cv2

    when = when or datetime.now()
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise PhotoSaveError(errno.EINVAL, f"cannot encode a {image.shape} {image.dtype} image as JPEG")
    rel = f"{when:%Y-%m-%d}/{when:%H%M%S-%f}.jpg"
    final = photos_dir / rel
    tmp = final.with_name(f"{TMP_PREFIX}{final.name}")
    replaced = False
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o640)
        try:
            view = memoryview(encoded.tobytes())
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, final)
        replaced = True
        _fsync_dir(final.parent)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if replaced:  # renamed but not durable: the caller stores no row for it, so it must not stay
            final.unlink(missing_ok=True)
        reason = "disk full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else (exc.strerror or str(exc))
        raise PhotoSaveError(exc.errno or errno.EIO, f"cannot save photo {rel}: {reason}") from exc
    return rel


def _fsync_dir(folder: Path) -> None:
    # The rename is durable only once the directory entry is on disk.
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_leftovers(photos_dir: Path) -> int:
    """Delete temporary files a killed process left behind; returns how many."""
    count = 0
    for tmp in photos_dir.glob(f"*/{TMP_PREFIX}*"):
        tmp.unlink(missing_ok=True)
        count += 1
    return count


def sweep_orphans(photos_dir: Path, known: set[str]) -> list[str]:
    """Delete photos in the day folders that no capture row names (a kill between the photo's rename and the
    row's commit leaves one); returns their paths relative to photos_dir. Run at start, before any capture.
    Only our own day folders are looked at, and only .jpg files, so crops and foreign files stay."""
    removed = []
    for _, folder in _day_folders(photos_dir):
        for photo in folder.glob("*.jpg"):
            rel = f"{folder.name}/{photo.name}"
            if rel not in known and not photo.name.startswith(TMP_PREFIX):
                photo.unlink(missing_ok=True)
                removed.append(rel)
    return removed


def _day_folders(photos_dir: Path) -> list[tuple[date, Path]]:
    days = []
    for folder in photos_dir.iterdir() if photos_dir.is_dir() else ():
        try:
            days.append((date.fromisoformat(folder.name), folder))
        except ValueError:
            continue  # not ours: never delete what we did not write
    return sorted(days)


def rotate_photos(photos_dir: Path, *, keep_days: int, max_bytes: int, today: date | None = None) -> Rotation:
    """Delete day folders older than `keep_days`, then the oldest photos until the rest fit in `max_bytes`.

    Only YYYY-MM-DD folders and the .jpg files in them are touched, and the newest photo always stays, so the
    capture on screen keeps its picture."""
    today = today or date.today()
    removed_files = removed_bytes = 0
    photos: list[tuple[Path, int]] = []
    for day, folder in _day_folders(photos_dir):
        files = sorted(p for p in folder.glob("*.jpg") if not p.name.startswith(TMP_PREFIX))
        if day <= today - timedelta(days=keep_days):
            removed_files += len(files)
            removed_bytes += sum(_size(p) for p in files)
            shutil.rmtree(folder, ignore_errors=True)
            continue
        photos.extend((p, _size(p)) for p in files)
    total = sum(size for _, size in photos)
    kept = len(photos)
    for path, size in photos[:-1]:
        if total <= max_bytes:
            break
        path.unlink(missing_ok=True)
        total -= size
        kept -= 1
        removed_files += 1
        removed_bytes += size
    for _, folder in _day_folders(photos_dir):
        if not any(folder.iterdir()):
            folder.rmdir()
    if removed_files:
        log.info("photo rotation: removed %d photos (%.1f MB), kept %d (%.1f MB)", removed_files,
                 removed_bytes / 1e6, kept, total / 1e6)
    return Rotation(removed_files, removed_bytes, kept, total)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
