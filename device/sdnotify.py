"""systemd's notify protocol (sd_notify(3)) in a few lines of socket code, without libsystemd.

systemd passes the socket in $NOTIFY_SOCKET: a file path, or an abstract-namespace name written with a leading
'@' that stands for a NUL byte. Each message is one datagram of "KEY=value" lines. Outside systemd (no
$NOTIFY_SOCKET) every call is a no-op that returns False, so tests and `tarokcam serve` in a terminal need nothing.
"""
from __future__ import annotations

import os
import socket
from collections.abc import Mapping


class Notifier:
    """Sends READY/WATCHDOG/STATUS/STOPPING to the service manager named in the environment."""

    def __init__(self, environ: Mapping[str, str] | None = None):
        env = os.environ if environ is None else environ
        self.address = _address(env.get("NOTIFY_SOCKET", ""))
        self.watchdog_interval_s = _watchdog_interval(env)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def notify(self, *lines: str) -> bool:
        """Send one datagram; False when there is no service manager or it is unreachable."""
        if self.address is None:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto("\n".join(lines).encode(), self.address)
        except OSError:
            # A vanished manager must not take the table down; the watchdog will notice if it matters.
            return False
        return True

    def ready(self, status: str = "") -> bool:
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={_one_line(text)}")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _address(raw: str) -> str | bytes | None:
    if not raw:
        return None
    if raw.startswith("@"):
        return b"\0" + raw[1:].encode()  # abstract namespace
    if raw.startswith("/"):
        return raw
    return None  # vsock and other schemes are not used on a Pi


def _watchdog_interval(env: Mapping[str, str]) -> float | None:
    """Seconds between pets: half of WatchdogSec, as sd_watchdog_enabled(3) recommends; None when off."""
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    pid = env.get("WATCHDOG_PID")
    if usec <= 0 or (pid and pid != str(os.getpid())):
        return None  # the watchdog is meant for another process
    return usec / 2e6
