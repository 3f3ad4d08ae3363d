"""The store under faults (issue 16): a full or read-only database names its cause, card ids are upper-cased,
meta keys by prefix, and the photo names a sweep must keep."""
from __future__ import annotations

import sqlite3

import pytest

from device.storage import Store, StoreError

REC = [{"id": "T21", "confidence": 0.9, "pips": 4, "quad": [[0, 0], [10, 0], [10, 20], [0, 20]], "flagged": False}]


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "t.sqlite")
    yield s
    s.close()


def test_a_lowercase_card_id_is_stored_upper_case(store):
    cid = store.add_capture(photo="a.jpg", side=None, width=10, height=10, recognitions=REC)
    store.add_correction(cid, action="replace", card_index=0, new_id="t1")
    store.add_correction(cid, action="add", new_id=" skus ")
    assert [c["id"] for c in store.get_capture(cid)["cards"]] == ["T1", "SKUS"]
    assert [c["new_id"] for c in store.corrections(cid)] == ["T1", "SKUS"]


def test_a_full_database_raises_its_own_error_not_a_rollback_error(store):
    store.add_session(game="slovenian", players=["A", "B", "C", "D"], system="simplified")
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(sqlite3.OperationalError) as err:
        for n in range(10_000):
            store.set_meta(f"k{n}", "x" * 500)
    assert "full" in str(err.value) and "no transaction" not in str(err.value)
    assert store.write_error and "full" in store.write_error
    assert store.probe_write() is not None  # still no room
    store._db.execute("PRAGMA max_page_count = 1073741823")
    assert store.probe_write() is None and store.write_error is None
    assert store.meta("write_probe") is None  # the probe takes itself back


def test_a_read_only_database_says_so(store):
    store._db.execute("PRAGMA query_only = 1")
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        store.set_meta("k", "v")
    assert "readonly" in store.write_error
    store._db.execute("PRAGMA query_only = 0")
    store.set_meta("k", "v")
    assert store.write_error is None


def test_a_constraint_error_is_not_a_storage_fault(store):
    with pytest.raises(sqlite3.IntegrityError):
        store._write("INSERT INTO captures(created_at, photo, width, height, recognitions, side) "
                     "VALUES (0, 'a', 1, 1, '[]', 'sideways')")
    assert store.write_error is None


def test_meta_by_prefix(store):
    for key in ("login:a", "login:b", "loginx", "other"):
        store.set_meta(key, "1")
    assert set(store.meta_prefix("login:")) == {"login:a", "login:b"}
    assert store.delete_meta_prefix("login:") == 2
    assert store.meta_prefix("login") == {"loginx": "1"}
    store.delete_meta("loginx")
    assert store.meta("loginx") is None


def test_photo_names(store):
    store.add_capture(photo="2026-12-01/a.jpg", side=None, width=1, height=1, recognitions=[])
    assert store.photo_names() == {"2026-12-01/a.jpg"}


@pytest.mark.parametrize("players, words", [
    (["North\x00", "E", "S", "W"], "control"), (["North\u202eAnA", "E", "S", "W"], "text-direction"),
    (["N" * 200_000, "E", "S", "W"], "at most 40"), (["Ana, Bor", "E", "S", "W"], "comma"),
    (["=1+2", "E", "S", "W"], "spreadsheet"), (["@SUM(A1)", "E", "S", "W"], "spreadsheet"), (["", "E"], "not a name"),
])
def test_an_evening_with_bad_names_is_not_stored(store, players, words):
    with pytest.raises(StoreError, match=words):
        store.add_session(game="slovenian", players=players, system="simplified")
    sid = store.add_session(game="slovenian", players=["Ana", "Bor", "Cene", "Dora"], system="simplified")
    with pytest.raises(StoreError, match=words):
        store.update_session(sid, game="slovenian", players=players, system="simplified")
    assert store.get_session(sid)["players"] == ["Ana", "Bor", "Cene", "Dora"]


@pytest.mark.parametrize("tariffs", [{"target": float("nan")}, {"tariff": {"simplified": {"three": float("inf")}}}])
def test_an_evening_with_nan_or_infinite_tariffs_is_not_stored(store, tariffs):
    with pytest.raises(StoreError, match="NaN or infinite"):
        store.add_session(game="slovenian", players=["A", "B", "C", "D"], system="simplified", tariffs=tariffs)
