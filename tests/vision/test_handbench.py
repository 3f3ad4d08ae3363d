"""The hand benchmark's bookkeeping (models.handbench): deals, judging and the summary it prints."""
from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

import scoring
from models.handbench import deal, deal_terms, hidden_cards, judge, summarise, tricks_of
from vision.hand import SIDES, HandCard, HandRead, Question, SideCards

SLOVENIAN = scoring.find_game("slovenian")


def test_a_deal_splits_the_whole_deck_into_two_piles_of_whole_tricks():
    for seed in range(20):
        for size in (54, 42):
            piles = deal(np.random.default_rng(seed), size)
            cards = piles["declarer"] + piles["defenders"]
            assert sorted(cards) == sorted(c.id for c in scoring.find_game(
                "slovenian" if size == 54 else "hungarian").deck)
            assert 6 <= len(piles["declarer"]) <= size - 6


def test_a_deal_says_how_its_tricks_lie_and_a_cached_hand_draws_it_again():
    for i in range(30):
        size = 42 if i % 3 == 2 else 54
        piles, terms = deal_terms(np.random.default_rng([90000, i]), size)
        assert piles == deal(np.random.default_rng([90000, i]), size)
        game = scoring.find_game("slovenian" if size == 54 else "hungarian")
        assert len(piles["declarer"]) in game.pile_sizes(terms["players"], terms["talon"])
        truth = {"deck": size, "piles": piles}                 # cached before the terms were written
        assert tricks_of(truth, 90000, i) == terms
        assert tricks_of({**truth, "tricks": {"players": 3, "talon": 0}}, 90000, i) == {"players": 3, "talon": 0}
    with pytest.raises(ValueError, match="not drawn from seed"):
        tricks_of({"deck": 54, "piles": piles}, 90001, 29)


def test_hidden_cards_count_those_showing_less_than_a_third_of_an_index():
    truth = {"visible": {"declarer": {"T1": 0.9, "T2": 0.32}, "defenders": {"SK": 0.0, "HK": 0.34}}}
    assert hidden_cards(truth) == 2
    assert hidden_cards({"piles": {}}) is None


def _read(piles, questions=()):
    sides = {s: SideCards([HandCard(c, 0.99, scoring.card(c).pips, None, False) for c in cards], None)
             for s, cards in piles.items()}
    return HandRead("slovenian", sides, list(questions))


def test_judge_tells_right_from_wrong_and_settled_from_asked():
    ids = [c.id for c in SLOVENIAN.deck]
    truth = {"declarer": ids[:24], "defenders": ids[24:]}
    ok = judge(SLOVENIAN, truth, _read(truth))
    assert ok["settled"] and ok["right"] and ok["exact"]
    # a King on the wrong side: Card Points and the King's side are wrong
    swapped = {"declarer": truth["declarer"][:-1] + ["SK"],
               "defenders": [c for c in truth["defenders"] if c != "SK"] + [truth["declarer"][-1]]}
    bad = judge(SLOVENIAN, truth, _read(swapped))
    assert bad["settled"] and not bad["right"] and bad["wrong_cards"] == 2
    asked = judge(SLOVENIAN, truth, _read(truth, [Question("which_pile", None, ("declarer", "defenders"), "?",
                                                           card="T1")]))
    assert not asked["settled"] and asked["questions"] == 1 and asked["kinds"] == ["which_pile"]


def test_summary_splits_hands_by_how_many_cards_hide_their_index():
    def row(deck, hidden, settled, right):
        r = {"settled": settled, "right": right, "questions": 0 if settled else 2, "idle_questions": 0,
             "exact": right, "unsure": 0, "kinds": [] if settled else ["which_pile", "which_pile"]}
        return {"deck": deck, "hidden": hidden, "both": r}

    rows = [row(54, 0, True, True), row(54, 0, False, True), row(54, 2, False, True), row(54, 1, True, False),
            row(54, 3, True, True), row(42, 0, True, True)]
    out = summarise(rows)
    s54 = out["54-card both"]
    assert s54["hands"] == 5 and s54["settled_and_right"] == 0.4 and s54["settled_but_wrong"] == 1
    assert s54["questions_per_hand"] == 0.8 and s54["question_kinds"] == {"which_pile": 4}
    assert s54["hands_with_a_hidden_card"] == 3
    assert s54["settled_and_right_when_every_card_shows_a_third"] == 0.5
    # the issue's own hands hide at most two cards each: the hand hiding three is left out of that share
    assert s54["hands_hiding_at_most_two_cards"] == 4 and s54["settled_and_right_when_at_most_two_cards_hide"] == 0.25
    assert s54["settled_but_wrong_when_at_most_two_cards_hide"] == 1        # hand 4 (one hiding)
    assert s54["questions_per_hand_when_at_most_two_cards_hide"] == 1.0     # 2 + 2 over four hands
    assert out["42-card both"]["settled_and_right_when_every_card_shows_a_third"] == 1.0


