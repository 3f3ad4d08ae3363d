"""The table's SQLite store: evenings (sessions), captures, card corrections and confirmed hands.

One file under the state directory, WAL journal, foreign keys on, synchronous=FULL so that a
confirmed hand is on disk when `save_hand` returns: a power cut after that loses nothing.
The schema grows by appending to MIGRATIONS; PRAGMA user_version records how many ran.

Card lists are never rewritten in place: a capture keeps the model's recognitions and every
correction is a row of its own (with the crop of the card's index), so the current list is the
recognitions replayed through the corrections, and the corrections can become training data.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from pathlib import Path

SIDES = ("declarer", "defenders")
ACTIONS = ("replace", "add", "remove", "restore")

# Each entry runs once, in order, inside one transaction; never edit a released entry, append one.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE sessions (
        id INTEGER PRIMARY KEY,
        created_at REAL NOT NULL,
        name TEXT NOT NULL DEFAULT '',
        game TEXT NOT NULL,
        players TEXT NOT NULL,            -- JSON list of names in seat order
        system TEXT NOT NULL CHECK (system IN ('simplified', 'traditional')),
        tariffs TEXT NOT NULL DEFAULT '{}' -- JSON: the group's tariff overrides
    );
    CREATE TABLE captures (
        id INTEGER PRIMARY KEY,
        created_at REAL NOT NULL,
        session_id INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
        side TEXT CHECK (side IS NULL OR side IN ('declarer', 'defenders')),
        photo TEXT NOT NULL,              -- relative to the photos directory
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        recognitions TEXT NOT NULL,       -- JSON list of {id, confidence, pips, quad, flagged}
        error TEXT
    );
    CREATE TABLE corrections (
        id INTEGER PRIMARY KEY,
        created_at REAL NOT NULL,
        capture_id INTEGER NOT NULL REFERENCES captures(id) ON DELETE CASCADE,
        action TEXT NOT NULL CHECK (action IN ('replace', 'add', 'remove', 'restore')),
        card_index INTEGER,               -- position in the capture's card list (NULL for add)
        old_id TEXT,
        new_id TEXT,
        quad TEXT,                        -- JSON quad of the card's index, when known
        crop TEXT                         -- crop file relative to the photos directory
    );
    CREATE TABLE hands (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        hand TEXT NOT NULL,               -- JSON hand dict as confirmed by the players
        result TEXT NOT NULL,             -- JSON HandResult.to_json() at the time of saving
        declarer_capture INTEGER REFERENCES captures(id) ON DELETE SET NULL,
        defenders_capture INTEGER REFERENCES captures(id) ON DELETE SET NULL
    );
    CREATE INDEX hands_by_session ON hands(session_id, id);
    CREATE INDEX corrections_by_capture ON corrections(capture_id, id);
    """,
)


class StoreError(ValueError):
    """A request the store cannot honour (bad side, action or index); the message says which."""


class NotFoundError(StoreError):
    """No row with that id."""


