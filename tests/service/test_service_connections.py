"""The web server's bounds (issue 16): a header deadline, a connection cap, no proxy headers, quiet repeats."""
from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time

import pytest
import uvicorn

from device.commands.serve import RepeatFilter, uvicorn_config
from device.config import TarokcamConfig


async def tiny_app(scope, receive, send):
    if scope["type"] != "http":
        return
    if scope["path"] == "/slow":
        await asyncio.sleep(2.0)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": scope["client"][0].encode()})


@pytest.fixture
def server():
    """A real uvicorn on 127.0.0.1 with the table's protocol: 20 connections, 1 s for a request head."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    web = TarokcamConfig().with_overrides({"web.host": "127.0.0.1", "web.port": port, "web.max_connections": 20,
                                           "web.header_timeout_s": 1.0}).web
    config = uvicorn_config(tiny_app, web)  # what `tarokcam serve` runs
    config.lifespan = "off"
    protocol = config.http
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started
    yield port, protocol
    srv.should_exit = True
    thread.join(10)


def get(port: int, headers: str = "", timeout: float = 5.0, source: str = "127.0.0.1") -> tuple[float, bytes]:
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0)) as s:
        s.sendall(f"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{headers}\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return time.monotonic() - t0, data


def closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_a_silent_connection_is_closed_after_the_header_deadline(server):
    port, _ = server
    with socket.create_connection(("127.0.0.1", port)) as silent, \
            socket.create_connection(("127.0.0.1", port)) as trickle:
        trickle.sendall(b"GET / HTTP/1.1\r\nHo")  # a head that never ends
        t0 = time.monotonic()
        assert closed_by_server(silent, 4.0) and closed_by_server(trickle, 4.0)
        assert 0.8 <= time.monotonic() - t0 <= 5.0


def test_many_half_open_connections_do_not_keep_out_a_real_request(server):
    port, protocol = server
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(100)]  # 5x the cap
    try:
        answers = [get(port) for _ in range(3)]  # the best of three: a busy CI machine can stall one
        assert all(data.startswith(b"HTTP/1.1 200") for _, data in answers), answers
        assert min(elapsed for elapsed, _ in answers) < 1.0, answers
        assert protocol.evicted >= 80
    finally:
        for s in held:
            s.close()


def read_response(sock: socket.socket, timeout: float = 10.0) -> bytes:
    sock.settimeout(timeout)
    data = b""
    while not data.endswith(b"0\r\n\r\n"):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_a_connection_being_served_is_never_evicted(server):
    port, _ = server
    with socket.create_connection(("127.0.0.1", port)) as kept:
        kept.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.3)
        flood = [socket.create_connection(("127.0.0.1", port)) for _ in range(60)]  # 3x the cap, mid-answer
        try:
            data = read_response(kept)
            assert data.startswith(b"HTTP/1.1 200") and b"127.0.0.1" in data, data[:80]
            kept.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")  # kept alive: a second request works
            assert read_response(kept).startswith(b"HTTP/1.1 200")
        finally:
            for s in flood:
                s.close()


def slow_requests(port: int, sources: list[str]) -> list[socket.socket]:
    socks = []
    for source in sources:
        s = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
        s.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        socks.append(s)
        time.sleep(0.02)
    return socks


def answered(sock: socket.socket) -> bool:
    try:
        return read_response(sock, 6.0).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def test_one_address_holds_at_most_its_share_even_of_busy_connections(server):
    port, protocol = server
    socks = slow_requests(port, ["127.0.0.66"] * 10)  # ten streams from one device; its share is 4
    try:
        elapsed, data = min(get(port, source="127.0.0.7") for _ in range(3))
        assert data.startswith(b"HTTP/1.1 200") and elapsed < 1.0
        served = [answered(s) for s in socks]
        assert sum(served) == protocol.max_per_client == 4, served
    finally:
        for s in socks:
            s.close()


def test_a_table_full_of_busy_connections_still_lets_a_newcomer_in(server):
    port, _ = server
    sources = [f"127.0.0.{100 + i}" for i in range(5) for _ in range(4)]  # 5 devices x 4 = the cap of 20
    socks = slow_requests(port, sources)
    try:
        time.sleep(0.2)
        elapsed, data = min(get(port, source="127.0.0.7") for _ in range(3))
        assert data.startswith(b"HTTP/1.1 200") and elapsed < 1.0, (elapsed, data[:60])
        served = [answered(s) for s in socks]
        assert 15 <= sum(served) < 20, served  # the biggest holders each gave up their oldest
    finally:
        for s in socks:
            s.close()


def test_a_client_cannot_claim_another_address(server):
    port, _ = server
    _, data = get(port, "X-Forwarded-For: 10.9.9.9\r\n")
    assert b"\r\n127.0.0.1\r\n" in data and b"10.9.9.9" not in data


def test_repeated_log_lines_are_held_back_and_counted():
    clock = [0.0]
    flt = RepeatFilter(burst=5, window_s=60, clock=lambda: clock[0])
    def record() -> logging.LogRecord:
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, "socket.accept() out of system resource",
                                 None, None)
    passed = [flt.filter(r) for r in (record() for _ in range(10_000))]
    assert sum(passed) == 5
    clock[0] = 61
    r = record()
    assert flt.filter(r) and "9995 more like this held back" in r.getMessage()
    other = logging.LogRecord("x", logging.INFO, __file__, 1, "another line", None, None)
    assert flt.filter(other)
