"""The readability diagnostic: how much of an index in view tells it from every other card's."""
import numpy as np
import pytest

from models.readability import PX_PER_MM, index_strips, seen_grid, tell_apart
from models.synth import Card, Deck, random_scene, render


@pytest.fixture(scope="module")
def deck():
    return Deck.load()


def test_every_fully_visible_index_tells_its_card(deck):
    strips = index_strips(deck)
    seen = np.ones(strips.shape[1:3], bool)
    areas = {deck.ids[i]: tell_apart(strips, i, seen) for i in range(len(deck.ids))}
    assert min(a for a, _ in areas.values()) >= 2.0      # mm²: no two indices of the deck look alike
    assert deck.ids[areas["T13"][1]] in {"T15", "T18", "T16", "T19", "T10", "T11", "T12", "T14", "T17", "T3"}


def test_the_first_digit_alone_does_not_tell_a_two_digit_tarok(deck):
    strips = index_strips(deck)
    seen = np.zeros(strips.shape[1:3], bool)
    seen[:, : round((6.3 - deck.index_box[0]) * PX_PER_MM)] = True     # the next card covers from 6.3 mm on
    area, like = tell_apart(strips, deck.ids.index("T13"), seen)
    assert area < 0.5 and deck.ids[like] in {f"T{k}" for k in range(10, 20)}
    area, _ = tell_apart(strips, deck.ids.index("HK"), seen)
    assert area >= 2.0                                   # a King's letter and suit sign still show


def test_seen_grid_follows_the_quad_and_the_cover():
    ids = np.full((200, 300), -1, np.int16)
    quad = np.float32([[50, 20], [90, 20], [90, 180], [50, 180]])     # upright index, 40 x 160 px
    ids[20:180, 50:90] = 3
    ids[20:180, 70:90] = 4                                            # a card on top covers the right half
    seen = seen_grid(ids, quad, 3, (160, 40))
    assert seen[:, :18].all() and not seen[:, 22:].any()
    turned = quad[[2, 3, 0, 1]]                                       # the same box read turned 180 degrees
    assert seen_grid(ids, turned, 3, (160, 40))[:, 22:].all()


def test_render_labels_tell_apart_only_when_asked(deck):
    scene = random_scene(np.random.default_rng(2), n_cards=2, size=(800, 600))    # for its table and look
    scene.cards = [Card(deck.ids.index("T13"), 60, 70, 0.0), Card(deck.ids.index("T18"), 68, 70, 0.0)]
    scene.clutter, scene.tilt, scene.ppm, scene.origin = [], np.eye(3), 4.0, (0.0, 0.0)
    _, plain = render(scene, deck)
    assert all("tell_mm2" not in lab for lab in plain)
    _, labels = render(scene, deck, tell=True)
    under = next(lab for lab in labels if lab["card"] == "T13" and lab["visible"] > 0.5)
    top = next(lab for lab in labels if lab["card"] == "T18" and lab["visible"] > 0.9)
    assert under["tell_mm2"] < 1.0 and under["like"].startswith("T1")   # 8 mm step: 3 under the next card
    assert top["tell_mm2"] >= 2.0