class Store:
    """Thread-safe SQLite store; one connection guarded by a lock (the web app runs handlers in threads)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.write_error: str | None = None  # why the last write failed; None once one succeeds
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._atomic = False
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._migrate()

    # -- plumbing -----------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self._lock:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise StoreError(
                    f"{self.path}: schema version {version} is newer than this program "
                    f"({len(MIGRATIONS)}); upgrade tarokcam"
                )
            for number, sql in enumerate(MIGRATIONS[version:], start=version + 1):
                # executescript commits first, so the script carries its own transaction.
                self._db.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version={number};\nCOMMIT;")

    @property
    def schema_version(self) -> int:
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    @contextlib.contextmanager
    def atomic(self):
        """Every write inside the block is one transaction: committed together (FULL sync) at its end, or
        none of them (a power cut, an error). Holds the store for the block, so keep it to database work."""
        with self._lock:
            if self._atomic:
                yield
                return
            self._atomic = True
            try:
                self._db.execute("BEGIN IMMEDIATE")
                yield
                self._db.execute("COMMIT")
            except BaseException as exc:
                self._failed(exc)
                raise
            finally:
                self._atomic = False
            self.write_error = None

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.IntegrityError):
            self.write_error = f"{type(exc).__name__}: {exc}"  # disk full, read-only, damaged
        # A failed COMMIT (disk full, read-only) may already have rolled back: then ROLLBACK itself
        # fails with "no transaction is active" and would hide the real cause.
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    def _write(self, sql: str, params: tuple = ()) -> int:
        """Run one statement in its own transaction (or the enclosing `atomic` block's); committed (FULL sync)
        on return. Returns the new row id of an INSERT."""
        with self._lock:
            if self._atomic:
                return self._db.execute(sql, params).lastrowid
            try:
                self._db.execute("BEGIN IMMEDIATE")
                cur = self._db.execute(sql, params)
                self._db.execute("COMMIT")
            except BaseException as exc:
                self._failed(exc)
                raise
            self.write_error = None
            return cur.lastrowid

    def _rows(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def integrity_ok(self) -> bool:
        return self._rows("PRAGMA integrity_check")[0][0] == "ok"

    def probe_write(self) -> str | None:
        """Try a write the size of a big hand (64 KiB) and take it back; None when it was committed, else why
        not. Clears `write_error` on success, so /healthz recovers by itself once space is back."""
        try:
            self.set_meta("write_probe", "x" * 65536)
            self.delete_meta("write_probe")
        except sqlite3.Error as exc:
            return f"{type(exc).__name__}: {exc}"
        return None

    def meta(self, key: str, default: str | None = None) -> str | None:
        row = self._rows("SELECT value FROM meta WHERE key = ?", (key,))
        return row[0]["value"] if row else default

    def set_meta(self, key: str, value: str) -> None:
        self._write(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def meta_prefix(self, prefix: str) -> dict[str, str]:
        """Every meta key starting with `prefix`, with its value."""
        rows = self._rows("SELECT key, value FROM meta WHERE substr(key, 1, ?) = ?", (len(prefix), prefix))
        return {r["key"]: r["value"] for r in rows}

    def delete_meta(self, key: str) -> None:
        self._write("DELETE FROM meta WHERE key = ?", (key,))

    def delete_meta_prefix(self, prefix: str) -> int:
        """Delete every meta key starting with `prefix`; returns how many there were."""
        n = len(self.meta_prefix(prefix))
        self._write("DELETE FROM meta WHERE substr(key, 1, ?) = ?", (len(prefix), prefix))
        return n

    # -- sessions (evenings) --------------------------------------------------------------------
    def add_session(
        self, *, game: str, players: list[str], system: str, tariffs: dict | None = None, name: str = ""
    ) -> int:
        _check_evening(list(players), tariffs)
        return self._write(
            "INSERT INTO sessions(created_at, name, game, players, system, tariffs) VALUES (?,?,?,?,?,?)",
            (time.time(), name, game, json.dumps(list(players)), system, json.dumps(tariffs or {})),
        )

    def update_session(
        self,
        session_id: int,
        *,
        game: str,
        players: list[str],
        system: str,
        tariffs: dict | None = None,
        name: str = "",
    ) -> None:
        self.get_session(session_id)
        _check_evening(list(players), tariffs)
        self._write(
            "UPDATE sessions SET name=?, game=?, players=?, system=?, tariffs=? WHERE id=?",
            (name, game, json.dumps(list(players)), system, json.dumps(tariffs or {}), session_id),
        )

    def get_session(self, session_id: int) -> dict:
        rows = self._rows("SELECT * FROM sessions WHERE id = ?", (session_id,))
        if not rows:
            raise NotFoundError(f"session {session_id}: no such evening")
        return _session(rows[0])

    def current_session(self) -> dict | None:
        """The evening being played: the most recently started one."""
        rows = self._rows("SELECT * FROM sessions ORDER BY id DESC LIMIT 1")
        return _session(rows[0]) if rows else None

    def sessions(self) -> list[dict]:
        return [_session(r) for r in self._rows("SELECT * FROM sessions ORDER BY id")]

    # -- captures -----------------------------------------------------------------------------
    def add_capture(
        self,
        *,
        photo: str,
        side: str | None,
        width: int,
        height: int,
        recognitions: list[dict],
        error: str | None = None,
        session_id: int | None = None,
    ) -> int:
        _check_side(side)
        if Path(photo).is_absolute() or ".." in Path(photo).parts:
            raise StoreError(f"photo {photo!r}: must be a path relative to the photos directory")
        return self._write(
            "INSERT INTO captures(created_at, session_id, side, photo, width, height, recognitions, error) "
            "VALUES (?,?,?,?,?,?,?,?)",
            (
                time.time(),
                session_id,
                side,
                photo,
                int(width),
                int(height),
                json.dumps(list(recognitions)),
                error,
            ),
        )

    def photo_names(self) -> set[str]:
        """Every photo path a capture row names (relative to the photos directory)."""
        return {r["photo"] for r in self._rows("SELECT photo FROM captures")}

    def latest_capture(self) -> dict | None:
        rows = self._rows("SELECT id FROM captures ORDER BY id DESC LIMIT 1")
        return self.get_capture(rows[0]["id"]) if rows else None

    def latest_capture_id(self) -> int | None:
        rows = self._rows("SELECT MAX(id) AS id FROM captures")
        return rows[0]["id"]

    def get_capture(self, capture_id: int) -> dict:
        """The capture with `cards`: the recognitions replayed through the corrections.

        Each card: {"index", "id", "confidence", "pips", "quad", "flagged", "source", "removed"};
        source is "model", "corrected" or "added". Removed cards keep their index, so later
        corrections still point at the right card.
        """
        rows = self._rows("SELECT * FROM captures WHERE id = ?", (capture_id,))
        if not rows:
            raise NotFoundError(f"capture {capture_id}: no such capture")
        row = rows[0]
        capture = {
            k: row[k] for k in ("id", "created_at", "session_id", "side", "photo", "width", "height", "error")
        }
        capture["recognitions"] = json.loads(row["recognitions"])
        cards = [
            dict(r, index=i, source="model", removed=False) for i, r in enumerate(capture["recognitions"])
        ]
        for c in self.corrections(capture_id):
            _replay(cards, c)
        capture["cards"] = cards
        return capture

    def replace_recognitions(self, capture_id: int, recognitions: list[dict], pile_key: str | None = None,
                             pile: str | None = None) -> bool:
        """The capture's recognitions read again (and its pile read, meta `pile_key`, with them, in one
        transaction), unless the players have corrected it: corrections point at its cards by index. Returns
        whether they were replaced."""
        self.get_capture(capture_id)
        with self.atomic():
            if self._rows("SELECT 1 FROM corrections WHERE capture_id = ? LIMIT 1", (capture_id,)):
                return False
            self._write("UPDATE captures SET recognitions = ? WHERE id = ?",
                        (json.dumps(list(recognitions)), capture_id))
            if pile_key is not None and pile is not None:
                self.set_meta(pile_key, pile)
        return True

    def set_capture_side(self, capture_id: int, side: str | None) -> None:
        _check_side(side)
        self.get_capture(capture_id)
        self._write("UPDATE captures SET side = ? WHERE id = ?", (side, capture_id))

    def pending_captures(self, session_id: int | None) -> dict[str, dict | None]:
        """The latest capture of each side not yet used by a confirmed hand of this evening."""
        used = (
            self._rows(
                "SELECT MAX(MAX(COALESCE(declarer_capture, 0)), MAX(COALESCE(defenders_capture, 0))) AS m "
                "FROM hands WHERE session_id IS ?",
                (session_id,),
            )[0]["m"]
            or 0
        )
        out: dict[str, dict | None] = {}
        for side in SIDES:
            rows = self._rows(
                "SELECT id FROM captures WHERE side = ? AND id > ? ORDER BY id DESC LIMIT 1", (side, used)
            )
            out[side] = self.get_capture(rows[0]["id"]) if rows else None
        return out

    # -- corrections --------------------------------------------------------------------------
    def add_correction(
        self,
        capture_id: int,
        *,
        action: str,
        card_index: int | None = None,
        new_id: str | None = None,
        quad: list | None = None,
        crop: str | None = None,
    ) -> int:
        """Record one correction; checks it against the capture's current card list first."""
        if action not in ACTIONS:
            raise StoreError(f"action {action!r}: expected one of {', '.join(ACTIONS)}")
        if isinstance(new_id, str):
            new_id = new_id.strip().upper()  # deck ids are upper case: "t1" is stored as T1
        cards = self.get_capture(capture_id)["cards"]
        old_id = None
        if action == "add":
            if not new_id:
                raise StoreError("card: an added card needs its id")
        else:
            if card_index is None or not 0 <= card_index < len(cards):
                raise StoreError(f"index {card_index}: capture {capture_id} has cards 0..{len(cards) - 1}")
            old_id = cards[card_index]["id"]
            if action == "replace" and not new_id:
                raise StoreError("card: a replacement needs the new card's id")
            quad = quad if quad is not None else cards[card_index].get("quad")
        correction = {
            "action": action,
            "card_index": card_index,
            "new_id": new_id,
            "old_id": old_id,
            "quad": quad,
        }
        _replay(list(cards), correction)  # raises on a correction that cannot apply
        return self._write(
            "INSERT INTO corrections(created_at, capture_id, action, card_index, old_id, new_id, quad, crop) "
            "VALUES (?,?,?,?,?,?,?,?)",
            (
                time.time(),
                capture_id,
                action,
                card_index,
                old_id,
                new_id,
                json.dumps(quad) if quad is not None else None,
                crop,
            ),
        )

    def corrections(self, capture_id: int | None = None) -> list[dict]:
        sql, params = "SELECT * FROM corrections ORDER BY id", ()
        if capture_id is not None:
            sql, params = "SELECT * FROM corrections WHERE capture_id = ? ORDER BY id", (capture_id,)
        out = []
        for r in self._rows(sql, params):
            c = dict(r)
            c["quad"] = json.loads(c["quad"]) if c["quad"] else None
            out.append(c)
        return out

    # -- hands --------------------------------------------------------------------------------
    def save_hand(
        self, session_id: int, hand: dict, result: dict, *, captures: dict[str, int | None] | None = None
    ) -> int:
        """Store a confirmed hand; it is committed with synchronous=FULL when this returns."""
        self.get_session(session_id)
        captures = captures or {}
        now = time.time()
        return self._write(
            "INSERT INTO hands(session_id, created_at, updated_at, hand, result, declarer_capture, "
            "defenders_capture) VALUES (?,?,?,?,?,?,?)",
            (
                session_id,
                now,
                now,
                json.dumps(hand),
                json.dumps(result),
                captures.get("declarer"),
                captures.get("defenders"),
            ),
        )

    def update_hand(self, hand_id: int, hand: dict, result: dict) -> None:
        self.get_hand(hand_id)
        self._write(
            "UPDATE hands SET hand = ?, result = ?, updated_at = ? WHERE id = ?",
            (json.dumps(hand), json.dumps(result), time.time(), hand_id),
        )

    def delete_hand(self, hand_id: int) -> None:
        self.get_hand(hand_id)
        self._write("DELETE FROM hands WHERE id = ?", (hand_id,))

    def get_hand(self, hand_id: int) -> dict:
        rows = self._rows("SELECT * FROM hands WHERE id = ?", (hand_id,))
        if not rows:
            raise NotFoundError(f"hand {hand_id}: no such hand")
        return _hand(rows[0])

    def hands(self, session_id: int) -> list[dict]:
        """The evening's hands in playing order: {"id", "session_id", "hand", "result", ...}."""
        return [
            _hand(r)
            for r in self._rows("SELECT * FROM hands WHERE session_id = ? ORDER BY id", (session_id,))
        ]


