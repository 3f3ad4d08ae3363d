"""Logging in with the table's PIN (sets the signed session cookie) and out again."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse

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
    if not c.gate.check(pin):
        return render(request, "login.html", status_code=401, next=_safe_next(next), error="Wrong PIN.")
    session_data(request)["auth"] = True
    return RedirectResponse(_safe_next(next), status_code=303)


@router.post("/logout")
async def logout(request: Request):
    await check_csrf(request)
    session_data(request)["auth"] = False
    return RedirectResponse("/", status_code=303)
