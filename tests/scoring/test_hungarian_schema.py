"""The hand JSON Schemas of Hungarian Tarokk, Königrufen, Zwanzigerrufen, Strawman and Dappen agree with the code."""

import json
from pathlib import Path

import pytest

from scoring import GAMES, score_hand

ROOT = Path(__file__).parents[2]
GAME_IDS = ["hungarian", "koenigrufen", "zwanzigerrufen", "strawman", "dappen"]


def load(path):
    return json.loads((ROOT / path).read_text(encoding="utf-8"))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_schema_lists_the_codes_contracts_bonuses_and_kontra_items(game_id):
    game, schema = GAMES[game_id], load(f"scoring/schema/{game_id}.schema.json")
    assert schema["$id"] == f"{game_id}.schema.json" and schema["properties"]["game"]["const"] == game_id
    assert schema["properties"]["contract"]["enum"] == [c for c, _ in game.contracts]
    assert schema["properties"]["bonuses"]["items"]["properties"]["bonus"]["enum"] == [
        b for b, _ in game.bonuses
    ]
    kontra = schema["properties"]["kontra"]
    if "propertyNames" in kontra:
        assert set(kontra["propertyNames"]["enum"]) == {"contract"} | {b for b, _ in game.bonuses}
    players = schema["properties"]["players"]
    assert (players["minItems"], players["maxItems"]) == (min(game.players), max(game.players))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_field_of_the_golden_hands_and_example_is_documented(game_id):
    known = set(load("scoring/schema/hand.schema.json")["properties"]) | set(
        load(f"scoring/schema/{game_id}.schema.json")["properties"]
    )
    hands = [case["hand"] for case in load(f"tests/scoring/data/{game_id}.json")["hands"]]
    hands.append(load(f"scoring/examples/{game_id}.json"))
    used = {key for hand in hands for key in hand}
    assert used <= known, used - known
    for hand in hands:
        assert set(hand.get("kontra", {})) <= {"contract"} | {b for b, _ in GAMES[game_id].bonuses}


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_tariff_names_its_source_and_the_game_scores(game_id):
    game = GAMES[game_id]
    assert game.tariff["source"] and game.score is not None
    assert score_hand(load(f"scoring/examples/{game_id}.json")).ledger
