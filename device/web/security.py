"""Who may change things: the table's PIN, a signed session cookie, CSRF tokens, same-origin and body limits.

Anyone on the table's network may look (GET). A change needs either the PIN in the
`X-Tarokcam-Pin` header (API clients; a custom header cannot be sent cross-site without CORS, so
no CSRF token is needed), or a logged-in session cookie plus the session's CSRF token (form field
`csrf` or header `X-CSRF-Token`) and, when the browser says where it comes from, the same origin.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from urllib.parse import urlsplit

from fastapi import HTTPException, Request

COOKIE = "tarokcam_session"
# Everything the pages use ships in the package, so the browser may load nothing from elsewhere,
# and no other site may frame the table's buttons (clickjacking).
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
    "form-action 'self'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
PIN_HEADER = "x-tarokcam-pin"
CSRF_HEADER = "x-csrf-token"
MAX_FAILED_LOGINS = 5  # then a pause, so four digits cannot be tried through in an evening
LOCKOUT_S = 30.0


class CookieSigner:
    """HMAC-SHA256 signed JSON cookies (stdlib only; starlette's SessionMiddleware needs itsdangerous)."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def _mac(self, payload: bytes) -> str:
        return base64.urlsafe_b64encode(hmac.new(self._secret, payload, hashlib.sha256).digest()).decode()

    def dumps(self, data: dict) -> str:
        payload = base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode())
        return f"{payload.decode()}.{self._mac(payload)}"

    def loads(self, value: str | None) -> dict | None:
        if not value or "." not in value:
            return None
        payload, mac = value.rsplit(".", 1)
        if not hmac.compare_digest(mac, self._mac(payload.encode())):
            return None
        try:
            data = json.loads(base64.urlsafe_b64decode(payload.encode()))
        except ValueError:
            return None
        return data if isinstance(data, dict) else None


def new_session() -> dict:
    return {"csrf": secrets.token_urlsafe(24), "auth": False}


class PinGate:
    """Checks the PIN with a constant-time compare and a pause after repeated failures."""

    def __init__(self, pin: str) -> None:
        if not pin:
            raise ValueError("pin: the table needs a non-empty PIN")
        self._pin = pin.encode()
        self._failures = 0
        self._locked_until = 0.0

    def check(self, attempt: str | None) -> bool:
        now = time.monotonic()
        if now < self._locked_until:
            raise HTTPException(
                429, f"too many wrong PINs; try again in {int(self._locked_until - now) + 1} s"
            )
        ok = attempt is not None and hmac.compare_digest(attempt.encode(), self._pin)
        if ok:
            self._failures = 0
        else:
            self._failures += 1
            if self._failures >= MAX_FAILED_LOGINS:
                self._failures, self._locked_until = 0, now + LOCKOUT_S
        return ok


def same_origin(request: Request) -> bool:
    """False only when the browser names another origin (Origin, else Referer)."""
    source = request.headers.get("origin") or request.headers.get("referer")
    if not source:
        return True
    parts = urlsplit(source)
    host = request.headers.get("host", "")
    return parts.netloc == host and parts.scheme in ("http", "https")


async def csrf_token_from(request: Request) -> str | None:
    token = request.headers.get(CSRF_HEADER)
    if token:
        return token
    ctype = request.headers.get("content-type", "")
    if ctype.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        form = await request.form()  # starlette caches it, so the route can read it again
        value = form.get("csrf")
        return value if isinstance(value, str) else None
    return None


class BodyLimit:
    """ASGI middleware: answer 413 to bodies over `limit` bytes, declared or streamed."""

    def __init__(self, app, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await _too_large(send, self.limit)
        seen = 0
        answered = False

        async def limited_receive():
            nonlocal seen, answered
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    # Answer now and tell the app the client left, so it stops reading the body.
                    if not answered:
                        answered = True
                        await _too_large(send, self.limit)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message):
            if not answered:
                await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            if not answered:  # the app's own failure, not the disconnect we staged
                raise


async def _too_large(send, limit: int) -> None:
    body = json.dumps({"error": f"request body larger than {limit} bytes", "field": "body"}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
