"""device.photos: atomic JPEG saving and rotation by age and size."""
from __future__ import annotations

import errno
from datetime import date, datetime, timedelta

import cv2
import numpy as np
import pytest

from device.photos import PhotoSaveError, remove_leftovers, rotate_photos, save_photo


def image(h=48, w=64):
    img = np.zeros((h, w, 3), np.uint8)
    img[:, : w // 2] = (0, 0, 255)  # red left half, in BGR
    return img


def test_save_writes_a_whole_jpeg_under_its_day(tmp_path):
    when = datetime(2026, 11, 28, 21, 5, 7, 123456)
    rel = save_photo(tmp_path, image(), when)
    assert rel == "2026-11-28/210507-123456.jpg"
    back = cv2.imread(str(tmp_path / rel))
    assert back.shape == (48, 64, 3) and back[10, 5, 2] > 200 and back[10, 5, 0] < 50
    assert [p.name for p in (tmp_path / "2026-11-28").iterdir()] == ["210507-123456.jpg"]


@pytest.mark.parametrize("where", ["write", "fsync", "replace", "_fsync_dir"])
def test_disk_full_leaves_no_file(tmp_path, monkeypatch, where):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(f"device.photos.{where}" if where.startswith("_") else f"device.photos.os.{where}", full)
    with pytest.raises(PhotoSaveError) as caught:
        save_photo(tmp_path, image(), datetime(2026, 11, 28, 21, 0, 0))
    assert caught.value.disk_full and caught.value.errno == errno.ENOSPC
    assert str(caught.value) == "cannot save photo 2026-11-28/210000-000000.jpg: disk full"
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_other_write_errors_name_the_reason(tmp_path, monkeypatch):
    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr("device.photos.os.open", denied)
    with pytest.raises(PhotoSaveError, match="Permission denied") as caught:
        save_photo(tmp_path, image())
    assert not caught.value.disk_full


def test_leftovers_of_a_killed_write_are_removed(tmp_path):
    day = tmp_path / "2026-11-28"
    day.mkdir()
    (day / ".tmp-210000-000000.jpg").write_bytes(b"\xff\xd8half")
    (day / "205959-000000.jpg").write_bytes(b"whole")
    assert remove_leftovers(tmp_path) == 1
    assert [p.name for p in day.iterdir()] == ["205959-000000.jpg"]


def make_day(root, day: date, sizes):
    folder = root / day.isoformat()
    folder.mkdir(parents=True)
    for i, size in enumerate(sizes):
        (folder / f"12{i:02d}00-000000.jpg").write_bytes(b"x" * size)
    return folder


def test_rotation_by_age(tmp_path):
    today = date(2026, 11, 29)
    old = make_day(tmp_path, today - timedelta(days=30), [100, 100])
    young = make_day(tmp_path, today - timedelta(days=29), [100])
    (tmp_path / "tarokcam.sqlite3").write_bytes(b"db")  # never touched
    (tmp_path / "crops").mkdir()  # not a day folder: not ours to delete
    result = rotate_photos(tmp_path, keep_days=30, max_bytes=10**9, today=today)
    assert not old.exists() and young.is_dir()
    assert (result.removed_files, result.removed_bytes, result.kept_files, result.kept_bytes) == (2, 200, 1, 100)
    assert (tmp_path / "tarokcam.sqlite3").exists() and (tmp_path / "crops").is_dir()


def test_rotation_by_size_removes_oldest_first_and_keeps_the_newest(tmp_path):
    today = date(2026, 11, 29)
    d1 = make_day(tmp_path, today - timedelta(days=2), [400, 400])
    d2 = make_day(tmp_path, today, [300, 300])
    result = rotate_photos(tmp_path, keep_days=30, max_bytes=700, today=today)
    assert not d1.exists()  # emptied, then removed
    assert sorted(p.name for p in d2.iterdir()) == ["120000-000000.jpg", "120100-000000.jpg"]
    assert (result.removed_files, result.kept_bytes) == (2, 600)
    # Even a limit below one photo keeps the newest, so the capture on screen keeps its picture.
    rotate_photos(tmp_path, keep_days=30, max_bytes=1, today=today)
    assert [p.name for p in d2.iterdir()] == ["120100-000000.jpg"]


def test_rotation_of_a_missing_folder_is_a_no_op(tmp_path):
    assert rotate_photos(tmp_path / "none", keep_days=1, max_bytes=0).removed_files == 0
