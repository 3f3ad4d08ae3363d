"""Who may change things: PIN, CSRF, same origin, body size, photo paths, error shapes."""

from __future__ import annotations

import html
import os
import re
import sqlite3
import stat

import pytest
from fastapi import HTTPException
from fastapi.testclient import TestClient
from web_doubles import PIN, PLAYERS, FakeController, csrf_of

from device.web import create_app, security
from device.web.routers.health import IntegrityWatch


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


# ---------------------------------------------------------------- the PIN gate (issue 16)

class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def outcome(gate: security.PinGate, attempt: str, client: str) -> str:
    """"ok", "wrong" (the PIN was compared and refused) or "wait" (429: not even compared)."""
    try:
        return "ok" if gate.check(attempt, client) else "wrong"
    except HTTPException as exc:
        assert exc.status_code == 429
        return "wait"


@pytest.mark.parametrize("pin", ["246813", "9753108642"])
def test_only_the_whole_pin_opens_the_gate(pin):
    gate = security.PinGate(pin, clock=Clock())
    near = ["", pin[0], pin[:-1], pin + "0", pin[1:], " " + pin, pin + " ", pin[::-1], "0" * len(pin)]
    for n, attempt in enumerate(near):
        assert not gate.check(attempt, f"10.0.0.{n}"), attempt
    for n in range(len(pin)):  # every prefix, each from a fresh client so no pause hides the answer
        assert not gate.check(pin[:n], f"10.0.1.{n}"), pin[:n]
    assert gate.check(pin, "10.0.2.1")


def test_an_empty_or_short_pin_header_is_refused(anon, table):
    for value in ("", PIN[0], PIN[:-1], PIN + "0"):
        r = anon.post("/api/captures", json={}, headers={"X-Tarokcam-Pin": value})
        assert r.status_code == 401, (value, r.status_code)
    assert table[1].latest_capture_id() is None
    assert anon.post("/api/captures", json={}, headers={"X-Tarokcam-Pin": PIN}).status_code == 200


def test_the_pause_grows_per_client_and_a_right_pin_clears_it():
    clock = Clock()
    gate = security.PinGate("246813", clock=clock)
    for _ in range(security.FREE_FAILURES):
        assert gate.check("000000", "attacker") is False
    waits = []
    for _ in range(6):
        with pytest.raises(HTTPException) as exc:
            gate.check("246813", "attacker")  # even the right PIN waits out the pause
        assert exc.value.status_code == 429
        wait = int(exc.value.headers["Retry-After"])
        waits.append(wait)
        clock.t += wait
        assert gate.check("000000", "attacker") is False
    assert waits == sorted(waits) and waits[-1] >= 16 * waits[0], waits
    clock.t += 10_000
    assert gate.check("246813", "attacker") is True
    assert gate.check("000000", "attacker") is False  # a fresh record: free tries again


def test_a_wrong_pin_flood_never_locks_out_a_player_who_has_not_failed():
    clock = Clock()
    gate = security.PinGate("246813", clock=clock)
    compared = 0
    for second in range(3600):  # an hour of one guess a second from each of 20 addresses
        clock.t += 1
        for n in range(20):
            compared += outcome(gate, f"{second:06d}", f"10.0.9.{n}") == "wrong"
        if second % 60 == 0:
            assert gate.check("246813", f"192.168.1.{second // 60}") is True  # each minute a new player
    # The attackers' guesses that were actually compared: the table's allowance, not 72,000.
    assert compared <= security.GLOBAL_BURST + security.GLOBAL_PER_HOUR + 1, compared


def test_the_global_ceiling_holds_back_only_clients_that_failed():
    clock = Clock()
    gate = security.PinGate("246813", clock=clock)
    for n in range(security.GLOBAL_BURST):
        assert gate.check("111111", f"10.1.0.{n}") is False
    with pytest.raises(HTTPException) as exc:
        gate.check("246813", "10.1.0.0")  # failed once, under its own pause limit, but the table's ceiling is hit
    assert exc.value.status_code == 429 and "table" in exc.value.detail
    assert gate.check("246813", "10.1.1.1") is True  # never failed: never held back
    clock.t += 3600 / security.GLOBAL_PER_HOUR + 1
    assert gate.check("246813", "10.1.0.0") is True


