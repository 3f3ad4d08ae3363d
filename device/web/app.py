"""Wiring only: build the FastAPI app from its collaborators (store, controller, photos dir, PIN)."""

from __future__ import annotations

import errno
import html
import logging
import sqlite3
from pathlib import Path
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from device.storage import NotFoundError, Store, StoreError
from device.web import errors, scoring_adapter, security
from device.web.deps import TableController, WebContext
from device.web.routers import auth, captures, enrol, hands, health, questions, sheet, training
from device.web.routers import settings as settings_router

log = logging.getLogger(__name__)
HERE = Path(__file__).parent
DEFAULTS = {
    "game": "slovenian",
    "system": "simplified",
    "max_body_bytes": 1_000_000,
    "poll_ms": 2000,
}


def create_app(
    *,
    store: Store,
    controller: TableController,
    photos_dir: Path,
    pin: str,
    settings: dict | None = None,
    secret_file: Path | None = None,
) -> FastAPI:
    """The players' web app. `settings` may set game, players, system (for the first evening),
    max_body_bytes, poll_ms and allowed_hosts (the names the table answers to besides IP addresses;
    None: any Host header); unknown keys are kept for the templates. The cookie-signing secret lives in
    `secret_file` (default: `session_secret` next to the database), mode 0600."""
    settings = {**DEFAULTS, **(settings or {})}
    secret = security.load_secret(secret_file or store.path.parent / "session_secret")
    if store.meta("cookie_secret") is not None:  # older releases kept it in the database (mode 0644)
        store.delete_meta("cookie_secret")
    signer = security.CookieSigner(secret)
    logins = security.Logins(store)
    fingerprint = signer.fingerprint(pin)
    if store.meta("pin_fingerprint") != fingerprint:  # a new PIN: every earlier login ends
        if (n := logins.revoke_all()):
            log.warning("the PIN changed: %d earlier logins revoked", n)
        store.set_meta("pin_fingerprint", fingerprint)
    if store.current_session() is None:
        game = scoring_adapter.game(settings["game"])
        seats = ["North", "East", "South", "West", "Fifth"][: game.players[0]]
        store.add_session(
            game=game.id, players=list(settings.get("players") or seats), system=settings["system"]
        )
    hosts = settings.get("allowed_hosts")
    allowed_hosts = None if hosts is None else frozenset(h.lower().rstrip(".") for h in hosts)

    templates = Jinja2Templates(directory=HERE / "templates")
    templates.env.globals["card_name"] = scoring_adapter.card_name
    templates.env.filters["fact"] = fact
    app = FastAPI(title="tarokcam", docs_url=None, redoc_url=None, openapi_url="/api/openapi.json")
    app.state.ctx = WebContext(
        store=store,
        controller=controller,
        photos_dir=Path(photos_dir).resolve(),
        gate=security.PinGate(pin),
        signer=signer,
        logins=logins,
        integrity=health.IntegrityWatch(store),
        templates=templates,
        settings=settings,
    )

    @app.middleware("http")
    async def cookie_session(request: Request, call_next):
        if allowed_hosts is not None and not security.host_allowed(request.headers.get("host"), allowed_hosts):
            # DNS rebinding: a foreign page whose name now points at the table must not read or write it.
            return _error(400, f"unknown host name {request.headers.get('host', '')[:100]!r}; open the table "
                               f"by its address or as {', '.join(sorted(allowed_hosts)) or 'its IP address'}",
                          "host")
        signer = request.app.state.ctx.signer
        raw = request.cookies.get(security.COOKIE)
        data = signer.loads(raw) or security.new_session()
        if data.get("auth") and not request.app.state.ctx.logins.valid(data.get("sid")):
            data = {**data, "auth": False}  # logged out elsewhere, or the PIN changed
            data.pop("sid", None)
        request.state.session = data
        response = await call_next(request)
        for name, value in security.SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        value = signer.dumps(request.state.session)
        if value != raw:
            response.set_cookie(security.COOKIE, value, httponly=True, samesite="strict", max_age=30 * 86400)
        return response

    app.add_middleware(security.BodyLimit, limit=int(settings["max_body_bytes"]))
    _add_error_handlers(app)
    errors.html_error_pages(app)  # pages get HTML error pages; the API keeps JSON
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    for module in (auth, captures, questions, hands, sheet, settings_router, health, enrol, training):
        app.include_router(module.router)
    return app


