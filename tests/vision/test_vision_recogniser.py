"""Recogniser wiring with fake runners: model-folder checks, decoding of detector output, flags and merging."""
import json
import math

import numpy as np
import pytest

from vision import ImageError, ModelError, Recogniser, Recognition
from vision.recogniser import SAME_CARD_ANGLE, SAME_CARD_SPAN, Settings, sha256_file
from vision.runners.fake import FakeRunner

LABELS = ["T1", "T2", "HK", "none"]
WIDTH = len(LABELS) + 5   # card logits + 5 pips classes
PIPS = {"T1": 4, "T2": 0, "HK": 4}


def _release(tmp_path, width=WIDTH, labels=LABELS):
    (tmp_path / "detector.onnx").write_text(json.dumps({"output_width": 6}))
    (tmp_path / "classifier.onnx").write_text(json.dumps({"output_width": width}))
    (tmp_path / "labels.txt").write_text("\n".join(labels) + "\n")
    sums = {n: sha256_file(tmp_path / n) for n in ("detector.onnx", "classifier.onnx", "labels.txt")}
    manifest = {"detector": "detector.onnx", "classifier": "classifier.onnx", "labels": "labels.txt",
                "pips_classes": 5, "sha256": sums, "deck": [{"id": k, "pips": v} for k, v in PIPS.items()]}
    (tmp_path / "model.json").write_text(json.dumps(manifest))
    return tmp_path


def test_load_checks_files_sha_and_label_width(tmp_path):
    rec = Recogniser.load(_release(tmp_path), runner="fake")
    assert rec.labels == LABELS and rec.deck_pips["HK"] == 4
    (tmp_path / "classifier.onnx").write_text(json.dumps({"output_width": 7}))
    with pytest.raises(ModelError, match="damaged"):
        Recogniser.load(tmp_path, runner="fake")


def test_label_count_must_match_output_width(tmp_path):
    with pytest.raises(ModelError, match=r"4 labels \+ 5 pips classes = 9, but the classifier outputs 11"):
        Recogniser.load(_release(tmp_path, width=11), runner="fake")


def test_missing_model_folder_and_file(tmp_path):
    with pytest.raises(ModelError, match="model.json"):
        Recogniser.load(tmp_path / "nowhere", runner="fake")
    (_release(tmp_path) / "detector.onnx").unlink()
    with pytest.raises(ModelError, match="missing detector"):
        Recogniser.load(tmp_path, runner="fake")


