"""Issue 13 (at the table, on a phone) and issue 16 item 3, through the app: contradictory and foreign hands
refused in the form and the JSON API, idempotent saves, stale changes refused, the change stream, the side
of the next photo, "the rest is theirs" as state, HTML error pages, player words, unknown settings, chart."""

from __future__ import annotations

import asyncio
import html
import itertools
import json

import cv2
import numpy as np
import pytest
from web_doubles import PIN, PLAYERS

import scoring
from device.web import chart, events
from device.web.hand_checks import MAX_RADLI
from device.web.security import FREE_FAILURES

DECK = [c.id for c in scoring.find_game("slovenian").deck]
HAND = {"declarer": "Ana", "partner": "Cene", "contract": "three", "card_points": "41"}


def form(player, **fields) -> dict:
    data = {"csrf": player.csrf, "declarer": "Ana", "partner": "Cene", "contract": "three",
            "points_source": "manual", "card_points": "41", "kontra_contract": "1"}
    return {**data, **fields}


# -- item 3 and issue 16 item 3: one set of checks for the form and the API ------------------------------
def test_partner_equal_to_declarer_is_refused_in_form_and_api(player, table):
    store = table[1]
    r = player.post("/hands", data=form(player, partner="Ana"))
    assert r.status_code == 422
    assert "Ana is the Declarer" in r.text and "own Partner" in r.text and 'data-field="partner"' in r.text
    r = player.post("/api/hands", json={**HAND, "partner": "Ana"})
    assert r.status_code == 422 and r.json()["field"] == "partner" and "Ana is the Declarer" in r.json()["error"]
    assert store.hands(store.current_session()["id"]) == []


def test_trull_of_one_side_and_pagat_of_the_other_in_the_last_trick_is_refused(player):
    hand = {**HAND, "bonuses": [{"bonus": "trull", "side": "declarer", "announced": False, "made": True}],
            "last_trick": {"pagat": {"side": "defenders", "won": True}}}
    r = player.post("/api/hands", json=hand)
    assert r.status_code == 422
    error = r.json()["error"]
    assert "the Declarer's side made the Trull" in error and "the Defenders' Pagat won the last trick" in error
    r = player.post("/hands", data=form(player, bonus_trull_side="declarer", bonus_trull_made="made",
                                        last_pagat="defenders_won"))
    assert r.status_code == 422 and "made the Trull" in r.text and "Pagat won the last trick" in r.text
    # The same Pagat lost the last trick: it went to the Declarer's side, who may then hold the Trull.
    hand["last_trick"]["pagat"]["won"] = False
    assert player.post("/api/hands", json=hand).status_code == 201


def test_pagat_in_the_last_trick_must_agree_with_the_photographed_piles(player, table):
    controller = table[2]
    controller.piles = [DECK[:30]]  # T1 (the Pagat) is in the Declarer's pile
    player.post("/api/captures", json={"side": "declarer"})
    player.put("/api/hand-state", json={"rest_is_theirs": True})
    r = player.post("/hands", data=form(player, points_source="piles", last_pagat="defenders_won"))
    assert r.status_code == 422
    text = html.unescape(r.text)
    assert "belongs in the pile of the Defenders" in text and "pile of the Declarer's side holds it" in text


@pytest.mark.parametrize(
    "change, field",
    [
        ({"declarer": "Zed"}, "declarer"),
        ({"moon_lost_by": "Zed"}, "moon_lost_by"),
        ({"players": ["Ana", "Bor", "Cene", "Zed"]}, "players"),
        ({"radli": {"Ana": 1_000_000}}, "radli.Ana"),
        ({"radli": {"Ana": -1}}, "radli.Ana"),
        ({"radli": {"Ana": 1.5}}, "radli.Ana"),
        ({"radli": {"Zed": 1}}, "radli.Zed"),
        ({"kontra": {"contract": 3}}, "kontra.contract"),
    ],
)
def test_api_refuses_hands_foreign_to_the_evening(player, table, change, field):
    store = table[1]
    r = player.post("/api/hands", json={**HAND, **change})
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field
    assert store.hands(store.current_session()["id"]) == []
    hand_id = player.post("/api/hands", json=HAND).json()["id"]
    assert player.put(f"/api/hands/{hand_id}", json={**HAND, **change}).status_code == 422


