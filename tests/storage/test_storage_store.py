"""device.storage.Store: migrations, pragmas, captures and corrections, durable hands."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from device import storage
from device.storage import MIGRATIONS, NotFoundError, Store, StoreError

REC = [
    {
        "id": "T21",
        "confidence": 0.9,
        "pips": 4,
        "quad": [[0, 0], [10, 0], [10, 20], [0, 20]],
        "flagged": False,
    },
    {
        "id": "HQ",
        "confidence": 0.4,
        "pips": 3,
        "quad": [[20, 0], [30, 0], [30, 20], [20, 20]],
        "flagged": True,
    },
]
HAND = {
    "game": "slovenian",
    "players": ["A", "B", "C", "D"],
    "declarer": "A",
    "partner": "B",
    "contract": "three",
    "card_points": "40",
}


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "state" / "t.sqlite")
    yield s
    s.close()


def test_new_store_is_migrated_with_wal_fk_and_full_sync(store):
    assert store.schema_version == len(MIGRATIONS)
    db = store._db
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert store.integrity_ok()


def test_store_from_a_newer_program_is_refused(tmp_path):
    path = tmp_path / "t.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(StoreError, match="newer"):
        Store(path)


def test_failed_migration_leaves_the_version_where_it_was(tmp_path, monkeypatch):
    path = tmp_path / "t.sqlite"
    Store(path).close()
    monkeypatch.setattr(storage, "MIGRATIONS", MIGRATIONS + ("CREATE TABLE ok_part (x);\nNOT SQL AT ALL;",))
    with pytest.raises(sqlite3.OperationalError):
        Store(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert not db.execute("SELECT name FROM sqlite_master WHERE name = 'ok_part'").fetchall()


def test_capture_round_trip_and_latest(store):
    assert store.latest_capture() is None
    first = store.add_capture(photo="a.jpg", side="declarer", width=100, height=50, recognitions=REC)
    second = store.add_capture(
        photo="sub/b.jpg", side=None, width=100, height=50, recognitions=[], error="blurry"
    )
    assert store.latest_capture()["id"] == second == store.latest_capture_id()
    got = store.get_capture(first)
    assert got["photo"] == "a.jpg" and got["side"] == "declarer" and got["recognitions"] == REC
    assert [c["id"] for c in got["cards"]] == ["T21", "HQ"]
    assert store.get_capture(second)["error"] == "blurry"
    with pytest.raises(NotFoundError):
        store.get_capture(999)


@pytest.mark.parametrize("photo", ["/etc/passwd", "../outside.jpg", "a/../../b.jpg"])
def test_photo_paths_must_stay_under_the_photos_dir(store, photo):
    with pytest.raises(StoreError, match="relative"):
        store.add_capture(photo=photo, side=None, width=1, height=1, recognitions=[])


def test_bad_side_is_refused(store):
    with pytest.raises(StoreError, match="side"):
        store.add_capture(photo="a.jpg", side="north", width=1, height=1, recognitions=[])


def test_a_capture_read_again_replaces_its_reads_and_pile_read_together_unless_corrected(store):
    cid = store.add_capture(photo="a.jpg", side="declarer", width=100, height=50, recognitions=REC)
    store.set_meta(f"pile.{cid}", '{"old": 1}')
    again = [dict(REC[1], flagged=False, confidence=0.97)]
    assert store.replace_recognitions(cid, again, f"pile.{cid}", '{"new": 1}')
    assert store.get_capture(cid)["recognitions"] == again and store.meta(f"pile.{cid}") == '{"new": 1}'
    # corrections point at the cards by index: a corrected capture keeps what the players corrected
    store.add_correction(cid, action="remove", card_index=0)
    assert not store.replace_recognitions(cid, REC, f"pile.{cid}", '{"newer": 1}')
    assert store.get_capture(cid)["recognitions"] == again and store.meta(f"pile.{cid}") == '{"new": 1}'
    with pytest.raises(NotFoundError):
        store.replace_recognitions(999, REC)


def test_corrections_replay_in_order_and_keep_indices(store):
    cid = store.add_capture(photo="a.jpg", side="declarer", width=100, height=50, recognitions=REC)
    store.add_correction(cid, action="replace", card_index=1, new_id="HK", crop="crops/1.png")
    store.add_correction(cid, action="remove", card_index=0)
    store.add_correction(cid, action="add", new_id="SKUS")
    cards = store.get_capture(cid)["cards"]
    assert [(c["id"], c["source"], c["removed"]) for c in cards] == [
        ("T21", "model", True),
        ("HK", "corrected", False),
        ("SKUS", "added", False),
    ]
    assert not cards[1]["flagged"]
    store.add_correction(cid, action="restore", card_index=0)
    assert not store.get_capture(cid)["cards"][0]["removed"]
    rows = store.corrections(cid)
    assert [(r["action"], r["old_id"], r["new_id"]) for r in rows] == [
        ("replace", "HQ", "HK"),
        ("remove", "T21", None),
        ("add", None, "SKUS"),
        ("restore", "T21", None),
    ]
    assert rows[0]["crop"] == "crops/1.png" and rows[0]["quad"] == REC[1]["quad"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"action": "replace", "card_index": 5, "new_id": "T1"}, "index 5"),
        ({"action": "replace", "card_index": 0}, "new card"),
        ({"action": "add"}, "added card"),
        ({"action": "flip", "card_index": 0}, "action"),
    ],
)
def test_bad_corrections_are_refused_and_not_stored(store, kwargs, message):
    cid = store.add_capture(photo="a.jpg", side=None, width=1, height=1, recognitions=REC)
    with pytest.raises(StoreError, match=message):
        store.add_correction(cid, **kwargs)
    assert store.corrections(cid) == []


def test_hands_save_update_delete(store):
    sid = store.add_session(game="slovenian", players=["A", "B", "C", "D"], system="simplified")
    h1 = store.save_hand(sid, HAND, {"simplified": {"A": 3}})
    h2 = store.save_hand(sid, {**HAND, "declarer": "C"}, {"simplified": {"C": 3}})
    assert [h["id"] for h in store.hands(sid)] == [h1, h2]
    store.update_hand(h1, {**HAND, "card_points": "20"}, {"simplified": {"A": -3}})
    assert store.get_hand(h1)["hand"]["card_points"] == "20"
    assert store.get_hand(h1)["result"] == {"simplified": {"A": -3}}
    store.delete_hand(h1)
    assert [h["id"] for h in store.hands(sid)] == [h2]
    with pytest.raises(NotFoundError):
        store.delete_hand(h1)
    with pytest.raises(NotFoundError):
        store.save_hand(sid + 100, HAND, {})


def test_pending_captures_skip_those_a_hand_used(store):
    sid = store.add_session(game="slovenian", players=["A", "B", "C", "D"], system="simplified")
    d = store.add_capture(photo="d.jpg", side="declarer", width=1, height=1, recognitions=[])
    f = store.add_capture(photo="f.jpg", side="defenders", width=1, height=1, recognitions=[])
    pending = store.pending_captures(sid)
    assert pending["declarer"]["id"] == d and pending["defenders"]["id"] == f
    store.save_hand(sid, HAND, {}, captures={"declarer": d, "defenders": f})
    assert store.pending_captures(sid) == {"declarer": None, "defenders": None}
    d2 = store.add_capture(photo="d2.jpg", side="declarer", width=1, height=1, recognitions=[])
    assert store.pending_captures(sid)["declarer"]["id"] == d2


def test_sessions_and_meta(store):
    assert store.current_session() is None
    a = store.add_session(game="slovenian", players=["A", "B", "C", "D"], system="simplified")
    b = store.add_session(
        game="hungarian",
        players=["A", "B", "C", "D"],
        system="traditional",
        tariffs={"quick": True},
        name="Friday",
    )
    assert store.current_session()["id"] == b
    store.update_session(a, game="slovenian", players=["W", "X", "Y", "Z"], system="traditional")
    assert store.get_session(a)["players"] == ["W", "X", "Y", "Z"]
    assert store.get_session(b)["tariffs"] == {"quick": True}
    assert store.meta("k") is None
    store.set_meta("k", "1")
    store.set_meta("k", "2")
    assert store.meta("k") == "2"


def test_confirmed_hand_survives_a_crash_right_after_saving(tmp_path):
    """A process that dies (no close, no clean exit) just after save_hand returns loses nothing."""
    path = tmp_path / "t.sqlite"
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(Path(storage.__file__).parents[1])!r})
        from device.storage import Store
        s = Store({str(path)!r})
        sid = s.add_session(game="slovenian", players=["A", "B", "C", "D"], system="simplified")
        s.save_hand(sid, {HAND!r}, {{"simplified": {{"A": 3}}}})
        os._exit(0)
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    reopened = Store(path)
    try:
        assert [h["hand"] for h in reopened.hands(1)] == [HAND]
        assert reopened.integrity_ok()
    finally:
        reopened.close()


def test_writes_in_an_atomic_block_land_together_or_not_at_all(store):
    sid = store.add_session(game="slovenian", players=["A", "B", "C", "D"], system="simplified")
    with pytest.raises(RuntimeError), store.atomic():
        store.save_hand(sid, HAND, {})
        raise RuntimeError("power cut")
    assert store.hands(sid) == []
    with store.atomic():
        hid = store.save_hand(sid, HAND, {})
        with store.atomic():            # nested: one transaction still
            store.set_meta("k", str(hid))
    assert [h["id"] for h in store.hands(sid)] == [hid] and store.meta("k") == str(hid)
    store.set_meta("after", "1")        # plain writes still commit on their own afterwards
    assert store.meta("after") == "1"


def test_a_saved_hand_and_its_idempotency_key_cannot_come_apart(store, monkeypatch):
    """The key is written in the hand's transaction: if writing it fails, the hand is not saved either, so
    the retry saves it once."""
    from device.web import idempotency

    sid = store.add_session(game="slovenian", players=["A", "B", "C", "D"], system="simplified")
    real = store.set_meta

    def dies(key, value):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store, "set_meta", dies)
    with pytest.raises(sqlite3.OperationalError):
        idempotency.once(store, "hand", "key-12345678", lambda: store.save_hand(sid, HAND, {}), atomic=True)
    assert store.hands(sid) == []
    monkeypatch.setattr(store, "set_meta", real)
    first = idempotency.once(store, "hand", "key-12345678", lambda: store.save_hand(sid, HAND, {}), atomic=True)
    again = idempotency.once(store, "hand", "key-12345678", lambda: store.save_hand(sid, HAND, {}), atomic=True)
    assert first == (again[0], True) and again[1] is False and len(store.hands(sid)) == 1
