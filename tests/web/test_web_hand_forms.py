"""Every game's hands entered through the HTML Hand form: the worked examples of scoring/examples and
the game-specific fields of each schema, checked against `scoring` and the score sheet."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from importlib.resources import files
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from web_doubles import PIN, FakeController, csrf_of

import scoring
from device.storage import Store
from device.web import create_app

TALON = "~talon"  # the form's value for "the Skus lay in the talon"


def example(game: str) -> dict:
    return json.loads(files("scoring").joinpath("examples", f"{game}.json").read_text())


def schema(game: str) -> dict:
    return json.loads(files("scoring").joinpath("schema", f"{game}.schema.json").read_text())


class FormFields(HTMLParser):
    """The fields of one form: name -> allowed values (None: free text)."""

    def __init__(self, form_id: str):
        super().__init__()
        self.form_id, self.inside, self.select = form_id, False, None
        self.fields: dict[str, set[str] | None] = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.inside = a.get("id") == self.form_id
        if not self.inside:
            return
        if tag == "select":
            self.select = a["name"]
            self.fields[self.select] = set()
        elif tag == "option" and self.select:
            self.fields[self.select].add(a["value"])
        elif tag == "input" and a.get("type") in ("checkbox", "radio"):
            self.fields.setdefault(a["name"], set()).add(a.get("value", "on"))
        elif tag in ("input", "textarea"):
            self.fields[a["name"]] = None

    def handle_endtag(self, tag):
        if tag == "select":
            self.select = None
        elif tag == "form":
            self.inside = False


def form_fields(html: str, form_id: str) -> dict[str, set[str] | None]:
    parser = FormFields(form_id)
    parser.feed(html)
    return parser.fields


def form_data(hand: dict) -> dict[str, str]:
    """What players pick on the Hand form for `hand` (a record in the game's schema)."""
    hand = dict(hand)
    players = hand.pop("players")
    hand.pop("game", None)
    data = {"points_source": "manual"}
    if "card_points" in hand:
        data["card_points"] = str(hand.pop("card_points"))
    if "radli" in hand:  # the sheet carries radli; a first hand starts with none open
        assert not any(hand.pop("radli").values())
    for key in (
        "declarer",
        "contract",
        "moon_lost_by",
        "dealer",
        "dodge_round_loser",
        "dodge_round_winner",
        "challenger",
        "march",
    ):
        if hand.get(key) is not None:
            data[key] = hand.pop(key)
        hand.pop(key, None)
    if "partner" in hand:
        data["partner"] = hand.pop("partner") or ""
    if "won" in hand:
        data["won"] = "won" if hand.pop("won") else "lost"
    if "skus_dealt_to" in hand:
        data["skus_dealt_to"] = hand.pop("skus_dealt_to") or TALON
    for key in ("compulsory", "trial_three_failed", "instant_win"):
        if hand.pop(key, False):
            data[key] = "on"
    for b in hand.pop("bonuses", []):
        data[f"bonus_{b['bonus']}_side"] = b["side"]
        data[f"bonus_{b['bonus']}_made"] = "made" if b.get("made", True) else "lost"
        if b.get("announced"):
            data[f"bonus_{b['bonus']}_announced"] = "on"
    for item, level in hand.pop("kontra", {}).items():
        data[f"kontra_{item}"] = str(level)
    for key, fact in hand.pop("last_trick", {}).items():
        if key == "pagat":
            data["last_pagat"] = f"{fact['side']}_{'won' if fact['won'] else 'lost'}"
        else:
            data[f"last_{key}"] = "won" if fact["won"] else "lost"
    for name, n in hand.pop("tarok_declarations", {}).items():
        data[f"tarok_{players.index(name)}"] = str(n)
    for name, entry in hand.pop("dodge_round", {}).items():
        data[f"dodge_{players.index(name)}"] = str(entry["card_points"])
    assert not hand, f"the test cannot enter {sorted(hand)} yet"
    return data


class Evening:
    """An app over a fresh store playing `game` with `players`, and a logged-in client."""

    def __init__(self, tmp: Path, game: str, players: list[str]):
        self.game, self.players = game, players
        self.store = Store(tmp / "tarokcam.sqlite")
        app = create_app(
            store=self.store,
            controller=FakeController(self.store, tmp),
            photos_dir=tmp,
            pin=PIN,
            settings={"game": game, "players": players},
        )
        self.client = TestClient(app, base_url="http://table.local")
        self.csrf = csrf_of(self.client)
        r = self.client.post("/login", data={"pin": PIN, "csrf": self.csrf}, follow_redirects=False)
        assert r.status_code == 303

    def set_options(self, **boxes: bool) -> None:
        data = {
            "csrf": self.csrf,
            "game": self.game,
            "players": "\n".join(self.players),
            "system": "simplified",
            "options_for": self.game,
            **{f"option_{k}": "on" for k, on in boxes.items() if on},
        }
        assert self.client.post("/settings", data=data, follow_redirects=False).status_code == 303

    def enter(self, hand: dict):
        """Post `hand` through the Hand form, after checking the form offers every field and value used."""
        data = form_data(hand)
        offered = form_fields(self.client.get("/hand").text, "hand-form")
        for name, value in data.items():
            assert name in offered, f"the {self.game} form has no field {name}"
            assert offered[name] is None or value in offered[name], f"{name}: {value!r} not offered"
        return self.client.post("/hands", data={**data, "csrf": self.csrf}, follow_redirects=False)

    def close(self):
        self.client.close()
        self.store.close()


@pytest.fixture
def evening(tmp_path):
    opened = []

    def make(game: str, players: list[str]) -> Evening:
        folder = tmp_path / str(len(opened))
        folder.mkdir()
        opened.append(Evening(folder, game, players))
        return opened[-1]

    yield make
    for e in opened:
        e.close()


def saved(e: Evening, response) -> dict:
    assert response.status_code == 303, response.text[:2000]
    hand_id = int(re.match(r"/hands/(\d+)", response.headers["location"]).group(1))
    return e.store.get_hand(hand_id)


def check_sheet(e: Evening, hands: list[dict], options: dict | None = None) -> None:
    for system in ("simplified", "traditional"):
        want = scoring.score_sheet(e.game, e.players, hands, system, options)
        got = e.client.get(f"/api/sheet?system={system}").json()
        assert got["totals"] == want["totals"] and got["error"] is None
        assert [r["scores"] for r in got["rows"]] == [r["scores"] for r in want["rows"]]
        page = e.client.get(f"/sheet?system={system}").text
        for p in e.players:
            assert f'data-player="{p}">{want["totals"][p]}<' in page


@pytest.mark.parametrize("game", list(scoring.GAMES))
def test_worked_example_through_the_form(evening, game):
    ex = example(game)
    e = evening(game, ex["players"])
    stored = saved(e, e.enter(ex))
    want = scoring.score_hand(ex).to_json()
    # The form lists bonuses in the game's order, and the ledger follows the entries' order (only the
    # Strawman example lists them otherwise): the same hand, the same points, the steps in form order.
    assert {k: v for k, v in stored["result"].items() if k != "ledger"} == {
        k: v for k, v in want.items() if k != "ledger"
    }
    assert sorted(map(json.dumps, stored["result"]["ledger"])) == sorted(map(json.dumps, want["ledger"]))
    order = [b for b, _ in scoring.find_game(game).bonuses]
    in_form_order = {**ex, "bonuses": sorted(ex.get("bonuses", []), key=lambda b: order.index(b["bonus"]))}
    assert stored["result"] == scoring.score_hand(in_form_order).to_json()
    check_sheet(e, [ex])
    for system in ("simplified", "traditional"):
        assert e.client.get(f"/api/sheet?system={system}").json()["totals"] == want[system]
    page = e.client.get(f"/hands/{stored['id']}").text
    assert all(f"<li><b>{s['step']}</b>" in page.replace("&#39;", "'") for s in want["ledger"])


P4 = ["Anna", "Ben", "Clara", "Dora"]
# Hands that use each game-specific field of the schemas, as a group would enter them.
FIELD_HANDS = [
    (
        "slovenian",
        P4,
        {
            "contract": "dodge_round",
            "dodge_round": {
                "Anna": {"card_points": "20"},
                "Ben": {"card_points": "0"},
                "Clara": {"card_points": "35"},
                "Dora": {"card_points": "15"},
            },
        },
    ),
    (
        "slovenian",
        P4,
        {
            "declarer": "Ben",
            "partner": None,
            "contract": "solo_without",
            "card_points": "40",
            "dealer": "Anna",
            "skus_dealt_to": None,
            "compulsory": True,
            "last_trick": {"pagat": {"side": "defenders", "won": True}},
        },
    ),
    (
        "slovenian",
        P4,
        {"declarer": "Ben", "partner": None, "contract": "beggar", "won": False, "kontra": {"contract": 2}},
    ),
    (
        "hungarian",
        [*P4, "Emil"],
        {
            "dealer": "Emil",
            "declarer": "Anna",
            "partner": "Ben",
            "contract": "three",
            "trial_three_failed": True,
        },
    ),
    (
        "hungarian",
        P4,
        {
            "dealer": "Dora",
            "declarer": "Anna",
            "partner": "Ben",
            "contract": "one",
            "card_points": "75",
            "tarok_declarations": {"Ben": 9},
            "bonuses": [{"bonus": "double_game", "side": "declarer", "announced": False, "made": True}],
            "last_trick": {"pagat": {"side": "declarer", "won": True}},
        },
    ),
    ("koenigrufen", P4, {"contract": "dodge_round", "dodge_round_loser": "Clara"}),
    (
        "koenigrufen",
        P4,
        {"declarer": "Anna", "partner": None, "contract": "piccolo", "won": True, "kontra": {"contract": 2}},
    ),
    (
        "koenigrufen",
        P4,
        {
            "declarer": "Anna",
            "partner": "Ben",
            "contract": "call",
            "card_points": "40",
            "last_trick": {"called_king": {"side": "declarer", "won": False}},
        },
    ),
    ("zwanzigerrufen", P4, {"contract": "dodge_round", "dodge_round_loser": "Dora"}),
    ("zwanzigerrufen", P4, {"declarer": "Ben", "partner": None, "contract": "no_trump", "won": True}),
    (
        "strawman",
        ["Anna", "Ben"],
        {"declarer": "Ben", "contract": "dodge_round", "dodge_round_winner": "Anna"},
    ),
    (
        "dappen",
        ["Anna", "Ben", "Clara"],
        {"declarer": "Clara", "contract": "solo", "card_points": "79", "march": "declarer"},
    ),
    ("dappen", P4, {"declarer": "Ben", "contract": "dapp", "instant_win": True}),
]


@pytest.mark.parametrize("game, players, fields", FIELD_HANDS, ids=lambda v: v if isinstance(v, str) else "")
def test_game_specific_fields_through_the_form(evening, game, players, fields):
    hand = {"game": game, "players": players, **fields}
    e = evening(game, players)
    stored = saved(e, e.enter(hand))
    assert stored["result"] == scoring.score_hand(hand).to_json()
    for key, value in fields.items():
        assert key in ("partner", "kontra") or stored["hand"][key] == value
    check_sheet(e, [hand])
    edit = form_fields(e.client.get(f"/hands/{stored['id']}/edit").text, "hand-form")
    assert set(form_data(hand)) <= set(edit)


# One hand whose score each evening option changes: (game, players, hand, option).
OPTION_HANDS = [
    (
        "koenigrufen",
        P4,
        {"declarer": "Anna", "partner": "Ben", "contract": "call", "card_points": "35 1/3"},
        "styrian",
    ),
    (
        "strawman",
        ["Anna", "Ben"],
        {"declarer": "Ben", "contract": "dodge_round", "dodge_round_winner": "Anna"},
        "pay_less",
    ),
    (
        "dappen",
        ["Anna", "Ben", "Clara"],
        {"declarer": "Clara", "contract": "dapp", "card_points": "50"},
        "half_game",
    ),
]


@pytest.mark.parametrize(
    "game, players, fields, option", OPTION_HANDS, ids=lambda v: v if isinstance(v, str) else ""
)
def test_evening_options_reach_the_scorer(evening, game, players, fields, option):
    hand = {"game": game, "players": players, **fields}
    e = evening(game, players)
    e.set_options(**{option: True})
    assert e.store.current_session()["tariffs"] == {option: True}
    assert f'id="option_{option}" checked' in e.client.get("/settings").text
    stored = saved(e, e.enter(hand))
    with_option = scoring.score_hand(hand, {option: True}).to_json()
    assert stored["result"] == with_option != scoring.score_hand(hand).to_json()
    check_sheet(e, [hand], {option: True})
    e.set_options()  # untick: the box decides
    assert e.store.current_session()["tariffs"] == {}
    check_sheet(e, [hand])


GAME_FIELDS = {
    "dealer",
    "skus_dealt_to",
    "compulsory",
    "trial_three_failed",
    "dodge_round_loser",
    "dodge_round_winner",
    "challenger",
    "march",
    "instant_win",
    "moon_lost_by",
    "won",
    "partner",
}


@pytest.mark.parametrize("game", list(scoring.GAMES))
def test_the_form_shows_what_the_schema_documents_and_nothing_else(evening, game):
    g = scoring.find_game(game)
    e = evening(game, [f"P{i}" for i in range(g.players[0])])
    fields = form_fields(e.client.get("/hand").text, "hand-form")
    props = schema(game)["properties"]
    documented = {k for k in set(props) & GAME_FIELDS if props[k].get("type") != "null"}  # null: never given
    if game == "slovenian":
        documented |= {"moon_lost_by"}  # the Moon is a common field (hand.schema.json) only Slovenian reads
    assert set(fields) & GAME_FIELDS == documented
    has_tarok = "tarok_0" in fields
    assert has_tarok == (
        "tarok_declarations" in props and props["tarok_declarations"].get("maxProperties") != 0
    )
    assert ("dodge_0" in fields) == ("dodge_round" in props)
    last = set(props.get("last_trick", {}).get("properties", {}))
    assert {k[5:] for k in fields if k.startswith("last_")} == last
    kontra = props.get("kontra", {})
    levels = (
        set()
        if kontra.get("maxProperties") == 0
        else set(map(str, kontra.get("additionalProperties", {}).get("enum", [1, 2, 4, 8, 16])))
    )
    assert (fields.get("kontra_contract") or set()) == levels
    for bonus, _name in g.bonuses:
        sides = set(
            props["bonuses"]["items"]["properties"].get("side", {}).get("enum", ["declarer", "defenders"])
        )
        if "const" in props["bonuses"]["items"]["properties"].get("side", {}):
            sides = {props["bonuses"]["items"]["properties"]["side"]["const"]}
        assert fields[f"bonus_{bonus}_side"] == {"", *sides}


def test_form_refuses_a_stranger_and_keeps_what_was_entered(evening):
    e = evening("hungarian", P4)
    data = {
        **form_data(
            {
                "players": P4,
                "declarer": "Anna",
                "partner": "Ben",
                "contract": "two",
                "card_points": "50",
                "dealer": "Zed",
            }
        ),
        "csrf": e.csrf,
    }
    r = e.client.post("/hands", data=data)
    assert r.status_code == 422 and 'data-field="dealer"' in r.text and "Zed" in r.text
    assert 'value="50"' in r.text and e.store.hands(e.store.current_session()["id"]) == []
    r = e.client.post("/hands", data={**data, "dealer": "Dora", "kontra_contract": "16"})
    assert r.status_code == 422 and 'data-field="kontra.contract"' in r.text
