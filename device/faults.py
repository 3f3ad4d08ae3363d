"""Probe a running table for the faults of issue 16 and print, per probe, what was done and what came back.

    python -m device.faults --url http://127.0.0.1:8000 --pin 246813      # a service you started
    python -m device.faults --spawn --kill-rounds 10                        # starts its own, on loopback

Every request goes to 127.0.0.x only (a URL naming another host is refused); several loopback source
addresses (127.0.0.7, 127.0.0.66, ...) stand for the players' and an attacker's devices. Every loop is
bounded by a count and a time. With --spawn the script also kills its own service with SIGKILL while hands
are being saved and counts confirmed hands lost, and starts one with a missing model.
"""
from __future__ import annotations

import argparse
import contextlib
import html
import http.client
import json
import os
import random
import re
import resource
import select
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

REPO = Path(__file__).resolve().parents[1]
PLAYER = "127.0.0.7"
ATTACKER = "127.0.0.66"
HAND = {"declarer": "North", "partner": "South", "contract": "three", "card_points": "41"}


def out(probe: str, did: str, got: str) -> None:
    print(f"[{probe}] {did}\n    -> {got}", flush=True)


class Table:
    """HTTP to one loopback service, from a chosen loopback source address."""

    def __init__(self, url: str, pin: str) -> None:
        parts = urlsplit(url)
        if parts.hostname not in ("127.0.0.1", "localhost") or parts.scheme != "http":
            raise SystemExit(f"faults: only http://127.0.0.1:PORT is probed, not {url}")
        self.host, self.port, self.pin = "127.0.0.1", parts.port or 80, pin

    def request(self, method: str, path: str, body=None, headers: dict | None = None, source: str = PLAYER,
                timeout: float = 10.0) -> tuple[int, dict | str, float]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout, source_address=(source, 0))
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        hdrs = {"Host": f"127.0.0.1:{self.port}", **({"Content-Type": "application/json"} if data else {}),
                **(headers or {})}
        t0 = time.monotonic()
        try:
            conn.request(method, path, body=data, headers=hdrs)
            resp = conn.getresponse()
            raw = resp.read()
        finally:
            conn.close()
        elapsed = time.monotonic() - t0
        try:
            payload: dict | str = json.loads(raw)
        except ValueError:
            payload = raw.decode("utf-8", "replace")
        return resp.status, payload, elapsed

    def write(self, method: str, path: str, body=None, source: str = PLAYER, pin: str | None = None):
        return self.request(method, path, body, {"X-Tarokcam-Pin": self.pin if pin is None else pin}, source)


def message(payload) -> str:
    """The error a response carries: the JSON "error", or the text of an HTML page's error paragraph."""
    if isinstance(payload, dict):
        return str(payload.get("error") or "ok")[:200]
    text = str(payload)
    found = re.search(r'class="error"[^>]*>(.*?)</', text, re.DOTALL)
    if found:
        text = html.unescape(found.group(1))
    return " ".join(text.split())[:200]


# -- 1. wrong PINs ---------------------------------------------------------------------------------------
def probe_pin_flood(t: Table, seconds: float) -> dict:
    """An attacker floods wrong PINs (one address, then 20) while a player uses the right PIN every 2 s."""
    stop = time.monotonic() + seconds
    counts = {"compared": 0, "held back": 0, "other": 0}
    player = {"accepted": 0, "refused": 0, "slowest_s": 0.0}

    def attack(sources: list[str]) -> None:
        n = 0
        while time.monotonic() < stop and n < 50_000:
            status, _, _ = t.write("DELETE", "/api/hands/999999999", source=sources[n % len(sources)],
                                   pin=f"{n % 1_000_000:06d}")
            counts["compared" if status == 401 else "held back" if status == 429 else "other"] += 1
            n += 1

    def play() -> None:
        while time.monotonic() < stop:
            status, _, elapsed = t.write("DELETE", "/api/hands/999999999", source=PLAYER)
            player["accepted" if status == 404 else "refused"] += 1  # 404: the PIN let it through
            player["slowest_s"] = max(player["slowest_s"], round(elapsed, 3))
            time.sleep(2)

    threads = [threading.Thread(target=attack, args=([ATTACKER],)),
               threading.Thread(target=attack, args=([f"127.0.0.{100 + i}" for i in range(20)],)),
               threading.Thread(target=play)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(seconds + 60)
    sent = sum(counts.values())
    out("pin-flood", f"{seconds:.0f} s of wrong PINs as fast as one client goes, from 127.0.0.66 and from 20 "
                     f"more addresses (127.0.0.100-119), while 127.0.0.7 sends the right PIN every 2 s",
        f"{sent} wrong PINs sent, {counts['compared']} compared (401), {counts['held back']} held back (429), "
        f"{counts['other']} other; the player: {player['accepted']} accepted, {player['refused']} refused, "
        f"slowest answer {player['slowest_s']} s")
    return {"sent": sent, **counts, "player": player}


def simulate_pin_hour(addresses: int) -> int:
    """Wrong PINs the real PinGate compares in one hour of virtual time, one guess a second per address."""
    from fastapi import HTTPException

    from device.web.security import PinGate

    clock = [0.0]
    gate = PinGate("246813", clock=lambda: clock[0])
    compared = 0
    for second in range(3600):
        clock[0] = float(second)
        for a in range(addresses):
            try:
                compared += gate.check(f"{(second * addresses + a) % 10**6:06d}", f"10.0.{a // 250}.{a % 250}") \
                    is False
            except HTTPException:
                pass
    return compared


# -- 2. connections --------------------------------------------------------------------------------------
def raise_own_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 8192) if hard != resource.RLIM_INFINITY else 8192
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def alive(sock: socket.socket) -> bool:
    """Still open on the server's side: nothing to read yet (a closed one reads as end of file)."""
    try:
        poller = select.poll()  # select() stops at descriptor 1024
        poller.register(sock, select.POLLIN)
        return not poller.poll(0) or sock.recv(1, socket.MSG_PEEK) != b""
    except OSError:
        return False


