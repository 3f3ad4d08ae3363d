"""Bounds uvicorn does not set by itself: a deadline for the request head, and a cap on open connections.

uvicorn's own `limit_concurrency` answers 503 only once a request arrives, and its keep-alive timer starts
only after a first response, so a client that opens connections and sends nothing (or one byte a minute)
holds a descriptor each until the process runs out of them. `guarded_protocol()` returns uvicorn's h11
protocol with two additions:

* every connection waiting for a request head gets `header_timeout_s` to complete it (from the connection,
  or from the end of the previous response on a kept-alive one), then it is closed;
* when a new connection would make more than `max_connections`, the connection that has been waiting longest
  without a request in progress is closed to make room (an idle or half-open one, never one being served);
  if every connection is busy, the new one is closed;
* one client address may hold at most `max_per_client` connections (a phone needs a handful; a page's event
  stream holds one for as long as it is open): beyond that its own longest-idle one is closed, or the new one
  when all of its connections are busy;
* when the table is full of busy connections (event streams, slow uploads), the address holding the most
  gives up its oldest one for a newcomer from another address (a browser's event stream reconnects by itself).
"""

from __future__ import annotations

import asyncio
import itertools
import logging

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)
_counter = itertools.count()


class GuardedH11Protocol(H11Protocol):
    max_connections = 200
    max_per_client = 32
    header_timeout_s = 10.0
    evicted = 0  # connections closed to make room, for the fault script and tests
    timed_out = 0  # connections closed for a request head not sent in time

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._waiting_since = self.loop.time()
        self._order = next(_counter)
        self._header_timer: asyncio.TimerHandle | None = None
        self._arm()
        others = [c for c in self.connections if isinstance(c, GuardedH11Protocol) and c is not self
                  and not c.transport.is_closing()]
        mine = [c for c in others if c._address() == self._address()]
        if self._address() is not None and len(mine) >= self.max_per_client:
            self._close(min((c for c in mine if not c._busy()), key=_age, default=self))
        elif len(others) >= self.max_connections:
            idle = [c for c in others if not c._busy()]
            self._close(min(idle, key=_age) if idle else self._from_biggest_holder(others))

    def _address(self) -> str | None:
        return self.client[0] if self.client else None

    def _from_biggest_holder(self, others: list) -> GuardedH11Protocol:
        """All busy: the oldest connection of the address holding the most, if that is another address."""
        counts: dict[str | None, list] = {}
        for c in others:
            counts.setdefault(c._address(), []).append(c)
        address, held = max(counts.items(), key=lambda item: len(item[1]))
        if address == self._address() or len(held) < 2:
            return self
        return min(held, key=_age)

    def _close(self, victim: GuardedH11Protocol) -> None:
        type(self).evicted += 1
        victim.transport.close()
        victim.connections.discard(victim)  # counted out now; connection_lost follows on the next loop turn

    def _busy(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete

    def _arm(self) -> None:
        self._disarm()
        self._waiting_since = self.loop.time()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._head_too_slow)

    def _disarm(self) -> None:
        timer = getattr(self, "_header_timer", None)
        if timer is not None:
            timer.cancel()
            self._header_timer = None

    def _head_too_slow(self) -> None:
        self._header_timer = None
        if not self._busy() and not self.transport.is_closing():
            type(self).timed_out += 1
            self.transport.close()

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before and self._busy():
            self._disarm()  # a request head arrived; its body and answer are the app's business

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # kept alive: the next request head has the same deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def _age(c: GuardedH11Protocol) -> tuple[float, int]:
    return c._waiting_since, c._order


def guarded_protocol(*, max_connections: int = 200, header_timeout_s: float = 10.0,
                     max_per_client: int | None = None) -> type[GuardedH11Protocol]:
    """A GuardedH11Protocol subclass with these bounds, for `uvicorn.Config(http=...)`; each address may
    hold a sixth of the connections (at least 4) unless `max_per_client` says otherwise."""
    per_client = max_per_client if max_per_client is not None else max(4, max_connections // 6)
    return type("TableH11Protocol", (GuardedH11Protocol,),
                {"max_connections": max_connections, "header_timeout_s": header_timeout_s,
                 "max_per_client": min(per_client, max_connections), "evicted": 0, "timed_out": 0})
