"""The evaluation script's scoring of one generated photo (models/evaluate.py)."""
from types import SimpleNamespace

from models.evaluate import score_photo, summarise


def _label(card, x, visible, mark=1.0, tell=20.0):
    return {"card": card, "pips": 0, "center": [x, 100.0], "up": [0.0, -1.0], "height": 80.0,
            "visible": visible, "mark_visible": mark, "tell_mm2": tell, "like": "T4"}


def _read(card, x, flagged=False):
    return SimpleNamespace(card_id=card, quad=[[x - 9, 60], [x + 9, 60], [x + 9, 140], [x - 9, 140]],
                           flagged=flagged, pips=0)


LABELS = [_label("T2", 100, 1.0), _label("T3", 200, 0.5, mark=0.2, tell=0.3), _label("T5", 300, 0.2),
          _label("T6", 400, 0.9)]


def test_reads_are_scored_against_required_optional_and_readable_cards():
    row = score_photo([_read("T2", 100), _read("T5", 300), _read("T7", 400, flagged=True)], LABELS)
    assert row["required"] == 3 and row["tp"] == 1             # T2 right; T3 and T6 missed; T5 optional
    assert row["fn"] == ["T3", "T6"] and row["fp_ids"] == ["T7"] and row["confusions"] == [("T6", "T7")]
    assert row["readable"] == 2 and row["tp_readable"] == 1    # T3's numeral is hidden: not readable
    assert row["tellable"] == 2 and row["tp_tellable"] == 1 and row["fn_untellable"] == ["T3"]
    assert row["unflagged_errors"] == 0
    row.update(points_ok=False, empty=False, card_px=200)
    s = summarise([row], [10.0])
    assert s["recall"] == round(1 / 3, 5) and s["recall_mark_half_visible"] == 0.5 and s["cards_mark_hidden"] == 1
    assert s["precision"] == 0.5 and s["photos_all_right"] == 0
    assert s["photos_all_right_of_all_readable"] == [0, 0]    # T3's numeral is hidden: not among them
    assert s["recall_tellable"] == 0.5 and s["cards_untellable"] == 1 and s["missed_untellable"] == 1
    right = score_photo([_read("T2", 100), _read("T6", 400)], [LABELS[0], LABELS[3]])
    right.update(points_ok=True, empty=False, card_px=200)
    both = summarise([row, right], [1.0, 1.0])
    assert both["photos_all_right_of_all_readable"] == [1.0, 1] and both["photos_all_right_of_all_tellable"] == [1.0, 1]
    assert both["card_points_wrong"] == 0.5                     # T5 is under a third visible in the first photo:
    assert both["card_points_wrong_of_all_required"] == [0.0, 1]   # only the second has every card to read


def test_a_card_read_twice_counts_once():
    row = score_photo([_read("T2", 100), _read("T2", 100)], LABELS[:1])
    assert row["tp"] == 1 and row["fp"] == 1


def test_misses_are_put_down_to_the_stage_that_lost_them():
    import numpy as np
    labels = LABELS + [_label("T8", 500, 0.8), _label("T9", 600, 0.8), _label("T10", 700, 0.8)]
    candidates = [(np.array([300.0, 100.0]), 80.0, "T5"),        # on an optional card: not a miss
                  (np.array([400.0, 104.0]), 80.0, "T7"),        # T6's index read as T7
                  (np.array([500.0, 96.0]), 80.0, "none"),       # T8's index read as not a card
                  (np.array([600.0, 100.0]), 80.0, "T9"),        # T9 read right, then dropped
                  (np.array([716.0, 100.0]), 80.0, "T11")]       # a neighbour's index, not T10's
    row = score_photo([_read("T2", 100)], labels, candidates)   # T3: nothing found on it
    assert row["missed_why"] == {"not_detected": 2, "read_as_another_card": 1, "read_as_not_a_card": 1,
                                 "read_but_dropped": 1}
    row.update(points_ok=False, empty=False, card_px=200)
    assert summarise([row, row], [1.0])["missed_why"]["not_detected"] == 4
    assert score_photo([_read("T2", 100)], labels)["missed_why"] == {}    # no candidates given: not said


def test_cached_photos_are_named_for_what_they_show(tmp_path, monkeypatch):
    import numpy as np

    import models.evaluate as ev
    renders = []
    monkeypatch.setattr(ev, "render", lambda scene, deck, s, tell: (
        renders.append(scene) or np.zeros((4, 4, 3), np.uint8), [{"card": scene, "tell_mm2": 5.0 * tell}]))
    assert ev.photo(tmp_path, "0001-empty", "empty scene", None)[1] == [{"card": "empty scene", "tell_mm2": 5.0}]
    assert ev.photo(tmp_path, "0001", "pile", None)[1][0]["card"] == "pile"     # not the empty one's labels
    assert ev.photo(tmp_path, "0001", "pile again", None)[1][0]["card"] == "pile"   # read back from the cache
    assert renders == ["empty scene", "pile"]


def test_a_cache_from_before_the_readability_labels_gets_them(tmp_path, monkeypatch):
    import json

    import cv2
    import numpy as np

    import models.evaluate as ev
    cv2.imwrite(str(tmp_path / "0002.jpg"), np.full((8, 8, 3), 200, np.uint8))
    (tmp_path / "0002.json").write_text(json.dumps([{"card": "T2", "visible": 1.0}]))
    monkeypatch.setattr(ev, "render", lambda scene, deck, s, tell: (np.zeros((8, 8, 3), np.uint8),
                                                                     [{"card": "T2", "visible": 1.0, "tell_mm2": 7.0}]))
    img, labels = ev.photo(tmp_path, "0002", "pile", None)
    assert img.mean() > 150                                   # the cached photo is kept ...
    assert labels[0]["tell_mm2"] == 7.0                       # ... with labels that now say what shows
    assert json.loads((tmp_path / "0002.json").read_text())[0]["tell_mm2"] == 7.0
