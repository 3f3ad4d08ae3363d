"""The calibration file: versioned JSON, written atomically, and clear errors when damaged."""
from __future__ import annotations

import json

import numpy as np
import pytest

from calibration import Calibration, CalibrationError, Paper, layout_for, load_calibration, save_calibration


def _calib(**changes) -> Calibration:
    lay = layout_for("A3")
    values = {"version": 1, "homography": ((0.3, 0.01, -5.0), (0.0, 0.31, -3.0), (0.0, 1e-5, 1.0)),
              "px_per_mm": 3.5, "paper": Paper.A3, "image_size": (1600, 1200), "play_area": lay.play_area,
              "sides": lay.sides, "created": "2026-11-29T12:00:00+00:00",
              "camera_settings": {"lens_position": 2.5, "exposure_time": 12000, "colour_gains": [1.9, 1.6]}}
    values.update(changes)
    return Calibration(**values)


def test_round_trip(tmp_path):
    path = tmp_path / "calibration.json"
    save_calibration(_calib(), path)
    loaded = load_calibration(path)
    assert loaded == _calib()
    assert json.loads(path.read_text())["version"] == 1
    assert loaded.matrix.shape == (3, 3) and loaded.matrix.dtype == np.float64
    assert [p.name for p in tmp_path.iterdir()] == ["calibration.json"]  # no temporary file left


def test_save_replaces_atomically(tmp_path):
    path = tmp_path / "calibration.json"
    save_calibration(_calib(px_per_mm=2.0), path)
    save_calibration(_calib(px_per_mm=4.0), path)
    assert load_calibration(path).px_per_mm == 4.0
    with pytest.raises(OSError):
        save_calibration(_calib(), tmp_path / "missing-dir" / "c.json")
    assert load_calibration(path).px_per_mm == 4.0


@pytest.mark.parametrize("text,message", [
    ('{"version": 1, "homography": [[1, 0', "not valid JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('{"version": 7}', "version 7 is not supported"),
    ('{"version": 1}', "missing key"),
])
def test_corrupt_file_is_a_clear_error(tmp_path, text, message):
    path = tmp_path / "calibration.json"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=message) as info:
        load_calibration(path)
    assert str(path) in str(info.value)


def test_bad_values_are_named(tmp_path):
    path = tmp_path / "calibration.json"
    data = _calib().to_json()
    data["homography"] = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="invertible"):
        load_calibration(path)
    data = _calib().to_json()
    data["sides"]["declarer"] = [[0, 0], [1]]
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="sides.declarer"):
        load_calibration(path)


def test_missing_file_says_how_to_make_one(tmp_path):
    with pytest.raises(CalibrationError, match="tarokcam calibrate"):
        load_calibration(tmp_path / "nope.json")
