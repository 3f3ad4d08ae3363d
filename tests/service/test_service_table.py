"""TableService: capture path, camera failure and recovery, disk full, trigger, READY and watchdog."""
from __future__ import annotations

import errno
import itertools
import os
import socket
import time
from datetime import date, timedelta

import numpy as np
import pytest
from service_doubles import CameraSupply, Clock, FixedRecogniser

from device.camera import CameraError
from device.config import TarokcamConfig
from device.photos import PhotoSaveError
from device.sdnotify import Notifier
from device.service import CaptureStoreError, TableService
from device.storage import Store


@pytest.fixture
def table(tmp_path):
    """A started service over a real Store, with doubles for camera, recogniser and clock."""
    config = TarokcamConfig().with_overrides({"storage.state_dir": str(tmp_path), "trigger.auto": False,
                                              "camera.retry_max_s": 8})
    store = Store(tmp_path / "tarokcam.sqlite3")
    supply, clock = CameraSupply(), Clock()
    service = TableService(config, store, recogniser=FixedRecogniser(), camera_factory=supply, clock=clock,
                           notifier=Notifier({}))
    service.start()
    yield service, supply, clock, store
    service.stop()
    store.close()


def photos(service) -> list[str]:
    return sorted(str(p.relative_to(service.photos_dir)) for p in service.photos_dir.rglob("*") if p.is_file())


def test_capture_saves_photo_recognises_and_stores(table):
    service, _, _, store = table
    capture_id = service.capture("declarer")
    cap = store.get_capture(capture_id)
    assert cap["side"] == "declarer" and (cap["width"], cap["height"]) == (160, 120)
    assert [r["id"] for r in cap["recognitions"]] == ["T21", "HK"]
    assert photos(service) == [cap["photo"]]
    assert cap["photo"].startswith(date.today().isoformat() + "/")
    status = service.status()
    assert status["camera"]["ok"] and status["store"]["ok"] and status["disk"]["ok"]
    assert 0 <= status["last_capture_age_s"] < 5


def test_camera_failing_mid_capture_is_reported_and_recovers(table):
    service, supply, clock, store = table
    service.capture()
    supply.camera.broken = True
    with pytest.raises(CameraError, match="frame timeout"):
        service.capture()
    status = service.status()
    assert not status["camera"]["ok"] and "frame timeout" in status["camera"]["message"]
    assert supply.camera.closes == 1  # dropped, to be reopened
    # The camera comes back; the loop waits for the backoff before reopening it.
    supply.camera.broken = False
    service.step()
    assert not service.status()["camera"]["ok"]
    clock.t += 1.5
    service.step()
    assert service.status()["camera"]["ok"]
    second = service.capture()
    assert store.get_capture(second)["error"] is None
    assert len(photos(service)) == 2  # the failed capture left no photo


def test_missing_camera_is_retried_with_growing_backoff(tmp_path):
    config = TarokcamConfig().with_overrides({"storage.state_dir": str(tmp_path), "trigger.auto": False,
                                              "camera.retry_max_s": 8})
    store = Store(tmp_path / "db.sqlite3")
    supply, clock = CameraSupply(), Clock()
    supply.available = False
    service = TableService(config, store, recogniser=FixedRecogniser(), camera_factory=supply, clock=clock,
                           notifier=Notifier({}))
    service.start()  # no camera is no reason to stop: the web view must come up and say why
    assert supply.calls == 1
    attempts = [clock.t]
    for _ in range(40):  # 20 s of loop at 0.5 s
        calls = supply.calls
        service.step()
        if supply.calls > calls:
            attempts.append(clock.t)
        clock.t += 0.5
    gaps = [round(b - a, 1) for a, b in itertools.pairwise(attempts)]
    assert gaps == [1.0, 2.0, 4.0, 8.0]  # 1, 2, 4, then capped at retry_max_s
    assert "no camera found" in service.status()["camera"]["message"]
    with pytest.raises(CameraError, match="no camera found"):
        service.capture()  # a player's request tries at once and says why
    supply.available = True
    assert service.capture() > 0
    service.stop()
    store.close()


