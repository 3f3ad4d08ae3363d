"""The appliance's one typed configuration, read from TOML and checked at start.

`load_config(path)` returns a frozen `TarokcamConfig`; any unknown key or bad value raises `ConfigError`, whose
`problems` are one line each, such as ``camera.backend: Input should be 'picamera2', 'opencv', 'replay' or 'fake'``.
Every key has a default, so an empty file (or none at all) is a working configuration. The documented example is
`systemd/tarokcam.toml`; a test checks that it names every key below.
"""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

DEFAULT_CONFIG_PATH = Path("/etc/tarokcam/tarokcam.toml")
DEFAULT_STATE_DIR = Path("/var/lib/tarokcam")
# scoring.GAMES's ids, for when scoring is not importable.
GAME_IDS = ("slovenian", "hungarian", "koenigrufen", "zwanzigerrufen", "strawman", "dappen")


class ConfigError(ValueError):
    """The configuration cannot be used; `problems` holds one "key.path: message" line per fault."""

    def __init__(self, problems: list[str] | tuple[str, ...]):
        self.problems = tuple(problems)
        super().__init__("\n".join(self.problems))


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CameraConfig(_Section):
    backend: Literal["picamera2", "opencv", "replay", "fake"] = Field(
        "picamera2", description="picamera2 (Pi camera), opencv (USB webcam), replay (saved photos), fake (tests)")
    resolution: tuple[int, int] = Field((2028, 1520), description="still size in pixels, width then height")
    device_index: int = Field(0, ge=0, description="opencv only: /dev/videoN number")
    replay_folder: Path | None = Field(None, description="replay only: folder of photos played in name order")
    replay_loop: bool = Field(True, description="replay only: start again after the last photo")
    retry_max_s: float = Field(60.0, gt=0, le=3600, description="longest wait between attempts to reopen a failed camera")

    @field_validator("resolution")
    @classmethod
    def _positive(cls, value: tuple[int, int]) -> tuple[int, int]:
        if min(value) < 64 or max(value) > 16384:
            raise ValueError("width and height must be between 64 and 16384")
        return value

    @model_validator(mode="after")
    def _verify_replay(self) -> CameraConfig:
        if self.backend == "replay" and self.replay_folder is None:
            raise ValueError("backend 'replay' needs replay_folder")
        return self


class ModelConfig(_Section):
    path: Path | None = Field(None, description="model folder (model.onnx + labels.txt); unset: the bundled model")
    auto_printing: bool = Field(True, description="with path unset: switch to the bundled release for other "
                                "printings when the reference release reads a quarter of the cards unsure over "
                                "the last photos (cards of another printing), and stay on it")


class CalibrationConfig(_Section):
    file: Path | None = Field(None, description="calibration file written by `tarokcam calibrate`; unset: no sides")


class WebConfig(_Section):
    host: str = Field("0.0.0.0", min_length=1, description="address to listen on; 0.0.0.0 = every interface")
    port: int = Field(8000, ge=1, le=65535)
    pin: str | None = Field(None, description="PIN players type to change data; 6 to 12 digits")
    pin_file: Path | None = Field(None, description="file holding the PIN (first line)")
    allowed_hosts: list[str] = Field(default_factory=list, description="host names the web view answers to "
                                     "besides IP addresses, localhost and this machine's name (+ .local)")
    max_connections: int = Field(200, ge=8, le=2000, description="open connections at most; beyond it the "
                                 "longest-idle one is closed")
    header_timeout_s: float = Field(10.0, gt=0, le=120, description="seconds a client has to send its "
                                    "request head before the connection is closed")

    @field_validator("pin")
    @classmethod
    def _digits(cls, value: str | None) -> str | None:
        if value is not None and not (value.isdigit() and 6 <= len(value) <= 12):
            raise ValueError("PIN must be 6 to 12 digits")
        return value

    @model_validator(mode="after")
    def _verify_one_pin_source(self) -> WebConfig:
        if self.pin is not None and self.pin_file is not None:
            raise ValueError("set pin or pin_file, not both")
        return self