def test_ipv6_clients_are_counted_by_their_64_prefix():
    class Req:
        def __init__(self, host):
            self.client = type("C", (), {"host": host})()
    assert security.client_key(Req("2001:db8::1")) == security.client_key(Req("2001:db8::ffff:1"))
    assert security.client_key(Req("2001:db8::1")) != security.client_key(Req("2001:db8:0:1::1"))
    assert security.client_key(Req("::ffff:10.0.0.7")) == "10.0.0.7"


def test_one_device_flooding_wrong_pins_does_not_lock_out_another(table):
    app = table[0]
    with TestClient(app, base_url="http://table.local", client=("10.0.0.66", 4000)) as attacker:
        for _ in range(40):
            attacker.post("/api/captures", json={}, headers={"X-Tarokcam-Pin": "000000"})
        assert attacker.post("/api/captures", json={}, headers={"X-Tarokcam-Pin": PIN}).status_code == 429
    with TestClient(app, base_url="http://table.local", client=("10.0.0.7", 4001)) as player:
        csrf = csrf_of(player)
        r = player.post("/login", data={"pin": PIN, "csrf": csrf, "next": "/"}, follow_redirects=False)
        assert r.status_code == 303


# ---------------------------------------------------------------- sessions and the signing secret

def test_logout_revokes_every_copy_of_the_cookie(player, table):
    stolen = player.cookies.get("tarokcam_session")
    assert player.post("/logout", data={"csrf": player.csrf}, follow_redirects=False).status_code == 303
    with TestClient(table[0], base_url="http://table.local") as thief:
        thief.cookies.set("tarokcam_session", stolen, domain="table.local")
        r = thief.post("/api/captures", json={}, headers={"X-CSRF-Token": player.csrf})
        assert r.status_code == 401
    assert table[1].latest_capture_id() is None


def test_a_pin_change_revokes_earlier_logins(player, table, tmp_path):
    _, store, controller, photos = table
    cookie = player.cookies.get("tarokcam_session")
    assert player.post("/api/captures", json={}).status_code == 200
    restarted = create_app(store=store, controller=controller, photos_dir=photos, pin="975310",
                           settings={"players": PLAYERS})
    with TestClient(restarted, base_url="http://table.local") as old:
        old.cookies.set("tarokcam_session", cookie, domain="table.local")
        assert old.post("/api/captures", json={}, headers={"X-CSRF-Token": player.csrf}).status_code == 401
    same_pin = create_app(store=store, controller=controller, photos_dir=photos, pin="975310",
                          settings={"players": PLAYERS})
    with TestClient(same_pin, base_url="http://table.local") as fresh:
        csrf = csrf_of(fresh)
        fresh.post("/login", data={"pin": "975310", "csrf": csrf}, follow_redirects=False)
        cookie2 = fresh.cookies.get("tarokcam_session")
    again = create_app(store=store, controller=controller, photos_dir=photos, pin="975310",
                       settings={"players": PLAYERS})
    with TestClient(again, base_url="http://table.local") as back:  # a restart with the same PIN keeps it
        back.cookies.set("tarokcam_session", cookie2, domain="table.local")
        assert back.post("/api/captures", json={}, headers={"X-CSRF-Token": csrf}).status_code == 200


def test_the_signing_secret_is_a_0600_file_not_in_the_database(table):
    store = table[1]
    path = store.path.parent / "session_secret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert store.meta("cookie_secret") is None
    assert path.read_text().strip() not in store.path.read_bytes().decode("latin-1")


def test_a_loose_secret_file_is_tightened(tmp_path):
    path = tmp_path / "secret"
    path.write_text("x" * 64)
    os.chmod(path, 0o644)
    assert security.load_secret(path) == b"x" * 64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


# ---------------------------------------------------------------- host names, ids, a full disk

