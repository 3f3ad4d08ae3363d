"""The hand JSON Schemas agree with the code: game ids, Slovenian contracts, bonuses and fields."""

import json
from pathlib import Path

from scoring import GAMES
from scoring.games.slovenian import GAME

SCHEMA = Path(__file__).parents[2] / "scoring" / "schema"
GOLDEN = json.loads((Path(__file__).parent / "data" / "slovenian.json").read_text(encoding="utf-8"))["hands"]


def load(name):
    return json.loads((SCHEMA / name).read_text(encoding="utf-8"))


def test_top_level_schema_dispatches_on_every_game():
    top = load("hand.schema.json")
    assert top["properties"]["game"]["enum"] == list(GAMES)
    refs = {r["if"]["properties"]["game"]["const"]: r["then"]["$ref"] for r in top["allOf"]}
    assert refs == {g: f"{g}.schema.json" for g in GAMES}


def test_slovenian_schema_lists_the_codes_contracts_and_bonuses():
    schema = load("slovenian.schema.json")
    assert schema["properties"]["contract"]["enum"] == [c for c, _ in GAME.contracts]
    assert schema["properties"]["bonuses"]["items"]["properties"]["bonus"]["enum"] == [
        b for b, _ in GAME.bonuses
    ]
    assert set(schema["properties"]["kontra"]["propertyNames"]["enum"]) == {"contract"} | {
        b for b, _ in GAME.bonuses
    }


def test_every_field_of_the_golden_hands_is_documented():
    known = set(load("hand.schema.json")["properties"]) | set(load("slovenian.schema.json")["properties"])
    used = {key for case in GOLDEN for key in case["hand"]}
    assert used <= known, used - known
