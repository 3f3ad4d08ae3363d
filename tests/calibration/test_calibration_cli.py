"""`tarokcam mat` and `tarokcam calibrate` through device.cli.main."""
from __future__ import annotations

import json

import cv2
import numpy as np

from calibration import load_calibration
from device.cli import main


def test_mat_writes_pdf_and_png(tmp_path, capsys):
    assert main(["mat", "--paper", "a4", "--dpi", "60", "--out", str(tmp_path / "out")]) == 0
    pdf, png = tmp_path / "out" / "tarokcam-mat-A4-60dpi.pdf", tmp_path / "out" / "tarokcam-mat-A4-60dpi.png"
    assert pdf.read_bytes().startswith(b"%PDF-1.4")
    assert cv2.imread(str(png)).shape == (496, 702, 3)
    assert "100 %" in capsys.readouterr().out


def test_mat_rejects_bad_dpi(tmp_path, capsys):
    assert main(["mat", "--dpi", "5", "--out", str(tmp_path)]) == 2
    assert "--dpi" in capsys.readouterr().out


def _mat_photo_file(path, mat_photo, mat_homography):
    size = (1600, 1200)
    h = mat_homography("A3", tilt_deg=6, yaw_deg=-4, px_per_mm=3.3, size=size)
    cv2.imwrite(str(path), mat_photo("A3", h, size))
    return path


def test_calibrate_from_image(tmp_path, capsys, mat_photo, mat_homography):
    photo = _mat_photo_file(tmp_path / "mat.png", mat_photo, mat_homography)
    out = tmp_path / "cal" / "calibration.json"
    assert main(["calibrate", "--image", str(photo), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "markers: 8 of 8 found" in text and "px/mm" in text and "edge blur" in text
    calib = load_calibration(out)
    assert json.loads(out.read_text())["version"] == 2 and calib.paper == "A3"
    assert "map error:" in text and "lens:" in text
    picture = cv2.imread(str(out.with_suffix(".found.jpg")))
    assert picture.shape == (1200, 1600, 3)
    assert not np.array_equal(picture, cv2.imread(str(photo)))  # something was drawn on it


def test_calibrate_with_replay_camera(tmp_path, capsys, mat_photo, mat_homography):
    (tmp_path / "photos").mkdir()
    _mat_photo_file(tmp_path / "photos" / "a.png", mat_photo, mat_homography)
    out = tmp_path / "calibration.json"
    picture = tmp_path / "found.png"
    code = main(["calibrate", "--camera", "replay", "--camera-option", f"folder={tmp_path / 'photos'}",
                 "--out", str(out), "--picture", str(picture)])
    assert code == 0, capsys.readouterr().out
    assert load_calibration(out).image_size == (1600, 1200) and picture.is_file()


def test_calibrate_bad_inputs(tmp_path, capsys):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((300, 400, 3), 128, np.uint8))
    out = tmp_path / "calibration.json"
    assert main(["calibrate", "--image", str(blank), "--out", str(out)]) == 1
    assert "no calibration-mat markers" in capsys.readouterr().out and not out.exists()
    (tmp_path / "junk.jpg").write_bytes(b"not a jpeg")
    assert main(["calibrate", "--image", str(tmp_path / "junk.jpg"), "--out", str(out)]) == 2
    assert "not an image" in capsys.readouterr().out
    assert main(["calibrate", "--image", str(tmp_path / "none.jpg"), "--out", str(out)]) == 2
    assert main(["calibrate", "--camera", "replay", "--camera-option", f"folder={tmp_path / 'x'}",
                 "--out", str(out)]) == 1
    assert "does not exist" in capsys.readouterr().out


def test_calibrate_keeps_the_old_file_when_the_new_photo_fails(tmp_path, mat_photo, mat_homography):
    out = tmp_path / "calibration.json"
    photo = _mat_photo_file(tmp_path / "mat.png", mat_photo, mat_homography)
    assert main(["calibrate", "--image", str(photo), "--out", str(out)]) == 0
    before = out.read_bytes()
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((300, 400, 3), 128, np.uint8))
    assert main(["calibrate", "--image", str(blank), "--out", str(out)]) == 1
    assert out.read_bytes() == before


def test_calibrate_with_pi_camera_records_focus_exposure_and_white_balance(tmp_path, monkeypatch, capsys,
                                                                             mat_photo, mat_homography):
    import sys
    import types

    size = (1600, 1200)
    photo = mat_photo("A3", mat_homography("A3", tilt_deg=4, yaw_deg=1, px_per_mm=3.3, size=size), size)
    controls = {}

    class Picamera2:  # the slice of the picamera2 API that calibration uses
        sensor_resolution = size

        def __init__(self, camera_num=0):
            self.camera_controls = {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0)}

        def create_still_configuration(self, main=None, lores=None, buffer_count=1, queue=True, **kw):
            return {"main": main, "lores": lores}

        def configure(self, config): pass
        def start(self): pass
        def stop(self): pass
        def close(self): pass

        def set_controls(self, c):
            controls.update(c)

        def autofocus_cycle(self, wait=True):
            controls["LensPosition"] = 4.5
            return True

        def capture_metadata(self):
            return {"LensPosition": controls.get("LensPosition", 0.0), "ExposureTime": 20000,
                    "AnalogueGain": 1.25, "ColourGains": (1.95, 1.55)}

        def capture_array(self, name="main"):
            return photo.copy()

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=Picamera2))
    out = tmp_path / "calibration.json"
    assert main(["calibrate", "--camera", "picamera2", "--out", str(out)]) == 0, capsys.readouterr().out
    assert load_calibration(out).camera_settings == {"lens_position": 4.5, "exposure_time": 20000,
                                                     "analogue_gain": 1.25, "colour_gains": [1.95, 1.55]}
    assert controls["AeEnable"] is False and controls["AwbEnable"] is False and controls["AfMode"] == 0
    assert "lens_position=4.5" in capsys.readouterr().out
