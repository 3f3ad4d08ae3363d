"""Cards of a printing the bundled release has never seen: the table switches to the release for other printings
by itself, says why, reads the photo again and stays switched (issue 14, item 1, at the table)."""
from __future__ import annotations

from pathlib import Path

import pytest
from service_doubles import CameraSupply, Clock, Rec

import device.service as service_module
from device.config import TarokcamConfig
from device.sdnotify import Notifier
from device.service import PRINTING_KEY, TableService
from device.storage import Store
from vision.printing import PrintingWatch, WatchSettings
from vision.recogniser import printing_release

REPO = Path(__file__).resolve().parents[2]
QUAD = ((10, 10), (30, 10), (30, 40), (10, 40))


class Reader:
    """A recogniser double reading `n` cards a photo, `unsure` of them flagged."""

    def __init__(self, name: str, n: int, unsure: int):
        self.name, self.n, self.unsure, self.calls = name, n, unsure, 0

    def recognise(self, image):
        self.calls += 1
        return [Rec(f"T{k + 1}", 0.5 if k < self.unsure else 0.99, 0, QUAD, flagged=k < self.unsure)
                for k in range(self.n)]


def _pile_reads(monkeypatch):
    """The doubles' reads come as the hand reader's pile reads (what the table makes once the game is known)."""
    monkeypatch.setattr(service_module.handread, "read_photo",
                        lambda rec, image, game: ([r.to_json() for r in rec.recognise(image)], {}))


def _evening(tmp_path: Path) -> Store:
    store = Store(tmp_path / "state" / "db.sqlite3")
    if store.current_session() is None:
        store.add_session(game="slovenian", players=["Ana", "Bor", "Cene", "Dora"], system="traditional")
    return store


def _table(tmp_path: Path, monkeypatch, bundled: Reader, printings: Reader, broken: bool = False,
           **overrides) -> tuple[TableService, Store]:
    other = tmp_path / "cards" / "2026-12-04-printings"
    loads: list = []

    def load(path):
        loads.append(path)
        if path == other and broken:
            raise RuntimeError("detector.onnx: sha256 does not match model.json (damaged)")
        return printings if path == other else bundled

    monkeypatch.setattr(service_module, "load_recogniser", load)
    monkeypatch.setattr("vision.recogniser.printing_release", lambda: other)
    _pile_reads(monkeypatch)
    config = TarokcamConfig().with_overrides({"storage.state_dir": str(tmp_path / "state"), "trigger.auto": False,
                                              **overrides})
    store = _evening(tmp_path)
    service = TableService(config, store, camera_factory=CameraSupply(), clock=Clock(), notifier=Notifier({}))
    service.loads = loads
    service.start()
    return service, store


def test_a_printing_the_bundled_release_reads_unsure_switches_the_table_and_stays_switched(tmp_path, monkeypatch):
    bundled, printings = Reader("bundled", 27, 14), Reader("printings", 27, 1)
    service, store = _table(tmp_path, monkeypatch, bundled, printings)
    assert service.status()["model"]["message"] == "bundled loaded"
    first_id = service.capture("declarer")                   # 27 cards read: too few to say
    first = store.get_capture(first_id)
    assert all(r["flagged"] == (k < 14) for k, r in enumerate(first["recognitions"]))
    second = store.get_capture(service.capture("defenders"))  # 54 read, 28 unsure: not the reference printing
    assert sum(r["flagged"] for r in second["recognitions"]) == 1, "the photo is read again after the switch"
    # ... and so is the hand's first photo, which the bundled release read
    assert sum(r["flagged"] for r in store.get_capture(first_id)["recognitions"]) == 1
    assert printings.calls == 2 and bundled.calls == 2
    message = service.status()["model"]["message"]
    assert message.startswith("printings loaded (switched to 2026-12-04-printings")
    assert "28 of the last 54 cards read were unsure" in message
    assert store.meta(PRINTING_KEY) == "2026-12-04-printings"
    service.capture("declarer")
    assert printings.calls == 3 and bundled.calls == 2
    service.stop()
    store.close()
    # The next evening starts on the release it switched to: the cards on the table are the same.
    again, store = _table(tmp_path, monkeypatch, bundled, printings)
    assert again.loads[-1] == tmp_path / "cards" / "2026-12-04-printings"
    assert "switched earlier to 2026-12-04-printings" in again.status()["model"]["message"]
    again.stop()
    store.close()
    # That release damaged since: the table reads with the bundled one rather than with none.
    damaged, store = _table(tmp_path, monkeypatch, bundled, printings, broken=True)
    model = damaged.status()["model"]
    assert model["ok"] and model["message"].startswith("bundled loaded (2026-12-04-printings, switched to on an "
                                                       "earlier run, could not be loaded: detector.onnx: sha256")
    assert store.get_capture(damaged.capture("declarer"))["recognitions"]
    damaged.stop()
    store.close()


