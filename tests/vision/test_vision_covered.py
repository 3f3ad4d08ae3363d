"""The covered-card model: a card lying under a read card, its index showing too little to be read, counts in
its pile, so the lost card it is lands there without a question."""
from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

import scoring
from vision.decoder import _Decoder
from vision.geometry import BESIDE_ALONG, BESIDE_H, BESIDE_PX, BESIDE_W, crop_beside
from vision.hand import HandReader, HandSettings, PileRead, Sighting

SLOVENIAN = scoring.find_game("slovenian")
ST = HandSettings()


def seen(card: str, x: float = 0.0, covered: float = 0.0) -> Sighting:
    return Sighting((x, 100.0), (0.0, -1.0), 80.0, ((card, 0.995), ("none", 0.005)), scoring.card(card).pips, 0.9,
                    covered=covered)


def split(k: int, seed: int) -> tuple[list[str], list[str]]:
    ids = [c.id for c in SLOVENIAN.deck]
    order = [ids[i] for i in np.random.default_rng(seed).permutation(len(ids))]
    return order[:k], order[k:]


def pile(cards: list[str], covered: dict[int, float] | None = None) -> PileRead:
    return PileRead((2028, 1520), [seen(c, 60.0 * k, (covered or {}).get(k, 0.01)) for k, c in enumerate(cards)])


def test_the_crop_beside_an_index_is_upright_and_to_scale():
    img = np.zeros((600, 800, 3), np.uint8)
    # an index at (400, 300) turned a quarter (its up points right): a mark 0.3 index heights up its numeral
    h, up = 100.0, np.array([1.0, 0.0])
    img[296:305, 426:435] = 255
    crop = crop_beside(img, [[400.0, 300.0]], [up], [h])
    assert crop.shape == (1, BESIDE_H, BESIDE_W, 3)
    ys, xs = np.nonzero(crop[0, :, :, 0] > 128)
    # upright: the mark is above the index's centre, on its centre line
    assert xs.mean() == pytest.approx(BESIDE_W / 2, abs=1.5)
    assert ys.mean() == pytest.approx((BESIDE_ALONG[1] - 0.3) * BESIDE_PX, abs=1.5)


def test_reads_sure_of_a_covered_card_beside_them_count_as_hidden_cards():
    reads = [seen("T21", 0.0, 0.995), seen("T20", 60.0, 0.5), seen("T19", 120.0, 0.2)]
    hidden = PileRead((2028, 1520), reads).hidden(ST)
    assert [(round(x), round(y)) for x, y, _ in hidden] == [(0, 100)]
    assert PileRead((2028, 1520), reads).hidden(HandSettings(cover_card=0.4)) != hidden
    assert PileRead((2028, 1520), []).hidden(ST) == []


def test_the_covered_chance_round_trips_through_json_and_older_reads_have_none():
    p = pile(["T21", "T20"], {1: 0.99})
    back = PileRead.from_json(json.loads(json.dumps(p.to_json())))
    assert [s.covered for s in back.sightings] == [0.01, 0.99] and len(back.hidden(ST)) == 1
    old = {"size": [10, 10], "sightings": [{"centre": [1, 2], "up": [0, -1], "height": 40, "likely": [["T1", 1.0]],
                                            "pips": 4, "heat": 0.9}]}
    assert PileRead.from_json(old).sightings[0].covered == 0.0


