"""The guided enrolment on the web page (device/web/routers/enrol.py): the page names a card, a photo of it is
cut out and shown, the next card is named; a bad photo is refused with the reason; changes need the PIN."""
from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from enrol_photos import card_photo, face_difference, load_face
from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from web_doubles import PIN, build_table, csrf_of


@pytest.fixture
def client(tmp_path):
    app, store, _, _ = build_table(tmp_path, {"game": "slovenian", "max_body_bytes": 2_000_000,
                                              "enrol_dir": str(tmp_path / "deck")})
    with TestClient(app, base_url="http://table.local") as c:
        c.csrf = csrf_of(c)
        yield c
    store.close()


def _jpeg(card_id, **pose):
    photo, _ = card_photo(load_face(card_id), size=(1000, 750), card_px=640, **pose)
    return cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()


def test_guided_enrolment_names_cuts_shows_and_moves_on(client, tmp_path):
    page = client.get("/enrol").text
    assert "0 of 54 cards done" in page and 'action="/enrol/T1"' in page and "Pagat" in page
    anon = client.post("/enrol/T1", data={"csrf": client.csrf, "pack": "54"},
                       files={"photo": ("t1.jpg", _jpeg("T1"), "image/jpeg")})
    assert anon.status_code == 401                                   # changes need the PIN
    r = client.post("/login", data={"pin": PIN, "csrf": client.csrf, "next": "/enrol"}, follow_redirects=False)
    assert r.status_code == 303
    r = client.post("/enrol/T1", data={"csrf": client.csrf, "pack": "54"},
                    files={"photo": ("t1.jpg", _jpeg("T1", angle_deg=12), "image/jpeg")}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/enrol?pack=54&last=T1"
    page = client.get(r.headers["location"]).text
    assert "1 of 54 cards done" in page and 'src="/enrol/face/T1.png"' in page and 'action="/enrol/T2"' in page
    png = client.get("/enrol/face/T1.png")
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    face = cv2.imdecode(np.frombuffer(png.content, np.uint8), cv2.IMREAD_UNCHANGED)
    assert face.shape == (1120, 600, 4) and face_difference(face, load_face("T1")) < 10
    assert (tmp_path / "deck" / "deck.json").is_file()
    # the photo itself is kept beside the faces, for the check of the deck's release on its own photos
    kept = tmp_path / "deck" / "photos" / "T1.jpg"
    assert kept.read_bytes().startswith(b"\xff\xd8") and cv2.imread(str(kept)).shape == (750, 1000, 3)
    from models.evaluate import enrolment_photos
    assert enrolment_photos(tmp_path / "deck") == tmp_path / "deck" / "photos"
    blurred = client.post("/enrol/T2", data={"csrf": client.csrf, "pack": "54"},
                          files={"photo": ("t2.jpg", _jpeg("T2", blur=5), "image/jpeg")})
    assert blurred.status_code == 422 and "T2: the photo is blurred" in blurred.text
    assert not (tmp_path / "deck" / "T2.png").exists() and not (tmp_path / "deck" / "photos" / "T2.jpg").exists()
    assert client.post("/enrol/H2", data={"csrf": client.csrf, "pack": "42"},
                       files={"photo": ("h2.jpg", _jpeg("H2"), "image/jpeg")}).status_code == 404  # not in 42
    assert client.get("/enrol/face/T2.png").status_code == 404
    assert 'action="/enrol/T2"' in client.get("/enrol?pack=42").text and "1 of 42 cards done" in \
        client.get("/enrol?pack=42").text
