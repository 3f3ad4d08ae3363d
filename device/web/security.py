"""Who may change things: the table's PIN, a signed session cookie, CSRF tokens, same-origin and body limits.

Anyone on the table's network may look (GET). A change needs either the PIN in the
`X-Tarokcam-Pin` header (API clients; a custom header cannot be sent cross-site without CORS, so
no CSRF token is needed), or a logged-in session cookie plus the session's CSRF token (form field
`csrf` or header `X-CSRF-Token`) and, when the browser says where it comes from, the same origin.

Wrong PINs pause the client that typed them, longer with each one (`PinGate`), under a slow table-wide
ceiling that never holds back a client who has not typed a wrong PIN. Each login has its own id (`Logins`),
which logout and a PIN change revoke. The signing secret lives in its own 0600 file (`load_secret`). Host
headers must be an IP address or one of the table's names (`host_allowed`: DNS rebinding).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import os
import secrets
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
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
MIN_PIN_DIGITS = 6  # a million PINs: at the ceiling below, years of guessing
FREE_FAILURES = 5  # wrong PINs a client may type before it has to wait
FIRST_DELAY_S = 2.0  # then it waits this long, doubling with every further wrong PIN ...
MAX_DELAY_S = 900.0  # ... up to a quarter of an hour a guess
FORGET_AFTER_S = 86400.0  # a client's failures are forgotten a day after its last one
GLOBAL_BURST = 30  # wrong PINs from all clients together, before the ceiling bites ...
GLOBAL_PER_HOUR = 30.0  # ... and how fast that allowance comes back
MAX_CLIENTS = 4096  # failure records kept; the oldest is dropped beyond this
MAX_LOGINS = 256  # open logins kept; the oldest is revoked beyond this
LOGIN_MAX_AGE_S = 30 * 86400.0


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

    def fingerprint(self, text: str) -> str:
        """A keyed hash of `text` (the PIN), safe to store: it tells a changed PIN without keeping the PIN."""
        return hmac.new(self._secret, b"pin:" + text.encode(), hashlib.sha256).hexdigest()


def load_secret(path: Path) -> bytes:
    """The cookie-signing secret from `path`, made (mode 0600) on first use; a looser mode is tightened.

    It lives in its own file rather than in the database, which other tools copy and open."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            os.chmod(path, 0o600)
        secret = path.read_text().strip()
        if len(secret) < 32:
            raise ValueError(f"{path}: session secret is shorter than 32 characters; delete it to make a new one")
        return secret.encode()
    secret = secrets.token_hex(32)
    with os.fdopen(fd, "w") as fh:
        fh.write(secret + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return secret.encode()


def new_session() -> dict:
    return {"csrf": secrets.token_urlsafe(24), "auth": False}


def client_key(request: Request) -> str:
    """Who is guessing: the peer address (IPv6 by its /64, which one device can fill at will)."""
    host = request.client.host if request.client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host or "?"
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


@dataclass(slots=True)
class _Client:
    failures: int = 0
    last_failure: float = 0.0
    locked_until: float = 0.0


class PinGate:
    """Checks the PIN (constant-time compare, whole PIN only) with a pause per client that grows with its
    wrong PINs, and a slow ceiling on wrong PINs from all clients together.

    A client may type FREE_FAILURES wrong PINs; then it waits FIRST_DELAY_S, doubling after every further
    wrong one up to MAX_DELAY_S. The ceiling (a bucket of GLOBAL_BURST wrong PINs refilled at
    GLOBAL_PER_HOUR) holds back only clients that have typed a wrong PIN: a player who has not is never
    refused, whatever others do. A right PIN clears the client's record.
    """

    def __init__(self, pin: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        if not pin:
            raise ValueError("pin: the table needs a non-empty PIN")
        self._pin = pin.encode()
        self._clock = clock
        self._clients: OrderedDict[str, _Client] = OrderedDict()
        self._tokens = float(GLOBAL_BURST)
        self._refilled_at = clock()
        self._lock = threading.Lock()

    def _refill(self, now: float) -> None:
        self._tokens = min(GLOBAL_BURST, self._tokens + (now - self._refilled_at) * GLOBAL_PER_HOUR / 3600)
        self._refilled_at = now

    def check(self, attempt: str | None, client: str = "?") -> bool:
        """True for the right PIN; False for a wrong one; raises HTTPException(429) while `client` must wait."""
        with self._lock:
            now = self._clock()
            self._refill(now)
            record = self._clients.get(client)
            if record is not None and now - record.last_failure > FORGET_AFTER_S:
                del self._clients[client]
                record = None
            if record is not None:
                if now < record.locked_until:
                    wait = int(record.locked_until - now) + 1
                    raise HTTPException(429, f"too many wrong PINs from this device; try again in {wait} s",
                                        headers={"Retry-After": str(wait)})
                if self._tokens < 1:
                    wait = int((1 - self._tokens) * 3600 / GLOBAL_PER_HOUR) + 1
                    raise HTTPException(429, "too many wrong PINs on this table; a device that typed a wrong PIN "
                                             f"may try again in {wait} s", headers={"Retry-After": str(wait)})
            ok = attempt is not None and hmac.compare_digest(attempt.encode(), self._pin)
            if ok:
                self._clients.pop(client, None)
                return True
            self._tokens = max(0.0, self._tokens - 1)
            record = record or _Client()
            record.failures += 1
            record.last_failure = now
            if record.failures >= FREE_FAILURES:
                delay = min(FIRST_DELAY_S * 2 ** (record.failures - FREE_FAILURES), MAX_DELAY_S)
                record.locked_until = now + delay
            self._clients[client] = record
            self._clients.move_to_end(client)
            while len(self._clients) > MAX_CLIENTS:
                self._clients.popitem(last=False)
            return False


class Logins:
    """The open logins: a session id per login, kept in the store's meta table (so they survive a restart)
    and mirrored in memory. Logging out revokes one; a PIN change revokes all."""

    PREFIX = "login:"

    def __init__(self, store, *, clock: Callable[[], float] = time.time) -> None:
        self._store, self._clock = store, clock
        self._lock = threading.Lock()
        self._open: dict[str, float] = {}
        for key, value in store.meta_prefix(self.PREFIX).items():
            try:
                self._open[key[len(self.PREFIX):]] = float(value)
            except ValueError:
                store.delete_meta(key)

    def open(self) -> str:
        sid = secrets.token_urlsafe(24)
        now = self._clock()
        with self._lock:
            self._store.set_meta(self.PREFIX + sid, repr(now))
            self._open[sid] = now
            while len(self._open) > MAX_LOGINS:
                oldest = min(self._open, key=self._open.get)
                self._store.delete_meta(self.PREFIX + oldest)
                del self._open[oldest]
        return sid

    def valid(self, sid: object) -> bool:
        if not isinstance(sid, str):
            return False
        opened = self._open.get(sid)
        return opened is not None and self._clock() - opened < LOGIN_MAX_AGE_S

    def close(self, sid: object) -> None:
        if isinstance(sid, str) and sid in self._open:
            with self._lock:
                self._store.delete_meta(self.PREFIX + sid)
                self._open.pop(sid, None)

    def revoke_all(self) -> int:
        with self._lock:
            n = self._store.delete_meta_prefix(self.PREFIX)
            self._open.clear()
        return n

    def __len__(self) -> int:
        return len(self._open)


def host_allowed(host_header: str | None, allowed: frozenset[str]) -> bool:
    """DNS rebinding guard: the Host header must be an IP address or one of the table's own names."""
    if not host_header:
        return False
    host = host_header.strip().lower()
    if host.startswith("["):
        host = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        host = host.rsplit(":", 1)[0]
    host = host.rstrip(".")
    try:
        ipaddress.ip_address(host)
        return True  # a page on another site cannot make its own name resolve to an IP literal
    except ValueError:
        return host in allowed


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
