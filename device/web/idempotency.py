"""Idempotency keys: a form submission or API write sent twice (a double tap, a retry after a lost response)
is carried out once, and the repeat gets the first one's result.

Forms carry the key in a hidden `submission` field made when the page was drawn; API clients send an
`Idempotency-Key` header. The key and the id of what the first write made are kept in the store's meta
table (`idempotency.<kind>.<key>`), so a repeat after a restart is recognised too.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import threading
from collections.abc import Callable

from fastapi import HTTPException

FORM_FIELD = "submission"
HEADER = "Idempotency-Key"
_KEY = re.compile(r"[A-Za-z0-9_-]{8,100}")
# One lock per kind of write: the repeat of a write still in progress waits for it, then reads its result.
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()


def new_key() -> str:
    return secrets.token_urlsafe(16)


def checked(key: str | None) -> str | None:
    """The key as sent, None when none was sent; 422 for a key that is no key."""
    if key is None or key == "":
        return None
    if not _KEY.fullmatch(key):
        raise HTTPException(422, f"{HEADER}: expected 8 to 100 letters, digits, '-' or '_'")
    return key


def once(store, kind: str, key: str | None, work: Callable[[], int], atomic: bool = False) -> tuple[int, bool]:
    """(id, True) after running `work` (which returns the id of what it made), or (id, False) with the
    id the first write under this key made. Without a key, `work` always runs. With `atomic` (work that only
    writes to the store), what it writes and the key are one transaction: a power cut between them cannot
    leave a saved hand whose repeat would save it again."""
    if key is None:
        return work(), True
    with _LOCKS_LOCK:
        lock = _LOCKS.setdefault(kind, threading.Lock())
    name = f"idempotency.{kind}.{key}"
    with lock:
        done = store.meta(name)
        if done is not None:
            return int(done), False
        with store.atomic() if atomic else contextlib.nullcontext():
            made = work()
            store.set_meta(name, str(made))
        return made, True
