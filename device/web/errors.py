"""Error pages for people: a page request (a browser asking for HTML, outside /api/) that fails gets an
HTML page that says what went wrong, in words, with a way back; the JSON API keeps its JSON errors.

`html_error_pages(app)` wraps the exception handlers app.py has registered, so each error keeps its status
and message and only its form changes."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from device.web.deps import render

TITLES = {
    400: "That request could not be used",
    403: "Not allowed",
    404: "Not found",
    409: "Changed meanwhile",
    413: "Too much at once",
    422: "Something in it is not right",
    429: "Too many tries",
    503: "The table cannot do that now",
    507: "The table's disk is full",
}


def wants_page(request: Request) -> bool:
    return "text/html" in request.headers.get("accept", "") and not request.url.path.startswith("/api/")


def html_error_pages(app: FastAPI) -> None:
    for kind, handler in list(app.exception_handlers.items()):
        app.exception_handlers[kind] = _as_page(handler)


def _as_page(handler):
    async def handle(request: Request, exc: Exception):
        response = await handler(request, exc)
        if not (wants_page(request) and isinstance(response, JSONResponse) and response.status_code >= 400):
            return response
        try:
            message = json.loads(bytes(response.body)).get("error") or ""
        except ValueError:
            message = ""
        return render(
            request,
            "error.html",
            status_code=response.status_code,
            status=response.status_code,
            title=TITLES.get(response.status_code, "Something went wrong"),
            message=message,
            back=_back(request),
        )

    return handle


def _back(request: Request) -> str:
    """Where "Back" goes: the page the player came from on this table, else the Capture page."""
    referer = request.headers.get("referer", "")
    parts = urlsplit(referer)
    if referer and parts.netloc == request.url.netloc and parts.path != request.url.path:
        return parts.path + (f"?{parts.query}" if parts.query else "")
    if request.url.path.startswith("/login"):
        return "/login"
    return "/capture"
