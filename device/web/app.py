"""Wiring only: build the FastAPI app from its collaborators (store, controller, photos dir, PIN)."""

from __future__ import annotations

import secrets
from pathlib import Path
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from device.storage import NotFoundError, Store, StoreError
from device.web import scoring_adapter, security
from device.web.deps import TableController, WebContext
from device.web.routers import auth, captures, hands, health, sheet
from device.web.routers import settings as settings_router

HERE = Path(__file__).parent
DEFAULTS = {
    "game": "slovenian",
    "system": "simplified",
    "max_body_bytes": 1_000_000,
    "poll_ms": 2000,
}


def create_app(
    *, store: Store, controller: TableController, photos_dir: Path, pin: str, settings: dict | None = None
) -> FastAPI:
    """The players' web app. `settings` may set game, players, system (for the first evening),
    max_body_bytes and poll_ms; unknown keys are kept for the templates."""
    settings = {**DEFAULTS, **(settings or {})}
    secret = store.meta("cookie_secret")
    if secret is None:  # kept in the store so that logins survive a restart
        secret = secrets.token_hex(32)
        store.set_meta("cookie_secret", secret)
    if store.current_session() is None:
        game = scoring_adapter.game(settings["game"])
        seats = ["North", "East", "South", "West", "Fifth"][: game.players[0]]
        store.add_session(
            game=game.id, players=list(settings.get("players") or seats), system=settings["system"]
        )

    templates = Jinja2Templates(directory=HERE / "templates")
    templates.env.globals["card_name"] = scoring_adapter.card_name
    templates.env.filters["fact"] = fact
    app = FastAPI(title="tarokcam", docs_url=None, redoc_url=None, openapi_url="/api/openapi.json")
    app.state.ctx = WebContext(
        store=store,
        controller=controller,
        photos_dir=Path(photos_dir).resolve(),
        gate=security.PinGate(pin),
        signer=security.CookieSigner(secret.encode()),
        templates=templates,
        settings=settings,
    )

    @app.middleware("http")
    async def cookie_session(request: Request, call_next):
        signer = request.app.state.ctx.signer
        raw = request.cookies.get(security.COOKIE)
        data = signer.loads(raw) or security.new_session()
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
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    for module in (auth, captures, hands, sheet, settings_router, health):
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

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 401 and "text/html" in request.headers.get("accept", ""):
            return RedirectResponse(f"/login?next={quote(request.url.path)}", status_code=303)
        return JSONResponse(
            {"error": str(exc.detail), "field": None}, status_code=exc.status_code, headers=exc.headers
        )
