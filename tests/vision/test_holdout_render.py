"""The independent hold-out renderer (models/holdout): labels agree with the deck, the deal and the geometry."""
from __future__ import annotations

import json
import time

import cv2
import numpy as np
import pytest

from models.holdout import HoldoutRenderer
from models.holdout.__main__ import main as holdout_main
from models.holdout.camera import Camera
from models.holdout.deal import STYLES, Pose, lay_out, load_deck, random_deal
from models.holdout.render import default_faces
from models.holdout.scene import PlacedCard, Scene, sample_scene, visibility

SIZE = (1640, 1232)   # the smallest Pi still size keeps the test fast


@pytest.fixture(scope="module")
def renderer():
    return HoldoutRenderer()


@pytest.fixture(scope="module")
def photos(renderer):
    return [renderer.render([11, i], SIZE, empty=False, name=f"p{i}.jpg") for i in range(2)]


def test_photo_decodes_at_the_asked_size(photos):
    for p in photos:
        img = cv2.imdecode(np.frombuffer(p.jpeg, np.uint8), cv2.IMREAD_COLOR)
        assert img.shape == (SIZE[1], SIZE[0], 3)
        assert (p.label["width"], p.label["height"]) == SIZE
        assert 85 <= p.quality <= 95
        assert img.std() > 10   # a scene, not a blank frame


def test_labels_agree_with_deck_and_frame(photos, renderer):
    pips = renderer.pips
    w, h = SIZE
    for p in photos:
        lab = json.loads(json.dumps(p.label))   # must be plain JSON
        ids = [c["id"] for c in lab["cards"]]
        assert ids and len(ids) == len(set(ids))
        for c in lab["cards"]:
            assert c["pips"] == pips[c["id"]]
            assert 0.0 <= c["visible"] <= 1.0
            q = np.array(c["quad"])
            assert q.shape == (4, 2)
            assert (q >= -0.5).all() and (q[:, 0] <= w + 0.5).all() and (q[:, 1] <= h + 0.5).all()
            assert c["visible"] == max(i["visible"] for i in c["indices"])
            assert c["quad"] == c["indices"][c["index"]]["quad"]
            # an index box is 10.4 x 44.5 mm: its sides in the photo keep about that ratio (tilt <= 15 degrees)
            sides = np.hypot(*(q - np.roll(q, -1, 0)).T)
            assert 3.0 < (sides[1] + sides[3]) / (sides[0] + sides[2]) < 6.0
        shown = set(lab["sides"])
        on_table = {s: lab["pile_cards"][s] for s in shown}
        assert sorted(ids) == sorted(c for pile in on_table.values() for c in pile)
        for s in {"declarer", "defenders"} - shown:
            assert lab["pile_cards"][s] == []
        assert all(6 <= len(v) <= 40 for v in on_table.values())


def test_both_sides_in_one_photo_are_complementary(renderer):
    deck = {c.id for c in renderer.deck}
    deck42 = {c.id for c in renderer.deck if c.in_42}
    # find a seed whose scene has both piles cheaply (no drawing), then render that one
    seed = next(([13, i] for i in range(50)
                 if len(sample_scene(np.random.default_rng([13, i]), renderer.deck, SIZE, False).sides) == 2), None)
    assert seed, "no scene with both piles among 50 seeds"
    lab = renderer.render(seed, SIZE, empty=False).label
    assert lab["sides"] == ["declarer", "defenders"]
    dec, dfn = set(lab["pile_cards"]["declarer"]), set(lab["pile_cards"]["defenders"])
    assert not dec & dfn
    assert dec | dfn == (deck if lab["deck_size"] == 54 else deck42)


def test_empty_table_has_no_cards(renderer):
    p = renderer.render([3, 1], SIZE, empty=True)
    assert p.label["cards"] == []
    assert p.label["pile_cards"] == {"declarer": [], "defenders": []}
    assert any(c["kind"] == "card_back" for c in p.label["clutter"])


def test_same_seed_same_photo(renderer, photos):
    again = renderer.render([11, 0], SIZE, empty=False, name="p0.jpg")
    assert again.jpeg == photos[0].jpeg and again.label == photos[0].label
    assert photos[1].jpeg != photos[0].jpeg


