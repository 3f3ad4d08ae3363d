"""End to end with the committed ONNX release: the labelled sample photos are recognised exactly."""
import json
from pathlib import Path

import pytest

from scoring import DECK
from vision import Recogniser, read_image

DATA = Path(__file__).with_name("data")
SAMPLES = sorted(DATA.glob("*.json"))
PIPS = {c.id: c.pips for c in DECK}


@pytest.fixture(scope="module")
def recogniser():
    return Recogniser.load()


def test_release_matches_the_deck(recogniser):
    assert recogniser.labels[:54] == [c.id for c in DECK] and recogniser.labels[54] == "none"


@pytest.mark.parametrize("label_file", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_sample_recognised_exactly(recogniser, label_file):
    truth = json.loads(label_file.read_text())
    found = recogniser.recognise(read_image(DATA / truth["image"]))
    ids = [r.card_id for r in found if r.card_id not in truth["optional"]]
    assert sorted(ids) == sorted(truth["cards"])          # every readable card, nothing else, no duplicates
    for r in found:
        assert r.pips == PIPS[r.card_id] and 0 <= r.confidence <= 1
        index = [i for i in truth["indices"] if i["card"] == r.card_id]
        centre = [sum(p[k] for p in r.quad) / 4 for k in (0, 1)]
        assert any(abs(centre[0] - sum(p[0] for p in i["quad"]) / 4) < 25 and
                   abs(centre[1] - sum(p[1] for p in i["quad"]) / 4) < 25 for i in index)


def test_samples_are_committed():
    assert len(SAMPLES) >= 3 and any(not json.loads(p.read_text())["cards"] for p in SAMPLES)