@pytest.mark.parametrize("seed", range(3))
def test_a_covered_card_places_the_lost_card_in_its_pile(seed):
    """A covered card counted where one card is lost places it; a pile's one cover alone is not trusted to
    settle the hand (`lone_cover`), two are."""
    dec, dfn = split(26, seed)
    dfn, dec = [c for c in dfn if c != "T1"], [c for c in dec if c != "T1"]
    plain = _Decoder(SLOVENIAN, {"declarer": pile(dec), "defenders": pile(dfn)}, None, (), ST).run()
    assert [q.card for q in plain.questions] == ["T1"]
    trusting = replace(ST, lone_cover=False)
    hand = _Decoder(SLOVENIAN, {"declarer": pile(dec, {3: 0.99}), "defenders": pile(dfn)}, None, (), trusting).run()
    assert hand.questions == [] and "T1" in hand.sides["declarer"].ids()
    other = _Decoder(SLOVENIAN, {"declarer": pile(dec), "defenders": pile(dfn, {5: 0.99})}, None, (), trusting).run()
    assert other.questions == [] and "T1" in other.sides["defenders"].ids()
    lone = _Decoder(SLOVENIAN, {"declarer": pile(dec, {3: 0.99}), "defenders": pile(dfn)}, None, (), ST).run()
    assert [q.card for q in lone.questions] == ["T1"]
    two = _Decoder(SLOVENIAN, {"declarer": pile(dec, {3: 0.99, 9: 0.99}), "defenders": pile(dfn)}, None, (), ST).run()
    assert two.questions == [] and "T1" in two.sides["declarer"].ids()
    # not sure enough: still asked
    unsure = _Decoder(SLOVENIAN, {"declarer": pile(dec, {3: ST.cover_card - 0.05}), "defenders": pile(dfn)}, None,
                      (), trusting).run()
    assert [q.card for q in unsure.questions] == ["T1"]


@pytest.mark.parametrize("seed", range(3))
def test_a_pile_counting_more_covered_cards_than_are_lost_holds_them_all(seed):
    """Three covering reads in the Declarer's pile, two cards lost (a covered card counted by two reads, or one
    whose read stands elsewhere): both lost cards lie with the Declarer. Without the cap the count is not
    trusted and the piles are asked."""
    import dataclasses

    dec, dfn = split(26, seed)
    lost = ("T1", "T21")
    dfn, dec = [c for c in dfn if c not in lost], [c for c in dec if c not in lost]
    piles = {"declarer": pile(dec, {3: 0.99, 4: 0.95, 9: 0.99}), "defenders": pile(dfn)}
    hand = _Decoder(SLOVENIAN, piles, None, (), ST).run()
    assert hand.settled and {"T1", "T21"} <= set(hand.sides["declarer"].ids())
    uncapped = _Decoder(SLOVENIAN, piles, None, (), dataclasses.replace(ST, count_cap=False)).run()
    assert {q.card for q in uncapped.questions if q.kind == "which_pile"} == {"T1", "T21"}
    # counts in both piles that together want more cards than are lost: not trusted
    both = _Decoder(SLOVENIAN, {"declarer": pile(dec, {3: 0.99, 9: 0.99}), "defenders": pile(dfn, {2: 0.99})},
                    None, (), ST).run()
    assert {q.card for q in both.questions if q.kind == "which_pile"} == {"T1", "T21"}


def test_covered_cards_in_both_piles_for_one_lost_card_are_not_trusted():
    dec, dfn = split(26, 4)
    dfn, dec = [c for c in dfn if c != "T1"], [c for c in dec if c != "T1"]
    hand = _Decoder(SLOVENIAN, {"declarer": pile(dec, {2: 0.99}), "defenders": pile(dfn, {2: 0.99})}, None, (),
                    ST).run()
    assert [q.card for q in hand.questions] == ["T1"]


