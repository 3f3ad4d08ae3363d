"""`tarokcam serve` as systemd runs it: READY and WATCHDOG over $NOTIFY_SOCKET, /healthz, clean stop on SIGTERM."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(*args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "device.cli", "serve", *args], cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})})


def test_serve_without_a_model_serves_the_table_and_says_why(tmp_path):
    empty = tmp_path / "model"
    empty.mkdir()
    config = tmp_path / "tarokcam.toml"
    config.write_text(f'[camera]\nbackend = "fake"\n[model]\npath = "{empty}"\n[web]\npin = "246813"\n')
    port = free_port()
    proc = serve("--config", str(config), "--state-dir", str(tmp_path / "state"), "--port", str(port))
    try:
        deadline, status = time.monotonic() + 90, None
        while time.monotonic() < deadline and status is None:
            assert proc.poll() is None, proc.stdout.read()
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5)
            except urllib.error.HTTPError as exc:
                status = json.loads(exc.read())
            except OSError:
                time.sleep(0.3)
        assert status is not None and status["model"]["ok"] is False
        assert "model.json" in status["model"]["message"]
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/hands",
            data=json.dumps({"declarer": "North", "partner": "South", "contract": "three",
                             "card_points": "41"}).encode(),
            headers={"Content-Type": "application/json", "X-Tarokcam-Pin": "246813"})
        assert json.loads(urllib.request.urlopen(request, timeout=30).read())["id"] == 1
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "model.json" in out and "246813" not in out


def test_serve_with_a_bad_config_names_the_key(tmp_path):
    config = tmp_path / "tarokcam.toml"
    config.write_text('[camera]\nbackend = "webcam"\n')
    proc = serve("--config", str(config))
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert "camera.backend: Input should be 'picamera2', 'opencv', 'replay' or 'fake'" in out


def test_serve_with_an_unusable_state_dir_says_so(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    config = tmp_path / "tarokcam.toml"
    config.write_text('[camera]\nbackend = "fake"\n')
    proc = serve("--config", str(config), "--state-dir", str(blocker / "state"))
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert f"cannot open the database in {blocker / 'state'}" in out


# `tarokcam serve` with vision.Recogniser.load swapped for the soak's fixed three-card answer, so this runs
# before (and independently of) a trained model.
FAKE_MODEL_SERVE = """
import sys, vision
from device.soak import FakeRecogniser
vision.Recogniser.load = classmethod(lambda cls, *a, **k: FakeRecogniser())
from device.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_serve_demo_under_systemd_notify(tmp_path):
    name = f"tarokcam-serve-{os.getpid()}-{time.monotonic_ns()}"
    port = free_port()
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(b"\0" + name.encode())
        sock.settimeout(1)
        proc = subprocess.Popen(
            [sys.executable, "-c", FAKE_MODEL_SERVE, "serve", "--demo", "--port", str(port), "--state-dir",
             str(tmp_path)], cwd=REPO, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": str(REPO), "NOTIFY_SOCKET": "@" + name, "WATCHDOG_USEC": "2000000",
                 "JOURNAL_STREAM": "8:1"})
        messages: list[str] = []

        def wait_for(prefix: str, seconds: float) -> None:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline and not any(m.startswith(prefix) for m in messages):
                try:
                    messages.append(sock.recv(4096).decode())
                except TimeoutError:
                    assert proc.poll() is None, proc.stdout.read()
            assert any(m.startswith(prefix) for m in messages), messages

        try:
            wait_for("READY=1", 120)
            try:
                body = urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10).read()
            except urllib.error.HTTPError as exc:  # 503 still carries the status
                body = exc.read()
            status = json.loads(body)
            assert {"camera", "model", "store", "disk_free_mb", "last_capture_age_s"} <= set(status)
            assert status["model"]["ok"] and status["store"]["ok"] and status["camera"]["ok"]
            pin = (tmp_path / "pin").read_text().strip()
            request = urllib.request.Request(f"http://127.0.0.1:{port}/api/captures", data=b'{"side": null}',
                                             headers={"Content-Type": "application/json", "X-Tarokcam-Pin": pin})
            capture_id = json.loads(urllib.request.urlopen(request, timeout=30).read())["id"]
            assert capture_id == 1
            messages.clear()
            wait_for("WATCHDOG=1", 5)
            proc.send_signal(signal.SIGTERM)
            wait_for("STOPPING=1", 20)
            out, _ = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0, out
    assert "web PIN generated" in out and (tmp_path / "pin").exists()
    assert pin not in out  # under journald the PIN is never printed
    first = out.splitlines()[0]
    assert not first[:4].isdigit()  # under journald: no timestamps of our own
