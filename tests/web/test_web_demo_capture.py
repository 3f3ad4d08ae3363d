"""Issue 13, item 1: in the demo (replay camera, still-scene trigger on) one press of "Capture now" takes one
photo, not one every second and a half; and automatic capture follows the Settings page's switch."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from web_doubles import PIN, csrf_of

from device.config import TarokcamConfig
from device.sdnotify import Notifier
from device.service import TableService
from device.storage import Store
from device.web import create_app


class NoCards:
    def recognise(self, image):
        return []


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def replay_photos(folder, n=4):
    """Distinct table photos: a bright pile at a different place on each."""
    folder.mkdir()
    for k in range(n):
        image = np.full((480, 640, 3), 60, np.uint8)
        cv2.rectangle(image, (40 + 120 * k, 100), (160 + 120 * k, 380), (235, 235, 235), -1)
        cv2.imwrite(str(folder / f"photo-{k:02d}.png"), image)
    return folder


@pytest.fixture
def demo_service(tmp_path):
    config = TarokcamConfig().with_overrides({
        "storage.state_dir": str(tmp_path / "state"),
        "camera.backend": "replay",
        "camera.replay_folder": str(replay_photos(tmp_path / "photos")),
        "camera.replay_loop": True,
        "trigger.auto": True,  # as `serve --demo` runs it
    })
    store = Store(tmp_path / "state" / "tarokcam.sqlite3")
    clock = Clock()
    service = TableService(config, store, recogniser=NoCards(), clock=clock, notifier=Notifier({}))
    service.start()
    yield service, store, clock
    service.stop()
    store.close()


def run_loop(service, clock, seconds: float) -> None:
    """The main loop's iterations for `seconds` of the (fake) clock, at its 0.5 s poll interval."""
    for _ in range(int(seconds / 0.5)):
        clock.t += 0.5
        service.step()


def test_one_press_takes_one_photo(demo_service):
    service, store, clock = demo_service
    run_loop(service, clock, 5)  # the first scene settles: taken as the empty table
    assert store.latest_capture_id() is None
    first = service.capture("declarer")
    run_loop(service, clock, 140)  # the issue saw 89 photos in 2 min 20 s
    assert store.latest_capture_id() == first
    second = service.capture("defenders")
    run_loop(service, clock, 30)
    assert store.latest_capture_id() == second == first + 1
    photos = [store.get_capture(i)["photo"] for i in (first, second)]
    assert photos[0] != photos[1]


def test_a_changed_scene_is_shot_once_and_the_switch_stops_it(demo_service, tmp_path):
    service, store, clock = demo_service
    camera = service._camera
    camera.advance_every = 8  # players lay new piles every 4 s of previews
    run_loop(service, clock, 3)
    run_loop(service, clock, 12)
    shot = store.latest_capture_id()
    assert shot is not None
    # Each new scene gives one photo and the same scene never a second one.
    taken = [store.get_capture(i)["photo"] for i in range(1, shot + 1)]
    assert len(set(taken)) == len(taken)

    app = create_app(store=store, controller=service, photos_dir=service.photos_dir, pin=PIN)
    with TestClient(app, base_url="http://table.local") as client:
        token = csrf_of(client)
        client.post("/login", data={"pin": PIN, "csrf": token, "next": "/settings"})
        page = client.get("/settings").text
        assert 'id="auto_capture" checked' in page and 'id="trigger-off"' not in page
        r = client.post("/settings/capture", data={"csrf": token, "auto_capture": ""}, follow_redirects=False)
        assert r.status_code == 303
        assert 'id="auto_capture" checked' not in client.get("/settings").text
    assert not service.auto_capture_on()
    before = store.latest_capture_id()
    run_loop(service, clock, 30)
    assert store.latest_capture_id() == before


def test_settings_say_when_the_configuration_has_no_trigger(tmp_path):
    config = TarokcamConfig().with_overrides({"storage.state_dir": str(tmp_path), "trigger.auto": False})
    store = Store(tmp_path / "tarokcam.sqlite3")
    service = TableService(config, store, recogniser=NoCards(), camera_factory=lambda: None,
                           notifier=Notifier({}))
    app = create_app(store=store, controller=service, photos_dir=tmp_path, pin=PIN)
    with TestClient(app, base_url="http://table.local") as client:
        assert 'id="trigger-off"' in client.get("/settings").text
    store.close()
