"""Soak test: run the real app on 127.0.0.1 for a while and check that memory and open files stop growing.

    python -m device.soak --minutes 2                    # CI; the lead's .ci/run
    python -m device.soak --minutes 240                  # an evening at the club table

The replay camera takes a capture through the web API every `--interval` seconds, while the players' view is
polled like a phone would (/, /healthz, the capture JSON, the photo). Resident memory (VmRSS), open file
descriptors and threads of this process are sampled after each round. The run fails (exit 1) if any request
failed, or if the median of the last third of the samples exceeds the median of the middle third by more than
the tolerance (memory: 8 MiB or 5 %, files: 3, threads: 2): the first third is warm-up (model, caches, SQLite
pages).
"""
from __future__ import annotations

import argparse
import logging
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("tarokcam.soak")
PIN = "246810"


@dataclass(frozen=True, slots=True)
class Sample:
    t: float
    rss_kib: int
    fds: int
    threads: int


@dataclass(frozen=True, slots=True)
class FakeRecognition:
    """Stands in for vision.Recognition when the soak measures everything but the model."""
    card_id: str
    confidence: float
    pips: int
    quad: tuple[tuple[float, float], ...]
    flagged: bool = False

    def to_json(self) -> dict:
        return {"id": self.card_id, "confidence": self.confidence, "pips": self.pips,
                "quad": [list(p) for p in self.quad], "flagged": self.flagged}


class FakeRecogniser:
    """Three fixed cards per photo, so the web view has something to draw."""

    def recognise(self, image) -> list[FakeRecognition]:
        w = image.shape[1]
        return [FakeRecognition(card, 0.9, pips, ((x, 10.0), (x + 40, 10.0), (x + 40, 70.0), (x, 70.0)),
                                flagged=card == "HK")
                for card, pips, x in (("T21", 5, w * 0.1), ("SKUS", 5, w * 0.4), ("HK", 5, w * 0.7))]


def sample(t0: float) -> Sample:
    """This process's VmRSS (KiB), Threads and open descriptors, from /proc (Linux only)."""
    fields = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            fields[key] = value.split()
    return Sample(time.monotonic() - t0, int(fields["VmRSS"][0]), len(os.listdir("/proc/self/fd")),
                  int(fields["Threads"][0]))


def growth(values: list[float]) -> tuple[float, float]:
    """(median of the middle third, median of the last third)."""
    n = len(values) // 3
    return statistics.median(values[n:2 * n]), statistics.median(values[2 * n:])


def judge(samples: list[Sample], *, rss_tolerance_kib: int, fd_tolerance: int,
          thread_tolerance: int) -> list[str]:
    """Problems found in the samples; empty when memory, files and threads levelled off."""
    if len(samples) < 6:
        return [f"only {len(samples)} samples: run longer (at least 6 rounds)"]
    problems = []
    for name, values, tolerance, unit in (
            ("resident memory", [s.rss_kib for s in samples], rss_tolerance_kib, "KiB"),
            ("open files", [s.fds for s in samples], fd_tolerance, ""),
            ("threads", [s.threads for s in samples], thread_tolerance, "")):
        middle, last = growth(values)
        if last - middle > tolerance:
            problems.append(f"{name} keeps growing: median {middle:.0f}{unit} in the middle third, "
                            f"{last:.0f}{unit} in the last (tolerance {tolerance}{unit})")
    return problems


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def replay_photos(work: Path) -> Path:
    """The demo photos, or a few synthetic table photos when none are shipped."""
    from device.commands.serve import demo_photos

    folder = demo_photos()
    if folder is not None:
        return folder
    import cv2

    from device.camera import FakeCamera

    folder = work / "replay"
    folder.mkdir()
    with FakeCamera(width=1280, height=960) as cam:
        for i in range(4):
            cv2.imwrite(str(folder / f"{i:02d}.jpg"), cam.capture())
    return folder