def fact(value) -> str:
    """A session-end or status value in words: yes/no, a dash for nothing, nested groups as 'key: value'."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{str(k).replace('_', ' ')}: {fact(v)}" for k, v in value.items()) or "–"
    if isinstance(value, (list, tuple)):
        return ", ".join(fact(v) for v in value) or "–"
    return str(value)


def _error(status: int, message: str, field: str | None = None, **extra) -> JSONResponse:
    return JSONResponse({"error": message, "field": field, **extra}, status_code=status)


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        errors = exc.errors()
        first = errors[0] if errors else {"loc": ("body",), "msg": "invalid request"}
        field = ".".join(str(p) for p in first.get("loc", ()))
        if first.get("type") == "json_invalid":
            return _error(400, f"malformed JSON: {first.get('ctx', {}).get('error', first['msg'])}", "body")
        details = [{"field": ".".join(map(str, e.get("loc", ()))), "message": e.get("msg")} for e in errors]
        return _error(422, f"{field}: {first.get('msg')}", field, errors=details)

    @app.exception_handler(NotFoundError)
    async def not_found(request: Request, exc: NotFoundError):
        return _error(404, str(exc))

    @app.exception_handler(StoreError)
    async def bad_store_request(request: Request, exc: StoreError):
        return _error(400, str(exc), str(exc).split(" ", 1)[0])

    @app.exception_handler(OverflowError)
    async def huge_number(request: Request, exc: OverflowError):
        # e.g. /api/hands/100000000000000000000000: SQLite integers are 64-bit
        return _error(404, "no such id: the number is out of range", "id")

    @app.exception_handler(sqlite3.Error)
    async def store_failed(request: Request, exc: sqlite3.Error):
        return await _storage_fault(request, exc)

    @app.exception_handler(OSError)
    async def os_failed(request: Request, exc: OSError):
        if exc.errno not in (errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EIO, errno.EACCES):
            raise exc
        return await _storage_fault(request, exc)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 401 and "text/html" in request.headers.get("accept", ""):
            return RedirectResponse(f"/login?next={quote(request.url.path)}", status_code=303)
        return JSONResponse(
            {"error": str(exc.detail), "field": None}, status_code=exc.status_code, headers=exc.headers
        )


def storage_fault(exc: BaseException) -> tuple[int, str]:
    """(HTTP status, cause in words) of a failed write: 507 when the disk is full, else 503."""
    text = str(exc).lower()
    err = getattr(exc, "errno", None)
    if err in (errno.ENOSPC, errno.EDQUOT) or "disk is full" in text or "no space" in text:
        return 507, "the table's disk is full"
    if err == errno.EROFS or "readonly" in text or "read-only" in text:
        return 503, "the table's storage is read-only"
    if isinstance(exc, sqlite3.OperationalError) and "locked" in text:
        return 503, "the database is busy"
    if "malformed" in text or "not a database" in text or isinstance(exc, sqlite3.DatabaseError) and \
            not isinstance(exc, sqlite3.OperationalError):
        return 503, "the database is damaged"
    return 503, "the table cannot write its store"


async def _storage_fault(request: Request, exc: BaseException):
    status, cause = storage_fault(exc)
    log.error("store write failed (%s): %s: %s", cause, type(exc).__name__, exc)
    message = f"Nothing was saved: {cause} ({exc}). Free some space or fix the storage, then try again."
    if "text/html" not in request.headers.get("accept", "") or request.method == "GET":
        return _error(status, message, "store", cause=cause)
    # A form post: say why, and keep what the player typed, one press away from being sent again.
    fields = ""
    try:
        form = await request.form()
        fields = "".join(
            f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
            for k, v in form.multi_items() if isinstance(v, str)
        )
    except Exception as read_error:  # noqa: BLE001 -- a body we cannot read again: the browser's Back has it
        log.debug("form not kept on the error page: %s", read_error)
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Not saved</title>'
        '<link rel="stylesheet" href="/static/app.css"></head><body><main>'
        f'<h1>Not saved</h1><p class="error" id="store-error">{html.escape(message)}</p>'
        f'<form method="post" action="{html.escape(request.url.path)}">{fields}'
        '<button id="retry">Try again with what you entered</button></form>'
        '<p><a href="javascript:history.back()">Back to the form</a></p></main></body></html>'
    )
    return HTMLResponse(page, status_code=status)