def test_radli_within_bounds_are_taken(player):
    r = player.post("/api/hands", json={**HAND, "radli": {"Ana": 2, "Bor": 0}})
    assert r.status_code == 201, r.text
    assert player.post("/api/hands", json={**HAND, "radli": {"Ana": MAX_RADLI + 1}}).status_code == 422


def test_form_with_a_tampered_player_is_refused(player):
    r = player.post("/hands", data=form(player, dealer="Mallory"))
    assert r.status_code == 422 and "'Mallory' is not a player" in html.unescape(r.text)


# -- item 4: idempotency keys, one per form submission and API write ---------------------------------------
def test_a_form_submitted_twice_saves_one_hand(player, table):
    store = table[1]
    page = player.get("/hand").text
    key = page.split('name="submission" value="', 1)[1].split('"', 1)[0]
    first = player.post("/hands", data=form(player, submission=key), follow_redirects=False)
    again = player.post("/hands", data=form(player, submission=key), follow_redirects=False)
    assert first.status_code == again.status_code == 303
    assert first.headers["location"] == again.headers["location"]
    assert len(store.hands(store.current_session()["id"])) == 1
    assert player.get("/hand").text.split('name="submission" value="', 1)[1][:22] != key[:22]  # a new form


def test_an_api_write_retried_with_its_key_saves_once(player, table):
    store = table[1]
    headers = {"Idempotency-Key": "hand-7f3a9c2e"}
    first = player.post("/api/hands", json=HAND, headers=headers)
    again = player.post("/api/hands", json=HAND, headers=headers)
    assert first.status_code == 201 and again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true" and again.json()["id"] == first.json()["id"]
    assert len(store.hands(store.current_session()["id"])) == 1
    assert player.post("/api/hands", json=HAND, headers={"Idempotency-Key": "x"}).status_code == 422
    # A capture and an added card with a key are made once too.
    one = player.post("/api/captures", json={"side": "declarer"}, headers={"Idempotency-Key": "capture-0001"})
    two = player.post("/api/captures", json={"side": "declarer"}, headers={"Idempotency-Key": "capture-0001"})
    assert one.json() == two.json() and store.latest_capture_id() == one.json()["id"]
    cid = one.json()["id"]
    for _ in range(2):
        player.post(f"/api/captures/{cid}/cards", json={"card": "T21"}, headers={"Idempotency-Key": "add-t21-01"})
    assert [c["action"] for c in store.corrections(cid)] == ["add"]


# -- item 5: stale changes refused, changes pushed ----------------------------------------------------------
def test_a_change_made_on_a_stale_page_is_refused(player, table):
    table[2].piles = [["T11", "HK"]]
    cid = player.post("/api/captures", json={"side": "declarer"}).json()["id"]
    seen = player.get(f"/api/captures/{cid}").json()["version"]
    # The phone changes T11 to T10; the laptop, still showing T11, then confirms T11.
    phone = player.put(f"/api/captures/{cid}/cards/0", json={"card": "T10", "version": seen})
    assert phone.status_code == 200
    laptop = player.post(f"/api/captures/{cid}/cards/0/confirm", json={"version": seen})
    assert laptop.status_code == 409 and "changed on another device" in laptop.json()["error"]
    both = player.post(f"/api/captures/{cid}/cards", json={"card": "T21", "version": seen})
    assert both.status_code == 409
    assert [c["id"] for c in player.get(f"/api/captures/{cid}").json()["cards"]] == ["T10", "HK"]
    fresh = phone.json()["capture"]["version"]
    assert player.put(f"/api/captures/{cid}/side", json={"side": "defenders", "version": seen}).status_code == 409
    assert player.put(f"/api/captures/{cid}/side", json={"side": "defenders", "version": fresh}).status_code == 200


