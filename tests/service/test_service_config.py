"""device.config, `tarokcam check-config`, and the serve command's configuration and PIN."""
from __future__ import annotations

import argparse
import re
import stat
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from device.cli import main
from device.commands.serve import config_from_args, resolve_pin
from device.config import ConfigError, TarokcamConfig, load_config, parse_config

EXAMPLE = Path(__file__).resolve().parents[2] / "systemd" / "tarokcam.toml"


def leaf_keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    keys = []
    for name, field in model.model_fields.items():
        sub = field.annotation
        if isinstance(sub, type) and issubclass(sub, BaseModel):
            keys += leaf_keys(sub, f"{prefix}{name}.")
        else:
            keys.append(prefix + name)
    return keys


def test_example_file_is_the_defaults():
    assert load_config(EXAMPLE) == TarokcamConfig()


def test_example_file_documents_every_key():
    text = EXAMPLE.read_text()
    sections = dict(re.findall(r"^\[(\w+)\]\n(.*?)(?=^\[|\Z)", text, re.DOTALL | re.MULTILINE))
    missing = []
    for dotted in leaf_keys(TarokcamConfig):
        section, key = dotted.split(".")
        body = sections.get(section, "")
        # Every key appears (set or commented out) right after a comment line that explains it.
        if not re.search(rf"^# [^\n]+\n(#.*\n)*#? ?{key} = ", body, re.MULTILINE):
            missing.append(dotted)
    assert missing == []


def test_config_is_frozen():
    config = TarokcamConfig()
    with pytest.raises(ValidationError, match="frozen"):
        config.web.port = 1


@pytest.mark.parametrize("data, line", [
    ({"camera": {"backend": "webcam"}}, "camera.backend: Input should be 'picamera2', 'opencv', 'replay' or 'fake'"),
    ({"camera": {"bakend": "fake"}}, "camera.bakend: Extra inputs are not permitted"),
    ({"cameras": {}}, "cameras: Extra inputs are not permitted"),
    ({"web": {"port": 70000}}, "web.port: Input should be less than or equal to 65535"),
    ({"web": {"pin": "12ab"}}, "web.pin: PIN must be 6 to 12 digits"),
    ({"web": {"pin": "2468"}}, "web.pin: PIN must be 6 to 12 digits"),
    ({"web": {"pin": "24681"}}, "web.pin: PIN must be 6 to 12 digits"),
    ({"web": {"pin": "123456", "pin_file": "/etc/pin"}}, "web: set pin or pin_file, not both"),
    ({"camera": {"backend": "replay"}}, "camera: backend 'replay' needs replay_folder"),
    ({"camera": {"resolution": [2028, "tall"]}}, "camera.resolution[1]: Input should be a valid integer"),
    ({"storage": {"photo_retention_days": 0}}, "storage.photo_retention_days: Input should be greater than"),
    ({"games": {"default_game": "skat"}}, "games.default_game: unknown game 'skat'; known"),
    ({"games": {"scoring_system": "fancy"}}, "games.scoring_system: Input should be 'simplified' or 'traditional'"),
    ({"trigger": {"gpio_pin": 40}}, "trigger.gpio_pin: Input should be less than or equal to 27"),
])
def test_bad_values_name_the_key(data, line):
    with pytest.raises(ConfigError) as caught:
        parse_config(data)
    assert len(caught.value.problems) == 1
    assert caught.value.problems[0].startswith(line)


def test_games_are_named_as_players_name_them():
    assert parse_config({"games": {"default_game": "Königrufen"}}).games.default_game == "koenigrufen"


def test_every_problem_gets_its_own_line():
    with pytest.raises(ConfigError) as caught:
        parse_config({"camera": {"backend": "x", "foo": 1}, "web": {"port": -1}})
    assert [p.split(":")[0] for p in caught.value.problems] == ["camera.backend", "camera.foo", "web.port"]


def test_unreadable_files_are_config_errors(tmp_path):
    bad = tmp_path / "t.toml"
    bad.write_text("[camera\nbackend = 'fake'\n")
    with pytest.raises(ConfigError, match=r"t.toml: not valid TOML"):
        load_config(bad)
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "missing.toml")