MAX_NAME = 40
# Bidi embeddings, overrides and isolates reorder the text around them: a name that shows as one thing and
# sorts and compares as another.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
FORMULA_START = ("=", "+", "-", "@")  # a spreadsheet runs a CSV cell starting so as a formula


def _check_evening(players: list[str], tariffs: dict | None) -> None:
    """What no evening may store, whichever door it came through: names with control characters (NUL),
    text-direction controls, commas (names are listed with commas), a formula start, or over MAX_NAME
    characters; tariffs with NaN or infinite numbers (they break every later sum and the JSON sheet)."""
    import unicodedata

    for name in players:
        if not isinstance(name, str) or not name.strip():
            raise StoreError(f"players: {name!r} is not a name")
        if len(name) > MAX_NAME:
            raise StoreError(f"players: a name of {len(name)} characters; at most {MAX_NAME}")
        if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in name):
            raise StoreError(f"players: name {name!r} contains control characters")
        if any(ch in BIDI_CONTROLS for ch in name):
            raise StoreError(f"players: name {name!r} contains text-direction controls")
        if "," in name:
            raise StoreError(f"players: name {name!r} contains a comma (names are listed with commas)")
        if name.startswith(FORMULA_START):
            raise StoreError(f"players: name {name!r} starts with {name[0]!r} (a spreadsheet would run it)")
    try:
        json.dumps(tariffs or {}, allow_nan=False)
    except ValueError:
        raise StoreError("tariffs: a value is NaN or infinite; use a plain number") from None