class FakeRequest:
    def __init__(self):
        self.gone = False

    async def is_disconnected(self):
        return self.gone


def test_the_change_stream_sends_an_event_per_change(table):
    store, controller = table[1], table[2]
    changes = events.Changes()
    request = FakeRequest()

    async def read():
        stream = events.stream(request, store, changes)
        assert await anext(stream) == "retry: 2000\n\n"
        first = json.loads((await anext(stream)).split("data: ", 1)[1])
        changes.changed("hands")
        second = json.loads((await anext(stream)).split("data: ", 1)[1])
        controller.capture("declarer")  # a photo the table took by itself: no router saw it
        third = json.loads((await anext(stream)).split("data: ", 1)[1])
        request.gone = True
        return first, second, third

    first, second, third = asyncio.run(asyncio.wait_for(read(), 10))
    assert first["latest_capture"] is None and second["kinds"] == ["hands"] and second["n"] == first["n"] + 1
    assert third["kinds"] == ["capture"] and third["latest_capture"] == store.latest_capture_id()


# -- items 2 and 6: stay on the photo; the next photo's side comes from what is missing --------------------
def test_the_page_stays_on_its_photo_and_offers_the_newer_one(player, table):
    first = player.post("/api/captures", json={"side": "declarer"}).json()["id"]
    second = table[2].capture(None)
    page = player.get(f"/capture/panel?id={first}").text
    assert f'data-capture-id="{first}"' in page and f'href="/capture?id={second}"' in page and 'id="newer"' in page
    # The newest photo has no side: the page asks whose pile it is, suggesting the one still missing.
    assert 'id="whose-pile"' in page and 'class="assign suggested" data-assign-side="defenders"' in page


def test_the_next_photo_is_of_the_missing_side_and_a_pile_is_never_replaced_silently(player, table):
    store = table[1]
    assert 'option value="declarer" selected' in player.get("/capture").text
    first = player.post("/api/captures", json={"side": "declarer"}).json()["id"]
    assert player.get("/api/piles").json()["next_side"] == "defenders"
    assert 'option value="defenders" selected' in player.get("/capture").text
    r = player.post("/api/captures", json={"side": "declarer"})
    assert r.status_code == 409 and f"Declarer's pile (photo {first})" in r.json()["error"]
    assert store.latest_capture_id() == first
    page = player.post("/capture", data={"csrf": player.csrf, "side": "declarer"})
    assert page.status_code == 409 and 'id="capture-replace"' in page.text and "Replace it" in page.text
    again = player.post("/capture", data={"csrf": player.csrf, "side": "declarer", "replace": "1"},
                        follow_redirects=False)
    assert again.status_code == 303
    assert player.get("/api/piles").json()["sides"]["declarer"]["capture"] == store.latest_capture_id() != first


# -- item 7: "the rest is theirs" is a state of the hand --------------------------------------------------
def test_the_rest_is_theirs_is_kept_for_the_hand_and_ends_with_it(player, table):
    table[2].piles = [DECK[:30]]
    player.post("/api/captures", json={"side": "declarer"})
    r = player.post("/capture/rest", data={"csrf": player.csrf, "on": "1"}, follow_redirects=False)
    assert r.status_code == 303
    for path in ("/capture", "/capture?id=1", "/hand"):  # every page, and every device, sees it
        page = player.get(path).text
        assert "every other card" in page or 'value="piles"' in page
    assert player.get("/api/piles").json()["state"] == {
        "after_capture": 0, "declarer_capture": 1, "defenders_capture": None, "rest_is_theirs": True,
        "talon": None, "contract": None}
    r = player.post("/hands", data=form(player, points_source="piles"), follow_redirects=False)
    assert r.status_code == 303
    hand = table[1].get_hand(int(r.headers["location"].split("/")[2].split("?")[0]))["hand"]
    assert hand["piles"]["defenders"] == DECK[30:]
    assert player.get("/api/piles").json()["rest_is_theirs"] is False  # the next hand starts without it