@pytest.mark.parametrize("said", ["corrected", "answered"])
def test_a_photo_the_players_have_corrected_or_answered_about_keeps_its_first_read(tmp_path, monkeypatch, said):
    from device import handread

    bundled, printings = Reader("bundled", 27, 14), Reader("printings", 27, 1)
    service, store = _table(tmp_path, monkeypatch, bundled, printings)
    first_id = service.capture("declarer")
    session = store.current_session()
    if said == "corrected":
        store.add_correction(first_id, action="replace", card_index=0, new_id="T21")
    else:
        handread.add_answer(store, session, 0, {"kind": "which_card", "side": "declarer", "sighting": 3,
                                                "card": "T4", "capture": first_id})
    before = store.get_capture(first_id)["recognitions"]
    service.capture("defenders")                              # the switch
    assert service.printing_switched and printings.calls == 1
    assert store.get_capture(first_id)["recognitions"] == before
    service.stop()
    store.close()


def test_a_photo_gone_from_disk_keeps_its_first_read_and_the_table_goes_on(tmp_path, monkeypatch):
    bundled, printings = Reader("bundled", 27, 14), Reader("printings", 27, 1)
    service, store = _table(tmp_path, monkeypatch, bundled, printings)
    first_id = service.capture("declarer")
    (service.photos_dir / store.get_capture(first_id)["photo"]).unlink()
    before = store.get_capture(first_id)["recognitions"]
    second = service.capture("defenders")
    assert service.printing_switched and store.get_capture(first_id)["recognitions"] == before
    assert sum(r["flagged"] for r in store.get_capture(second)["recognitions"]) == 1
    service.stop()
    store.close()


def test_a_switch_to_a_release_an_update_has_replaced_starts_on_the_new_one(tmp_path, monkeypatch):
    store = _evening(tmp_path)
    store.set_meta(PRINTING_KEY, "2026-11-30-printings")        # switched to on an earlier run, since replaced
    store.close()
    bundled, printings = Reader("bundled", 27, 14), Reader("printings", 27, 1)
    service, store = _table(tmp_path, monkeypatch, bundled, printings)
    assert service.loads == [tmp_path / "cards" / "2026-12-04-printings"]
    assert "switched earlier to 2026-12-04-printings" in service.status()["model"]["message"]
    assert store.meta(PRINTING_KEY) == "2026-12-04-printings"
    service.capture("declarer")
    assert printings.calls == 1 and bundled.calls == 0
    service.stop()
    store.close()


@pytest.mark.parametrize("overrides, unsure", [
    ({}, 2),                                        # the reference printing: a few unsure reads a photo
    ({"model.auto_printing": False}, 20),           # the players turned it off
])
def test_the_table_stays_on_the_bundled_release(tmp_path, monkeypatch, overrides, unsure):
    bundled, printings = Reader("bundled", 27, unsure), Reader("printings", 27, 0)
    service, store = _table(tmp_path, monkeypatch, bundled, printings, **overrides)
    for side in ("declarer", "defenders") * 4:
        service.capture(side)
    assert printings.calls == 0 and store.meta(PRINTING_KEY) is None
    assert service.status()["model"]["message"] == "bundled loaded"
    service.stop()
    store.close()