def test_deals_split_the_deck_into_two_legal_piles(renderer):
    deck = renderer.deck
    sizes = set()
    for seed in range(200):
        d = random_deal(np.random.default_rng(seed), deck)
        assert 6 <= len(d.declarer) <= 40 and 6 <= len(d.defenders) <= 40
        assert len(set(d.declarer) | set(d.defenders)) == d.deck_size == len(d.declarer) + len(d.defenders)
        sizes.add(d.deck_size)
    assert sizes == {42, 54}


def test_straight_spread_shows_the_uncovered_strip():
    """Card i+1 lies step mm right of card i: the index (x 1.8-12.2 mm) shows for (step - 1.8) / 10.4."""
    step = 8.0
    cards = [PlacedCard(f"C{i}", "declarer", Pose(i * step, 0.0, 0.0, i), 0.0, (0.0, 0.0)) for i in range(5)]
    cam = Camera.looking_at((16, 0), 4.0, 0, 0, 0, (2028, 1520), 1.0)
    vis = visibility(Scene(None, ("declarer",), ("straight",), cards, cam))
    for tl, br in vis[:-1]:
        assert tl == pytest.approx((step - 1.8) / 10.4, abs=0.06)
        assert br == 0.0
    assert vis[-1] == (1.0, 1.0)


@pytest.mark.parametrize("style", STYLES)
def test_layouts_put_later_cards_to_the_right(style):
    poses = lay_out(np.random.default_rng(1), 20, style)
    assert [p.layer for p in poses] == list(range(20))
    assert poses[-1].x > poses[0].x


def test_lens_distortion_inverts_its_map():
    cam = Camera.looking_at((0, 0), 4.0, 8, 30, 10, (2028, 1520), 1.0, k1=0.06, k2=-0.005)
    mx, my = cam.undistort_map()
    pts = np.array([[100.0, 200.0], [1900.0, 1400.0], [1014.0, 760.0]])
    d = np.round(cam.distort(pts)).astype(int)
    back = np.stack([mx[d[:, 1], d[:, 0]], my[d[:, 1], d[:, 0]]], 1)
    assert np.abs(back - pts).max() < 2.0   # within the rounding of d to whole pixels


def test_cli_writes_photos_and_labels(tmp_path, capsys):
    assert holdout_main(["--n", "1", "--seed", "4", "--out", str(tmp_path), "--sizes", "1640x1232",
                         "--workers", "1"]) == 0
    jpgs = sorted(tmp_path.glob("*.jpg"))
    assert len(jpgs) == 1
    lab = json.loads(jpgs[0].with_suffix(".json").read_text())
    assert lab["image"] == jpgs[0].name
    assert "1/1 photos" in capsys.readouterr().out


def test_cli_rejects_bad_input(tmp_path, capsys):
    assert holdout_main(["--n", "1", "--out", str(tmp_path / "o"), "--faces", str(tmp_path)]) == 2
    assert "deck.json" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        holdout_main(["--n", "1", "--out", str(tmp_path), "--sizes", "big"])


@pytest.mark.slow
def test_worker_processes_give_the_same_photos(tmp_path):
    for workers in ("1", "2"):
        assert holdout_main(["--n", "3", "--seed", "5", "--out", str(tmp_path / workers), "--sizes", "1640x1232",
                             "--workers", workers]) == 0
    one, two = sorted((tmp_path / "1").iterdir()), sorted((tmp_path / "2").iterdir())
    assert [p.name for p in one] == [p.name for p in two] and len(one) == 6
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(one, two))