def test_a_hand_form_for_piles_another_device_saved_is_refused(player, table):
    table[2].piles = [DECK[:30], DECK[30:]]
    player.post("/api/captures", json={"side": "declarer"})
    player.post("/api/captures", json={"side": "defenders"})
    page = player.get("/hand").text
    after = page.split('name="counted_after" value="', 1)[1].split('"', 1)[0]
    assert player.post("/hands", data=form(player, points_source="piles", counted_after=after),
                       follow_redirects=False).status_code == 303
    r = player.post("/hands", data=form(player, points_source="piles", counted_after=after))
    assert r.status_code == 409 and "saved as a hand on another device" in r.text


# -- item 10: "it's right" --------------------------------------------------------------------------------
def test_its_right_keeps_a_flagged_card_and_clears_its_flag(player, table):
    table[2].piles = [["HC", "T21"]]
    cid = player.post("/api/captures", json={"side": "declarer"}).json()["id"]
    page = player.get(f"/capture?id={cid}").text
    assert 'id="picker-right"' in page
    # The picker shows each card's face and full name, not its code.
    pick = page.split('class="pick placed" data-card="HC">', 1)[1].split("</button>", 1)[0]
    assert '<img src="/cards/HC/face"' in pick and f"<span>{scoring.card('HC').name}</span>" in pick
    r = player.post(f"/api/captures/{cid}/cards/0/confirm", json={})
    card = r.json()["capture"]["cards"][0]
    assert (card["id"], card["flagged"], card["source"]) == ("HC", False, "corrected")


# -- item 11: HTML error pages with a way back; the API keeps JSON -------------------------------------------
def test_pages_get_html_errors_with_a_way_back_and_the_api_json(anon):
    html = {"accept": "text/html,application/xhtml+xml"}
    r = anon.get("/capture?id=99", headers=html)
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert 'id="error-back"' in r.text and "capture 99: no such capture" in r.text
    assert anon.get("/api/captures/99", headers=html).json()["error"] == "capture 99: no such capture"
    assert anon.get("/capture?id=99").headers["content-type"] == "application/json"


def test_the_pin_lockout_is_a_page(anon):
    token = anon.get("/login").text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    html = {"accept": "text/html"}
    codes = [anon.post("/login", data={"pin": "000000", "csrf": token}, headers=html).status_code
             for _ in range(FREE_FAILURES + 1)]
    r = anon.post("/login", data={"pin": PIN, "csrf": token}, headers=html)
    assert 429 in codes + [r.status_code]
    locked = r if r.status_code == 429 else None
    if locked is None:
        locked = anon.post("/login", data={"pin": "000000", "csrf": token}, headers=html)
    assert locked.status_code == 429 and "text/html" in locked.headers["content-type"]
    assert "Too many tries" in locked.text and "try again in" in locked.text and 'href="/login"' in locked.text


# -- item 12: player words ---------------------------------------------------------------------------------
def test_form_errors_and_the_ledger_speak_as_players_do(player, table):
    r = player.post("/hands", data=form(player, declarer=""))
    assert r.status_code == 422 and "Declarer: please choose one" in r.text and "declarer: missing" not in r.text
    r = player.post("/hands", data=form(player, contract="solo_three"))
    assert "leave partner null" not in r.text and "“none (alone)”" in r.text
    hand_id = player.post("/api/hands", json=HAND).json()["id"]
    page = player.get(f"/hands/{hand_id}").text
    assert "(native" not in page and "Traditional Scoring:" in page
    sheet = player.get("/sheet").text
    assert "The evening so far" in sheet and "<dt>Target</dt><dd>200</dd>" in sheet
    for internal in ("skus round: due", "noted at hand", "open radli penalty", "open_radli", "–"):
        assert internal not in sheet.split('id="session-end"')[1].split("</section>")[0]


