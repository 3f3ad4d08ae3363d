"""Shared pieces of the web app: the controller seam, the app's context and the dependencies routes use."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Protocol

from fastapi import Depends, HTTPException, Request
from fastapi.templating import Jinja2Templates

from device.storage import Store
from device.web import security


class TableController(Protocol):
    """What the web asks of the table service (device.service.TableService implements it)."""

    def capture(self, side: str | None = None) -> int:
        """Take a photo now, recognise, store; returns the capture id; raises CameraError (a RuntimeError)."""

    def status(self) -> dict:
        """{"camera": {"ok", "message"}, "model": {...}, "calibration": {...}, "store": {...},
        "disk_free_mb": float, "last_capture_age_s": float | None}."""


@dataclass(frozen=True, slots=True)
class WebContext:
    store: Store
    controller: TableController
    photos_dir: Path
    gate: security.PinGate
    signer: security.CookieSigner
    logins: security.Logins
    integrity: Any  # routers.health.IntegrityWatch
    templates: Jinja2Templates
    settings: dict


def ctx(request: Request) -> WebContext:
    return request.app.state.ctx


def session_data(request: Request) -> dict:
    """The visitor's cookie session ({"csrf", "auth", "sid"}), made by the middleware in app.py; "auth" is
    true only while its login ("sid") is open."""
    return request.state.session


Ctx = Annotated[WebContext, Depends(ctx)]


def current_session(c: Ctx) -> dict:
    """The evening being played; create_app makes one if the store has none."""
    session = c.store.current_session()
    if session is None:  # only if someone emptied the table behind our back
        raise HTTPException(409, "no evening set up; open Settings")
    return session


Evening = Annotated[dict, Depends(current_session)]


async def require_write(request: Request, c: Ctx) -> None:
    """Gate for every state-changing route: PIN header, or logged-in cookie + CSRF + same origin."""
    pin = request.headers.get(security.PIN_HEADER)
    if pin is not None:
        if not c.gate.check(pin, security.client_key(request)):
            raise HTTPException(401, "wrong PIN")
        return
    sess = session_data(request)
    if not sess.get("auth"):
        raise HTTPException(401, "PIN required: log in first, or send the X-Tarokcam-Pin header")
    await check_csrf(request)


async def check_csrf(request: Request) -> None:
    if not security.same_origin(request):
        raise HTTPException(403, "cross-origin request refused")
    token = await security.csrf_token_from(request)
    expected = session_data(request).get("csrf", "")
    if not token or not hmac.compare_digest(token, expected):
        raise HTTPException(403, "missing or stale CSRF token; reload the page")


def render(request: Request, name: str, status_code: int = 200, **context: Any):
    c = ctx(request)
    sess = session_data(request)
    return c.templates.TemplateResponse(
        request,
        name,
        {"csrf": sess.get("csrf", ""), "logged_in": bool(sess.get("auth")),
         "vision_problem": getattr(c.controller, "vision_problem", None), **context},
        status_code=status_code,
    )
