"""Who may change things: PIN, CSRF, same origin, body size, photo paths, error shapes."""

from __future__ import annotations

import os

import pytest
from web_doubles import PIN, csrf_of


def test_anyone_may_look(anon, table):
    table[2].capture("declarer")
    for url in (
        "/capture",
        "/hand",
        "/sheet",
        "/settings",
        "/api/sheet",
        "/api/captures/latest",
        "/api/captures/1",
        "/captures/1/photo",
        "/healthz",
    ):
        assert anon.get(url).status_code == 200, url


def test_changes_need_the_pin(anon, table):
    store = table[1]
    r = anon.post("/api/captures", json={"side": "declarer"})
    assert r.status_code == 401 and "PIN" in r.json()["error"]
    assert anon.post("/api/captures", json={}, headers={"X-Tarokcam-Pin": "0000"}).status_code == 401
    assert store.latest_capture_id() is None
    r = anon.post("/api/captures", json={"side": "declarer"}, headers={"X-Tarokcam-Pin": PIN})
    assert r.status_code == 200 and store.latest_capture_id() == r.json()["id"]


def test_html_form_without_login_goes_to_the_login_page(anon):
    r = anon.post(
        "/settings", data={"game": "slovenian"}, headers={"accept": "text/html"}, follow_redirects=False
    )
    assert r.status_code == 303 and r.headers["location"].startswith("/login?next=/settings")


def test_wrong_pin_on_the_login_form(anon):
    r = anon.post("/login", data={"pin": "1111", "csrf": csrf_of(anon)})
    assert r.status_code == 401 and "Wrong PIN" in r.text


def test_repeated_wrong_pins_pause_the_gate(anon):
    for _ in range(5):
        assert anon.post("/api/captures", json={}, headers={"X-Tarokcam-Pin": "9999"}).status_code == 401
    r = anon.post("/api/captures", json={}, headers={"X-Tarokcam-Pin": PIN})
    assert r.status_code == 429


def test_login_form_needs_its_csrf_token(anon):
    r = anon.post("/login", data={"pin": PIN, "csrf": "forged"})
    assert r.status_code == 403


def test_logged_in_changes_need_the_csrf_token(player, table):
    del player.headers["X-CSRF-Token"]
    r = player.post("/api/captures", json={"side": "defenders"})
    assert r.status_code == 403 and "CSRF" in r.json()["error"]
    r = player.post("/api/captures", json={"side": "defenders"}, headers={"X-CSRF-Token": "nope"})
    assert r.status_code == 403
    r = player.post("/api/captures", json={"side": "defenders"}, headers={"X-CSRF-Token": player.csrf})
    assert r.status_code == 200
    # form posts carry the token as a field
    r = player.post("/capture", data={"side": "declarer", "csrf": player.csrf}, follow_redirects=False)
    assert r.status_code == 303 and table[1].latest_capture()["side"] == "declarer"


def test_cross_origin_posts_are_refused(player, table):
    r = player.post("/api/captures", json={}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "cross-origin" in r.json()["error"]
    r = player.post("/api/captures", json={}, headers={"Referer": "http://evil.example/x"})
    assert r.status_code == 403
    r = player.post("/api/captures", json={}, headers={"Origin": "http://table.local"})
    assert r.status_code == 200


def test_a_tampered_cookie_is_not_logged_in(player):
    value = player.cookies.get("tarokcam_session")
    payload, mac = value.rsplit(".", 1)
    player.cookies.clear()
    player.cookies.set("tarokcam_session", payload + "." + mac[::-1], domain="table.local")
    assert player.post("/api/captures", json={}).status_code == 401


def test_logout(player):
    assert player.post("/logout", data={"csrf": player.csrf}, follow_redirects=False).status_code == 303
    assert player.post("/api/captures", json={}).status_code == 401


@pytest.mark.parametrize("declared", [True, False])
def test_large_bodies_get_413(player, table, declared):
    body = b'{"side": "' + b"x" * 200_000 + b'"}'
    headers = {"content-type": "application/json"}
    if declared:
        r = player.post("/api/captures", content=body, headers=headers)
    else:  # streamed without a Content-Length: counted as it arrives
        r = player.post("/api/captures", content=iter([body[:50_000], body[50_000:]]), headers=headers)
    assert r.status_code == 413 and r.json()["field"] == "body"
    assert table[1].latest_capture_id() is None


def test_malformed_json_is_400_naming_the_body(player, table):
    table[2].capture("declarer")
    r = player.put(
        "/api/captures/1/cards/0", content=b'{"card": "T1"', headers={"content-type": "application/json"}
    )
    assert r.status_code == 400 and r.json()["field"] == "body" and "malformed JSON" in r.json()["error"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"card": 21}, "body.card"),
        ({"card": "T99"}, "body.card"),
        ({"cards": "T1"}, "body.card"),
        ({"card": "T1", "quad": [[1, 2]]}, "body.quad"),
    ],
)
def test_invalid_fields_are_422_naming_the_field(player, table, body, field):
    table[2].capture("declarer")
    r = player.put("/api/captures/1/cards/0", json=body)
    assert r.status_code == 422 and r.json()["field"] == field, r.json()
    assert table[1].corrections(1) == []


def test_unknown_ids_are_404(player, anon):
    assert anon.get("/api/captures/42").status_code == 404
    assert anon.get("/captures/42/photo").status_code == 404
    assert player.put("/api/captures/42/cards/0", json={"card": "T1"}).status_code == 404
    assert anon.get("/hands/7").status_code == 404
    assert anon.get("/no/such/page").status_code == 404


def test_photos_are_served_only_from_under_the_photos_dir(anon, table, tmp_path):
    _, store, _, photos = table
    secret = tmp_path / "secret.txt"
    secret.write_text("PIN is 2468")
    os.symlink(secret, photos / "link.png")
    cid = store.add_capture(photo="link.png", side=None, width=1, height=1, recognitions=[])
    r = anon.get(f"/captures/{cid}/photo")
    assert r.status_code == 404 and "PIN" not in r.text
    for url in (
        "/captures/..%2F..%2Fsecret.txt/photo",
        "/captures/1/../../secret.txt",
        "/static/..%2F..%2Fstorage.py",
    ):
        r = anon.get(url)
        assert r.status_code in (404, 422) and "PIN is" not in r.text, url


def test_capture_failure_is_a_clear_503(player, table):
    table[2].fail = "camera unplugged"
    r = player.post("/api/captures", json={"side": "declarer"})
    assert r.status_code == 503 and "camera unplugged" in r.json()["error"]


def test_healthz_reports_503_when_something_is_not_ok(anon, table):
    assert anon.get("/healthz").json()["camera"]["ok"] is True
    table[2].fail = "no camera"
    r = anon.get("/healthz")
    assert r.status_code == 503 and r.json()["camera"]["message"] == "no camera"


def test_pages_forbid_framing_and_foreign_scripts(anon):
    r = anon.get("/capture")
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "DENY" and r.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in r.text and "onsubmit" not in r.text  # nothing inline for the CSP to block
    for asset in ("/static/app.css", "/static/capture.js", "/static/confirm.js"):
        assert anon.get(asset).status_code == 200, asset
    assert "http" not in anon.get("/static/app.css").text  # no CDN, works offline