# -- item 15: unknown evening settings refused ------------------------------------------------------------
def test_unknown_tariff_keys_are_refused_naming_the_known_ones(player, table):
    data = {"csrf": player.csrf, "players": "\n".join(PLAYERS), "game": "slovenian", "system": "simplified"}
    r = player.post("/settings", data={**data, "tariffs": "quick = true\nfoo = 3"})
    assert r.status_code == 422 and "line 2: foo" in r.text and "known: quick, target" in r.text
    r = player.post("/settings", data={**data, "tariffs": "tariff.rules.radlii = false"})
    assert r.status_code == 422 and "line 1" in r.text and "known: radli, compulsory_dodge_round" in r.text
    assert table[1].current_session()["tariffs"] == {}
    ok = player.post("/settings", data={**data, "tariffs": "target = 150\ntariff.rules.radli = false"},
                     follow_redirects=False)
    assert ok.status_code == 303
    assert table[1].current_session()["tariffs"] == {"target": 150, "tariff": {"rules": {"radli": False}}}


# -- item 13: the chart -------------------------------------------------------------------------------------
def test_chart_names_each_line_at_its_end_apart_and_numbers_the_hands():
    rows = [{"totals": {"Ana": 10, "Bor": 10, "Cene": -5, "Dora": -15}},
            {"totals": {"Ana": 20, "Bor": 20, "Cene": -10, "Dora": -30}}]
    drawn = chart.totals_chart(PLAYERS, rows)
    ys = sorted(line["label_y"] for line in drawn["lines"])
    assert all(b - a >= chart.LABEL_GAP for a, b in itertools.pairwise(ys))  # equal totals hide no name
    assert [t["hand"] for t in drawn["ticks"]] == [0, 1, 2]
    assert [line["total"] for line in drawn["lines"]] == ["20", "20", "-10", "-30"]
    ana, bor = drawn["lines"][0]["points"], drawn["lines"][1]["points"]
    assert ana != bor  # equal lines drawn apart
    assert drawn["font"] >= 14 and drawn["width"] <= 400  # ~14 px text on a 360-390 px phone
    many = chart.totals_chart(PLAYERS, rows * 20)
    assert len(many["ticks"]) <= 10 and many["ticks"][-1]["hand"] == 40


def test_form_and_api_pass_through_one_door_shape_first(player):
    """hand_checks.checked_hand: the shape checks (device.web.validate) run on both routes, then check_hand."""
    r = player.post("/api/hands", json={**HAND, "sneaky": 1})
    assert r.status_code == 422 and r.json()["field"] == "sneaky"
    r = player.post("/api/hands", json={**HAND, "card_points": "4" * 500})
    assert r.status_code == 422
    r = player.post("/hands", data=form(player, card_points="4" * 500))
    assert r.status_code == 422 and 'id="hand-error"' in r.text


def test_card_faces_are_small_pictures_of_the_deck(anon):
    r = anon.get("/cards/T1/face")
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    face = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_UNCHANGED)
    assert face.shape[1] == 72 and face.shape[0] > face.shape[1] and len(r.content) < 40_000
    assert anon.get("/cards/XX/face").status_code == 404
    assert anon.get("/cards/..%2Fmodel/face").status_code == 404


def test_giving_a_photo_a_side_that_has_a_pile_says_what_it_replaces(player, table):
    first = player.post("/api/captures", json={"side": "declarer"}).json()["id"]
    second = table[2].capture(None)
    assert f"Declarer (replaces photo {first})" in player.get(f"/capture?id={second}").text
    third = player.post("/api/captures", json={"side": "declarer", "replace": True}).json()["id"]
    assert f"Declarer (photo {third} is newer and counts)" in player.get(f"/capture?id={first}").text