check_evening = _check_evening   # the settings form runs the same checks before it asks the store


def _check_side(side: str | None) -> None:
    if side is not None and side not in SIDES:
        raise StoreError(f"side {side!r}: expected 'declarer', 'defenders' or none")


def _replay(cards: list[dict], c: dict) -> None:
    """Apply one correction to a card list in place."""
    action, i = c["action"], c["card_index"]
    if action == "add":
        cards.append(
            {
                "index": len(cards),
                "id": c["new_id"],
                "confidence": 1.0,
                "pips": None,
                "quad": c.get("quad"),
                "flagged": False,
                "source": "added",
                "removed": False,
            }
        )
        return
    card = cards[i] = dict(cards[i])
    if action == "replace":
        card.update(id=c["new_id"], source="corrected", flagged=False, confidence=1.0, removed=False)
    elif action == "remove":
        card["removed"] = True
    elif action == "restore":
        card["removed"] = False


def _session(row: sqlite3.Row) -> dict:
    s = dict(row)
    s["players"] = json.loads(s["players"])
    s["tariffs"] = json.loads(s["tariffs"])
    return s


def _hand(row: sqlite3.Row) -> dict:
    h = dict(row)
    h["hand"] = json.loads(h["hand"])
    h["result"] = json.loads(h["result"])
    return h
