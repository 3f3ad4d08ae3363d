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
    """Plain lines on stderr; under systemd (JOURNAL_STREAM set) journald adds the time, so we do not.
    A line repeated faster than RepeatFilter allows is held back and counted (a flood of one error, such as
    uvicorn's `socket.accept() out of system resource`, must not fill the disk)."""
    fmt = "%(levelname)s %(name)s: %(message)s"
    if not os.environ.get("JOURNAL_STREAM"):
        fmt = "%(asctime)s " + fmt
    logging.basicConfig(level=logging.INFO, format=fmt, stream=sys.stderr, force=True)
    for handler in logging.getLogger().handlers:
        handler.addFilter(RepeatFilter())


class RepeatFilter(logging.Filter):
    """Let through at most `burst` records with the same logger, level and message template per `window_s`;
    the first one after a held-back run says how many were held back."""

    def __init__(self, burst: int = 5, window_s: float = 60.0, clock=None, max_keys: int = 1024) -> None:
        super().__init__()
        import time
        self.burst, self.window_s, self._clock = burst, window_s, clock or time.monotonic
        self._seen: dict[tuple, list] = {}  # key -> [window start, count in window, held back]
        self.max_keys = max_keys

    def filter(self, record: logging.LogRecord) -> bool:
        now = self._clock()
        key = (record.name, record.levelno, str(record.msg)[:200])
        entry = self._seen.get(key)
        if entry is None or now - entry[0] >= self.window_s:
            held = entry[2] if entry is not None else 0
            if len(self._seen) >= self.max_keys:
                self._seen.clear()
            self._seen[key] = [now, 1, 0]
            if held:
                record.msg = f"{record.msg} [{held} more like this held back in the last {self.window_s:.0f} s]"
            return True
        entry[1] += 1
        if entry[1] <= self.burst:
            return True
        entry[2] += 1
        return False


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
    """The web PIN: from the config, else from pin_file, else state_dir/pin, made (0600) on first start.

    The PIN never goes into the log (journald keeps it, readable to the adm group): a generated one is printed
    once to the terminal when there is one, and the log says only where it is stored."""
    from device.web.security import MIN_PIN_DIGITS

    if web.pin:
        return web.pin
    if web.pin_file is not None:
        pin = web.pin_file.read_text().strip().splitlines()[0:1]
        if not pin or not pin[0].isdigit() or len(pin[0]) < MIN_PIN_DIGITS:
            raise ValueError(f"web.pin_file: {web.pin_file} does not start with a line of at least "
                             f"{MIN_PIN_DIGITS} digits")
        return pin[0]
    path = state_dir / "pin"
    if path.exists():
        pin = path.read_text().strip()
        if pin.isdigit() and len(pin) >= MIN_PIN_DIGITS:
            return pin
        log.warning("the PIN in %s is shorter than %d digits; making a new one", path, MIN_PIN_DIGITS)
        path.unlink()
    pin = f"{secrets.randbelow(10**MIN_PIN_DIGITS):0{MIN_PIN_DIGITS}d}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(pin + "\n")
    log.warning("web PIN generated and stored in %s (mode 0600; read it with: sudo cat %s)", path, path)
    show_on_console(f"tarokcam: the table's PIN is {pin} (stored in {path})")
    return pin


def show_on_console(line: str) -> None:
    """Write `line` to the terminal we run in, never to the log: not under journald, not into a pipe."""
    if os.environ.get("JOURNAL_STREAM"):
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream.isatty():
                print(line, file=stream, flush=True)
                return
        except (AttributeError, ValueError):
            continue


def raise_open_file_limit(want: int = 4096) -> int:
    """Lift the soft descriptor limit towards the hard one (systemd's LimitNOFILE sets both); returns it."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = want if hard == resource.RLIM_INFINITY else min(want, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        return int(soft)
    except (ImportError, ValueError, OSError):
        return -1


def allowed_hosts(web) -> list[str]:
    """The names the web view answers to besides IP addresses (DNS rebinding guard)."""
    import socket
    name = socket.gethostname().lower()
    names = {"localhost", name, f"{name}.local", *(h.lower() for h in web.allowed_hosts)}
    if web.host not in ("0.0.0.0", "::", ""):
        names.add(web.host.lower())
    return sorted(names)


def uvicorn_config(app, web):
    """uvicorn with bounds: a header deadline and a cap on open connections (device.web.connections),
    keep-alive 5 s, 16 KiB of request head, no proxy headers (no client may claim another's address)."""
    import uvicorn

    from device.web.connections import guarded_protocol

    return uvicorn.Config(
        app, host=web.host, port=web.port, log_config=None, access_log=False, timeout_graceful_shutdown=5,
        http=guarded_protocol(max_connections=web.max_connections, header_timeout_s=web.header_timeout_s),
        limit_concurrency=web.max_connections + 16, timeout_keep_alive=5, backlog=128,
        h11_max_incomplete_event_size=16 * 1024, proxy_headers=False, server_header=False,
    )


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
    limit = raise_open_file_limit()
    try:
        try:
            pin = resolve_pin(config.web, state_dir)
            service.start()  # a missing or damaged model does not stop it: the table serves without vision
        except Exception as exc:  # noqa: BLE001 -- PIN file missing or damaged: nothing to serve
            log.error("cannot start: %s", exc)
            return 1
        app = create_app(store=store, controller=service, photos_dir=service.photos_dir, pin=pin,
                         settings={"game": config.games.default_game, "system": config.games.scoring_system,
                                   "allowed_hosts": allowed_hosts(config.web)})
        server = uvicorn.Server(uvicorn_config(app, config.web))
        log.info("at most %d connections, %.0f s to send a request head; %d open files allowed",
                 config.web.max_connections, config.web.header_timeout_s, limit)
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
