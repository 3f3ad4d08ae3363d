"""Changes pushed to every open page as server-sent events, so two phones on one table see each other's work.

Routers call `changed(kind)` after each write; the stream also watches the newest capture id, so photos the
table service takes by itself (trigger, button) reach the pages too. Each event is one line of JSON:
{"n": change counter, "latest_capture": id or null, "kinds": what changed since the last event}.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time

POLL_S = 0.3  # how soon a change reaches the pages; a store read per open page per poll
KEEPALIVE_S = 15.0  # a comment line, so proxies and phones keep the stream open
STREAM_S = 55.0  # the browser's EventSource reconnects by itself; short streams let the server shut down


class Changes:
    """A counter of writes, shared by the request threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.n = 0
        self._kinds: list[tuple[int, str]] = []

    def changed(self, kind: str) -> None:
        with self._lock:
            self.n += 1
            self._kinds = [*self._kinds[-50:], (self.n, kind)]

    def since(self, n: int) -> list[str]:
        with self._lock:
            return sorted({k for i, k in self._kinds if i > n})


CHANGES = Changes()


def changed(kind: str) -> None:
    CHANGES.changed(kind)


async def stream(request, store, changes: Changes = CHANGES):
    """The body of GET /api/events: an event at once (the state the page starts from), then one per change."""
    yield "retry: 2000\n\n"
    last: tuple | None = None
    seen = changes.n
    started = sent = time.monotonic()
    while time.monotonic() - started < STREAM_S:
        if await request.is_disconnected():
            return
        token = (changes.n, store.latest_capture_id())
        if token != last:
            kinds = changes.since(seen) if last is not None else []
            if last is not None and token[1] != last[1]:
                kinds = sorted({*kinds, "capture"})
            last, seen = token, token[0]
            yield f"event: change\ndata: {json.dumps({'n': token[0], 'latest_capture': token[1], 'kinds': kinds})}\n\n"
            sent = time.monotonic()
        elif time.monotonic() - sent > KEEPALIVE_S:
            yield ": keepalive\n\n"
            sent = time.monotonic()
        await asyncio.sleep(POLL_S)
