"""/healthz: the controller's status, 503 when any part is not ok (for systemd and a glance at the table).

The database's full integrity check is slow on a big store (tens of ms), so it runs at start and then at most
hourly (`IntegrityWatch`), not on every call. A failed write (disk full, read-only) is reported until a small
probe write succeeds again, so /healthz clears by itself once space is back."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from device.web.deps import Ctx

router = APIRouter(tags=["health"])
INTEGRITY_EVERY_S = 3600.0


class IntegrityWatch:
    """`PRAGMA integrity_check` at construction and again when the last one is older than `every_s`."""

    def __init__(self, store, *, every_s: float = INTEGRITY_EVERY_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._store, self._every_s, self._clock = store, every_s, clock
        self._lock = threading.Lock()
        self.runs = 0
        self._check()

    def _check(self) -> None:
        try:
            ok = self._store.integrity_ok()
            message = "integrity check ok" if ok else "integrity check failed: the database is damaged"
        except Exception as exc:  # noqa: BLE001 -- a database that cannot even be checked is not ok
            ok, message = False, f"integrity check failed: {type(exc).__name__}: {exc}"
        self.ok, self.message, self.checked_at = ok, message, self._clock()
        self.runs += 1

    def status(self) -> dict:
        with self._lock:
            if self._clock() - self.checked_at >= self._every_s:
                self._check()
            age = self._clock() - self.checked_at
        return {"ok": self.ok, "message": f"{self.message} ({age:.0f} s ago)"}


def all_ok(status: dict) -> bool:
    return all(part.get("ok", True) for part in status.values() if isinstance(part, dict))


def store_write_status(store) -> dict:
    if getattr(store, "write_error", None) is None:
        return {"ok": True, "message": "last write committed"}
    problem = store.probe_write()  # space back, storage writable again: this clears the error
    if problem is None:
        return {"ok": True, "message": "writes work again"}
    from device.web.app import storage_fault
    return {"ok": False, "message": f"cannot write: {problem}",
            "cause": storage_fault(Exception(problem))[1]}


@router.get("/healthz")
def healthz(c: Ctx):
    try:
        status = c.controller.status()
    except Exception as exc:  # noqa: BLE001 -- a broken controller is exactly what the health check must report
        status = {"controller": {"ok": False, "message": f"{type(exc).__name__}: {exc}"}}
    status = {**status, "web_store": c.integrity.status(), "web_store_writes": store_write_status(c.store)}
    return JSONResponse(status, status_code=200 if all_ok(status) else 503)