def _detector(peaks):
    """peaks: list of (cx, cy, angle_deg, height) in input px -> a fake detector output map."""
    def run(batch):
        _, _, h, w = batch.shape
        out = np.zeros((1, 6, h // 4, w // 4), np.float32)
        out[0, 0] = -10
        for cx, cy, ang, height in peaks:
            ix, iy = int(cx / 4), int(cy / 4)
            a = math.radians(ang)
            out[0, :, iy, ix] = [10, cx / 4 - ix - 0.5, cy / 4 - iy - 0.5, math.sin(a), -math.cos(a),
                                 math.log(height / 32)]
        return out
    return FakeRunner(run)


def _classifier(reads):
    """reads: list of (label index, pips) returned for the crops in order."""
    def run(batch):
        out = np.full((len(batch), len(LABELS) + 5), -10.0, np.float32)
        for i, (k, p) in enumerate(reads[: len(batch)]):
            out[i, k] = 10
            out[i, len(LABELS) + p] = 10
        return out
    return FakeRunner(run)


def _image(w=400, h=300):
    return np.full((h, w, 3), 128, np.uint8)


def test_one_card_read_with_its_quad():
    rec = Recogniser(_detector([(101, 150, 0, 80)]), _classifier([(0, 4)]), LABELS, PIPS, Settings(det_long=400))
    (r,) = rec.recognise(_image())
    assert isinstance(r, Recognition) and r.card_id == "T1" and r.pips == 4 and not r.flagged
    assert r.confidence > 0.99
    quad = np.array(r.quad)
    np.testing.assert_allclose(quad.mean(0), [101, 150], atol=0.6)
    assert quad[0][1] < quad[3][1]          # top edge above bottom edge for an upright index
    j = r.to_json()
    assert set(j) == {"id", "confidence", "pips", "quad", "flagged"} and len(j["quad"]) == 4


def test_detector_runs_on_a_downscaled_copy_and_maps_back():
    # det_long 200 on a 400 px photo: the detector sees half size; the quad must come back in photo px.
    rec = Recogniser(_detector([(50, 75, 90, 40)]), _classifier([(2, 4)]), LABELS, PIPS, Settings(det_long=200))
    (r,) = rec.recognise(_image())
    np.testing.assert_allclose(np.array(r.quad).mean(0), [100, 150], atol=1.5)
    u = (np.array(r.quad[0]) + r.quad[1]) / 2 - np.array(r.quad).mean(0)
    assert u[0] > 30 and abs(u[1]) < 2      # turned 90 degrees: 'up' points right, half of 80 px


def test_background_dropped_and_pips_mismatch_flagged():
    rec = Recogniser(_detector([(60, 100, 0, 80), (200, 100, 0, 80)]), _classifier([(3, 0), (1, 3)]),
                     LABELS, PIPS, Settings(det_long=400))
    (r,) = rec.recognise(_image())
    assert r.card_id == "T2" and r.pips == 3 and r.flagged and r.confidence <= 0.5


def test_two_indices_of_one_card_merge_but_a_true_duplicate_is_flagged():
    h = 60.0
    d = SAME_CARD_SPAN * h
    # a card lying upside down: its top-left index points down (up = (0, 1)), the turned one lies up and left
    a = math.radians(SAME_CARD_ANGLE)
    other = (200 - d * math.sin(a), 200 + d * math.cos(a))
    rec = Recogniser(_detector([(200, 200, 180, h), (*other, 0, h)]), _classifier([(2, 4), (2, 4)]),
                     LABELS, PIPS, Settings(det_long=400))
    assert [r.card_id for r in rec.recognise(_image())] == ["HK"]
    # the same span at another angle is the index of a neighbouring card: two reads of one card, flagged
    wrong = (200 - d * math.sin(a - 0.6), 200 + d * math.cos(a - 0.6))
    rec = Recogniser(_detector([(200, 200, 180, h), (*wrong, 0, h)]), _classifier([(2, 4), (2, 4)]),
                     LABELS, PIPS, Settings(det_long=400))
    assert [r.card_id for r in rec.recognise(_image())] == ["HK", "HK"]
    rec = Recogniser(_detector([(60, 100, 0, h), (300, 100, 0, h)]), _classifier([(2, 4), (2, 4)]),
                     LABELS, PIPS, Settings(det_long=400))
    reads = rec.recognise(_image())
    assert [r.card_id for r in reads] == ["HK", "HK"] and all(r.flagged for r in reads)


def test_bad_array_is_an_image_error():
    rec = Recogniser(_detector([]), _classifier([]), LABELS, PIPS)
    with pytest.raises(ImageError, match="alpha"):
        rec.recognise(np.zeros((100, 100, 4), np.uint8))
    assert rec.recognise(_image()) == []


# Fakes that read the photo itself: a marker square is an index (its size sets the index height), and the
# marker's green level picks the classifier's logits, so every crop of one marker reads the same.

def _marker_detector(calls):
    def run(batch):
        calls.append(batch.shape)
        _, _, h, w = batch.shape
        out = np.zeros((1, 6, h // 4, w // 4), np.float32)
        out[0, 0] = -10
        mask = (batch[0, 2] > 200).astype(np.uint8)
        n, _, stats, cents = __import__("cv2").connectedComponentsWithStats(mask)
        for k in range(1, n):
            cx, cy = cents[k]
            ix, iy = int(cx / 4), int(cy / 4)
            out[0, :, iy, ix] = [10, cx / 4 - ix - 0.5, cy / 4 - iy - 0.5, 0, -1, math.log(2 * stats[k, 2] / 32)]
        return out
    return FakeRunner(run)


def _marker_classifier(logits_by_green):
    def run(batch):
        green = batch[:, 1, batch.shape[2] // 2, batch.shape[3] // 2]
        return np.stack([np.array(logits_by_green[round(g / 50)], np.float32) for g in green])
    return FakeRunner(run)


def _marked_photo(w, h, markers, side):
    img = np.full((h, w, 3), 60, np.uint8)
    for x, y, green in markers:
        img[y - side // 2:y + side // 2, x - side // 2:x + side // 2] = (0, green, 255)
    return img


def _logits(card: int, pips: int, second: tuple[int, float] | None = None, first: float = 10.0):
    out = [-10.0] * (len(LABELS) + 5)
    out[card], out[len(LABELS) + pips] = first, 10.0
    if second:
        out[second[0]] = second[1]
    return out


def test_small_indices_in_a_big_photo_are_looked_at_again_closer():
    calls = []
    photo = _marked_photo(4000, 3000, [(1500, 1200, 50), (1600, 1250, 100)], side=24)
    rec = Recogniser(_marker_detector(calls), _marker_classifier({1: _logits(0, 4), 2: _logits(2, 4)}),
                     LABELS, PIPS, Settings())
    reads = rec.recognise(photo)
    assert [r.card_id for r in reads] == ["T1", "HK"] and not any(r.flagged for r in reads)
    assert len(calls) == 2                                  # a second look ...
    assert calls[1][2] * calls[1][3] < 0.2 * calls[0][2] * calls[0][3] * (4000 / 1280) ** 2   # ... at the piles only
    np.testing.assert_allclose(np.array(reads[0].quad).mean(0), [1500, 1200], atol=2)
    assert 40 < np.hypot(*np.subtract(reads[0].quad[0], reads[0].quad[3])) < 56   # index height from the close look
    rec.settings = Settings(small_index_px=0)
    calls.clear()
    rec.recognise(photo)
    assert len(calls) == 1


def _weak_edge_detector(calls, edge_heat_logit=-0.8, edge_height=60):
    """The marker detector, and a peak (weak by default: heat 0.31) wherever the photo is pure blue: its edges' glare."""
    strong = _marker_detector(calls)

    def run(batch):
        out = strong.fn(batch)
        mask = ((batch[0, 0] > 200) & (batch[0, 2] < 50)).astype(np.uint8)
        n, _, _, cents = __import__("cv2").connectedComponentsWithStats(mask)
        for k in range(1, n):
            cx, cy = cents[k]
            ix, iy = int(cx / 4), int(cy / 4)
            out[0, :, iy, ix] = [edge_heat_logit, cx / 4 - ix - 0.5, cy / 4 - iy - 0.5, 0, -1,
                                 math.log(edge_height / 32)]
        return out
    return FakeRunner(run)


def test_weak_peaks_far_from_the_cards_do_not_keep_the_closer_look_away():
    # session 53: weak detector peaks along the photo's edges stretched the closer look's region over the whole
    # photo, so it came no closer and a tight pile's small indices stayed merged on the shrunk photo
    calls = []
    photo = _marked_photo(4000, 3000, [(1500, 1200, 50), (1600, 1250, 100)], side=24)
    for y in (100, 1500, 2900):
        photo[y - 15:y + 15, 0:30] = (255, 0, 0)
        photo[y - 15:y + 15, 3970:4000] = (255, 0, 0)
    rec = Recogniser(_weak_edge_detector(calls),
                     _marker_classifier({0: _logits(3, 0), 1: _logits(0, 4), 2: _logits(2, 4)}),
                     LABELS, PIPS, Settings(heat_threshold=0.15))
    reads = rec.recognise(photo)
    assert [r.card_id for r in reads] == ["T1", "HK"]
    assert len(calls) == 2                                  # the closer look was taken ...
    assert calls[1][2] * calls[1][3] < 0.2 * calls[0][2] * calls[0][3] * (4000 / 1280) ** 2   # ... at the pile
    assert 40 < np.hypot(*np.subtract(reads[0].quad[0], reads[0].quad[3])) < 56


def test_strong_peaks_that_read_as_no_card_do_not_keep_the_closer_look_away():
    # session 53: a patterned cloth peaks strongly all over the photo; where the region around the strong peaks is
    # too wide for the closer look's pixels, the strong peaks that read as a card set it (and the index height)
    calls = []
    photo = _marked_photo(4000, 3000, [(1500, 1200, 50), (1600, 1250, 100)], side=24)
    for x, y in ((15, 100), (15, 2900), (3985, 100), (3985, 2900), (2000, 2900), (2000, 100)):
        photo[y - 15:y + 15, x - 15:x + 15] = (255, 0, 0)
    classifier = _marker_classifier({0: _logits(3, 0), 1: _logits(0, 4), 2: _logits(2, 4)})
    rec = Recogniser(_weak_edge_detector(calls, edge_heat_logit=3.0, edge_height=15), classifier, LABELS, PIPS,
                     Settings())
    reads = rec.recognise(photo)
    assert [r.card_id for r in reads] == ["T1", "HK"]
    assert len(calls) == 2 and calls[1][2] * calls[1][3] < 0.2 * calls[0][2] * calls[0][3] * (4000 / 1280) ** 2
    calls.clear()
    rec.settings = Settings(zoom_cards=False)
    rec.recognise(photo)
    assert len(calls) == 1                                  # the cloth's peaks kept it away


def test_a_card_read_twice_gives_the_weaker_read_its_next_likeliest_free_card():
    photo = _marked_photo(400, 300, [(100, 150, 50), (250, 150, 100)], side=20)
    logits = {1: _logits(2, 4), 2: _logits(2, 0, second=(1, 9.8), first=10.0)}   # both look like HK, the second maybe T2
    rec = Recogniser(_marker_detector([]), _marker_classifier(logits), LABELS, PIPS, Settings(det_long=400))
    reads = rec.recognise(photo)
    assert [(r.card_id, r.flagged) for r in reads] == [("HK", False), ("T2", True)]
    logits[2] = _logits(2, 4)                                 # no likely alternative: a flagged duplicate
    reads = rec.recognise(photo)
    assert [(r.card_id, r.flagged) for r in reads] == [("HK", True), ("HK", True)]


def test_freed_memory_is_handed_back_after_growth(monkeypatch):
    import vision.recogniser as rec_module

    calls, resident = [], [100.0]
    monkeypatch.setattr(rec_module, "_MALLOC_TRIM", lambda pad: (calls.append(pad), resident.append(resident[-1] - 30)))
    monkeypatch.setattr(rec_module, "_resident_mb", lambda: resident[-1])
    trim = rec_module._HeapTrim()
    trim(24)                                  # first photo: grown from nothing
    assert calls == [0] and trim.trimmed_at == 70.0
    resident.append(90.0)                     # grew 20 MB since: not yet
    trim(24)
    assert calls == [0]
    resident.append(95.0)                     # 25 MB: trim again
    trim(24)
    assert calls == [0, 0] and trim.trimmed_at == 65.0