def probe_connections(t: Table, steps: list[int]) -> list[dict]:
    """Hold more and more connections open without a request; time a normal page at each step."""
    limit = raise_own_limit()
    held: list[socket.socket] = []
    rows = []
    try:
        for target in steps:
            while len(held) < target:
                try:
                    s = socket.socket()
                    s.bind((f"127.0.10.{len(held) % 100 + 1}", 0))  # 100 devices, so the table-wide cap counts
                    s.settimeout(5)
                    s.connect((t.host, t.port))
                    held.append(s)
                except OSError as exc:
                    out("connections", f"opening connection {len(held) + 1}", f"{exc}")
                    break
            times = []
            statuses = []
            for _ in range(3):
                try:
                    status, _, elapsed = t.request("GET", "/sheet", timeout=30)
                except OSError as exc:
                    status, elapsed = f"failed: {exc}", 30.0
                statuses.append(status)
                times.append(elapsed)
            kept = sum(alive(s) for s in held)
            row = {"opened": len(held), "still_open": kept, "median_s": round(statistics.median(times), 3),
                   "statuses": statuses}
            rows.append(row)
            out("connections", f"{len(held)} idle connections opened from 127.0.10.1-100 (this process may hold "
                               f"{limit}), then GET /sheet three times from {PLAYER}",
                f"{kept} still open on the server's side; /sheet {statuses}, median {row['median_s']} s")
    finally:
        for s in held:
            s.close()
    return rows