def test_check_config_command(tmp_path, capsys):
    good = tmp_path / "good.toml"
    good.write_text('[camera]\nbackend = "fake"\n[web]\nport = 8081\n')
    assert main(["check-config", "--config", str(good)]) == 0
    assert "ok (camera fake, web 0.0.0.0:8081" in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text('[camera]\nbackend = "webcam"\n[calibration]\nfile = "/nowhere/calib.json"\n[web]\nprt = 1\n')
    assert main(["check-config", "--config", str(bad)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"{bad}: camera.backend: Input should be 'picamera2', 'opencv', 'replay' or 'fake'",
                   f"{bad}: web.prt: Extra inputs are not permitted", f"{bad}: 2 problems"]
    paths = tmp_path / "paths.toml"
    paths.write_text('[calibration]\nfile = "/nowhere/calib.json"\n')
    assert main(["check-config", "--config", str(paths)]) == 2
    assert "calibration.file: no such file: /nowhere/calib.json" in capsys.readouterr().err


def serve_args(**kw):
    base = {"config": None, "demo": False, "host": None, "port": None, "state_dir": None}
    return argparse.Namespace(**{**base, **kw})


def test_serve_overrides_and_demo(tmp_path, monkeypatch):
    monkeypatch.setattr("device.config.DEFAULT_CONFIG_PATH", tmp_path / "absent.toml")
    cfg = config_from_args(serve_args(port=9000, state_dir=tmp_path))
    assert (cfg.web.port, cfg.storage.state_dir, cfg.camera.backend) == (9000, tmp_path, "picamera2")
    photos = tmp_path / "photos"
    photos.mkdir()
    monkeypatch.setattr("device.commands.serve.demo_photos", lambda: photos)
    demo = config_from_args(serve_args(demo=True, state_dir=tmp_path))
    assert (demo.camera.backend, demo.camera.replay_folder, demo.web.host) == ("replay", photos, "127.0.0.1")
    monkeypatch.setattr("device.commands.serve.demo_photos", lambda: None)  # none shipped: synthetic table
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))     # no state dir given: a fresh one (here, not /tmp)
    bare = config_from_args(serve_args(demo=True))
    assert bare.camera.backend == "fake"
    assert bare.storage.state_dir.parent == tmp_path and bare.storage.state_dir.name.startswith("tarokcam-demo-")
    with pytest.raises(ConfigError, match="web.port"):
        config_from_args(serve_args(port=0))


def test_pin_is_generated_once_and_kept_out_of_the_log(tmp_path, caplog):
    web = TarokcamConfig().web
    pin = resolve_pin(web, tmp_path)
    assert re.fullmatch(r"\d{6}", pin)
    assert stat.S_IMODE((tmp_path / "pin").stat().st_mode) == 0o600
    assert pin not in caplog.text  # the journal is readable to more people than the table
    assert str(tmp_path / "pin") in caplog.text  # but it says where the PIN is
    caplog.clear()
    assert resolve_pin(web, tmp_path) == pin and pin not in caplog.text


def test_a_stored_pin_shorter_than_six_digits_is_replaced(tmp_path):
    (tmp_path / "pin").write_text("2468\n")
    pin = resolve_pin(TarokcamConfig().web, tmp_path)
    assert re.fullmatch(r"\d{6}", pin) and (tmp_path / "pin").read_text().strip() == pin


def test_pin_from_config_or_file(tmp_path):
    cfg = TarokcamConfig()
    assert resolve_pin(cfg.web.model_copy(update={"pin": "2468"}), tmp_path) == "2468"
    pin_file = tmp_path / "pinfile"
    pin_file.write_text("9753108\n")
    assert resolve_pin(cfg.with_overrides({"web.pin_file": str(pin_file)}).web, tmp_path) == "9753108"
    assert not (tmp_path / "pin").exists()
    pin_file.write_text("97531\n")
    with pytest.raises(ValueError, match="at least 6 digits"):
        resolve_pin(cfg.with_overrides({"web.pin_file": str(pin_file)}).web, tmp_path)
