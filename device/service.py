"""The table service: camera, trigger, recogniser, calibration and store behind the web's TableController.

`TableService.capture(side)` takes a still, saves it atomically, recognises the cards and stores the capture.
`TableService.run_loop()` is the main loop (a background thread under `tarokcam serve`): it reopens a
failed camera with backoff, feeds preview frames to the still-scene trigger, reads the capture button, rotates
photos, says READY to systemd once the web server listens, and pets the watchdog, so a hung loop gets the
service restarted. A failed camera never stops the service: the error shows in `status()` (/healthz) and in the log.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from device import handread
from device.config import TarokcamConfig
from device.photos import PhotoSaveError, remove_leftovers, rotate_photos, save_photo, sweep_orphans
from device.sdnotify import Notifier

log = logging.getLogger(__name__)

ROTATE_EVERY_S = 600.0
# A still takes well under 10 s even on a Pi Zero; one stuck longer has hung in the driver, and only a restart
# (the watchdog's) frees the camera.
CAPTURE_HANG_S = 45.0
AUTO_CAPTURE_KEY = "auto_capture"  # store meta written by the Settings page: "on" or "off"
PRINTING_KEY = "printing_release"  # store meta: the release for other printings the table switched to (its name)
REFERENCE_PRINTING = "reference"   # ... or this: the players said the cards are the reference printing
FIRST_RETRY_S = 1.0
MODEL_RETRY_S = 30.0  # a missing or damaged model is looked for again this often (doubling, to 10 min)
MODEL_RETRY_MAX_S = 600.0


class CaptureStoreError(RuntimeError):
    """The photo was taken but its capture could not be stored (database full or damaged); nothing kept."""


def camera_error_type() -> type[Exception]:
    """`device.camera.CameraError`, the error the web view expects from `capture`."""
    from device.camera import CameraError
    return CameraError


def load_recogniser(path: Path | None) -> Any:
    """Load the model release and run it once on a small synthetic photo; raises vision.ModelError.

    The load checks files, checksums and label counts; the trial run catches what loads but cannot run
    (a detector and classifier swapped in model.json, a model exported for another input size)."""
    from vision import ModelError, Recogniser

    recogniser = Recogniser.load(path)
    if not (hasattr(recogniser, "detect") and hasattr(recogniser, "classify")):
        return recogniser  # a stand-in (tests, soak) with only `recognise`: nothing to try
    probe = np.full((256, 320, 3), 128, np.uint8)
    probe[96:160, 128:160] = 240  # something card-like, so the detector has an edge to look at
    try:
        recogniser.detect(probe)
        cards, pips = recogniser.classify(probe, np.array([[144.0, 128.0]], np.float32),
                                          np.array([[0.0, -1.0]], np.float32), np.array([48.0], np.float32))
    except Exception as exc:  # onnxruntime raises its own types for a wrong input shape
        raise ModelError(f"{getattr(recogniser, 'name', path)}: loads but cannot run "
                         f"(detector and classifier swapped, or built for another input?): {exc}") from exc
    if cards.shape != (1, len(recogniser.labels)) or not np.all(np.isfinite(cards)) \
            or not np.all(np.isfinite(pips)):
        raise ModelError(f"{getattr(recogniser, 'name', path)}: trial read gave {cards.shape} "
                         f"(expected (1, {len(recogniser.labels)})) or non-finite values")
    return recogniser


def choose_release(path: Path | None) -> tuple[Path | None, str | None]:
    """The release to load for the configured one, and why it is not the configured one (or None).

    A club deck's release (models.export --deck) is switched to only when `models.evaluate --check-release`
    passed on these very files; otherwise the table stays on the bundled release and says why."""
    from vision.recogniser import club_deck, release_check

    if path is None or not club_deck(path):
        return path, None
    ok, reason = release_check(path)
    if ok:
        return path, None
    return None, f"not switched to {Path(path).name}: {reason}"


def open_configured_camera(config: TarokcamConfig, camera_settings: dict[str, Any] | None = None) -> Any:
    """Open the back end the configuration names; raises CameraError with the reason.

    `camera_settings` (focus, exposure, white balance recorded by calibration) are passed on where the back
    end takes them, so the photos look like the one the table was calibrated with."""
    import inspect

    from device.camera import camera_class, open_camera

    cam = config.camera
    width, height = cam.resolution
    options: dict[str, Any] = {
        "picamera2": {"size": (width, height)},
        "opencv": {"device": cam.device_index, "width": width, "height": height},
        "replay": {"folder": cam.replay_folder, "loop": cam.replay_loop},
        "fake": {"width": width, "height": height},
    }[cam.backend]
    takes = inspect.signature(camera_class(cam.backend).__init__).parameters
    options.update({k: v for k, v in (camera_settings or {}).items() if k in takes and k not in options})
    return open_camera(cam.backend, **options)


class TableService:
    """Implements the web's TableController (`capture`, `status`) and owns the main loop."""

    def __init__(self, config: TarokcamConfig, store: Any, *, photos_dir: Path | None = None,
                 recogniser: Any = None, calibration: Any = None,
                 camera_factory: Callable[[], Any] | None = None, trigger: Any = None, button: Any = None,
                 notifier: Notifier | None = None, clock: Callable[[], float] = time.monotonic):
        self.config = config
        self.store = store
        self.photos_dir = photos_dir or config.storage.state_dir / "photos"
        self._recogniser = recogniser
        self._calibration = calibration
        self._camera_factory = camera_factory or (lambda: open_configured_camera(
            config, getattr(self._calibration, "camera_settings", None)))
        self._trigger = trigger
        self._button = button
        self._button_pressed = threading.Event()  # set from gpiozero's thread, read by the loop
        self._notifier = notifier or Notifier()
        self._clock = clock
        self._lock = threading.RLock()  # one user of the camera at a time: web request or trigger
        self._camera: Any = None
        self._camera_message = "not opened yet"
        self._retry_s = FIRST_RETRY_S
        self._next_open_at = 0.0
        self._model_message = "given by the caller" if recogniser is not None else "not loaded"
        self._model_error: str | None = None
        self._model_retry_s = MODEL_RETRY_S
        self._next_model_at = 0.0
        self._model_note: str | None = None   # why the configured release is not the one loaded
        self._model_loader: Callable[[], Any] = self._load_configured
        self._printing: Any = None     # vision.printing.PrintingWatch while the bundled release may be the wrong one
        self._switched: str | None = None   # why the table reads with the release for other printings
        self._calibration_message = "not calibrated: cards are not assigned to sides"
        self._calibration_ok = True
        self._disk_error: str | None = None
        self._last_capture_at: float | None = None  # wall clock, comparable with Store created_at
        self._next_rotation_at = 0.0
        self._last_pet = float("-inf")
        self._capturing_since: float | None = None
        self._hang_logged = False
        self._ready_sent = False
        self._ready_check: Callable[[], bool] | None = None
        self._heartbeat: float | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._read_again = False    # the table just switched releases: read the hand's earlier photos again

    # -- start and stop --------------------------------------------------------------------
    def start(self) -> None:
        """Load the model and calibration, tidy the photos folder, make the first attempt to open the camera.

        A model that is missing, damaged, mismatched or cannot run does not stop the table: the web view
        serves the sheet and manual entry, /healthz and the banner say why, and the main loop tries the
        model again with backoff."""
        if self._recogniser is None:
            self._try_load_model(self._clock())
        self._load_calibration()
        self._load_triggers()
        self.photos_dir.mkdir(parents=True, exist_ok=True)
        if (n := remove_leftovers(self.photos_dir)):
            log.warning("removed %d half-written photos left by an earlier run", n)
        names = getattr(self.store, "photo_names", None)
        if names is not None and (orphans := sweep_orphans(self.photos_dir, names())):
            log.warning("removed %d photos that no capture names (an earlier run stopped before storing "
                        "them): %s", len(orphans), ", ".join(orphans[:5]))
        self._rotate()
        latest = self.store.latest_capture()
        self._last_capture_at = latest.get("created_at") if latest else None
        self._next_rotation_at = self._clock() + ROTATE_EVERY_S
        with self._lock:
            self._try_open(self._clock())

    def _load_configured(self) -> Any:
        path, self._model_note = choose_release(self.config.model.path)
        if self._model_note:
            log.warning("model %s", self._model_note)
        if path is None and self._auto_printing():
            switched = self._switched_release()
            if switched is not None:    # switched on an earlier run: the cards on this table have not changed
                try:
                    recogniser = load_recogniser(switched)
                except Exception as exc:  # noqa: BLE001 -- the bundled release still reads: use it
                    self._model_note = f"{switched.name}, switched to on an earlier run, could not be loaded: {exc}"
                    log.error("model %s; reading with the bundled release", self._model_note)
                else:
                    self._switched = f"switched earlier to {switched.name}, the release for other printings"
                    return recogniser
        return load_recogniser(path)

    def _auto_printing(self) -> bool:
        return self.config.model.path is None and self.config.model.auto_printing

    @property
    def printing_switched(self) -> str | None:
        """Why the table reads with the release for other printings (for the Settings page), or None."""
        return self._switched

    def use_reference_printing(self) -> None:
        """The players say their cards are the reference printing: back to the bundled release, and no switch
        again (store meta `printing_release` = "reference", kept for later runs). Raises vision.ModelError."""
        recogniser = load_recogniser(None)
        set_meta = getattr(self.store, "set_meta", None)
        if set_meta is not None:
            set_meta(PRINTING_KEY, REFERENCE_PRINTING)
        self._recogniser, self._printing, self._switched = recogniser, None, None
        self._model_message = f"{getattr(recogniser, 'name', '') or 'bundled model'} loaded (the players said the " \
                              "cards are the reference printing)"
        log.warning("model %s", self._model_message)

    def _switched_release(self) -> Path | None:
        """The release for other printings, when an earlier run switched to one (store meta `printing_release`):
        the newest bundled one, also when an update replaced the one switched to (the meta then names it)."""
        from vision.recogniser import printing_release

        name = self._said_printing()
        found = printing_release() if name and name != REFERENCE_PRINTING else None
        if found is not None and found.name != name:
            log.info("the release for other printings switched to earlier, %s, is now %s", name, found.name)
            self._keep_printing(found.name)
        return found

    def _keep_printing(self, name: str) -> None:
        """Keep the release switched to for later runs (store meta `printing_release`); a failed write is logged:
        the switch holds for this run all the same."""
        set_meta = getattr(self.store, "set_meta", None)
        if set_meta is not None:
            try:
                set_meta(PRINTING_KEY, name)
            except Exception as exc:  # noqa: BLE001 -- disk full, read-only store
                log.error("model switch not kept for later runs: %s", exc)

    def _said_printing(self) -> str | None:
        meta = getattr(self.store, "meta", None)
        return meta(PRINTING_KEY) if meta else None

    def _watch_printing(self, found: list[dict]) -> bool:
        """Feed the photo's flags to the printing watch; past its line, switch to the release for printings never
        seen (kept for later runs in store meta) and say why. True when switched (the photo is then read again)."""
        if self._printing is None:
            return False
        self._printing.observe(item.get("flagged", False) for item in found)
        if not self._printing.unlike_reference():
            return False
        from vision.recogniser import printing_release

        watch, self._printing = self._printing, None    # one switch an evening, whatever follows
        path = printing_release()
        if path is None:
            log.warning("model: %s, but no release for other printings is installed", watch.reason())
            return False
        try:
            recogniser = load_recogniser(path)
        except Exception as exc:  # noqa: BLE001 -- stay on the bundled release: it reads, if worse
            log.error("model: %s, but %s could not be loaded: %s", watch.reason(), path.name, exc)
            return False
        self._recogniser = recogniser
        self._switched = f"switched to {path.name}, the release for other printings: {watch.reason()}"
        self._model_message = f"{getattr(recogniser, 'name', '') or path.name} loaded ({self._switched})"
        self._keep_printing(path.name)
        log.warning("model %s", self._switched)
        return True

    def _try_load_model(self, now: float) -> bool:
        try:
            recogniser = self._model_loader()
        except Exception as exc:  # noqa: BLE001 -- ModelError, or onnxruntime's own: serve without vision
            self._model_message = f"not loaded: {exc}; cards are entered by hand until it loads"
            self._next_model_at = now + self._model_retry_s
            log.error("model %s (next try in %.0f s)", self._model_message, self._model_retry_s)
            self._model_retry_s = min(self._model_retry_s * 2, MODEL_RETRY_MAX_S)
            return False
        self._recogniser = recogniser
        name = getattr(recogniser, "name", "") or self.config.model.path or "bundled model"
        note = self._switched or self._model_note
        self._model_message = f"{name} loaded" + (f" ({note})" if note else "")
        if self._auto_printing() and self._switched is None and self._model_note is None \
                and self._said_printing() != REFERENCE_PRINTING:
            from vision.printing import PrintingWatch
            self._printing = PrintingWatch()
        self._model_retry_s = MODEL_RETRY_S
        log.info("model %s", self._model_message)
        return True

    @property
    def vision_problem(self) -> str | None:
        """Why the table cannot read cards now (for the pages' banner), or None when it can."""
        return None if self._recogniser is not None else f"Card recognition is off: model {self._model_message}."

    def _load_calibration(self) -> None:
        path = self.config.calibration.file
        if self._calibration is not None:
            self._calibration_message = "calibrated"
            return
        if path is None:
            return
        try:
            from calibration import load_calibration
            self._calibration = load_calibration(path)
            self._calibration_message = f"calibrated from {path}"
        except Exception as exc:  # noqa: BLE001 -- a damaged file must not keep the table from counting
            self._calibration_ok = False
            self._calibration_message = f"cannot load {path}: {exc}; cards are not assigned to sides"
            log.error("calibration: %s", self._calibration_message)

    def _load_triggers(self) -> None:
        trig = self.config.trigger
        if self._trigger is None and trig.auto:
            from device.trigger import StillSceneTrigger
            self._trigger = StillSceneTrigger()
        if self._button is None and trig.gpio_pin is not None:
            try:
                from device.trigger import GpioButton
                self._button = GpioButton(trig.gpio_pin, on_press=self.press)
            except Exception as exc:  # noqa: BLE001 -- no GPIO on this machine: the web button still works
                log.error("capture button on GPIO %d unavailable: %s", trig.gpio_pin, exc)

    def press(self) -> None:
        """The capture button was pressed (called from the GPIO library's thread)."""
        self._button_pressed.set()

    def start_loop(self, ready_check: Callable[[], bool] | None = None) -> threading.Thread:
        """Run the main loop in a daemon thread; READY goes to systemd once `ready_check()` is true."""
        self._ready_check = ready_check
        self._stop.clear()
        self._thread = threading.Thread(target=self.run_loop, name="tarokcam-loop", daemon=True)
        self._thread.start()
        return self._thread

    def stop(self, timeout: float = 10.0) -> None:
        self._notifier.stopping()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        with self._lock:
            self._close_camera()
        if self._button is not None and hasattr(self._button, "close"):
            self._button.close()

    # -- the main loop -----------------------------------------------------------------------
    def run_loop(self) -> None:
        log.info("main loop started")
        while not self._stop.is_set():
            try:
                self.step()
            except Exception:  # one bad iteration must not end the loop; the watchdog covers hangs
                log.exception("main loop iteration failed")
            self._stop.wait(self.config.trigger.poll_interval_s)
        log.info("main loop stopped")

    def step(self) -> None:
        """One iteration of the main loop."""
        now = self._clock()
        self._heartbeat = now
        self._pet(now)
        if not self._ready_sent and (self._ready_check is None or self._ready_check()):
            self._ready_sent = True
            self._notifier.ready(self._summary())
            log.info("ready: %s", self._summary())
        if self._recogniser is None and now >= self._next_model_at:
            self._try_load_model(now)
        if self._camera is None and now >= self._next_open_at:
            with self._lock:
                self._try_open(now)
        if self._camera is not None and self._should_shoot():
            try:
                self.capture()
            except Exception as exc:  # noqa: BLE001 -- logged; the players can press Capture again
                log.error("automatic capture failed: %s", exc)
        if now >= self._next_rotation_at:
            self._next_rotation_at = now + ROTATE_EVERY_S
            self._rotate()

    def _pet(self, now: float) -> None:
        interval = self._notifier.watchdog_interval_s
        since = self._capturing_since
        if since is not None and now - since > CAPTURE_HANG_S:
            if not self._hang_logged:
                self._hang_logged = True
                log.error("camera capture hung for %.0f s; the watchdog is left to restart the service",
                          now - since)
            return
        self._hang_logged = False
        if interval is not None and now - self._last_pet >= interval:
            self._notifier.watchdog()
            self._last_pet = now

    def auto_capture_on(self) -> bool:
        """The Settings page's switch for shooting by itself (store meta `auto_capture`; on unless "off")."""
        meta = getattr(self.store, "meta", None)
        return meta is None or meta(AUTO_CAPTURE_KEY, "on") != "off"

    def _should_shoot(self) -> bool:
        if self._button_pressed.is_set():
            self._button_pressed.clear()
            log.info("capture button pressed")
            return True
        if self._trigger is None or not self.auto_capture_on():
            return False
        if not self._lock.acquire(blocking=False):
            return False  # a web capture holds the camera; look again next time
        try:
            if self._camera is None:
                return False
            try:
                frame = self._camera.preview()
            except Exception as exc:  # noqa: BLE001 -- camera back ends raise what their driver raises
                self._camera_failed(f"preview failed: {exc}")
                return False
        finally:
            self._lock.release()
        return bool(self._trigger.feed(frame, self._clock()))

    # -- camera ----------------------------------------------------------------------------
    def _try_open(self, now: float) -> Any:
        """Open the camera if it is closed; on failure remember why and back off. Caller holds the lock."""
        if self._camera is not None:
            return self._camera
        try:
            camera = self._camera_factory()
            if hasattr(camera, "open") and not getattr(camera, "is_open", False):
                camera.open()
        except Exception as exc:  # noqa: BLE001 -- any back-end failure means: reopen later
            self._camera_message = f"not available: {exc}"
            self._next_open_at = now + self._retry_s
            log.error("camera %s (next try in %.0f s)", self._camera_message, self._retry_s)
            self._retry_s = min(self._retry_s * 2, self.config.camera.retry_max_s)
            self._notifier.status(self._summary())
            return None
        was_down = self._camera_message != "not opened yet"
        self._camera = camera
        self._camera_message = f"{self.config.camera.backend} camera open"
        self._retry_s = FIRST_RETRY_S
        log.log(logging.WARNING if was_down else logging.INFO, "camera %s", self._camera_message)
        self._notifier.status(self._summary())
        return camera

    def _camera_failed(self, message: str) -> None:
        """Drop a camera that failed; the loop reopens it with backoff. Caller holds the lock."""
        self._close_camera()
        self._camera_message = message
        self._next_open_at = self._clock() + self._retry_s
        log.error("camera %s; reopening in %.0f s", message, self._retry_s)
        self._notifier.status(self._summary())

    def _close_camera(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            try:
                camera.close()
            except Exception as exc:  # noqa: BLE001 -- closing a broken camera must not hide why it broke
                log.warning("closing the camera failed: %s", exc)

    # -- TableController -------------------------------------------------------------------
    def capture(self, side: str | None = None) -> int:
        """Take a still now, save it, recognise the cards and store the capture; returns its id.

        Raises CameraError when the camera is down or fails (the service keeps running and reopens it),
        PhotoSaveError (OSError, ENOSPC when the disk is full) when the photo cannot be written, and
        CaptureStoreError when the database refuses the row; then nothing is stored and no partial file is
        left. All three are RuntimeErrors, which the web view answers with 503 and the message."""
        camera_error = camera_error_type()
        with self._lock:
            camera = self._try_open(self._clock())  # a player asked: try now, whatever the backoff says
            if camera is None:
                raise camera_error(f"camera {self._camera_message}")
            self._capturing_since = self._clock()
            try:
                image = camera.capture()
                _check_still(image)
                if self._trigger is not None:  # this scene is taken: it must not trigger a second shot
                    # The still itself: a replay camera has already moved on to its next scene.
                    self._trigger.note_capture(image)
            except Exception as exc:
                self._camera_failed(f"capture failed: {exc}")
                raise camera_error(f"camera capture failed: {exc}") from exc
            finally:
                self._capturing_since = None
        try:
            photo = save_photo(self.photos_dir, image)
        except PhotoSaveError as exc:
            self._disk_error = str(exc)
            log.error("%s; nothing was stored", exc)
            raise
        self._disk_error = None
        recognitions, error, pile = self._recognise(image)
        height, width = image.shape[:2]
        try:
            capture_id = self.store.add_capture(photo=photo, side=side, width=width, height=height,
                                                recognitions=recognitions, error=error,
                                                session_id=self._session_id())
        except Exception as exc:  # e.g. sqlite3.OperationalError "database or disk is full"
            (self.photos_dir / photo).unlink(missing_ok=True)  # no photo without its row
            log.error("capture not stored: %s", exc)
            raise CaptureStoreError(f"cannot store the capture: {exc}") from exc
        try:
            handread.save_pile(self.store, capture_id, pile)
        except Exception as exc:  # noqa: BLE001 -- the capture stands; its hand read is only help
            log.error("capture %d: pile read not stored: %s", capture_id, exc)
        if self._read_again:
            self._read_again = False
            self._read_pending_again(capture_id)
        self._last_capture_at = time.time()
        log.info("capture %d: %s, %d cards%s", capture_id, photo, len(recognitions),
                 f" ({error})" if error else "")
        return capture_id

    def _recognise(self, image: np.ndarray) -> tuple[list[dict], str | None, dict | None]:
        """The capture's cards, why there are none (or None), and the photo's pile read (or None)."""
        if self._recogniser is None:  # the photo is kept; the players add its cards by hand
            return [], f"no recognition: model {self._model_message}", None
        pile = None
        try:
            # The hand reader's pile read (every index with its doubts) when the evening's game is known;
            # the capture's card list is its likeliest reading.
            current = getattr(self.store, "current_session", None)
            session = current() if current else None
            for _ in range(2):      # once more when these reads switched the table to the release for printings
                if session is not None:
                    found, pile = handread.read_photo(self._recogniser, image, session["game"])
                else:
                    found = [r.to_json() for r in self._recogniser.recognise(image)]
                if not self._watch_printing(found):
                    break
                self._read_again = True     # the hand's other photo was read by the bundled release
        except Exception as exc:  # keep the photo: players can still enter the cards by hand
            log.exception("recognition failed")
            self._model_error = f"last recognition failed: {exc}"
            return [], f"recognition failed: {exc}", None
        self._model_error = None
        out = self._with_sides(found)
        if self._calibration is not None:
            self._check_alignment(image)
        return out, None, pile

    def _read_pending_again(self, newest: int) -> None:
        """After the switch to the release for other printings, the photos of the hand being counted that the
        bundled release read are read again with it, so that the first hand of the evening is read as well as
        the rest. Not a photo the players have corrected or answered a question about (their corrections and
        answers point at its reads), nor one whose file is gone."""
        from vision.image import read_image

        current = getattr(self.store, "current_session", None)
        session = current() if current else None
        if session is None or self._recogniser is None:
            return
        try:
            pending = self.store.pending_captures(session["id"])
            said = [a for a in handread.evening_answers(self.store, session) if a.get("kind") == "which_card"]
        except Exception as exc:  # noqa: BLE001 -- the photos keep their first reads
            log.error("photos not read again after the switch: %s", exc)
            return
        for capture in pending.values():
            if capture is None or capture["id"] == newest:
                continue
            if any(a.get("capture", capture["id"]) == capture["id"] and a.get("side") == capture["side"]
                   for a in said):
                continue
            try:
                if self.store.corrections(capture["id"]):
                    continue
                image = read_image(self.photos_dir / capture["photo"])
                found, pile = handread.read_photo(self._recogniser, image, session["game"])
                found = self._with_sides(found)
                again = self.store.replace_recognitions(
                    capture["id"], found, handread.pile_key(capture["id"]),
                    json.dumps(pile) if pile is not None else None)
            except Exception as exc:  # noqa: BLE001 -- that photo keeps its first read
                log.error("capture %d not read again after the switch: %s", capture["id"], exc)
                continue
            if again:
                log.info("capture %d read again with the release for other printings: %d cards",
                         capture["id"], len(found))

    def _with_sides(self, found: list[dict]) -> list[dict]:
        """Each read with the side of the mat it lies on, when the table is calibrated."""
        if self._calibration is not None:
            for item in found:
                item["side"] = self._side_of(item["quad"])
        return found

    def _side_of(self, quad: Any) -> str | None:
        from calibration import assign_side
        xs, ys = zip(*quad)
        return assign_side(self._calibration, (sum(xs) / len(xs), sum(ys) / len(ys)))

    def _check_alignment(self, image: np.ndarray) -> None:
        try:
            from calibration import check_alignment
            warning = check_alignment(self._calibration, image)
        except Exception as exc:  # noqa: BLE001 -- a failed check is a warning, not a lost capture
            warning = f"alignment check failed: {exc}"
        self._calibration_ok = warning is None
        self._calibration_message = warning or "calibrated; table mat aligned"

    def _session_id(self) -> int | None:
        current = getattr(self.store, "current_session", None)
        session = current() if current else None
        return session["id"] if session else None

    def status(self) -> dict:
        """Health for /healthz: each part {"ok", "message"}, free disk and the age of the last capture."""
        free_mb = shutil.disk_usage(self.photos_dir if self.photos_dir.exists() else Path("/")).free / 2**20
        if self._disk_error is not None and free_mb >= self.config.storage.min_free_mb and self._photos_writable():
            self._disk_error = None  # space is back: say so without waiting for the next photo
        disk_ok = self._disk_error is None and free_mb >= self.config.storage.min_free_mb
        heartbeat_age = None if self._heartbeat is None else self._clock() - self._heartbeat
        loop_ok = self._thread is None or (self._thread.is_alive() and (heartbeat_age or 0) < 60)
        camera_ok, camera_message = self._camera is not None, self._camera_message
        since = self._capturing_since
        if since is not None and self._clock() - since > CAPTURE_HANG_S:
            camera_ok, camera_message = False, f"capture hung for {self._clock() - since:.0f} s"
        return {
            "camera": {"ok": camera_ok, "message": camera_message, "backend": self.config.camera.backend},
            "model": {"ok": self._recogniser is not None and self._model_error is None,
                      "message": self._model_error or self._model_message},
            "calibration": {"ok": self._calibration_ok, "message": self._calibration_message,
                            "calibrated": self._calibration is not None},
            "store": self._store_status(),
            "disk": {"ok": disk_ok, "message": self._disk_error or f"{free_mb:.0f} MB free"},
            "loop": {"ok": loop_ok, "message": "not started" if heartbeat_age is None
                     else f"last iteration {heartbeat_age:.1f} s ago"},
            "disk_free_mb": round(free_mb, 1),
            "last_capture_age_s": self._last_capture_age(),
        }

    def _photos_writable(self) -> bool:
        """Can a photo-sized write reach the disk again? (The same os.write path as save_photo.)"""
        probe = self.photos_dir / ".write-probe.tmp"
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
            try:
                view = memoryview(b"\0" * 65536)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            return True
        except OSError:
            return False
        finally:
            try:
                probe.unlink()
            except OSError:
                pass

    def _store_status(self) -> dict:
        try:
            self.store.latest_capture_id()
        except Exception as exc:  # noqa: BLE001 -- any database failure is what /healthz must report
            return {"ok": False, "message": f"database error: {exc}"}
        return {"ok": True, "message": f"{getattr(self.store, 'path', 'database')} open"}

    def _last_capture_age(self) -> float | None:
        at = self._last_capture_at
        return None if at is None else round(max(0.0, time.time() - at), 1)

    def _summary(self) -> str:
        return f"camera {self._camera_message}; model {self._model_message}"

    def _rotate(self) -> None:
        storage = self.config.storage
        try:
            rotate_photos(self.photos_dir, keep_days=storage.photo_retention_days,
                          max_bytes=int(storage.photo_max_gb * 1e9))
        except OSError as exc:
            log.error("photo rotation failed: %s", exc)


def _check_still(image: Any) -> None:
    if not (isinstance(image, np.ndarray) and image.ndim == 3 and image.shape[2] == 3
            and image.dtype == np.uint8):
        shape = getattr(image, "shape", None)
        raise ValueError(f"expected an (H, W, 3) uint8 image, got {type(image).__name__} {shape}")