def probe_header_deadline(t: Table, limit_s: float = 60.0) -> float | None:
    with socket.create_connection((t.host, t.port), timeout=limit_s, source_address=(ATTACKER, 0)) as s:
        s.sendall(b"GET /sheet HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # a head that never ends
        t0 = time.monotonic()
        try:
            closed = s.recv(1) == b""
        except (TimeoutError, ConnectionResetError):
            closed = False
        waited = time.monotonic() - t0
    out("header-deadline", "sent half a request head, then nothing",
        f"closed by the server after {waited:.1f} s" if closed else f"still open after {waited:.0f} s")
    return round(waited, 1) if closed else None


# -- 3. bad inputs ---------------------------------------------------------------------------------------
BAD_INPUTS = [
    ("hand with radli North: 1000000", "POST", "/api/hands", {**HAND, "radli": {"North": 1_000_000}}),
    ("hand with a player not in the evening", "POST", "/api/hands", {**HAND, "declarer": "Mallory"}),
    ("hand with other players", "POST", "/api/hands", {**HAND, "players": ["A", "B", "C", "D"]}),
    ("hand with NaN Card Points", "POST", "/api/hands",
     b'{"declarer": "North", "partner": "South", "contract": "three", "card_points": NaN}'),
    ("malformed JSON", "POST", "/api/hands", b'{"declarer": '),
    ("hand id 10^23", "GET", "/api/hands/100000000000000000000000", None),
    ("capture id 10^23", "GET", "/api/captures/100000000000000000000000", None),
    ("body of 2 MB", "POST", "/api/hands", b'{"x": "' + b"x" * 2_000_000 + b'"}'),
    ("lowercase card id t21 added to capture 1", "POST", "/api/captures/1/cards", {"card": "t21"}),
    ("unknown card id T99 added to capture 1", "POST", "/api/captures/1/cards", {"card": "T99"}),
]
SETTINGS_INPUTS = [
    ("a name with NUL", "North\x00,East,South,West", ""),
    ("a name with a bidi override", "North\u202eAnA,East,South,West", ""),
    ("a name of 200,000 characters", "N" * 200_000 + ",East,South,West", ""),
    ("a tariff of nan", "North,East,South,West", "tariff.simplified.contracts.three = nan"),
    ("a tariff of inf", "North,East,South,West", "tariff.simplified.contracts.three = inf"),
    ("a target of nan", "North,East,South,West", "target = nan"),
    ("a name starting with = (for the CSV)", "=1+2,East,South,West", ""),
]


def probe_bad_inputs(t: Table) -> list[tuple[str, int, str]]:
    rows = []
    t.write("POST", "/api/captures", {"side": "declarer"})  # so capture 1 exists
    for what, method, path, body in BAD_INPUTS:
        try:
            status, payload, _ = t.write(method, path, body)
            got = message(payload)
        except OSError as exc:
            status, got = 0, f"connection failed: {exc}"
        rows.append((what, status, got))
        out("bad-input", f"{method} {path[:60]} ({what})", f"{status} {got}")
    status, payload, _ = t.request("GET", "/api/captures/1")
    if status == 200:
        ids = [c["id"] for c in payload.get("cards", [])]
        out("bad-input", "the card ids stored on capture 1 after those", f"{ids}")
    for what, players, tariffs in SETTINGS_INPUTS:
        form = urlencode({"game": "slovenian", "system": "simplified", "players": players, "tariffs": tariffs})
        status, payload, _ = t.request("POST", "/settings", form.encode(),
                                       {"X-Tarokcam-Pin": t.pin, "Content-Type": "application/x-www-form-urlencoded"})
        _, sheet, _ = t.request("GET", "/api/sheet")
        stored = sheet.get("session", {}).get("players") if isinstance(sheet, dict) else "?"
        shown = [p if len(p) < 40 else f"{p[:12]}... ({len(p)} characters)" for p in stored or []]
        got = message(payload) if status >= 400 else "saved"
        rows.append((what, status, got))
        out("bad-input", f"POST /settings ({what})", f"{status} {got}; the evening's players now {shown!r}")
        if what.startswith("a name starting with =") and status < 400:
            t.write("POST", "/api/hands", {"declarer": "=1+2", "partner": "South", "contract": "three",
                                          "card_points": "41"})
            _, csv_text, _ = t.request("GET", "/sheet.csv")
            cells = [c for line in str(csv_text).splitlines() for c in line.split(",") if "1+2" in c]
            out("bad-input", "GET /sheet.csv after a hand declared by '=1+2'", f"cells {cells}")
    status, payload, _ = t.request("GET", "/api/sheet", headers={"Host": "rebind.evil.example"})
    rows.append(("Host: rebind.evil.example", status, message(payload)))
    out("bad-input", "GET /api/sheet with Host: rebind.evil.example (DNS rebinding)", f"{status} {message(payload)}")
    return rows


# -- 4. a service of our own: kill -9 rounds and a missing model -------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SERVER_NOFILE: int | None = None  # --server-nofile: the open-file limit the spawned service runs under


def start_service(state: Path, port: int, pin: str, model: Path | None = None) -> subprocess.Popen:
    config = state.parent / f"tarokcam-{port}.toml"
    text = (f'[web]\nhost = "127.0.0.1"\nport = {port}\npin = "{pin}"\n[camera]\nbackend = "fake"\n'
            f'[trigger]\nauto = false\n[storage]\nmin_free_mb = 0\n')
    if model is not None:
        text += f'[model]\npath = "{model}"\n'
    config.write_text(text)
    log = open(state.parent / f"serve-{port}.log", "a")  # noqa: SIM115 -- closed with the process
    proc = subprocess.Popen([sys.executable, "-m", "device.cli", "serve", "--config", str(config),
                             "--state-dir", str(state)], cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, start_new_session=True)
    if SERVER_NOFILE is not None:  # soft and hard: the service cannot lift it again
        resource.prlimit(proc.pid, resource.RLIMIT_NOFILE, (SERVER_NOFILE, SERVER_NOFILE))
    return proc


def wait_up(t: Table, proc: subprocess.Popen, seconds: float = 120) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(OSError):
            t.request("GET", "/healthz", timeout=5)
            return True
        time.sleep(0.2)
    return False


def probe_kill_rounds(state: Path, pin: str, rounds: int, rng: random.Random) -> dict:
    confirmed: list[int] = []
    port = free_port()
    t = Table(f"http://127.0.0.1:{port}", pin)
    for n in range(rounds):
        proc = start_service(state, port, pin)
        if not wait_up(t, proc):
            out("kill-9", f"round {n + 1}: start", "the service did not come up")
            proc.kill()
            break
        stop = threading.Event()

        def save(stop: threading.Event = stop) -> None:
            for _ in range(10_000):
                if stop.is_set():
                    return
                try:
                    status, payload, _ = t.write("POST", "/api/hands", HAND)
                except OSError:
                    return
                if status == 201:
                    confirmed.append(payload["id"])

        writers = [threading.Thread(target=save) for _ in range(2)]
        for w in writers:
            w.start()
        time.sleep(rng.uniform(0.5, 2.5))
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)
        stop.set()
        for w in writers:
            w.join(30)
    proc = start_service(state, port, pin)
    wait_up(t, proc)
    status, stored, _ = t.request("GET", "/api/hands")
    present = {h["id"] for h in stored} if status == 200 else set()
    status, health, _ = t.request("GET", "/healthz")
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(30)
    lost = sorted(set(confirmed) - present)
    out("kill-9", f"{rounds} rounds: start the service, save hands from two clients, SIGKILL it 0.5-2.5 s in",
        f"{len(confirmed)} hands confirmed (201), {len(present)} stored after the last restart, "
        f"{len(lost)} confirmed hands lost; /healthz web_store: {health.get('web_store') if isinstance(health, dict) else health}")
    return {"rounds": rounds, "confirmed": len(confirmed), "stored": len(present), "lost": len(lost)}