class StorageConfig(_Section):
    state_dir: Path = Field(DEFAULT_STATE_DIR, description="database, photos and generated PIN live here")
    photo_retention_days: int = Field(30, ge=1, le=3650, description="photos older than this are deleted")
    photo_max_gb: float = Field(4.0, gt=0, description="photos beyond this total size are deleted, oldest first")
    min_free_mb: float = Field(200.0, ge=0, description="/healthz reports the disk as not ok below this")


class GamesConfig(_Section):
    default_game: str = Field("slovenian", description="game id preselected in the web view")
    scoring_system: Literal["simplified", "traditional"] = "simplified"

    @field_validator("default_game")
    @classmethod
    def _known_game(cls, value: str) -> str:
        """A game id or any of its names ("Königrufen"), stored as the id."""
        try:
            from scoring import find_game
        except ImportError:  # scoring not installed alongside: the contract's ids stand in
            if value in GAME_IDS:
                return value
            raise ValueError(f"unknown game {value!r}; known: {', '.join(GAME_IDS)}") from None
        try:
            return find_game(value).id
        except ValueError as exc:
            raise ValueError(str(exc)) from None


class TriggerConfig(_Section):
    auto: bool = Field(True, description="shoot by itself when the scene under the camera holds still")
    gpio_pin: int | None = Field(None, ge=0, le=27, description="BCM pin of a capture button; unset: no button")
    poll_interval_s: float = Field(0.5, gt=0, le=10, description="how often the main loop looks at a preview frame")


class TarokcamConfig(_Section):
    camera: CameraConfig = CameraConfig()
    model: ModelConfig = ModelConfig()
    calibration: CalibrationConfig = CalibrationConfig()
    web: WebConfig = WebConfig()
    storage: StorageConfig = StorageConfig()
    games: GamesConfig = GamesConfig()
    trigger: TriggerConfig = TriggerConfig()

    def with_overrides(self, overrides: dict[str, Any]) -> TarokcamConfig:
        """A checked copy with dotted keys replaced: ``{"web.port": 8081}``; raises ConfigError."""
        data = self.model_dump()
        for dotted, value in overrides.items():
            *parents, leaf = dotted.split(".")
            node = data
            for key in parents:
                node = node[key]
            node[leaf] = value
        return parse_config(data)


def _where(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def parse_config(data: dict[str, Any]) -> TarokcamConfig:
    """Check a mapping (as read from TOML); raises ConfigError with one line per problem."""
    try:
        return TarokcamConfig.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False):
            message = err["msg"].removeprefix("Value error, ")
            problems.append(f"{_where(err['loc'])}: {message}")
        raise ConfigError(problems) from None


def load_config(path: Path | str | None) -> TarokcamConfig:
    """Read and check a TOML file; None means all defaults. Raises ConfigError naming the file or key."""
    if path is None:
        return TarokcamConfig()
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError([f"{path}: no such file"]) from None
    except OSError as exc:
        raise ConfigError([f"{path}: cannot read: {exc.strerror}"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"{path}: not valid TOML: {exc}"]) from None
    return parse_config(data)


def check_paths(config: TarokcamConfig) -> list[str]:
    """Problems with files the configuration names, checked on the machine that will use them."""
    problems = []
    if config.model.path is not None and not config.model.path.is_dir():
        problems.append(f"model.path: no such folder: {config.model.path}")
    if config.calibration.file is not None and not config.calibration.file.is_file():
        problems.append(f"calibration.file: no such file: {config.calibration.file}")
    if config.web.pin_file is not None and not config.web.pin_file.is_file():
        problems.append(f"web.pin_file: no such file: {config.web.pin_file}")
    if config.camera.backend == "replay" and not (config.camera.replay_folder or Path()).is_dir():
        problems.append(f"camera.replay_folder: no such folder: {config.camera.replay_folder}")
    return problems