def test_a_configured_release_is_never_switched_away_from(tmp_path, monkeypatch):
    folder = tmp_path / "mine"
    bundled, printings = Reader("mine", 27, 20), Reader("printings", 27, 0)
    monkeypatch.setattr(service_module, "choose_release", lambda path: (path, None))
    service, store = _table(tmp_path, monkeypatch, bundled, printings, **{"model.path": str(folder)})
    for side in ("declarer", "defenders") * 3:
        service.capture(side)
    assert printings.calls == 0 and store.meta(PRINTING_KEY) is None
    service.stop()
    store.close()


def test_a_release_for_printings_that_will_not_load_leaves_the_bundled_one_reading(tmp_path, monkeypatch):
    bundled = Reader("bundled", 27, 20)
    other = tmp_path / "cards" / "2026-12-04-printings"

    def load(path):
        if path == other:
            raise RuntimeError("detector.onnx damaged")
        return bundled

    monkeypatch.setattr(service_module, "load_recogniser", load)
    monkeypatch.setattr("vision.recogniser.printing_release", lambda: other)
    _pile_reads(monkeypatch)
    config = TarokcamConfig().with_overrides({"storage.state_dir": str(tmp_path / "state"), "trigger.auto": False})
    store = _evening(tmp_path)
    service = TableService(config, store, camera_factory=CameraSupply(), clock=Clock(), notifier=Notifier({}))
    service.start()
    for side in ("declarer", "defenders", "declarer"):
        cap = store.get_capture(service.capture(side))
        assert len(cap["recognitions"]) == 27 and cap["error"] is None
    assert bundled.calls == 3 and store.meta(PRINTING_KEY) is None
    assert service.status()["model"]["ok"] is True
    service.stop()
    store.close()


def test_the_watch_needs_enough_cards_and_forgets_old_photos():
    watch = PrintingWatch(WatchSettings(photos=3, min_cards=40, unsure_share=0.25))
    watch.observe([True] * 30)
    assert not watch.unlike_reference(), "30 cards are too few to say"
    watch.observe([False] * 20)
    assert watch.unlike_reference() and watch.reason().startswith("30 of the last 50 cards read were unsure")
    watch.observe([])                                   # a photo with no cards says nothing
    watch.observe([False] * 30)
    watch.observe([False] * 30)
    assert watch.cards == 80 and not watch.unlike_reference(), "the 30 unsure reads have left the window"


def test_the_bundled_release_for_other_printings_is_found():
    found = printing_release(REPO / "models" / "cards")
    assert found is not None and found.name == "2026-12-05-printings3"
    assert printing_release(REPO / "tests") is None


def test_the_players_can_take_the_table_back_to_the_bundled_release(tmp_path, monkeypatch):
    from fastapi.testclient import TestClient

    from device.web import create_app

    bundled, printings = Reader("bundled", 27, 14), Reader("printings", 27, 1)
    service, store = _table(tmp_path, monkeypatch, bundled, printings)
    service.capture("declarer")
    service.capture("defenders")
    assert service.printing_switched and store.meta(PRINTING_KEY) == "2026-12-04-printings"
    app = create_app(store=store, controller=service, photos_dir=service.photos_dir, pin="246813")
    with TestClient(app, base_url="http://table.local") as client:
        token = client.get("/login").text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        assert client.post("/settings/printing", data={"csrf": token}, follow_redirects=False).status_code in (
            401, 403), "changing the card reader needs the PIN"
        client.post("/login", data={"pin": "246813", "csrf": token, "next": "/settings"})
        page = client.get("/settings").text
        assert 'id="printing-switched"' in page and "28 of the last 54 cards read were unsure" in page
        r = client.post("/settings/printing", data={"csrf": token}, follow_redirects=False)
        assert r.status_code == 303
        assert 'id="printing-switched"' not in client.get("/settings").text
    assert store.meta(PRINTING_KEY) == "reference" and service.printing_switched is None
    assert "the players said the cards are the reference printing" in service.status()["model"]["message"]
    for side in ("declarer", "defenders") * 3:      # unsure reads no longer switch it, now or after a restart
        service.capture(side)
    assert printings.calls == 2 and bundled.calls == 8     # the switch's photo and the one before it
    service.stop()
    store.close()
    again, store = _table(tmp_path, monkeypatch, bundled, printings)
    assert again.loads[-1] is None and again._printing is None
    again.stop()
    store.close()