def probe_missing_model(state: Path, pin: str) -> dict:
    empty = state.parent / "no-model"
    empty.mkdir(exist_ok=True)
    port = free_port()
    t = Table(f"http://127.0.0.1:{port}", pin)
    proc = start_service(state.parent / "state-no-model", port, pin, model=empty)
    try:
        if not wait_up(t, proc):
            out("model-missing", "started a service whose model folder is empty", "it did not come up")
            return {}
        status, health, _ = t.request("GET", "/healthz")
        model = health.get("model", {}) if isinstance(health, dict) else {}
        hand_status, _, _ = t.write("POST", "/api/hands", HAND)
        sheet_status, _, _ = t.request("GET", "/sheet", headers={"Accept": "text/html"})
        out("model-missing", "started a service whose model folder is empty; GET /healthz, POST a hand, GET /sheet",
            f"/healthz {status}: model {model}; hand {hand_status}; sheet {sheet_status}")
        return {"healthz": status, "model": model, "hand": hand_status, "sheet": sheet_status}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", help="a running service on loopback, e.g. http://127.0.0.1:8000")
    p.add_argument("--pin", default="246813", help="its PIN (with --spawn: the PIN to give it)")
    p.add_argument("--spawn", action="store_true", help="start a service of our own on a free loopback port")
    p.add_argument("--probes", default="pin,simulate,connections,header,inputs",
                   help="comma-separated: pin, simulate, connections, header, inputs, kill, model")
    p.add_argument("--pin-seconds", type=float, default=30.0)
    p.add_argument("--steps", default="0,100,200,500,1000,1500", help="idle connections to hold, cumulative")
    p.add_argument("--kill-rounds", type=int, default=10)
    p.add_argument("--seed", type=int, default=16)
    p.add_argument("--server-nofile", type=int, help="with --spawn: run the service under this open-file limit "
                                                       "(soft and hard; 1024 is the usual default)")
    args = p.parse_args(argv)
    global SERVER_NOFILE
    SERVER_NOFILE = args.server_nofile
    probes = set(args.probes.split(","))
    if args.spawn:
        probes |= {"kill", "model"} if args.kill_rounds else {"model"}
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="tarokcam-faults-"))
    proc = None
    if args.spawn:
        port = free_port()
        proc = start_service(work / "state", port, args.pin)
        url = f"http://127.0.0.1:{port}"
        if not wait_up(Table(url, args.pin), proc):
            print(f"faults: the service did not start; see {work}", file=sys.stderr)
            return 1
    elif args.url:
        url = args.url
    else:
        p.error("give --url or --spawn")
    t = Table(url, args.pin)
    print(f"faults: probing {url} (work folder {work})", flush=True)
    try:
        if "inputs" in probes:
            probe_bad_inputs(t)
        if "header" in probes:
            probe_header_deadline(t)
        if "connections" in probes:
            probe_connections(t, [int(s) for s in args.steps.split(",")])
        if "pin" in probes:
            probe_pin_flood(t, args.pin_seconds)
        if "simulate" in probes:
            for n in (1, 20, 250):
                out("pin-hour", f"the real PinGate, one hour of virtual time, one wrong PIN a second from each of "
                                f"{n} addresses", f"{simulate_pin_hour(n)} wrong PINs compared")
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)
    if "kill" in probes and args.spawn:
        probe_kill_rounds(work / "state-kill", args.pin, args.kill_rounds, rng)
    if "model" in probes and args.spawn:
        probe_missing_model(work / "state", args.pin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
