"""/healthz: the controller's status, 503 when any part is not ok (for systemd and a glance at the table)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from device.web.deps import Ctx

router = APIRouter(tags=["health"])


def all_ok(status: dict) -> bool:
    return all(part.get("ok", True) for part in status.values() if isinstance(part, dict))


@router.get("/healthz")
def healthz(c: Ctx):
    try:
        status = c.controller.status()
    except Exception as exc:  # noqa: BLE001 -- a broken controller is exactly what the health check must report
        status = {"controller": {"ok": False, "message": f"{type(exc).__name__}: {exc}"}}
    status = {**status, "web_store": {"ok": c.store.integrity_ok()}}
    return JSONResponse(status, status_code=200 if all_ok(status) else 503)