def test_disk_full_while_saving_leaves_nothing_behind(table, monkeypatch):
    service, _, _, store = table
    first = service.capture()
    real_write = os.write

    def full(fd, data):
        real_write(fd, bytes(data)[:100])  # part of the JPEG reaches the disk, then it is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("device.photos.os.write", full)
    with pytest.raises(PhotoSaveError, match="disk full") as caught:
        service.capture()
    assert caught.value.disk_full and isinstance(caught.value, RuntimeError)  # web answers 503
    assert len(photos(service)) == 1  # no partial file, no temporary file
    assert store.latest_capture_id() == first
    assert store.integrity_ok()
    status = service.status()
    assert not status["disk"]["ok"] and "disk full" in status["disk"]["message"]
    monkeypatch.undo()
    assert service.capture() > first
    assert service.status()["disk"]["ok"]


def test_recognition_failure_keeps_the_photo_and_says_why(table):
    service, _, _, store = table
    service._recogniser = FixedRecogniser(fail=True)
    cap = store.get_capture(service.capture())
    assert cap["recognitions"] == [] and "53 columns" in cap["error"]
    assert (service.photos_dir / cap["photo"]).is_file()
    assert service.status()["model"] == {"ok": False, "message": "last recognition failed: model output has 53 "
                                                                 "columns, labels.txt has 54"}
    service._recogniser = FixedRecogniser()
    service.capture()
    assert service.status()["model"]["ok"]


def test_database_full_keeps_no_orphan_photo(table, monkeypatch):
    import sqlite3

    service, _, _, store = table

    def full(**kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store, "add_capture", full)
    with pytest.raises(CaptureStoreError, match="database or disk is full"):
        service.capture()
    assert photos(service) == []


def test_cards_are_assigned_to_sides_when_calibrated(table, monkeypatch):
    import calibration

    service, _, _, store = table
    service._calibration = object()
    monkeypatch.setattr(calibration, "assign_side", lambda calib, p: "declarer" if p[0] < 80 else "defenders")
    monkeypatch.setattr(calibration, "check_alignment", lambda calib, image: "only 1 mat marker(s) visible")
    cap = store.get_capture(service.capture())
    assert [r["side"] for r in cap["recognitions"]] == ["declarer", "defenders"]
    assert service.status()["calibration"] == {"ok": False, "message": "only 1 mat marker(s) visible",
                                               "calibrated": True}


class OneShotTrigger:
    def __init__(self):
        self.fire = False
        self.fed = 0
        self.noted = 0

    def feed(self, frame, timestamp):
        self.fed += 1
        fire, self.fire = self.fire, False
        return fire

    def note_capture(self, frame):
        self.noted += 1


def test_trigger_and_button_shoot_from_the_loop(table):
    service, _, _, store = table
    service._trigger = trigger = OneShotTrigger()
    service.step()
    assert store.latest_capture_id() is None and trigger.fed == 1
    trigger.fire = True
    service.step()
    first = store.latest_capture_id()
    assert first is not None and trigger.noted == 1
    service.press()
    service.step()
    assert store.latest_capture_id() > first


def test_rotation_at_start_removes_old_days_only(tmp_path):
    old = tmp_path / "photos" / (date.today() - timedelta(days=40)).isoformat()
    old.mkdir(parents=True)
    (old / "120000-000000.jpg").write_bytes(b"x" * 10)
    (old.parent / "notes").mkdir()
    config = TarokcamConfig().with_overrides({"storage.state_dir": str(tmp_path), "trigger.auto": False})
    store = Store(tmp_path / "tarokcam.sqlite3")
    service = TableService(config, store, recogniser=FixedRecogniser(), camera_factory=CameraSupply(),
                           notifier=Notifier({}))
    service.start()
    assert not old.exists() and (old.parent / "notes").is_dir()
    assert (tmp_path / "tarokcam.sqlite3").exists()
    service.stop()
    store.close()


