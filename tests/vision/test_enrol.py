"""Enrolment: a card's face cut out of a photo along its edge and rectified to 60 x 112 mm at 10 px/mm, on a
plain background or on the calibrated mat; bad photos refused with the reason; `tarokcam enrol` writes a deck
folder that the generator can load."""
from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest
from enrol_photos import card_photo, face_difference, load_face, mat_photo_with_card, with_exif_orientation

from device.cli import main
from device.commands.enrol import read_photo
from vision.enrol import INDEX_BOX_MM, EnrolmentRefused, choose_index_box, enrol_face, find_index_box

# (card, photo keyword arguments): turned, in perspective, small and large photos, light and dark grounds
POSES = [
    ("T1", {}),
    ("HK", {"angle_deg": 33, "tilt": (0.15, -0.1)}),
    ("C7", {"angle_deg": 95, "card_px": 500, "background": (205, 205, 210)}),  # landscape, on white paper
    ("SKUS", {"size": (4000, 3000), "card_px": 2400, "angle_deg": -170, "tilt": (-0.1, 0.2)}),
    ("T21", {"size": (900, 1200), "card_px": 800, "angle_deg": 4, "background": (20, 20, 20)}),  # scanner lid
]


def _corner_error(found, true):
    """Largest corner distance in px, either way up (the Tarock index is printed at both ends)."""
    return min(float(np.abs(found - np.roll(true, k, axis=0)).max()) for k in (0, 2))


@pytest.mark.parametrize("card,pose", POSES)
def test_face_is_cut_along_the_edge_and_rectified(card, pose):
    face = load_face(card)
    photo, quad = card_photo(face, seed=len(card), **pose)
    result = enrol_face(photo)
    assert result.face.shape == (1120, 600, 4) and result.face.dtype == np.uint8
    # within 0.4 mm of the true corners (px in the photo / px per mm of the card there)
    assert _corner_error(result.quad, quad) / result.px_per_mm_in < 0.4
    assert face_difference(result.face, face) < 8  # of 255; photo noise, blur and JPEG remain
    assert result.face[0, 0, 3] == 0 and result.face[560, 300, 3] == 255  # rounded corner cut away


def test_a_misplaced_cut_would_show():
    """The difference measure is sharp enough to tell a cut 1 mm off from a right one."""
    face = load_face("HK")
    photo, quad = card_photo(face, angle_deg=10)
    from vision.enrol import rectify

    right = rectify(photo, quad)
    off = rectify(photo, quad + np.array([6.25, 0]))  # 1 mm at 6.25 px/mm
    assert face_difference(right, face) < 8 < face_difference(off, face)


@pytest.mark.parametrize("kind,match", [
    ("blurred", "blurred"),
    ("off_picture", "runs off the picture"),
    ("two_cards", "not one card"),
    ("nothing", "no card found"),
    ("too_small", "too small"),
    ("face_down", "face down"),
])
def test_bad_photos_are_refused_with_the_reason(kind, match):
    face, back = load_face("D1"), load_face("back") if False else cv2.imread(
        str(__import__("enrol_photos").FACES / "back.png"), cv2.IMREAD_UNCHANGED)
    if kind == "blurred":
        photo, _ = card_photo(face, blur=4.0)
    elif kind == "off_picture":
        photo, _ = card_photo(face, centre=(0.5, 0.1))
    elif kind == "two_cards":
        first, _ = card_photo(face, centre=(0.42, 0.5))
        photo, _ = card_photo(load_face("D2"), centre=(0.6, 0.5), angle_deg=0, canvas=first)
    elif kind == "nothing":
        photo = np.full((800, 1000, 3), 90, np.uint8)
    elif kind == "too_small":
        photo, _ = card_photo(face, card_px=250, size=(1600, 1200))
    else:
        photo, _ = card_photo(back, angle_deg=20)
    with pytest.raises(EnrolmentRefused, match=match):
        enrol_face(photo, back=back)