def _recogniser(cover):
    from vision.recogniser import Recogniser, Settings
    from vision.runners.fake import FakeRunner

    def detector(batch):
        _, _, h, w = batch.shape
        out = np.zeros((1, 6, h // 4, w // 4), np.float32)
        out[0, 0] = -10.0
        for x in (40, 70):
            out[0, 0, 50, x] = 10.0
            out[0, 3:5, 50, x] = (0.0, -1.0)
            out[0, 5, 50, x] = math.log(40 / 32)
        return out

    def classifier(batch):
        out = np.full((len(batch), 10), -10.0, np.float32)
        out[:, 0] = 10.0      # T1 (and pips 0 below)
        out[:, 5] = 10.0
        return out

    return Recogniser(FakeRunner(detector), FakeRunner(classifier), ["T1", "T2", "T3", "HK", "none"],
                      {"T1": 0, "T2": 0, "T3": 0, "HK": 0}, Settings(second_looks=0), cover=cover)


def test_the_hand_reader_asks_the_release_s_covered_card_model_about_every_read():
    from vision.runners.fake import FakeRunner

    seen_shapes = []

    def cover(batch):
        seen_shapes.append(batch.shape)
        return np.array([[4.0]] * len(batch), np.float32)     # sigmoid(4) = 0.982

    rec = _recogniser(FakeRunner(cover))
    image = np.zeros((400, 600, 3), np.uint8)
    p = rec.covered(image, np.array([[100.0, 100.0]]), np.array([[0.0, -1.0]]), np.array([40.0]))
    assert p.tolist() == pytest.approx([1 / (1 + math.exp(-4))])
    assert seen_shapes[-1] == (1, 3, BESIDE_H, BESIDE_W)
    pile_read = HandReader(rec).read_pile(image, SLOVENIAN)
    assert pile_read.sightings and all(s.covered == pytest.approx(0.982, abs=1e-3) for s in pile_read.sightings)
    # a release without the model: no chance given, nothing counted
    plain = HandReader(_recogniser(None)).read_pile(image, SLOVENIAN)
    assert _recogniser(None).covered(image, [[1.0, 1.0]], [[0.0, -1.0]], [40.0]) is None
    assert all(s.covered == 0.0 for s in plain.sightings) and plain.hidden(ST) == []


def test_training_crops_mark_the_read_a_covered_card_peeks_out_beside():
    from models.covered import covered_by, photo_crops

    def lab(card, x, visible, seen=None):
        return {"card": card, "center": [x, 100.0], "up": [0.0, -1.0], "height": 80.0, "visible": visible,
                "seen_center": [seen if seen is not None else x, 100.0]}

    labels = [lab("T21", 100, 1.0), lab("T20", 150, 0.9), lab("T19", 200, 0.7),
              lab("T18", 160, 0.2, seen=168),          # covered beside the T20 (nearest to what shows)
              lab("T17", 400, 0.01),                   # nothing shows: not a target
              lab("T16", 900, 0.25)]                   # too far from every read
    reads, count = covered_by(labels)
    assert [r["card"] for r in reads] == ["T21", "T20", "T19"] and count == [0, 1, 0]
    xs, ys = photo_crops(np.random.default_rng(0), np.zeros((300, 1000, 3), np.uint8), labels)
    assert sum(ys) == 3 and all(x.shape == (BESIDE_H, BESIDE_W, 3) for x in xs)


def test_the_measure_compares_counted_covered_cards_with_each_pile_s_lost_cards(tmp_path):
    from models.covered import measure

    truth = {"piles": {"declarer": ["T21", "T20", "T19"], "defenders": ["T18", "T17"]}}
    (tmp_path / "0000.json").write_text(json.dumps(truth))
    dec = PileRead((100, 100), [seen("T21", 0, 0.995), seen("T20", 60, 0.3)])            # T19 lost, counted
    dfn = PileRead((100, 100), [seen("T18", 0, 0.98), seen("T17", 60, 0.96)])            # none lost, one counted
    for side, p in (("declarer", dec), ("defenders", dfn)):
        (tmp_path / f"0000-{side}.R.pile.json").write_text(json.dumps(p.to_json()))
    out = measure(tmp_path, "R", 1)
    assert out["piles"] == 2 and out["piles_with_lost_cards"] == 1
    assert out["0.97"] == {"more_than_lost": 1, "counted": 1, "lost": 1, "piles_counted_right": 1}
    assert out["0.99"] == {"more_than_lost": 0, "counted": 1, "lost": 1, "piles_counted_right": 1}
    assert out["0.5"]["more_than_lost"] == 1 and out["0.5"]["counted"] == 1


def test_the_covered_card_model_can_be_left_unrun():
    from vision.runners.fake import FakeRunner

    calls = []
    rec = _recogniser(FakeRunner(lambda b: calls.append(len(b)) or np.full((len(b), 1), 4.0, np.float32)))
    off = HandSettings(cover_card=None)
    pile_read = HandReader(rec, off).read_pile(np.zeros((400, 600, 3), np.uint8), SLOVENIAN)
    assert calls == [] and all(s.covered == 0.0 for s in pile_read.sightings)
    assert PileRead((10, 10), [seen("T1", 0, 0.999)]).hidden(off) == []


def test_the_bundled_release_has_the_covered_card_model_and_a_damaged_one_is_refused(tmp_path):
    import shutil

    from vision.errors import ModelError
    from vision.recogniser import Recogniser, latest_release

    rec = Recogniser.load()
    assert rec.cover is not None and not rec.cover_slots
    folder = tmp_path / "release"
    shutil.copytree(latest_release(), folder)
    # a release of the slot kind says so in its manifest
    manifest = json.loads((folder / "model.json").read_text())
    (folder / "model.json").write_text(json.dumps({**manifest, "covered_slots": True}))
    assert Recogniser.load(folder).cover_slots
    data = bytearray((folder / "covered.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (folder / "covered.onnx").write_bytes(bytes(data))
    with pytest.raises(ModelError, match="covered.onnx: damaged"):
        Recogniser.load(folder)
    (folder / "covered.onnx").unlink()
    with pytest.raises(ModelError, match="missing covered file"):
        Recogniser.load(folder)


def test_once_the_players_answer_the_covered_count_settles_nothing_they_have_not_confirmed():
    """A covered-card count one too many, together with the players' true answers, can leave one wrong placement
    alone (an independent hand: two sure neighbours in a pile whose reads were all its cards). Once anything is
    answered the count still orders the questions (each is weighed as its answer will be read), but a hand it
    alone settles is read again without it, and that reading's question is put: the answer confirms the count or
    overrules it."""
    from vision.hand import Answer

    dec, dfn = split(26, 1)
    dfn, dec = [c for c in dfn if c not in ("T1", "T2")], [c for c in dec if c not in ("T1", "T2")]
    piles = {"declarer": pile(dec, {3: 0.99}), "defenders": pile(dfn)}
    fresh = _Decoder(SLOVENIAN, piles, None, (), ST)
    assert fresh.least == {"declarer": 1, "defenders": 0}
    t2 = Answer("which_pile", "defenders", "T2")
    told = _Decoder(SLOVENIAN, piles, None, [t2], ST)
    assert told.least == {"declarer": 1, "defenders": 0}
    # the count alone would put T1 with the Declarer: the players are asked instead
    hand = told.run()
    assert len(hand.outcomes) == 1
    assert [q.card for q in hand.questions if q.kind == "which_pile"] == ["T1"]
    # either answer settles it, where the players put it (an overruled count is not trusted)
    for side in ("declarer", "defenders"):
        end = _Decoder(SLOVENIAN, piles, None, [t2, Answer("which_pile", side, "T1")], ST).run()
        assert end.settled
        assert "T1" in end.sides[side].ids() and "T2" in end.sides["defenders"].ids()
    # a copy told the answer (the checker's) weighs it as the hand read with it will: by the count
    copy_told = fresh._told(t2, fresh._check_budget()).run()
    assert copy_told.outcomes == hand.outcomes


def test_the_release_s_covered_model_fine_tunes_on_a_deck_s_crops(tmp_path):
    """The committed checkpoint holds weights only (no optimiser state, its 30 minutes spent): a deck's fine-tune
    starts a new schedule from those weights rather than failing or finding its time already spent; once it has
    saved, a rerun after a stop goes on with the fine-tune's own schedule."""
    torch = pytest.importorskip("torch", reason="training needs torch (the train extra)")
    from models.covered import train
    from models.nets import CoverNet

    rng = np.random.default_rng(3)
    np.savez(tmp_path / "cover-1-0-4-tight.npz", x=rng.integers(0, 255, (40, BESIDE_H, BESIDE_W, 3), np.uint8),
             y=(np.arange(40) % 4 == 0).astype(np.float32))
    net = CoverNet(((8, 2), (12, 2), (16, 2)))
    torch.save({"model": net.state_dict(), "step": 8785, "minutes": 30.0, "layers": net.layers},
               tmp_path / "cover.pt")
    before = {k: v.clone() for k, v in net.state_dict().items()}
    train(tmp_path, minutes=0.01, threads=1, lr=5e-4)
    state = torch.load(tmp_path / "cover.pt", weights_only=False)
    assert "opt" in state and 0 < state["step"] < 8785 and state["minutes"] < 1
    assert any(not torch.equal(before[k], v) for k, v in state["model"].items())
    resumed = state["step"]
    # resumes: the step count goes on from the saved one (its minutes spent count against the new budget)
    train(tmp_path, minutes=state["minutes"] + 0.02, threads=1, lr=5e-4)
    assert torch.load(tmp_path / "cover.pt", weights_only=False)["step"] > resumed


def fan(cards: list[str], covered: dict[int, float] | None = None, degrees: float = 80.0) -> PileRead:
    """A fan: the cards' indices on an arc about a pivot, turned from -degrees/2 to +degrees/2."""
    reads = []
    for k, c in enumerate(cards):
        a = math.radians(-degrees / 2 + degrees * k / max(len(cards) - 1, 1))
        up = (math.sin(a), -math.cos(a))
        reads.append(Sighting((1000 + 600 * up[0], 1200 + 600 * up[1]), up, 80.0, ((c, 0.995), ("none", 0.005)),
                              scoring.card(c).pips, 0.9, covered=(covered or {}).get(k, 0.01)))
    return PileRead((2028, 1520), reads)


@pytest.mark.parametrize("seed", range(3))
def test_a_fan_s_covers_do_not_place_a_lost_card(seed):
    """Two fresh independent hands (seed 97000, hands 23 and 68): the Declarer's pile a fan with every card read,
    and reads sure that a covered card lies beside them (the fan's stacked edges); the Defenders' lost card hidden
    whole. The covered count put it with the Declarer: settled, wrong. A fan's covers held a lost card only half
    the time: they no longer count, and the lost card's pile is asked."""
    import dataclasses

    dec, dfn = split(26, seed)
    dfn, dec = [c for c in dfn if c != "HQ"], [c for c in dec if c != "HQ"]
    fanned = {"declarer": fan(dec, {3: 1.0, 9: 0.95}), "defenders": pile(dfn)}
    assert fanned["declarer"].fanned(ST) and not fanned["defenders"].fanned(ST)
    assert fanned["declarer"].hidden(ST) == [] and _Decoder(SLOVENIAN, fanned, None, (), ST).least["declarer"] == 0
    hand = _Decoder(SLOVENIAN, fanned, None, (), ST).run()
    assert [q.card for q in hand.questions if q.kind == "which_pile"] == ["HQ"]
    old = _Decoder(SLOVENIAN, fanned, None, (), dataclasses.replace(ST, fan_covers=True)).run()
    assert old.settled and "HQ" in old.sides["declarer"].ids()
    # a spread whose top cards also show their other corner, turned half round, is no fan
    reads = list(pile(dec).sightings)
    reads[-4:] = [dataclasses.replace(s, up=(0.0, 1.0)) for s in reads[-4:]]
    assert not PileRead((2028, 1520), reads).fanned(ST)
    # a narrow fan (under `fan_degrees` each way) is a spread: its covers count
    narrow = {"declarer": fan(dec, {3: 1.0, 9: 0.95}, degrees=20.0), "defenders": pile(dfn)}
    assert not narrow["declarer"].fanned(ST) and len(narrow["declarer"].hidden(ST)) == 2


def test_a_pile_counting_far_more_covered_cards_than_are_lost_is_not_trusted():
    """A fresh independent hand (seed 98000, hand 5): four reads under glare in the Defenders' pile, every card of
    which was read, sure of covered cards beside them, while one card was lost, hidden in the Declarer's pile:
    the count put it with the Defenders, settled wrong. Covers past twice the lost cards and one show the model
    firing at something else: that pile's count is dropped and the lost card's pile asked."""
    import dataclasses

    dec, dfn = split(26, 2)
    dfn, dec = [c for c in dfn if c != "HQ"], [c for c in dec if c != "HQ"]
    piles = {"declarer": pile(dec), "defenders": pile(dfn, {3: 0.997, 5: 1.0, 7: 0.981, 8: 0.999})}
    hand = _Decoder(SLOVENIAN, piles, None, (), ST).run()
    assert [q.card for q in hand.questions if q.kind == "which_pile"] == ["HQ"]
    old = _Decoder(SLOVENIAN, piles, None, (), dataclasses.replace(ST, cover_over=None)).run()
    assert old.settled and "HQ" in old.sides["defenders"].ids()
    # three covers for one lost card (a covered card beside two reads, and one more) still place it
    three = {"declarer": pile(dec), "defenders": pile(dfn, {3: 0.997, 5: 1.0, 7: 0.981})}
    hand = _Decoder(SLOVENIAN, three, None, (), ST).run()
    assert hand.settled and "HQ" in hand.sides["defenders"].ids()


def test_a_spread_s_slots_lie_before_between_and_after_its_reads_in_order():
    from vision.geometry import SLOT_END, spread_slots, turning

    # three indices along a slanted line, given out of order; the middle one turned half round
    c = np.array([[300.0, 160.0], [100.0, 100.0], [200.0, 130.0]])
    u = np.array([[0.0, -1.0], [0.0, -1.0], [0.0, 1.0]])
    order, centres, ups, heights = spread_slots(c, u, [80.0, 60.0, 70.0])
    assert sorted(order.tolist()) == [0, 1, 2] and (order.tolist() in ([1, 2, 0], [0, 2, 1]))
    ordered = c[order]
    assert len(centres) == len(ups) == len(heights) == 4
    assert centres[1:3] == pytest.approx((ordered[:-1] + ordered[1:]) / 2)
    h = np.array([80.0, 60.0, 70.0])[order]
    assert heights.tolist() == pytest.approx([h[0], (h[0] + h[1]) / 2, (h[1] + h[2]) / 2, h[2]])
    # the ends lie beyond the end reads, along the way, SLOT_END of their heights out
    way = (ordered[-1] - ordered[0]) / np.linalg.norm(ordered[-1] - ordered[0])
    assert (centres[0] - ordered[0]) @ way == pytest.approx(-SLOT_END * heights[0], rel=0.05)
    assert (centres[-1] - ordered[-1]) @ way == pytest.approx(SLOT_END * heights[-1], rel=0.05)
    # a slot between a card and one turned half round takes the first's way, not the cancelled mean
    assert np.hypot(*ups.T) == pytest.approx(np.ones(4)) and abs(ups[1] @ [0.0, 1.0]) == pytest.approx(1.0)
    assert turning(u) == pytest.approx(0.0) and turning([[0, -1], [1, 0], [0.7, -0.7]]) > 20


def _lab(card, x, visible, seen=None, y=100.0, up=(0.0, -1.0)):
    return {"card": card, "center": [x, y], "up": list(up), "height": 80.0, "visible": visible,
            "seen_center": [seen if seen is not None else x, y]}


def test_each_lost_card_is_a_target_in_one_slot_the_one_beside_its_nearest_read_where_it_shows():
    from models.covered import slot_crops, slot_targets

    labels = [_lab("T21", 100, 1.0), _lab("T20", 160, 0.9), _lab("T19", 220, 0.8), _lab("T18", 280, 0.95),
              _lab("T17", 172, 0.2, seen=150),       # shows left of the T20, between it and the T21
              _lab("T16", 60, 0.1, seen=70),         # shows before the first read
              _lab("T15", 400, 0.01),                # nothing shows: not a target
              _lab("T14", 900, 0.25)]                # too far from every read
    sc, _ups, _heights, count, steps = slot_targets(np.random.default_rng(0), labels)
    by_x = count if sc[0, 0] < sc[-1, 0] else count[::-1]      # the way runs either way along the line
    assert by_x.tolist() == [1, 1, 0, 0, 0]
    assert steps.tolist() == pytest.approx([0.75] * 3, abs=0.1)
    crops, ys = slot_crops(np.random.default_rng(0), np.zeros((300, 1000, 3), np.uint8), labels)
    assert sum(ys) == 4 and all(x.shape == (BESIDE_H, BESIDE_W, 3) for x in crops)
    # a fan (indices turned far from each other), and a pile of one read, give no slots
    fan_labels = [_lab(f"T{k}", 100 + 60 * k, 1.0, up=(math.sin(a), -math.cos(a)))
                  for k, a in enumerate(np.radians([-40, -20, 0, 20, 40]), 1)]
    assert slot_targets(np.random.default_rng(0), fan_labels) is None
    assert slot_targets(np.random.default_rng(0), labels[:1]) is None


def test_the_slot_kind_counts_each_slot_once_on_the_read_after_it():
    """A release of the slot kind: the chance for each slot of a spread goes to the read after it (the last read
    takes the surer of the last two), so that a card hidden between two reads counts once; a fan asks nothing."""
    calls = []

    class Rec:
        cover_slots = True

        def covered(self, image, centres, ups, heights):
            calls.append(np.asarray(centres))
            return np.array([0.1, 0.95, 0.2, 0.3, 0.97])[: len(centres)]

    reader = HandReader.__new__(HandReader)
    reader.rec, reader.settings = Rec(), ST
    # four reads, given out of order; a doubt of "none" between them is no card and takes no slot
    reads = [seen("T19", 240.0), seen("T21", 0.0), seen("T18", 360.0), seen("T20", 120.0),
             Sighting((60.0, 100.0), (0.0, -1.0), 80.0, (("none", 0.9), ("T1", 0.1)), 0, 0.5)]
    out = reader._covered(np.zeros((400, 600, 3), np.uint8), reads)
    assert len(calls[0]) == 5
    along = sorted(range(4), key=lambda i: reads[i].centre[0])
    if calls[0][0][0] > calls[0][-1][0]:          # the way ran right to left
        along = along[::-1]
    got = {reads[i].likely[0][0]: out[i].covered for i in along}
    first, second, third, last = (reads[i].likely[0][0] for i in along)
    assert got == {first: 0.1, second: 0.95, third: 0.2, last: 0.97} and out[4].covered == 0.0
    assert len(PileRead((2028, 1520), out).covers(ST)) == 2
    # a fan: nothing asked
    calls.clear()
    fanned = fan(["T21", "T20", "T19", "T18"]).sightings
    assert reader._covered(np.zeros((400, 600, 3), np.uint8), fanned) == fanned and calls == []


def test_a_slot_between_reads_apart_along_their_up_counts_nothing_and_is_not_cropped():
    """A spread running down the cards (each index below the last, `HandSettings.slot_along`): the slots between
    its reads frame no index well and held most of the false covers; only its ends are looked at."""
    calls = []

    class Rec:
        cover_slots = True

        def covered(self, image, centres, ups, heights):
            calls.append(len(centres))
            return np.full(len(centres), 0.99)

    reader = HandReader.__new__(HandReader)
    reader.rec, reader.settings = Rec(), ST
    down = [Sighting((100.0, 100.0 + 90.0 * k), (0.0, -1.0), 80.0, ((c, 0.995), ("none", 0.005)), 0, 0.9)
            for k, c in enumerate(["T2", "T3", "T4", "T5"])]
    out = reader._covered(np.zeros((600, 400, 3), np.uint8), down)
    assert calls == [2] and sum(s.covered >= 0.9 for s in out) == 2      # the two ends only
    calls.clear()
    reader.settings = HandSettings(slot_along=None)
    out = reader._covered(np.zeros((600, 400, 3), np.uint8), down)
    assert calls == [5] and sum(s.covered >= 0.9 for s in out) == 4


def test_crops_around_the_reader_s_own_reads_mark_every_card_no_read_shows():
    """`models.covered make --reads`: the anchors are the reads the reader made, the targets the cards whose index
    no read lies on, hidden or missed by the detector alike (what the decoder counts as lost)."""
    from models.covered import read_crops, read_targets

    def lab(card, x, visible, seen=None):
        q = [[x - 20, 60], [x + 20, 60], [x + 20, 140], [x - 20, 140]]
        return {**_lab(card, x, visible, seen), "quad": q}

    labels = [lab("T21", 100, 1.0), lab("T20", 160, 0.9),
              lab("T19", 235, 0.6),                     # showing, but the detector missed it
              lab("T18", 280, 0.95),
              lab("T17", 185, 0.2, seen=186),           # hidden, nearest the T20's read
              lab("T16", 400, 0.01),                    # nothing shows: not a target
              lab("T15", 900, 0.25)]                    # too far from every read
    reads = [seen("T21", 100), replace(seen("T5", 160), centre=(160.0, 100.0)),     # the T20 misread: shown
             seen("T18", 280)]
    got = PileRead((1000, 300), reads)
    assert read_targets(got, labels, ST) == [0, 1, 1]
    crops, ys = read_crops(np.random.default_rng(0), np.zeros((300, 1000, 3), np.uint8), got, labels, ST)
    assert sum(ys) == 6 and all(x.shape == (BESIDE_H, BESIDE_W, 3) for x in crops)
    # a fan is not a pile the reader counts covered cards in
    assert read_targets(fan(["T1", "T2", "T3", "T4", "T5"]), labels, ST) is None


def test_crops_around_the_reader_s_reads_are_made_from_a_rendered_hand(tmp_path):
    from models.covered import make

    out = make(tmp_path, hands=1, seed=145999, tight=True, reads="")
    got = np.load(out)
    assert out.name == "cover-145999-0-1-tight-reads.npz" and not bool(got["slots"])
    assert len(got["y"]) > 0 and got["x"].shape[1:] == (BESIDE_H, BESIDE_W, 3) and set(got["y"]) <= {0, 1}
    with pytest.raises(SystemExit, match="one kind"):
        make(tmp_path, hands=1, seed=145999, tight=True, slots=True, reads="")


def test_recount_gives_cached_reads_another_model_s_covered_chances_and_with_agree_the_lesser(tmp_path):
    """`models.covered recount`: the same reads of a hand benchmark's cache with another release's covered-card
    chances, under that release's name (so `models.handbench --reuse-reads --model` decodes them); with
    `--agree` each read gets the lesser of two models' chances. The cache's photos and truths are linked."""
    import shutil

    import cv2

    from models.covered import main, recount
    from vision.recogniser import Recogniser, latest_release

    cache, rng = tmp_path / "cache", np.random.default_rng(5)
    cache.mkdir()
    image = rng.integers(0, 255, (400, 700, 3), np.uint8)
    cv2.imwrite(str(cache / "0000-declarer.jpg"), image)
    (cache / "0000.json").write_text("{}")
    image = cv2.imread(str(cache / "0000-declarer.jpg"))
    reads = [seen(c, 150.0 + 90.0 * k, covered=0.5) for k, c in enumerate(["T21", "T20", "T19", "T18"])]
    (cache / "0000-declarer.old.pile.json").write_text(json.dumps(PileRead((700, 400), reads).to_json()))
    # a second release: the same covered-card model taken as the slot kind (other crops, other chances)
    slots = tmp_path / "slots"
    shutil.copytree(latest_release(), slots)
    manifest = json.loads((slots / "model.json").read_text())
    (slots / "model.json").write_text(json.dumps({**manifest, "covered_slots": True}))

    fresh = [replace(s, covered=0.0) for s in reads]
    one = [s.covered for s in HandReader(Recogniser.load())._covered(image, fresh)]
    two = [s.covered for s in HandReader(Recogniser.load(slots))._covered(image, fresh)]
    assert one != two
    name = latest_release().name
    assert recount(cache, "old", latest_release(), tmp_path / "a") == 1
    got = PileRead.from_json(json.loads((tmp_path / "a" / f"0000-declarer.{name}.pile.json").read_text()))
    assert [s.covered for s in got.sightings] == pytest.approx(one, abs=1e-4)
    assert [s.likely for s in got.sightings] == [s.likely for s in reads]
    assert (tmp_path / "a" / "0000-declarer.jpg").exists() and (tmp_path / "a" / "0000.json").exists()
    assert not (tmp_path / "a" / "0000-declarer.old.pile.json").exists()
    assert main(["recount", "--cache", str(cache), "--release", "old", "--model", str(latest_release()),
                 "--agree", str(slots), "--out", str(tmp_path / "b")]) == 0
    got = PileRead.from_json(json.loads((tmp_path / "b" / f"0000-declarer.{name}.pile.json").read_text()))
    assert [s.covered for s in got.sightings] == pytest.approx(np.minimum(one, two).tolist(), abs=1e-4)
    with pytest.raises(SystemExit, match="no pile reads"):
        recount(cache, "other", latest_release(), tmp_path / "c")
    with pytest.raises(SystemExit, match="another folder"):
        recount(cache, "old", latest_release(), cache)
