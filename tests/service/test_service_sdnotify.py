"""device.sdnotify: the sd_notify datagram protocol over path and abstract sockets."""
from __future__ import annotations

import os
import socket
import time

import pytest

from device.sdnotify import Notifier


def test_path_socket(tmp_path):
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        sock.settimeout(2)
        n = Notifier({"NOTIFY_SOCKET": str(path)})
        assert n.enabled and n.ready("camera open; model loaded")
        assert sock.recv(4096) == b"READY=1\nSTATUS=camera open; model loaded"
        assert n.status("camera down:\n  frame timeout")
        assert sock.recv(4096) == b"STATUS=camera down: frame timeout"  # one line, as systemd shows it


def test_abstract_socket():
    name = f"tarokcam-sdnotify-{os.getpid()}-{time.monotonic_ns()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(b"\0" + name.encode())
        sock.settimeout(2)
        n = Notifier({"NOTIFY_SOCKET": "@" + name})
        assert n.watchdog() and n.stopping()
        assert [sock.recv(64), sock.recv(64)] == [b"WATCHDOG=1", b"STOPPING=1"]


def test_without_systemd_everything_is_a_quiet_no_op():
    n = Notifier({})
    assert not n.enabled and not n.ready() and not n.watchdog()
    assert n.watchdog_interval_s is None


def test_unreachable_manager_does_not_raise(tmp_path):
    assert Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")}).ready() is False


@pytest.mark.parametrize("env, expected", [
    ({"WATCHDOG_USEC": "60000000"}, 30.0),
    ({"WATCHDOG_USEC": "60000000", "WATCHDOG_PID": str(os.getpid())}, 30.0),
    ({"WATCHDOG_USEC": "60000000", "WATCHDOG_PID": "1"}, None),  # meant for another process
    ({"WATCHDOG_USEC": "0"}, None),
    ({"WATCHDOG_USEC": "soon"}, None),
])
def test_watchdog_interval_is_half_of_watchdog_sec(env, expected):
    assert Notifier(env).watchdog_interval_s == expected
