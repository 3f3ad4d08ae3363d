"""Photos a killed run left without their capture row are swept at start; everything else stays (issue 16)."""
from __future__ import annotations

from service_doubles import CameraSupply, Clock, FixedRecogniser

from device.config import TarokcamConfig
from device.photos import sweep_orphans
from device.sdnotify import Notifier
from device.service import TableService
from device.storage import Store


def test_orphan_photos_are_swept_at_start(tmp_path):
    config = TarokcamConfig().with_overrides({"storage.state_dir": str(tmp_path), "trigger.auto": False})
    store = Store(tmp_path / "db.sqlite3")
    service = TableService(config, store, recogniser=FixedRecogniser(), camera_factory=CameraSupply(),
                           clock=Clock(), notifier=Notifier({}))
    service.start()
    kept = store.get_capture(service.capture("declarer"))["photo"]
    service.stop()
    day = (service.photos_dir / kept).parent
    orphan = day / "235959-000001.jpg"  # renamed into place, then killed before the row was committed
    orphan.write_bytes(b"\xff\xd8\xff")
    crop = service.photos_dir / "crops" / "1_1_T21.png"
    crop.parent.mkdir()
    crop.write_bytes(b"png")
    foreign = service.photos_dir / "notes" / "keep.jpg"
    foreign.parent.mkdir()
    foreign.write_bytes(b"x")
    again = TableService(config, store, recogniser=FixedRecogniser(), camera_factory=CameraSupply(),
                         clock=Clock(), notifier=Notifier({}))
    again.start()
    assert not orphan.exists()
    assert (service.photos_dir / kept).exists() and crop.exists() and foreign.exists()
    again.stop()
    store.close()


def test_sweep_orphans_names_what_it_removed(tmp_path):
    day = tmp_path / "2026-12-01"
    day.mkdir()
    for name in ("a.jpg", "b.jpg", ".tmp-c.jpg"):
        (day / name).write_bytes(b"x")
    assert sweep_orphans(tmp_path, {"2026-12-01/a.jpg"}) == ["2026-12-01/b.jpg"]
    assert sorted(p.name for p in day.iterdir()) == [".tmp-c.jpg", "a.jpg"]