def test_on_the_mat_the_card_is_measured_in_mm():
    from calibration import calibrate_from_image, layout_for, warp_to_table
    from device.commands.enrol import _with_scale

    face = load_face("SK")
    photo, corners_mm = mat_photo_with_card(face, at_mm=(200, 150), angle_deg=25)
    calib, _ = calibrate_from_image(photo)
    view = warp_to_table(photo, _with_scale(calib, 10.0))
    area = np.array(layout_for("A3").play_area) * 10 - 0.5
    result = enrol_face(view, table_px_per_mm=10.0, play_area=area)
    assert result.size_mm == pytest.approx((60, 112), abs=0.6)
    assert _corner_error(result.quad / 10, corners_mm) < 0.6  # mm, through the mat's calibration
    assert face_difference(result.face, face) < 12  # the camera sees the card at only ~5 px/mm
    off, _ = mat_photo_with_card(face, at_mm=(50, 100), angle_deg=0)  # over the marker ring
    view = warp_to_table(off, _with_scale(calib, 10.0))
    with pytest.raises(EnrolmentRefused, match="off the mat"):
        enrol_face(view, table_px_per_mm=10.0, play_area=area)


def test_exif_orientation_is_honoured(tmp_path):
    face = load_face("T5")
    photo, _ = card_photo(face, size=(1200, 900), card_px=700, angle_deg=90)  # card lies across the frame
    raw = np.ascontiguousarray(np.rot90(photo))  # the sensor's pixels, turned a quarter round
    data = with_exif_orientation(cv2.imencode(".jpg", raw, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes(), 6)
    path = tmp_path / "T5.jpg"
    path.write_bytes(data)
    shown = read_photo(path)
    assert shown.shape == photo.shape  # 1200 wide again: turned back as the phone meant
    assert np.abs(shown.astype(int) - photo.astype(int)).mean() < 4
    assert face_difference(enrol_face(shown).face, face) < 8


def _write_folder(folder, ids, **pose):
    folder.mkdir()
    for k, cid in enumerate(ids):
        photo, _ = card_photo(load_face(cid), size=(1000, 750), card_px=640, angle_deg=7 * k - 20, seed=k, **pose)
        cv2.imwrite(str(folder / f"{cid}.jpg"), photo)


def test_enrol_command_writes_a_deck_folder_the_generator_loads(tmp_path, capsys):
    from models.synth import Deck

    reference = json.loads((load_face.__globals__["FACES"] / "deck.json").read_text())
    ids = [c["id"] for c in reference["cards"]]
    _write_folder(tmp_path / "photos", ids)
    back, _ = card_photo(cv2.imread(str(load_face.__globals__["FACES"] / "back.png"), cv2.IMREAD_UNCHANGED),
                         size=(1000, 750), card_px=640)
    cv2.imwrite(str(tmp_path / "photos" / "back.jpg"), back)
    (tmp_path / "photos" / "notes.txt").write_text("not a photo")
    out = tmp_path / "deck"
    assert main(["enrol", "--photos", str(tmp_path / "photos"), "--out", str(out), "--name", "club"]) == 0
    text = capsys.readouterr().out
    assert "wrote 54 of 54 faces" in text and "back: ok" in text
    deck = json.loads((out / "deck.json").read_text())
    assert deck["name"] == "club" and deck["card_size_mm"] == [60, 112] and len(deck["cards"]) == 54
    assert deck["index_box_mm"]["x0"] == 1.8 and deck["enrolment"]["back"] == "back.jpg"
    assert deck["index_box_mm"]["how"].startswith("given; the faces print their index within it")
    assert "index box: 1.8, 2.5, 12.2, 47 mm" in text
    loaded = Deck.load(out)
    assert loaded.ids == tuple(ids) and loaded.faces[0][0].shape == (1120, 600, 4)
    assert face_difference(cv2.imread(str(out / "CK.png"), cv2.IMREAD_UNCHANGED), load_face("CK")) < 10


def test_enrol_command_names_missing_and_refused_cards(tmp_path, capsys):
    _write_folder(tmp_path / "photos", ["T1", "HK"])
    blurred, _ = card_photo(load_face("SKUS"), size=(1000, 750), card_px=640, blur=5)
    cv2.imwrite(str(tmp_path / "photos" / "skus.png"), blurred)  # lower-case names work too
    cv2.imwrite(str(tmp_path / "photos" / "H2.png"), blurred)  # not in the 42-card pack
    out = tmp_path / "deck"
    assert main(["enrol", "--photos", str(tmp_path / "photos"), "--out", str(out), "--pack", "42"]) == 1
    text = capsys.readouterr().out
    assert "T1: ok" in text and "HK: ok" in text and "SKUS: refused: the photo is blurred" in text
    assert "H2.png: skipped, not in the 42-card pack" in text and "T2: missing" in text
    deck = json.loads((out / "deck.json").read_text())
    assert len(deck["cards"]) == 42 and "SKUS" in deck["enrolment"]["refused"]
    assert (out / "T1.png").is_file() and not (out / "SKUS.png").exists()
    assert (out / "back.png").is_file() and deck["enrolment"]["back"] == "reference (not enrolled)"
    assert main(["enrol", "--photos", str(tmp_path / "none"), "--out", str(out)]) == 2


def test_enrol_command_on_the_mat(tmp_path, capsys):
    from calibration import calibrate_from_image, save_calibration

    face = load_face("DQ")
    empty, _ = mat_photo_with_card(np.zeros_like(face), seed=1)  # a transparent 'card': the bare mat
    calib, _ = calibrate_from_image(empty)
    save_calibration(calib, tmp_path / "calibration.json")
    (tmp_path / "photos").mkdir()
    photo, _ = mat_photo_with_card(face, at_mm=(230, 140), angle_deg=-80)
    cv2.imwrite(str(tmp_path / "photos" / "DQ.png"), photo)
    off, _ = mat_photo_with_card(load_face("DK"), at_mm=(40, 148), angle_deg=0)
    cv2.imwrite(str(tmp_path / "photos" / "DK.png"), off)
    out = tmp_path / "deck"
    assert main(["enrol", "--photos", str(tmp_path / "photos"), "--out", str(out),
                 "--calibration", str(tmp_path / "calibration.json")]) == 1
    text = capsys.readouterr().out
    line = next(ln for ln in text.splitlines() if ln.startswith("DQ:"))
    assert line.startswith("DQ: ok"), line
    width, height = (float(v) for v in re.search(r"([\d.]+) x ([\d.]+) mm", line).groups())
    assert abs(width - 60) < 1 and abs(height - 112) < 1
    assert "DK: refused: the card lies off the mat" in text
    assert face_difference(cv2.imread(str(out / "DQ.png"), cv2.IMREAD_UNCHANGED), face) < 12


def _reference_faces():
    faces_dir = load_face.__globals__["FACES"]
    ids = [c["id"] for c in json.loads((faces_dir / "deck.json").read_text())["cards"]]
    return [load_face(c) for c in ids]


def _index_moved(face, dx_mm=6.0, dy_mm=4.0):
    """The face with everything inside a 1 mm border moved right and down (the card stock fills behind)."""
    g, m = face.copy(), 10
    dx, dy = int(dx_mm * 10), int(dy_mm * 10)
    stock = face[560, 8, :3]
    g[m + dy:560, m + dx:300] = face[m:560 - dy, m:300 - dx]
    g[m:m + dy, m:300, :3] = stock
    g[m:560, m:m + dx, :3] = stock
    return g


def test_the_index_box_is_found_on_the_faces():
    faces = _reference_faces()
    found = find_index_box(faces)
    # the ink of Alpine Tarok's index lies inside the box its deck.json gives (which leaves room below)
    assert found is not None
    assert all(abs(a - b) <= 1.0 for a, b in zip(found[:3], INDEX_BOX_MM[:3])) and 40 <= found[3] <= 47.5
    assert choose_index_box(faces)[0] == INDEX_BOX_MM
    moved = [_index_moved(f) for f in faces]
    box, how = choose_index_box(moved)
    assert "elsewhere" in how
    assert abs(box[0] - (found[0] + 6)) <= 1.0 and abs(box[1] - (found[1] + 4)) <= 1.0
    assert abs(box[2] - (found[2] + 6)) <= 1.0


def test_faces_with_no_index_strip_keep_the_given_box():
    blank = [np.full((1120, 600, 4), 235, np.uint8) for _ in range(10)]
    assert find_index_box(blank) is None
    assert choose_index_box(blank, (1, 2, 3, 4)) == ((1, 2, 3, 4), "given (no index strip found on the faces to check it by)")