@pytest.mark.slow
def test_renders_at_least_one_photo_a_second_on_two_cores(renderer):
    """The brief: >= 1 photo/s at 2028x1520 on 2 cores. CPU time per photo on one thread must stay under 2 s
    (two workers then make >= 1/s); CPU time, unlike wall time, barely moves when other jobs share the cores."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        renderer.render([8, 0], (2028, 1520), empty=False)   # faces load lazily: not part of the steady state
        t0 = time.process_time()
        for i in range(1, 6):
            renderer.render([8, i], (2028, 1520), empty=False)
        per_photo = (time.process_time() - t0) / 5
    finally:
        cv2.setNumThreads(threads)
    assert per_photo < 2.0, f"{per_photo:.2f} CPU-s per photo"


# ------------------------------------------------------------ scoring (models/holdout/score.py)

def _read(card_id, quad, flagged=False, pips=0):
    from vision import Recognition
    return Recognition(card_id, 0.99, pips, tuple(map(tuple, quad)), flagged)


def _box(x, y):
    return [[x, y], [x + 20, y], [x + 20, y + 85], [x, y + 85]]


SCORED_LABEL = {"image": "a.jpg", "cards": [
    {"id": "T1", "pips": 4, "visible": 1.0, "quad": _box(0, 0), "indices": [{"quad": _box(0, 0), "visible": 1.0},
                                                                          {"quad": _box(300, 300), "visible": 1.0}]},
    {"id": "HK", "pips": 4, "visible": 0.6, "quad": _box(30, 0)},
    {"id": "S7", "pips": 0, "visible": 0.2, "quad": _box(60, 0)}]}


def test_score_counts_hits_misses_and_dont_care():
    from models.holdout.score import score_photo, summarise
    row = score_photo([_read("T1", _box(302, 304), pips=4), _read("S7", _box(61, 2))], SCORED_LABEL)
    assert (row["tp"], row["fp"], row["fn"], row["dont_care_read"], row["pips_ok"]) == (1, [], ["HK"], 1, 1)
    s = summarise([row])
    assert s["recall"] == 0.5 and s["precision"] == 1.0 and s["photos_all_right"] == 0.0


def test_score_wrong_id_on_a_covered_card_and_far_reads_are_errors():
    from models.holdout.score import score_photo
    row = score_photo([_read("S8", _box(60, 0)), _read("HK", _box(30, 200)), _read("HK", _box(30, 0)),
                       _read("HK", _box(31, 1), flagged=True)], SCORED_LABEL)
    assert row["tp"] == 1 and row["fp"] == ["S8", "HK", "HK"]
    assert ("S7", "S8") in row["confusions"] and row["wrong_unflagged"] == 2   # the duplicate HK was flagged


def test_a_read_anywhere_on_the_index_box_is_on_it():
    from models.holdout.score import score_photo
    along = score_photo([_read("HK", _box(30, 30))], SCORED_LABEL)          # 30 px down an 85 px index
    assert along["tp"] == 1 and along["fp"] == []
    beside = score_photo([_read("HK", _box(42, 0))], SCORED_LABEL)          # centre past the box's right edge
    assert beside["tp"] == 0 and beside["fp"] == ["HK"]


def test_score_empty_photo_counts_false_cards():
    from models.holdout.score import score_photo, summarise
    row = score_photo([_read("T21", _box(0, 0))], {"image": "e.jpg", "cards": []})
    s = summarise([row])
    assert s["empty_photos"] == 1 and s["false_cards_on_empty_photos"] == 1 and s["photos"] == 0


def test_score_cli_rejects_a_folder_without_photos(tmp_path, capsys):
    from models.holdout.score import main
    assert main([str(tmp_path)]) == 2
    assert "no photo" in capsys.readouterr().err


def test_score_cli_end_to_end_with_an_oracle(tmp_path, monkeypatch, capsys):
    """A recogniser that reads exactly the labelled cards scores recall 1, precision 1, no false cards."""
    import vision
    from models.holdout.score import main as score_main
    assert holdout_main(["--n", "2", "--seed", "6", "--out", str(tmp_path), "--sizes", "1640x1232",
                         "--workers", "1", "--empty-share", "0"]) == 0
    labels = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("*.json"))]

    class Oracle:
        name = "oracle"

        def recognise(self, image):
            lab = labels.pop(0)
            assert image.shape[:2] == (lab["height"], lab["width"])
            return [_read(c["id"], c["quad"], pips=c["pips"]) for c in lab["cards"] if c["visible"] >= 1 / 3]

    monkeypatch.setattr(vision.Recogniser, "load", classmethod(lambda cls, model=None: Oracle()))
    capsys.readouterr()
    assert score_main([str(tmp_path), "--json", str(tmp_path / "rows.out")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["recall"], summary["precision"], summary["photos_all_right"]) == (1.0, 1.0, 1.0)
    assert summary["photos"] == 2 and summary["pips_right"] == 1.0 and summary["model"] == "oracle"


def test_bad_faces_folder_and_deck_file_say_what_is_wrong(tmp_path):
    (tmp_path / "deck.json").write_text("{not json")
    with pytest.raises(ValueError, match="deck.json"):
        load_deck(tmp_path / "deck.json")
    (tmp_path / "deck.json").write_text((default_faces() / "deck.json").read_text()
                                        if (default_faces() / "deck.json").is_file()
                                        else (default_faces().parent / "deck.json").read_text())
    with pytest.raises(ValueError, match="missing faces"):
        HoldoutRenderer(tmp_path)