def test_ready_once_then_watchdog_from_the_loop(tmp_path):
    name = f"@tarokcam-test-{os.getpid()}-{time.monotonic_ns()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(b"\0" + name[1:].encode())
        sock.settimeout(2)
        notifier = Notifier({"NOTIFY_SOCKET": name, "WATCHDOG_USEC": "2000000"})
        config = TarokcamConfig().with_overrides({"storage.state_dir": str(tmp_path), "trigger.auto": False})
        store = Store(tmp_path / "db.sqlite3")
        clock = Clock()
        service = TableService(config, store, recogniser=FixedRecogniser(), camera_factory=CameraSupply(),
                               notifier=notifier, clock=clock)
        service.start()
        got = [sock.recv(1024).decode()]  # STATUS= from opening the camera
        up = [False]
        service._ready_check = lambda: up[0]
        service.step()
        got.append(sock.recv(1024).decode())
        up[0] = True
        service.step()  # web server listening now: READY (the watchdog interval of 1 s has not passed)
        got.append(sock.recv(1024).decode())
        clock.t += 1.0
        service.step()
        got.append(sock.recv(1024).decode())
        service.stop()
        got.append(sock.recv(1024).decode())
        store.close()
    assert got[0].startswith("STATUS=camera")
    assert got[1] == "WATCHDOG=1"
    assert got[2].startswith("READY=1\nSTATUS=camera")
    assert got[3] == "WATCHDOG=1"
    assert got[4] == "STOPPING=1"


def test_loop_thread_runs_and_stops(table):
    service, *_ = table
    service.start_loop()
    for _ in range(50):
        if service.status()["loop"]["message"] != "not started":
            break
        time.sleep(0.05)
    assert service.status()["loop"]["ok"]
    service.stop()
    assert not service._thread.is_alive()


def test_status_matches_the_web_contract(table):
    status = table[0].status()
    for part in ("camera", "model", "calibration", "store"):
        assert set(status[part]) >= {"ok", "message"}
    assert isinstance(status["disk_free_mb"], float) and status["disk_free_mb"] > 0
    assert status["last_capture_age_s"] is None


def test_a_hung_capture_stops_the_watchdog_pets(tmp_path):
    name = f"tarokcam-hang-{os.getpid()}-{time.monotonic_ns()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(b"\0" + name.encode())
        sock.settimeout(0.2)
        config = TarokcamConfig().with_overrides({"storage.state_dir": str(tmp_path), "trigger.auto": False})
        store = Store(tmp_path / "db.sqlite3")
        clock = Clock()
        service = TableService(config, store, recogniser=FixedRecogniser(), camera_factory=CameraSupply(),
                               notifier=Notifier({"NOTIFY_SOCKET": "@" + name, "WATCHDOG_USEC": "2000000"}),
                               clock=clock)
        service.start()
        service._ready_sent = True
        while True:  # drain STATUS=
            try:
                sock.recv(1024)
            except TimeoutError:
                break

        def pets() -> int:
            n = 0
            while True:
                try:
                    n += sock.recv(1024) == b"WATCHDOG=1"
                except TimeoutError:
                    return n

        service._capturing_since = clock.t  # as if a web request were stuck inside camera.capture()
        clock.t += 30
        service.step()
        assert pets() == 1 and service.status()["camera"]["ok"]  # slow, not yet hung
        clock.t += 30
        service.step()
        assert pets() == 0
        assert service.status()["camera"] == {"ok": False, "message": "capture hung for 60 s", "backend": "picamera2"}
        service._capturing_since = None
        clock.t += 1
        service.step()
        assert pets() == 1
        service.stop()
        store.close()


def test_configured_back_ends_open_with_their_options(tmp_path):
    import cv2

    from device.service import open_configured_camera

    fake = TarokcamConfig().with_overrides({"camera.backend": "fake", "camera.resolution": [320, 240]})
    # Calibration's picamera2 settings mean nothing to other back ends and are left out for them.
    with open_configured_camera(fake, {"lens_position": 2.5, "exposure_time": 9000}) as cam:
        assert cam.capture().shape == (240, 320, 3)
    for i in range(2):
        cv2.imwrite(str(tmp_path / f"{i}.jpg"), np.full((60, 80, 3), 40 * (i + 1), np.uint8))
    replay = TarokcamConfig().with_overrides({"camera.backend": "replay", "camera.replay_folder": str(tmp_path)})
    with open_configured_camera(replay) as cam:
        shots = [int(cam.capture().mean()) for _ in range(3)]
    assert shots[0] != shots[1] and shots[0] == shots[2]  # name order, looping
    missing = TarokcamConfig().with_overrides({"camera.backend": "replay",
                                               "camera.replay_folder": str(tmp_path / "none")})
    with pytest.raises(CameraError):
        open_configured_camera(missing)