def run(minutes: float, interval: float, fake_recogniser: bool, work: Path, out=None) -> int:
    import httpx
    import uvicorn

    from device.config import TarokcamConfig
    from device.service import TableService
    from device.storage import Store
    from device.web import create_app
    from device.web.security import PIN_HEADER

    port = free_port()
    config = TarokcamConfig().with_overrides({
        "camera.backend": "replay", "camera.replay_folder": str(replay_photos(work)),
        "storage.state_dir": str(work / "state"), "web.host": "127.0.0.1", "web.port": port,
        "trigger.auto": False, "trigger.poll_interval_s": 0.5})
    store = Store(work / "state" / "tarokcam.sqlite3")
    service = TableService(config, store, recogniser=FakeRecogniser() if fake_recogniser else None)
    try:
        service.start()
    except Exception as exc:  # noqa: BLE001 -- no bundled model yet: say so instead of a traceback
        store.close()
        print(f"soak: cannot start the table: {exc} (--fake-recogniser runs without a model)",
              file=out or sys.stdout)
        return 2
    app = create_app(store=store, controller=service, photos_dir=service.photos_dir, pin=PIN)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name="soak-uvicorn", daemon=True)
    thread.start()
    samples: list[Sample] = []
    errors: list[str] = []
    rounds = 0
    t0 = time.monotonic()
    try:
        for _ in range(300):  # bounded wait for the server: 30 s
            if server.started:
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("web server did not start within 30 s")
        service.start_loop()
        end = t0 + minutes * 60
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30, follow_redirects=True) as client:
            while time.monotonic() < end:
                started = time.monotonic()
                errors.extend(one_round(client, PIN_HEADER))
                rounds += 1
                samples.append(sample(t0))
                time.sleep(max(0.0, interval - (time.monotonic() - started)))
    finally:
        server.should_exit = True
        thread.join(15)
        service.stop()
        store.close()
    return report(samples, errors, rounds, out or sys.stdout)


def one_round(client, pin_header: str) -> list[str]:
    """One capture and one phone's worth of polling; returns the failures."""
    errors = []
    # The same pile photographed again each round: "Replace it", as a player would press.
    r = client.post("/api/captures", json={"side": "declarer", "replace": True}, headers={pin_header: PIN})
    if r.status_code != 200:
        return [f"POST /api/captures: {r.status_code} {r.text[:200]}"]
    capture_id = r.json()["id"]
    for path in ("/", "/healthz", "/api/captures/latest", f"/api/captures/{capture_id}",
                 f"/captures/{capture_id}/photo"):
        r = client.get(path)
        if r.status_code != 200:
            errors.append(f"GET {path}: {r.status_code} {r.text[:200]}")
    return errors


def report(samples: list[Sample], errors: list[str], rounds: int, out) -> int:
    print(f"soak: {rounds} rounds in {samples[-1].t if samples else 0:.0f} s, {len(errors)} failed requests",
          file=out)
    for s in samples[:: max(1, len(samples) // 10)]:
        print(f"  t={s.t:7.1f} s  rss={s.rss_kib / 1024:7.1f} MiB  fds={s.fds:4d}  threads={s.threads:3d}",
              file=out)
    if samples:
        first, last = samples[0], samples[-1]
        print(f"growth over the run: rss {(last.rss_kib - first.rss_kib) / 1024:+.1f} MiB, "
              f"fds {last.fds - first.fds:+d}, threads {last.threads - first.threads:+d}", file=out)
    # 8 MiB or 5 %: onnxruntime's arena and SQLite's page cache settle in steps, a leak keeps climbing.
    rss_tolerance = max(8 * 1024, int(0.05 * growth([s.rss_kib for s in samples])[0])) if len(samples) >= 6 else 0
    problems = errors[:10] + judge(samples, rss_tolerance_kib=rss_tolerance, fd_tolerance=3, thread_tolerance=2)
    if len(samples) >= 6:
        rss = growth([s.rss_kib for s in samples])
        fds = growth([s.fds for s in samples])
        last_half = samples[len(samples) // 2:]
        slope = statistics.linear_regression([s.t for s in last_half], [s.rss_kib for s in last_half]).slope
        print(f"median middle/last third: rss {rss[0] / 1024:.1f} -> {rss[1] / 1024:.1f} MiB, "
              f"fds {fds[0]:.0f} -> {fds[1]:.0f}; rss trend over the last half {slope * 3600 / 1024:+.1f} MiB/h",
              file=out)
    for line in problems:
        print(f"FAIL: {line}", file=out)
    print("soak: ok" if not problems else "soak: FAILED", file=out)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m device.soak", description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=2.0, help="how long to run (default 2)")
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between captures (default 2)")
    parser.add_argument("--fake-recogniser", action="store_true",
                        help="use a fixed three-card answer instead of the bundled model")
    args = parser.parse_args(argv)
    if not 0 < args.minutes <= 24 * 60 or not 0.1 <= args.interval <= 600:
        parser.error("--minutes must be in (0, 1440] and --interval in [0.1, 600]")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    with tempfile.TemporaryDirectory(prefix="tarokcam-soak-") as work:
        return run(args.minutes, args.interval, args.fake_recogniser, Path(work))


if __name__ == "__main__":
    sys.exit(main())