def test_foreign_host_names_are_refused(tmp_path):
    from device.storage import Store
    store = Store(tmp_path / "db.sqlite")
    app = create_app(store=store, controller=FakeController(store, tmp_path), photos_dir=tmp_path, pin=PIN,
                     settings={"players": PLAYERS, "allowed_hosts": ["tarokcam.local", "localhost"]})
    for host, status in [("tarokcam.local", 200), ("TAROKCAM.local:8000", 200), ("192.168.1.20:8000", 200),
                         ("[fe80::1]:8000", 200), ("localhost", 200), ("evil.example", 400),
                         ("tarokcam.local.evil.example", 400)]:
        with TestClient(app, base_url=f"http://{host}") as client:
            r = client.get("/api/sheet")
            assert r.status_code == status, (host, r.status_code)
            if status == 400:
                assert r.json()["field"] == "host"
    store.close()


@pytest.mark.parametrize("url", ["/api/hands/100000000000000000000000", "/hands/100000000000000000000000",
                                 "/api/captures/100000000000000000000000"])
def test_huge_ids_are_404_not_500(anon, url):
    r = anon.get(url)
    assert r.status_code == 404, (url, r.status_code, r.text)


def fill_the_disk(store, hand: dict) -> None:
    """The database may grow no more and the room left in its pages is used up, as on a full card: hands
    are saved until one does not fit (the test's own hands; the sheet stays scorable)."""
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    for _ in range(10_000):
        try:
            store.save_hand(1, {**hand, "game": "slovenian", "players": PLAYERS}, {})
        except sqlite3.OperationalError:
            break
    store.write_error = None  # the filling is not what the test is about


def test_a_full_disk_is_507_naming_the_cause_and_healthz_clears_after(player, table):
    _, store, _, _ = table
    big = {"declarer": "Ana", "partner": "Cene", "contract": "three", "card_points": "41", "bonuses": []}
    fill_the_disk(store, big)
    r = player.post("/api/hands", json=big)
    assert r.status_code == 507 and "disk is full" in r.json()["error"], r.text
    assert "no transaction" not in r.json()["error"]
    health = player.get("/healthz")
    assert health.status_code == 503 and health.json()["web_store_writes"]["ok"] is False
    store._db.execute("PRAGMA max_page_count = 1073741823")  # space is back
    health = player.get("/healthz").json()
    assert health["web_store_writes"]["ok"] is True
    assert player.post("/api/hands", json=big).status_code in (200, 201)


def test_a_full_disk_keeps_the_form_the_player_typed(player, table):
    _, store, _, _ = table
    store._db.execute("PRAGMA query_only = 1")  # as if the card had gone read-only
    data = {"csrf": player.csrf, "declarer": "Ana", "partner": "Cene", "contract": "three",
            "points_source": "manual", "card_points": "47", "kontra_contract": "1"}
    r = player.post("/hands", data=data, headers={"Accept": "text/html"})
    store._db.execute("PRAGMA query_only = 0")
    assert r.status_code == 503 and "read-only" in r.text, r.text[:300]
    assert 'name="card_points" value="47"' in r.text and 'action="/hands"' in r.text
    assert store.hands(1) == []
    # The storage is writable again: the page's "Try again" sends what was typed, and the hand is saved.
    kept = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', r.text))
    assert kept["card_points"] == "47" and kept["csrf"] == player.csrf
    again = player.post("/hands", data={k: html.unescape(v) for k, v in kept.items()}, follow_redirects=False)
    assert again.status_code == 303 and [h["hand"]["card_points"] for h in store.hands(1)] == ["47"]


def test_healthz_runs_the_integrity_check_at_start_not_on_every_call(table):
    calls = []
    store = table[1]

    class Counting:
        def integrity_ok(self):
            calls.append(1)
            return store.integrity_ok()

    clock = Clock()
    watch = IntegrityWatch(Counting(), clock=clock, every_s=3600)
    for _ in range(50):
        assert watch.status()["ok"]
    assert len(calls) == 1
    clock.t += 3601
    watch.status()
    assert len(calls) == 2
