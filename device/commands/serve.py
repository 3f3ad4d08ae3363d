"""`tarokcam serve`: run the table (camera, recogniser, store) and its web view until stopped."""
from __future__ import annotations

import argparse
import logging
import os
import secrets
import signal
import sys
import tempfile
from pathlib import Path

log = logging.getLogger("tarokcam")

DEMO_PHOTOS = Path(__file__).resolve().parents[1] / "demo" / "photos"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the table service and its web view",
                       description="Run the camera, recogniser and web view until stopped "
                                   "(systemd runs this).")
    p.add_argument("--config", type=Path, default=None,
                   help="TOML configuration (default: /etc/tarokcam/tarokcam.toml if present, "
                        "else built-in defaults)")
    p.add_argument("--demo", action="store_true",
                   help="replay the bundled demo photos instead of a camera; state in a temporary folder")
    p.add_argument("--host", help="address to listen on (overrides web.host)")
    p.add_argument("--port", type=int, help="port to listen on (overrides web.port)")
    p.add_argument("--state-dir", type=Path,
                   help="database, photos and PIN folder (overrides storage.state_dir)")
    p.set_defaults(func=run)


def setup_logging() -> None:
    """Plain lines on stderr; under systemd (JOURNAL_STREAM set) journald adds the time, so we do not."""
    fmt = "%(levelname)s %(name)s: %(message)s"
    if not os.environ.get("JOURNAL_STREAM"):
        fmt = "%(asctime)s " + fmt
    logging.basicConfig(level=logging.INFO, format=fmt, stream=sys.stderr, force=True)


def config_from_args(args: argparse.Namespace):
    """The checked configuration with the command line's overrides; raises ConfigError."""
    from device.config import DEFAULT_CONFIG_PATH, load_config

    path = args.config
    if path is None and DEFAULT_CONFIG_PATH.is_file():
        path = DEFAULT_CONFIG_PATH
    config = load_config(path)
    overrides: dict = {}
    if args.demo:
        photos = demo_photos()
        # No demo photos shipped: the fake camera's synthetic table still shows the whole path.
        camera = {"camera.backend": "fake"} if photos is None else {
            "camera.backend": "replay", "camera.replay_folder": str(photos), "camera.replay_loop": True}
        overrides.update({**camera, "web.host": "127.0.0.1", "trigger.gpio_pin": None})
        if args.state_dir is None:
            overrides["storage.state_dir"] = tempfile.mkdtemp(prefix="tarokcam-demo-")
    if args.host:
        overrides["web.host"] = args.host
    if args.port is not None:
        overrides["web.port"] = args.port
    if args.state_dir is not None:
        overrides["storage.state_dir"] = str(args.state_dir)
    return config.with_overrides(overrides) if overrides else config


def demo_photos() -> Path | None:
    """The bundled demo photos, else sample photos in a source checkout's tests; None when there are none."""
    candidates = [DEMO_PHOTOS, *sorted((DEMO_PHOTOS.parents[2] / "tests" / "vision").glob("**/"))]
    for folder in candidates:
        if any(p.suffix.lower() in (".jpg", ".jpeg", ".png") for p in folder.glob("*")):
            return folder
    return None


def resolve_pin(web, state_dir: Path) -> str:
    """The web PIN: from the config, else from pin_file, else state_dir/pin, made (0600) on first start."""
    if web.pin:
        return web.pin
    if web.pin_file is not None:
        pin = web.pin_file.read_text().strip().splitlines()[0:1]
        if not pin or not pin[0].isdigit():
            raise ValueError(f"web.pin_file: {web.pin_file} does not start with a line of digits")
        return pin[0]
    path = state_dir / "pin"
    if path.exists():
        return path.read_text().strip()
    pin = f"{secrets.randbelow(10**6):06d}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(pin + "\n")
    log.warning("web PIN generated and stored in %s: %s", path, pin)
    return pin


def run(args: argparse.Namespace) -> int:
    setup_logging()
    from device.config import ConfigError, check_paths

    try:
        config = config_from_args(args)
    except ConfigError as exc:
        for line in exc.problems:
            print(f"tarokcam: config: {line}", file=sys.stderr)
        return 2
    if problems := check_paths(config):
        for line in problems:
            print(f"tarokcam: config: {line}", file=sys.stderr)
        return 2
    return _serve(config)


def _exit_cleanly(signum, frame) -> None:
    raise SystemExit(0)


def _serve(config) -> int:
    import sqlite3

    import uvicorn

    from device.service import TableService
    from device.storage import Store
    from device.web import create_app

    state_dir = config.storage.state_dir
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        store = Store(state_dir / "tarokcam.sqlite3")
    except (OSError, sqlite3.Error, ValueError) as exc:  # unwritable folder, damaged or newer database
        log.error("cannot open the database in %s: %s", state_dir, exc)
        return 1
    service = TableService(config, store)
    try:
        try:
            pin = resolve_pin(config.web, state_dir)
            service.start()
        except Exception as exc:  # noqa: BLE001 -- model or PIN file missing or damaged: nothing to serve
            log.error("cannot start: %s", exc)
            return 1
        app = create_app(store=store, controller=service, photos_dir=service.photos_dir, pin=pin,
                         settings={"game": config.games.default_game, "system": config.games.scoring_system})
        server = uvicorn.Server(uvicorn.Config(app, host=config.web.host, port=config.web.port, log_config=None,
                                               access_log=False, timeout_graceful_shutdown=5))
        log.info("serving on http://%s:%d (state in %s)", config.web.host, config.web.port, state_dir)
        # uvicorn shuts down gracefully on SIGTERM, then re-raises it to the handler it found: let that be
        # a clean exit, so the finally below stops the loop and closes the database.
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, _exit_cleanly)
        service.start_loop(ready_check=lambda: server.started)
        server.run()
        return 0 if server.started else 1
    finally:
        service.stop()
        store.close()