def test_a_hand_drawn_at_a_given_size_is_the_same_deal_at_that_size(tmp_path, monkeypatch):
    import json

    import models.benchmark as bench
    from models.handbench import hand_photos
    from models.synth import Deck

    deck = Deck.load()
    truth, photos = hand_photos(81000, 1, deck, size=(640, 480))
    assert truth["piles"] == deal(np.random.default_rng([81000, 1]), 54)
    assert all(img.shape[:2] == (480, 640) for img in photos.values())
    assert truth["sizes"] == {"declarer": [640, 480], "defenders": [640, 480]}
    # the hand-time benchmark's hands: both sides of each deal, with its game
    monkeypatch.setattr(bench, "SIZES", ((640, 480),))
    bench.make_hands(tmp_path, 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["640x480-00-declarer.jpg", "640x480-00-defenders.jpg",
                                                         "640x480-00.json"]
    assert json.loads((tmp_path / "640x480-00.json").read_text()) == {"game": "slovenian"}


def test_players_who_spread_a_pile_again_when_asked_settle_it_from_the_new_photo():
    """Five Kings and Queens lost from the Declarer's photo: the truthful taps place the Pagat and the King, then
    the Declarer's count places the three Queens (they differ only by how many lie in each pile): three taps.
    With the pile spread again when asked, the new photo (every card read) settles the hand with no tap."""
    from models.handbench import taps
    from vision.hand import PileRead, Sighting, decode

    game = scoring.find_game("slovenian")
    ids = [c.id for c in game.deck]
    order = [ids[i] for i in np.random.default_rng(3).permutation(len(ids))]
    truth = {"declarer": order[:27], "defenders": order[27:]}
    lost = [c for c in truth["declarer"] if scoring.card(c).pips >= 3][:5]

    def pile(cards):
        return PileRead((2028, 1520), [Sighting((40.0 * k, 100.0), (0.0, -1.0), 80.0, ((c, 0.995), ("none", 0.005)),
                                                scoring.card(c).pips, 0.9) for k, c in enumerate(cards)])

    class Reader:
        def decode(self, game, piles, rest=None, answers=(), sizes=None):
            return decode(game, piles, rest, answers, sizes=sizes)

    piles = {"declarer": pile([c for c in truth["declarer"] if c not in lost]), "defenders": pile(truth["defenders"])}
    plain = taps(Reader(), game, piles, truth)
    assert plain["respread"] and plain["taps"] == 3 and plain["settled"] and plain["right"] and not plain["retakes"]
    taken = []
    again = taps(Reader(), game, piles, truth, retake=lambda side: (taken.append(side) or pile(truth[side]), None))
    assert sorted(taken) == ["declarer", "defenders"]     # neither photo shows where: both are taken again
    assert again == {"taps": 0, "settled": True, "right": True, "respread": True, "retakes": 2, "named": 0}


def test_the_bound_reads_every_card_showing_a_third_and_leaves_the_rest_to_elimination():
    """What the photos allow: every card showing a third of an index read right settles the hand; a hidden Trull
    card (its pile changes the bonus) leaves a question, and with the count of whole tricks said it is settled."""
    from models.handbench import readable_piles
    from vision.hand import decode

    game, piles, vis, truth = _dealt()
    seen = readable_piles(truth)
    assert [len(seen[s].sightings) for s in ("declarer", "defenders")] == [27, 27]
    ok = judge(game, piles, decode(game, seen))
    assert ok["settled"] and ok["right"] and ok["exact"]
    side = "declarer" if "T21" in piles["declarer"] else "defenders"
    vis[side]["T21"] = 0.2
    hidden = readable_piles(truth)
    assert "T21" not in [s.likely[0][0] for s in hidden[side].sightings]
    asked = judge(game, piles, decode(game, hidden))
    assert not asked["settled"] and asked["kinds"] == ["which_pile"]
    told = judge(game, piles, decode(game, hidden, sizes=game.pile_sizes(3, 0)))
    assert told["settled"] and told["right"]
    assert readable_piles({"piles": piles}) is None       # the independent renderer does not say what shows


def test_the_counted_bound_also_knows_how_many_cards_each_pile_hides():
    """With each pile's hidden cards counted, a hidden Trull card, and then also a hidden King, are settled in
    their pile with no count said; without the count they are questions. The count is never wrong, so its lone
    count is trusted (the reader's own rules doubt its covered-card model's: `HandSettings.lone_cover`)."""
    from models.handbench import readable_piles
    from vision.decoder import _other
    from vision.hand import HandSettings, decode

    trusting = HandSettings(lone_cover=False)
    game, piles, vis, truth = _dealt()
    side = "declarer" if "T21" in piles["declarer"] else "defenders"
    vis[side]["T21"] = 0.2
    counted = readable_piles(truth, counted=True)
    assert [s.covered for s in counted[side].sightings].count(1.0) == 1
    assert not any(s.covered for s in counted[_other(side)].sightings)
    assert judge(game, piles, decode(game, counted))["kinds"] == ["which_pile"]     # the reader's doubt
    one = judge(game, piles, decode(game, counted, settings=trusting))
    assert one["settled"] and one["right"]
    king = next(c for c in piles[side] if c.endswith("K") and c != "SKUS")
    vis[side][king] = 0.1
    plain = judge(game, piles, decode(game, readable_piles(truth), settings=trusting))
    assert not plain["settled"] and plain["kinds"] == ["which_pile", "which_pile"]
    counted = readable_piles(truth, counted=True)
    assert [s.covered for s in counted[side].sightings].count(1.0) == 2
    ok = judge(game, piles, decode(game, counted, settings=trusting))
    assert ok["settled"] and ok["right"] and ok["exact"]


def _dealt():
    """A Slovenian deal of 27 cards a side, every index 0.8 visible: (game, piles, visible, truth)."""
    game = scoring.find_game("slovenian")
    ids = [c.id for c in game.deck]
    order = [ids[i] for i in np.random.default_rng(5).permutation(len(ids))]
    piles = {"declarer": order[:27], "defenders": order[27:]}
    vis = {s: {c: 0.8 for c in cards} for s, cards in piles.items()}
    return game, piles, vis, {"piles": piles, "visible": vis, "sizes": {s: [2028, 1520] for s in piles}}


@pytest.mark.slow
def test_the_independent_renderer_s_hands_say_how_much_of_each_card_s_index_shows():
    from models.handbench import holdout_hand_photos

    truth, photos = holdout_hand_photos(95000, 7)
    for side in ("declarer", "defenders"):
        vis = truth["visible"][side]
        assert sorted(vis) == sorted(truth["piles"][side])
        assert all(0.0 <= v <= 1.0 for v in vis.values())
        assert photos[side].shape[:2] == tuple(reversed(truth["sizes"][side]))
    # a pile photo shows most indices whole and a few only in part
    shares = [v for side in truth["visible"].values() for v in side.values()]
    assert max(shares) == 1.0 and min(shares) < 1.0
    assert hidden_cards(truth) == sum(v < 0.33 for v in shares)


def _box(x: float, y: float, w: float = 20.0, h: float = 60.0) -> list:
    return [[x - w / 2, y - h / 2], [x + w / 2, y - h / 2], [x + w / 2, y + h / 2], [x - w / 2, y + h / 2]]


def test_the_card_a_read_shows_is_the_topmost_showing_index_under_it():
    """The truth's index places (drawing order): a point on two boxes is the later (upper) card's; an index
    covered whole is passed over; a point on no index shows no card."""
    from models.handbench import card_at

    places = [["T2", 0.3, _box(100, 100)], ["T3", 1.0, _box(110, 100)], ["T4", 0.0, _box(300, 100)]]
    assert card_at(places, (92.0, 100.0)) == "T2"        # only the lower card's box
    assert card_at(places, (106.0, 100.0)) == "T3"       # both: the upper card
    assert card_at(places, (300.0, 100.0)) is None       # T4's index lies wholly covered
    assert card_at(places, (500.0, 500.0)) is None


def test_simulated_players_answer_what_the_read_truly_shows():
    """With the truth's index places, "Is this the II, or no card?" about a read on no index is answered "no
    card" (not the II, which lies in that pile elsewhere); a read showing the III, not offered, is named from the
    whole deck (two taps); a second read on the II's index, after the players named the first one the II, is
    that card seen again: no card of its own."""
    from models.handbench import taps

    truth = {"declarer": ["T2", "T3"], "defenders": ["T4"]}

    class Reader:
        def __init__(self, *where):
            self.where, self.said = where, []

        def decode(self, game, piles, rest=None, answers=(), sizes=None):
            self.said = list(answers)
            k = len(answers)
            qs = [Question("which_card", "declarer", ("T2", "none"), "?", sighting=k, where=self.where[k])
                  ] if k < len(self.where) else []
            side = {s: SideCards([HandCard(c, 0.99, 0, None, False) for c in truth[s]], None)
                    for s in truth}
            return HandRead("slovenian", side, qs)

    places = {"declarer": [["T2", 1.0, _box(100, 100)], ["T3", 1.0, _box(200, 100)]], "defenders": []}
    nothing = Reader((400.0, 100.0))
    out = taps(nothing, SLOVENIAN, {}, truth, places=places)
    assert [a.card for a in nothing.said] == ["none"] and out["taps"] == 1 and not out["named"]
    other = Reader((200.0, 100.0))                       # the read is the III: not offered
    out = taps(other, SLOVENIAN, {}, truth, places=places)
    assert [a.card for a in other.said] == ["T3"] and out["named"] == 1 and out["taps"] == 2
    twice = Reader((100.0, 100.0), (102.0, 100.0))       # two reads on the II's index
    taps(twice, SLOVENIAN, {}, truth, places=places)
    assert [a.card for a in twice.said] == ["T2", "none"]
    # read 0 is asked about; read 1, sure and right, shows the III too: read 0 is the III seen again
    from vision.hand import PileRead, Sighting
    shown = {"declarer": PileRead((640, 480), [Sighting.named("T2", 0, (204.0, 100.0)),
                                               Sighting.named("T3", 0, (200.0, 100.0))])}
    again = Reader((204.0, 100.0))
    again.where = ((204.0, 100.0),)
    taps(again, SLOVENIAN, shown, truth, places=places)
    assert [a.card for a in again.said] == ["none"]
    old = Reader((400.0, 100.0))                         # no places: the first choice lying in the pile
    taps(old, SLOVENIAN, {}, truth)
    assert [a.card for a in old.said] == ["T2"]


def test_simulated_players_may_answer_the_last_question_shown_first():
    """The page shows every open question and the players may answer any: with `last`, the simulated players
    answer the last one each time (where the XIV lies, then where the III lies), and the hand is judged after."""
    from models.handbench import taps

    truth = {"declarer": ["T2", "T3"], "defenders": ["T4"]}

    class Reader:
        def __init__(self):
            self.said = []

        def decode(self, game, piles, rest=None, answers=(), sizes=None):
            self.said = list(answers)
            left = [c for c in ("T3", "T4") if c not in {a.card for a in answers}]
            qs = [Question("which_pile", None, SIDES, "?", card=c) for c in left]
            side = {s: SideCards([HandCard(c, 0.99, 0, None, False) for c in truth[s]], None) for s in truth}
            return HandRead("slovenian", side, qs)

    first, last = Reader(), Reader()
    assert taps(first, SLOVENIAN, {}, truth)["taps"] == 2
    assert [(a.card, a.side) for a in first.said] == [("T3", "declarer"), ("T4", "defenders")]
    out = taps(last, SLOVENIAN, {}, truth, last=True)
    assert [(a.card, a.side) for a in last.said] == [("T4", "defenders"), ("T3", "declarer")]
    assert out["taps"] == 2 and out["settled"] and out["right"]


def test_the_reader_s_pile_counts_are_checked_against_the_cards_no_read_truly_shows():
    """A pile that counts a covered card (a read sure a card lies under it) but lacks none, and a pile that lacks
    one but counts none: the diagnostic says so per pile, and the summary adds them up per deck."""
    from models.handbench import pile_counts
    from vision.hand import HandSettings, PileRead, Sighting

    def read(card, x, covered=0.0):
        return Sighting((x, 100.0), (0.0, -1.0), 60.0, ((card, 0.99), ("none", 0.01)), 0, 0.9, covered=covered)

    truth = {"piles": {"declarer": ["T2", "T3"], "defenders": ["T4", "T5"]},
             "index": {"declarer": [["T2", 1.0, _box(100, 100)], ["T3", 1.0, _box(200, 100)]],
                       "defenders": [["T4", 1.0, _box(100, 100)], ["T5", 0.1, _box(200, 100)]]}}
    piles = {"declarer": PileRead((640, 480), [read("T2", 100.0, covered=0.99), read("T3", 200.0)]),
             "defenders": PileRead((640, 480), [read("T4", 100.0)])}
    counts = pile_counts(piles, truth, HandSettings())
    assert counts == {"declarer": [1, 0, 0, 0], "defenders": [0, 1, 1, 0]}     # the T5 hidden (0.1 showing)
    row = {"deck": 54, "hidden": 1, "counts": counts, "both": {
        "settled": False, "right": True, "questions": 1, "idle_questions": 0, "exact": True, "unsure": 0,
        "kinds": ["which_pile"]}}
    assert summarise([row])["54-card pile counts"] == {
        "piles": 2, "counting_a_card": 1, "counting_more_than_lost": 1, "counting_a_card_none_lost": 1,
        "counting_fewer_than_lost": 1}
    assert summarise([row])["54-card pile counts by cards hidden"] == {
        "spread": {"hiding 0": [0, 1, 0, 0], "hiding 1": [1, 0, 0, 0]}}


def test_the_count_table_puts_each_pile_by_its_kind_its_hidden_cards_and_its_count():
    """Spreads and fans apart; hidden cards and counts of three or more in one column; piles from caches made
    before the table (two numbers each) are left out."""
    from models.handbench import count_table

    counts = [[0, 0, 0, 0], [1, 1, 1, 0], [2, 1, 1, 0], [5, 4, 4, 0], [3, 6, 5, 0], [1, 0, 0, 1], [0, 2]]
    assert count_table(counts) == {
        "fan": {"hiding 0": [0, 1, 0, 0]},
        "spread": {"hiding 0": [1, 0, 0, 0], "hiding 1": [0, 1, 1, 0], "hiding 3": [0, 0, 0, 2]}}
    assert count_table([[0, 2]]) == {}


def test_the_layers_mend_the_reader_s_own_reads_one_part_of_reading_at_a_time():
    """--layers: a misread card read right ("reads"), then a card no read found read at its index ("found"),
    then the hidden cards seen as cards, not which ("hidden"): each layer keeps the ones before, and the last
    settles the hand by elimination where the reader's own reads left questions."""
    from models.handbench import mended_piles
    from vision.hand import NOT_A_CARD, PileRead, Sighting, decode

    game = scoring.find_game("slovenian")
    ids = [c.id for c in game.deck]
    order = [ids[i] for i in np.random.default_rng(9).permutation(len(ids))]
    piles = {"declarer": order[:27], "defenders": order[27:]}
    blank = [c.id for c in game.deck if c.pips == 0 and not c.trull and c.id not in ("T20",)]
    misread, unfound = piles["declarer"][3], piles["declarer"][5]
    hidden = {s: next(c for c in piles[s] if c in blank and c not in (misread, unfound)) for s in piles}
    vis = {s: {c: 1.0 for c in cards} for s, cards in piles.items()}
    vis["declarer"][unfound] = 0.5
    vis["declarer"][hidden["declarer"]], vis["defenders"][hidden["defenders"]] = 0.05, 0.1

    def place(k):
        x, y, h, w = 60.0 * k + 50, 200.0, 80.0, 20.0
        return [[x - w / 2, y - h / 2], [x + w / 2, y - h / 2], [x + w / 2, y + h / 2], [x - w / 2, y + h / 2]]

    index = {s: [[c, vis[s][c], place(k)] for k, c in enumerate(cards)] for s, cards in piles.items()}
    other = next(c for c in ids if c != misread and scoring.card(c).pips == scoring.card(misread).pips)

    def read(k, c):
        likely = ((other, 0.6), (misread, 0.3), (NOT_A_CARD, 0.1)) if c == misread else ((c, 0.99), (NOT_A_CARD, 0.01))
        return Sighting((60.0 * k + 50, 200.0), (0.0, -1.0), 80.0, likely, scoring.card(c).pips, 0.9)

    reads = {s: PileRead((2000, 400), [read(k, c) for k, c in enumerate(cards) if vis[s][c] > 0.2 and c != unfound])
             for s, cards in piles.items()}
    truth = {"piles": piles, "visible": vis, "index": index}
    assert not judge(game, piles, decode(game, reads))["settled"]

    def tops(m, s):
        return [x.likely[0][0] for x in m[s].sightings]

    mended = {k: mended_piles(game, reads, truth, k) for k in ("reads", "found", "hidden")}
    assert misread in tops(mended["reads"], "declarer") and other not in tops(mended["reads"], "declarer")
    assert unfound not in tops(mended["reads"], "declarer")
    assert unfound in tops(mended["found"], "declarer") and len(mended["found"]["defenders"].sightings) == 26
    assert hidden["defenders"] not in tops(mended["found"], "defenders")
    seen = mended["hidden"]["defenders"].sightings[-1]
    assert seen.p(hidden["defenders"]) == seen.p(hidden["declarer"]) == pytest.approx(0.4995)   # a card, not which
    ok = judge(game, piles, decode(game, mended["hidden"]))
    assert ok["settled"] and ok["right"]          # the two blank cards' places change no score
    assert mended_piles(game, reads, {"piles": piles, "visible": vis}, "reads") is None


def test_the_cards_no_read_found_are_read_at_their_own_index():
    """--layers: each card showing a third of an index or more that no read found is classified where the truth
    places its index (the better-showing one), and counted as named, sure, or a card at all; cards showing less,
    and cards a read found, are not counted."""
    from models.handbench import unfound_at_index
    from vision.hand import PileRead, Sighting

    game = scoring.find_game("slovenian")
    ids = [c.id for c in game.deck]
    piles = {"declarer": ids[:27], "defenders": ids[27:]}
    vis = {s: {c: 1.0 for c in cards} for s, cards in piles.items()}
    a, b, c = piles["declarer"][2], piles["declarer"][4], piles["defenders"][1]
    vis["declarer"][a], vis["declarer"][b], vis["defenders"][c] = 0.5, 0.4, 0.2      # c shows too little

    def place(k, dy=0.0):
        x, y, h, w = 60.0 * k + 50, 200.0 + dy, 80.0, 20.0
        return [[x - w / 2, y - h / 2], [x + w / 2, y - h / 2], [x + w / 2, y + h / 2], [x - w / 2, y + h / 2]]

    # each card's two indices: the better-showing one (at y 200) is where it is read
    index = {s: [[x, 0.1, place(k, 300.0)] for k, x in enumerate(cards)] + [[x, vis[s][x], place(k)]
                                                                          for k, x in enumerate(cards)]
             for s, cards in piles.items()}
    reads = {s: PileRead((2000, 600), [Sighting((60.0 * k + 50, 200.0), (0.0, -1.0), 80.0, ((x, 0.99),), 0, 0.9)
                                       for k, x in enumerate(cards) if x not in (a, b, c)])
             for s, cards in piles.items()}
    truth = {"piles": piles, "visible": vis, "index": index}
    asked = []

    def probabilities(side, _game, centres, ups, heights):     # the "photo" is the side's name
        asked.append((side, [round(float(x)) for x, _ in centres], [round(float(y)) for _, y in centres]))
        out = np.zeros((len(centres), len(ids) + 1))
        for j, (x, _) in enumerate(centres):
            card = piles[side][round((x - 50) / 60)]
            if card == a:
                out[j, ids.index(a)], out[j, -1] = 0.7, 0.3      # named, sure
            else:
                out[j, ids.index(a)], out[j, ids.index(b)], out[j, -1] = 0.3, 0.2, 0.5   # misnamed, unsure
        return out, np.zeros(len(centres), int)

    reader = SimpleNamespace(_probabilities=probabilities)
    photos = {s: s for s in piles}
    got = unfound_at_index(reader, game, reads, truth, photos)
    assert json.loads(json.dumps(got)) == {"unfound": 2, "named": 1, "sure": 1, "card": 1}     # plain ints
    assert asked == [("declarer", [170, 290], [200, 200])]
    assert unfound_at_index(reader, game, reads, {"piles": piles}, photos) is None
