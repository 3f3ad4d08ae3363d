"""One stored hand that cannot be scored no longer blanks the evening (issue 16, item 3)."""
from __future__ import annotations

from web_doubles import PLAYERS

GOOD = {"game": "slovenian", "players": PLAYERS, "declarer": "Ana", "partner": "Cene", "contract": "three",
        "card_points": "41"}


def test_the_sheet_runs_up_to_a_bad_hand_names_it_and_offers_edit_and_delete(player, table):
    _, store, _, _ = table
    ids = [store.save_hand(1, GOOD, {}) for _ in range(2)]
    bad = store.save_hand(1, {**GOOD, "declarer": "Zed"}, {})  # stored by an older release's API
    ids += [store.save_hand(1, GOOD, {}) for _ in range(2)]
    page = player.get("/sheet").text
    assert 'id="bad-hand"' in page and "Hand 3 cannot be scored" in page and "Zed" in page
    assert f'href="/hands/{bad}/edit"' in page and f'action="/hands/{bad}/delete"' in page
    assert player.get(f"/hands/{bad}/edit").status_code == 200
    sheet = player.get("/api/sheet").json()
    assert sheet["bad_hand"]["id"] == bad and sheet["bad_hand"]["number"] == 3
    assert [row["id"] for row in sheet["rows"]] == ids[:2]  # the sheet up to the bad hand
    assert sheet["totals"]["Ana"] == 6
    # a new hand names the hand in the way, instead of a bare 422
    r = player.post("/api/hands", json={k: v for k, v in GOOD.items() if k not in ("game", "players")})
    assert r.status_code == 422 and "stored hand 3" in r.json()["error"]
    # deleting it (the sheet's own button) gives the whole evening back
    r = player.post(f"/hands/{bad}/delete", data={"csrf": player.csrf}, follow_redirects=False)
    assert r.status_code == 303
    sheet = player.get("/api/sheet").json()
    assert sheet["bad_hand"] is None and len(sheet["rows"]) == 4 and sheet["totals"]["Ana"] == 12


def test_a_sheet_of_good_hands_has_no_bad_hand(player, table):
    table[1].save_hand(1, GOOD, {})
    sheet = player.get("/api/sheet").json()
    assert sheet["bad_hand"] is None and sheet["error"] is None and len(sheet["rows"]) == 1
    assert 'id="bad-hand"' not in player.get("/sheet").text
