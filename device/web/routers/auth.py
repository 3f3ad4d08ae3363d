"""Logging in with the table's PIN (sets the signed session cookie) and out again."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse

from device.web import security
from device.web.deps import Ctx, check_csrf, render, session_data

router = APIRouter(tags=["auth"])


def _safe_next(target: str) -> str:
    # Only local paths: an open redirect would let another site bounce players through the login.
    return target if target.startswith("/") and not target.startswith("//") else "/"


@router.get("/login")
def login_page(request: Request, next: str = "/"):
    return render(request, "login.html", next=_safe_next(next), error=None)


@router.post("/login")
async def login(
    request: Request, c: Ctx, pin: Annotated[str, Form()] = "", next: Annotated[str, Form()] = "/"
):
    await check_csrf(request)
    if not c.gate.check(pin, security.client_key(request)):
        return render(request, "login.html", status_code=401, next=_safe_next(next), error="Wrong PIN.")
    sess = session_data(request)
    c.logins.close(sess.get("sid"))
    sess.update(auth=True, sid=c.logins.open())  # a fresh login id: logout or a new PIN revokes it
    return RedirectResponse(_safe_next(next), status_code=303)


@router.post("/logout")
async def logout(request: Request, c: Ctx):
    await check_csrf(request)
    sess = session_data(request)
    c.logins.close(sess.pop("sid", None))  # this cookie, and any copy of it, no longer writes
    sess["auth"] = False
    return RedirectResponse("/", status_code=303)
