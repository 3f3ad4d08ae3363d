"""The detector's sliver channel: cards whose index shows too little to read still count in their pile."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import scoring
from vision.decoder import _Decoder
from vision.geometry import other_index
from vision.hand import Answer, HandReader, HandSettings, PileRead, Sighting

SLOVENIAN = scoring.find_game("slovenian")
ST = HandSettings()


def seen(card: str, x: float = 0.0, p: float = 0.995) -> Sighting:
    return Sighting((x, 100.0), (0.0, -1.0), 80.0, ((card, p), ("none", 1 - p)), scoring.card(card).pips, 0.9)


def split(k: int, seed: int) -> tuple[list[str], list[str]]:
    ids = [c.id for c in SLOVENIAN.deck]
    order = [ids[i] for i in np.random.default_rng(seed).permutation(len(ids))]
    return order[:k], order[k:]


def pile(cards: list[str], slivers=()) -> PileRead:
    reads = [seen(c, 60.0 * k) for k, c in enumerate(cards)]
    # every read's own sliver peak, a little off its centre (a partly covered index shows off-centre)
    own = [(s.centre[0] + 3.0, s.centre[1] - 12.0, 0.95) for s in reads]
    return PileRead((2028, 1520), reads, slivers=own + list(slivers))


def test_a_sliver_peak_no_read_explains_is_a_hidden_card():
    reads = [seen("T21", 0.0), seen("T20", 60.0), seen("T19", 120.0)]
    twin = tuple(other_index(reads[0].centre, reads[0].up, reads[0].height))
    slivers = [(2.0, 95.0, 0.9), (62.0, 90.0, 0.9), (121.0, 104.0, 0.8),   # the reads' own peaks
               (twin[0] + 4, twin[1], 0.9),                                # the T21's other index
               (180.0, 100.0, 0.85),                                       # a card no read shows
               (240.0, 100.0, 0.4)]                                        # too faint to count
    hidden = PileRead((2028, 1520), reads, slivers=slivers).hidden(ST)
    assert [(round(x), round(y)) for x, y, _ in hidden] == [(180, 100)]


def test_each_read_explains_one_peak_only():
    # two peaks by one read: the nearer is its own, the other a card under it whose index shows a sliver
    reads = [seen("T21", 0.0)]
    hidden = PileRead((2028, 1520), reads, slivers=[(0.0, 98.0, 0.9), (0.0, 130.0, 0.9)]).hidden(ST)
    assert [round(y) for _, y, _ in hidden] == [130]
    # two peaks of one sliver, close together: one card
    hidden = PileRead((2028, 1520), reads,
                      slivers=[(0.0, 98.0, 0.9), (0.0, 140.0, 0.9), (4.0, 143.0, 0.7)]).hidden(ST)
    assert len(hidden) == 1


def test_without_reads_or_a_sliver_channel_nothing_is_hidden():
    assert PileRead((100, 100), [], slivers=[(5.0, 5.0, 0.99)]).hidden(ST) == []
    assert PileRead((100, 100), [seen("T1")]).hidden(ST) == []


def test_slivers_round_trip_through_json_and_split_by_side():
    p = pile(["T21", "T20"], [(300.0, 100.0, 0.9)])
    back = PileRead.from_json(json.loads(json.dumps(p.to_json())))
    assert back.slivers == [tuple(map(float, s)) for s in p.slivers] and len(back.hidden(ST)) == 1
    halves = p.split(lambda c: "declarer" if c[0] < 250 else "defenders")
    assert len(halves["declarer"].slivers) == 2 and len(halves["defenders"].slivers) == 1
    assert PileRead.from_json({"size": [10, 10], "sightings": []}).slivers == []     # reads of older releases


@pytest.mark.parametrize("seed", range(3))
def test_a_hidden_card_places_the_lost_card_in_its_pile(seed):
    dec, dfn = split(26, seed)
    dfn, dec = [c for c in dfn if c != "T1"], [c for c in dec if c != "T1"] + ["T1"]
    shown_dec, shown_dfn = [c for c in dec if c != "T1"], dfn
    plain = _Decoder(SLOVENIAN, {"declarer": pile(shown_dec), "defenders": pile(shown_dfn)}, None, (), ST).run()
    assert [q.card for q in plain.questions] == ["T1"]
    far = (60.0 * len(shown_dec) + 40, 100.0, 0.9)
    hand = _Decoder(SLOVENIAN, {"declarer": pile(shown_dec, [far]), "defenders": pile(shown_dfn)}, None, (), ST).run()
    assert hand.questions == [] and "T1" in hand.sides["declarer"].ids()
    assert sorted(hand.sides["declarer"].ids()) == sorted(dec)
    # the same sliver in the other pile puts it there
    far = (60.0 * len(shown_dfn) + 40, 100.0, 0.9)
    other = _Decoder(SLOVENIAN, {"declarer": pile(shown_dec), "defenders": pile(shown_dfn, [far])}, None, (), ST).run()
    assert other.questions == [] and "T1" in other.sides["defenders"].ids()


def test_hidden_cards_in_both_piles_say_how_many_not_which():
    dec, dfn = split(27, 5)
    dec = [c for c in dec if c not in ("T1", "HK")] + ["T1"]
    dfn = [c for c in dfn if c not in ("T1", "HK")] + ["HK"]
    sd, sf = [c for c in dec if c != "T1"], [c for c in dfn if c != "HK"]
    piles = {"declarer": pile(sd, [(60.0 * len(sd) + 40, 100.0, 0.9)]),
             "defenders": pile(sf, [(60.0 * len(sf) + 40, 100.0, 0.9)])}
    hand = _Decoder(SLOVENIAN, piles, None, (), ST).run()
    assert [q.card for q in hand.questions if q.kind == "which_pile"] == ["T1"]    # with the counts, one tap ...
    # ... but the counts hold only until the players answer (a count one too many, with true answers, can leave
    # one wrong placement alone): the King's pile is asked too, and the second tap settles the hand
    told = _Decoder(SLOVENIAN, piles, None, [Answer("which_pile", "declarer", "T1")], ST).run()
    assert [q.card for q in told.questions if q.kind == "which_pile"] == ["HK"]
    both = [Answer("which_pile", "declarer", "T1"), Answer("which_pile", "defenders", "HK")]
    done = _Decoder(SLOVENIAN, piles, None, both, ST).run()
    assert done.questions == [] and "HK" in done.sides["defenders"].ids()


def test_more_hidden_cards_than_lost_ones_are_not_trusted():
    dec, dfn = split(26, 1)
    dfn, dec = [c for c in dfn if c != "T1"], [c for c in dec if c != "T1"] + ["T1"]
    sd = [c for c in dec if c != "T1"]
    two = [(60.0 * len(sd) + 40, 100.0, 0.9), (60.0 * len(sd) + 140, 100.0, 0.9)]
    ghost = (60.0 * len(dfn) + 40, 100.0, 0.9)       # and one in the other pile: three for one lost card
    hand = _Decoder(SLOVENIAN, {"declarer": pile(sd, two), "defenders": pile(dfn, [ghost])}, None, (), ST).run()
    assert [q.card for q in hand.questions] == ["T1"]


def test_the_recogniser_gives_the_sliver_channels_peaks():
    from vision.recogniser import Recogniser, Settings
    from vision.runners.fake import FakeRunner

    def detector(batch):
        _, _, h, w = batch.shape
        out = np.zeros((1, 7, h // 4, w // 4), np.float32)
        out[0, 0] = out[0, 6] = -10.0
        out[0, 0, 50, 40] = out[0, 6, 50, 40] = 10.0             # an index read, and its sliver peak
        out[0, 3:5, 50, 40] = (0.0, -1.0)
        out[0, 5, 50, 40] = math.log(40 / 32)
        out[0, 6, 50, 70] = 2.0                                  # a sliver alone: heat 0.88
        return out

    rec = Recogniser(FakeRunner(detector), FakeRunner(lambda b: np.zeros((len(b), 10), np.float32)),
                     ["T1", "T2", "T3", "HK", "none"], {"T1": 0, "T2": 0, "T3": 0, "HK": 0}, Settings(second_looks=0))
    slivers: list = []
    found, _ = rec.peaks(np.zeros((400, 600, 3), np.uint8), None, None, slivers)
    assert len(found[0]) == 1
    (centres, heat), = slivers
    assert sorted(np.round(centres[:, 0]).tolist()) == [162, 282] and heat.min() == pytest.approx(1 / (1 + math.exp(-2)))
    assert np.round(centres[:, 1]).tolist() == [202, 202]
    # the hand reader keeps them with the pile read
    pile = HandReader(rec).read_pile(np.zeros((400, 600, 3), np.uint8), SLOVENIAN)
    assert sorted(round(x) for x, _, _ in pile.slivers) == [162, 282]


def test_the_sliver_benchmark_counts_cards_found_and_false_peaks():
    from models.slivers import score

    reads = [seen("T21", 0.0), seen("T20", 60.0)]
    labels = [("T21", [0.0, 100.0], 1.0), ("T20", [60.0, 100.0], 1.0), ("T19", [120.0, 100.0], 0.2),
              ("T18", [400.0, 400.0], 0.0)]
    slivers = [(0.0, 100.0, 0.9), (60.0, 100.0, 0.9),      # the reads' own
               (122.0, 101.0, 0.9),                          # the T19, which no read takes: found
               (300.0, 100.0, 0.9)]                          # nothing there: false
    assert score(PileRead((2028, 1520), reads, slivers=slivers), labels, ST) == (1, 1, 2)
