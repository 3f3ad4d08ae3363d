"""device.web.validate: what a hand, a name, a tariff or a CSV cell may hold before it is stored (issue 16)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from device.web import validate
from scoring import HandFormatError, score_hand

DATA = Path(__file__).resolve().parents[1] / "scoring" / "data"
GOOD = {"declarer": "Ana", "partner": "Cene", "contract": "three", "card_points": "41"}


def golden_hands():
    for path in sorted(DATA.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")).get("hands", []):
            hand = {k: v for k, v in case["hand"].items() if k != "radli"}
            yield pytest.param(hand, case.get("options"), id=f"{path.stem}:{case.get('name', '?')}"[:80])


@pytest.mark.parametrize("hand, options", list(golden_hands()))
def test_every_golden_hand_passes_and_scores_the_same(hand, options):
    try:
        expected = score_hand(hand, options).to_json()
    except ValueError:
        pytest.skip("a hand the scorer refuses: nothing to compare")
    checked = validate.hand_shape(hand, hand["game"])
    assert score_hand(checked, options).to_json() == expected


@pytest.mark.parametrize("change, field, words", [
    ({"shoe_size": 44}, "shoe_size", "not a field"),
    ({"partner": "Ana\x00"}, "partner", "control characters"),
    ({"card_points": float("nan")}, "card_points", "finite"),
    ({"card_points": float("inf")}, "card_points", "finite"),
    ({"card_points": 10 ** 23}, "card_points", "out of range"),
    ({"card_points": "4" * 5000}, "card_points", "at most"),
    ({"bonuses": [{"bonus": "trull"}] * 100}, "bonuses", "too many"),
    ({"piles": {"declarer": ["T1", "XX"]}}, "piles.declarer", "not a card"),
    ({"piles": {"north": ["T1"]}}, "piles.north", "declarer or defenders"),
    ({"piles": {"declarer": ["T1"] * 60}}, "piles.declarer", "deck has 54"),
    ({"contract": "dodge_round", "dodge_round": {"Ana": {"pile": ["zz"]}}}, "dodge_round.Ana.pile", "not a card"),
])
def test_bad_hands_are_refused_naming_the_field(change, field, words):
    with pytest.raises(HandFormatError) as err:
        validate.hand_shape({**GOOD, **change}, "slovenian")
    assert err.value.field == field and words in str(err.value), (err.value.field, str(err.value))


def test_card_ids_are_upper_cased():
    hand = validate.hand_shape({**GOOD, "card_points": None, "piles": {"declarer": ["t1", " skus", "hk"]}},
                               "slovenian")
    assert hand["piles"] == {"declarer": ["T1", "SKUS", "HK"]}


def test_not_an_object_is_refused():
    with pytest.raises(HandFormatError, match="JSON object"):
        validate.hand_shape(["T1"], "slovenian")


@pytest.mark.parametrize("name, words", [
    ("Ana\x00", "control"), ("Ana\u202eanA", "text-direction"), ("Ana\u2066x", "text-direction"),
    ("x" * 200_000, "at most"), ("Ana, Bor", "comma"), ("   ", "empty"), ("Ana\nBor", "control"),
])
def test_bad_names_are_refused(name, words):
    with pytest.raises(HandFormatError, match=words):
        validate.player_name(name)


def test_good_names_are_kept_as_typed_in_nfc():
    assert validate.player_name("  Žan  ") == "Žan"
    assert validate.player_name("Ze\u0301lie") == "Zélie"
    assert validate.player_names(["Ana", "Bor", "Cene"]) == ["Ana", "Bor", "Cene"]
    with pytest.raises(HandFormatError, match="same name"):
        validate.player_names(["Ana", "ana", "Bor"])


@pytest.mark.parametrize("tariffs", [{"three": float("nan")}, {"simplified": {"three": float("inf")}},
                                     {"x": [1, float("-inf")]}])
def test_nan_and_infinite_tariffs_are_refused(tariffs):
    with pytest.raises(HandFormatError, match="finite"):
        validate.finite_tariffs(tariffs)
    validate.finite_tariffs({"three": 10, "simplified": {"two": 2.5}})


@pytest.mark.parametrize("value, cell", [
    ("=HYPERLINK(\"http://evil\")", "'=HYPERLINK(\"http://evil\")"), ("+1+2", "'+1+2"), ("-1+2", "'-1+2"),
    ("@SUM(A1)", "'@SUM(A1)"), ("\t=1", "'\t=1"), ("Ana", "Ana"), ("-14", "-14"), ("12 1/3", "12 1/3"),
    (-14, -14), (None, None),
])
def test_csv_cells_that_would_run_as_formulas_are_quoted(value, cell):
    assert validate.csv_cell(value) == cell


@pytest.mark.parametrize("field,data,words", [
    ("players", {"players": "Ana\nB\u202eob\nCene\nDora"}, "control"),
    ("players", {"players": "Ana\n=cmd()\nCene\nDora"}, "spreadsheet"),
    ("tariffs", {"tariffs": "radli = nan"}, "finite"),
])
def test_settings_form_refuses_what_the_store_refuses_and_keeps_the_form(player, field, data, words):
    form = {"csrf": player.csrf, "players": "Ana\nBor\nCene\nDora", "game": "slovenian", "system": "simplified",
            **data}
    r = player.post("/settings", data=form)
    assert r.status_code == 422, r.text[:300]
    assert f'data-field="{field}"' in r.text and words in r.text.lower()


def test_a_lowercase_card_correction_is_stored_upper_cased(player, table):
    cid = player.post("/api/captures", json={"side": "declarer"}).json()["id"]
    r = player.put(f"/api/captures/{cid}/cards/0", json={"card": "t1"})
    assert r.status_code == 200
    assert r.json()["capture"]["cards"][0]["id"] == "T1"


def test_csv_export_quotes_every_cell_through_csv_row(player, table, monkeypatch):
    from device.web.routers import sheet as sheet_router
    seen = []
    monkeypatch.setattr(sheet_router, "csv_row", lambda values: seen.append(list(values)) or list(values))
    assert player.get("/sheet.csv").status_code == 200
    assert seen and seen[0][0] == "hand"
