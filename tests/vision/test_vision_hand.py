"""The hand reader's decoder (vision.decoder, through vision.hand) on made-up pile reads: one deck, two piles,
questions only where the answers change the score. No model needed; the photo-to-pile path runs in the slow CLI test."""
from __future__ import annotations

import itertools
import json
import math
import pickle
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType, SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scoring
from vision.decoder import _assign, _Decoder, _forced
from vision.hand import (
    SIDES,
    Answer,
    HandReader,
    HandSettings,
    PileRead,
    Sighting,
    _gaps,
    _merge_same_card,
)

ROOT = Path(__file__).resolve().parents[2]
SLOVENIAN = scoring.find_game("slovenian")
KOENIGRUFEN = scoring.find_game("koenigrufen")
HUNGARIAN = scoring.find_game("hungarian")
BEFORE_42 = HandSettings(elsewhere_told=0.5, misread_free=0.0)     # the reader before session 42's two rules


def seen(card: str, p: float = 0.995, others: tuple[tuple[str, float], ...] = (), x: float = 0.0,
         pips: int | None = None) -> Sighting:
    likely = ((card, p),) + others
    rest = max(0.0, 1 - sum(q for _, q in likely))
    return Sighting((x, 100.0), (0.0, -1.0), 80.0, tuple(sorted(likely + (("none", rest),), key=lambda t: -t[1])),
                    scoring.card(card).pips if pips is None else pips, 0.9)


def piles_of(declarer: list[Sighting], defenders: list[Sighting]) -> dict[str, PileRead]:
    return {"declarer": PileRead((2028, 1520), declarer), "defenders": PileRead((2028, 1520), defenders)}


def split(game, k: int, seed: int = 0) -> tuple[list[str], list[str]]:
    ids = [c.id for c in game.deck]
    order = [ids[i] for i in np.random.default_rng(seed).permutation(len(ids))]
    return order[:k], order[k:]


def decode(game, piles, rest=None, answers=()):
    return _Decoder(game, piles, rest, answers, HandSettings()).run()


def ids(hand, side):
    return sorted(hand.sides[side].ids())


def test_every_card_read_surely_is_settled_and_counted():
    dec, dfn = split(SLOVENIAN, 24)
    hand = decode(SLOVENIAN, piles_of([seen(c) for c in dec], [seen(c) for c in dfn]))
    assert hand.questions == []
    assert ids(hand, "declarer") == sorted(dec) and ids(hand, "defenders") == sorted(dfn)
    assert hand.sides["declarer"].card_points == SLOVENIAN.count(dec)
    assert hand.sides["declarer"].card_points + hand.sides["defenders"].card_points == 70


def test_unsure_read_settled_by_the_card_plainly_seen_in_the_other_pile():
    dec, dfn = split(KOENIGRUFEN, 20, seed=1)
    dec = [c for c in dec if c not in ("T13", "T15", "HK", "HQ")] + ["T13"]
    dfn = [c for c in dfn if c not in ("T13", "T15", "HK", "HQ")] + ["T15", "HK", "HQ"]
    # The Declarer's XIII reads nearly as well as the XV, which the Defenders' pile shows plainly.
    sights = [seen(c) for c in dec if c != "T13"] + [seen("T15", 0.5, (("T13", 0.45),))]
    hand = decode(KOENIGRUFEN, piles_of(sights, [seen(c) for c in dfn]))
    assert hand.questions == []
    assert "T13" in ids(hand, "declarer") and "T15" in ids(hand, "defenders")


def test_a_card_read_twice_becomes_the_missing_card_with_its_pips():
    dec, dfn = split(SLOVENIAN, 27, seed=2)
    # The Defenders' Queen of Hearts is read as the Declarer's Queen of Spades (same pips, so it scores alike).
    assert "HQ" in dfn or "HQ" in dec
    if "HQ" in dec:
        dec, dfn = dfn, dec
    if "SQ" not in dec:
        dec, dfn = dec + ["SQ"], [c for c in dfn if c != "SQ"]
        spare = next(c for c in dec if scoring.card(c).pips == 0)
        dec, dfn = [c for c in dec if c != spare], dfn + [spare]
    sights = [seen(c) for c in dfn if c != "HQ"] + [seen("SQ", 0.8, (("CQ", 0.19),), pips=3)]
    hand = decode(SLOVENIAN, piles_of([seen(c) for c in dec], sights))
    assert "HQ" in ids(hand, "defenders") and ids(hand, "declarer").count("SQ") == 1
    assert hand.questions == []
    hq = next(c for c in hand.sides["defenders"].cards if c.card_id == "HQ")
    assert hq.unsure


def test_doubt_between_cards_that_score_alike_is_not_asked_but_marked():
    dec, dfn = split(SLOVENIAN, 30, seed=3)
    plain = [c for c in dec if scoring.card(c).pips == 0 and not scoring.card(c).trull][:1]
    other_plain = next(c for c in dfn if scoring.card(c).pips == 0 and not scoring.card(c).trull)
    # The read is torn between two plain cards; the other one lies unread in the same pile.
    sights = [seen(c) for c in dec if c not in plain] + [seen(plain[0], 0.5, ((other_plain, 0.45),))]
    dfn2 = [c for c in dfn if c != other_plain]
    hand = decode(SLOVENIAN, piles_of(sights, [seen(c) for c in dfn2]), answers=[
        Answer("which_pile", "declarer", other_plain)])
    assert hand.questions == []
    read = next(c for c in hand.sides["declarer"].cards if c.card_id == plain[0])
    assert read.unsure


def test_doubt_that_changes_the_score_is_one_question_with_both_cards():
    dec, dfn = split(SLOVENIAN, 30, seed=4)
    dec = [c for c in dec if c not in ("HK", "HQ")] + ["HK"]
    dfn = [c for c in dfn if c not in ("HK", "HQ")] + ["HQ"]
    # The Declarer's King reads as King or Queen, and the Defenders' Queen is not read at all.
    sights = [seen(c) for c in dec if c != "HK"] + [seen("HK", 0.55, (("HQ", 0.4),), pips=4)]
    hand = decode(SLOVENIAN, piles_of(sights, [seen(c) for c in dfn if c != "HQ"]))
    kinds = {q.kind for q in hand.questions}
    which = [q for q in hand.questions if q.kind == "which_card"]
    assert which and set(which[0].choices) >= {"HK", "HQ"}
    assert "Is this the King of Hearts or the Queen of Hearts?" in [q.text for q in which]
    assert kinds <= {"which_card", "which_pile"}
    # Answered, it is settled and right.
    answers = [Answer("which_card", "declarer", "HK", which[0].sighting), Answer("which_pile", "defenders", "HQ")]
    hand = decode(SLOVENIAN, piles_of(sights, [seen(c) for c in dfn if c != "HQ"]), answers=answers)
    assert hand.questions == []
    assert "HK" in ids(hand, "declarer") and "HQ" in ids(hand, "defenders")


def test_a_lost_pagat_is_asked_by_pile_and_answered():
    dec, dfn = split(SLOVENIAN, 26, seed=5)
    dfn = [c for c in dfn if c != "T1"]
    dec = [c for c in dec if c != "T1"] + ["T1"]
    hand = decode(SLOVENIAN, piles_of([seen(c) for c in dec if c != "T1"], [seen(c) for c in dfn]))
    q = [q for q in hand.questions if q.kind == "which_pile"]
    assert len(q) == 1 and q[0].card == "T1" and q[0].text == "The Pagat was not found: which pile is it in?"
    hand = decode(SLOVENIAN, piles_of([seen(c) for c in dec if c != "T1"], [seen(c) for c in dfn]),
                  answers=[Answer("which_pile", "declarer", "T1")])
    assert hand.questions == [] and "T1" in ids(hand, "declarer")


def lost_two(seed: int = 5):
    """Both piles read surely but for the Pagat (the Declarer's) and the Heart King (the Defenders')."""
    dec, dfn = split(SLOVENIAN, 27, seed=seed)
    dec = [c for c in dec if c not in ("T1", "HK")] + ["T1"]
    dfn = [c for c in dfn if c not in ("T1", "HK")] + ["HK"]
    return dec, dfn, piles_of([seen(c) for c in dec if c != "T1"], [seen(c) for c in dfn if c != "HK"])


@pytest.mark.parametrize("seed", range(4))
def test_the_count_of_whole_tricks_places_a_lost_card(seed):
    """Told how the tricks lie (4 cards each, and the Declarer's pile holds len(dec) % 4 cards no trick brought),
    only one pile can take the lost Pagat: settled, without a question, on the right side."""
    dec, dfn = split(SLOVENIAN, 25 + seed, seed=seed)
    dfn, dec = [c for c in dfn if c != "T1"], [c for c in dec if c != "T1"] + ["T1"]
    piles = piles_of([seen(c) for c in dec if c != "T1"], [seen(c) for c in dfn])
    assert [q.card for q in decode(SLOVENIAN, piles).questions] == ["T1"]
    sizes = SLOVENIAN.pile_sizes(4, len(dec) % 4)
    hand = _Decoder(SLOVENIAN, piles, None, (), HandSettings(), sizes=sizes).run()
    assert hand.questions == [] and "T1" in ids(hand, "declarer") and len(ids(hand, "declarer")) == len(dec)
    # the same count said of the other side's pile puts it there
    other = _Decoder(SLOVENIAN, piles, None, (), HandSettings(), sizes=SLOVENIAN.pile_sizes(4, (len(dec) - 1) % 4)).run()
    assert other.questions == [] and "T1" in ids(other, "defenders")


def test_the_count_tells_how_many_lost_cards_each_pile_holds_but_not_which():
    dec, _dfn, piles = lost_two()
    sizes = SLOVENIAN.pile_sizes(4, len(dec) % 4)
    hand = _Decoder(SLOVENIAN, piles, None, (), HandSettings(), sizes=sizes).run()
    # One of the two lies in each pile; which one matters (the Pagat and a King score apart): asked, once, as
    # the answer for one places the other.
    assert [q.card for q in hand.questions if q.kind == "which_pile"] == ["T1"]
    every = _Decoder(SLOVENIAN, piles, None, (), HandSettings(), check=False, sizes=sizes).run()
    assert sorted(q.card for q in every.questions if q.kind == "which_pile") == ["HK", "T1"]
    told = _Decoder(SLOVENIAN, piles, None, [Answer("which_pile", "declarer", "T1")], HandSettings(),
                    sizes=sizes).run()
    assert told.questions == [] and "HK" in ids(told, "defenders")      # the count then places the other


def test_with_more_lost_cards_than_are_tried_the_count_settles_none():
    """Past six lost cards not every way to place them is tried, so the count must not settle any of them."""
    dec, dfn = split(SLOVENIAN, 28, seed=11)
    lost = dec[:5] + dfn[:4]
    piles = piles_of([seen(c) for c in dec if c not in lost], [seen(c) for c in dfn if c not in lost])
    plain = sorted(q.card for q in decode(SLOVENIAN, piles).questions if q.kind == "which_pile")
    told = _Decoder(SLOVENIAN, piles, None, (), HandSettings(), sizes=SLOVENIAN.pile_sizes(4, len(dec) % 4)).run()
    assert len(plain) >= 7 and sorted(q.card for q in told.questions if q.kind == "which_pile") == plain


def test_a_count_no_placement_fits_is_not_trusted():
    dec, _dfn, piles = lost_two()
    # Both lost cards lie somewhere, so the Declarer's pile holds len(dec) - 1 .. len(dec) + 1 cards: a size
    # of len(dec) + 2 (mod 4) fits none, and the questions stay as without the count.
    sizes = SLOVENIAN.pile_sizes(4, (len(dec) + 2) % 4)
    hand = _Decoder(SLOVENIAN, piles, None, (), HandSettings(), sizes=sizes).run()
    assert sorted(q.card for q in hand.questions) == sorted(q.card for q in decode(SLOVENIAN, piles).questions)
    # nor is a count the tricks cannot make offered as an answer (two photos alone: 26, 27 or 28)
    none_ = {"declarer": set(), "defenders": set()}
    for told, offered in ((None, ("26", "27", "28")), (sizes, None)):
        d = _Decoder(SLOVENIAN, piles, None, (), HandSettings(), sizes=told)
        world, _ = d._solve()
        q = d._size_question(world, d._placements(world), none_)
        assert (q and q.choices) == offered


@pytest.mark.parametrize("side", SIDES)
def test_with_the_rest_theirs_a_count_whole_tricks_cannot_make_asks_for_a_respread_at_once(side):
    dec, dfn = split(SLOVENIAN, 27, seed=9)
    shown = dec if side == "declarer" else dfn
    piles = {side: PileRead((2028, 1520), [seen(c) for c in shown[1:]])}      # one card hidden in it
    rest = "defenders" if side == "declarer" else "declarer"
    sizes = SLOVENIAN.pile_sizes(4, len(dec) % 4)
    plain = _Decoder(SLOVENIAN, piles, rest, (), HandSettings()).run()
    assert [q.kind for q in plain.questions] == ["count"]
    told = _Decoder(SLOVENIAN, piles, rest, (), HandSettings(), sizes=sizes).run()
    assert [q.kind for q in told.questions] == ["respread"]
    # a count the tricks can make is still confirmed (a whole trick could lie hidden)
    whole = {side: PileRead((2028, 1520), [seen(c) for c in shown])}
    again = _Decoder(SLOVENIAN, whole, rest, (), HandSettings(), sizes=sizes).run()
    assert [q.kind for q in again.questions] == ["count"]


def test_a_read_whose_card_a_surer_read_holds_is_never_forced_onto_another_card():
    """The T3 misread as a sure T5 while the real T5 is read surer still: the weaker read becomes the T3 or
    nothing, never a card it gave no weight (the Jack lost in the other pile); with the count told the hand
    is not settled wrong."""
    dec, dfn = split(SLOVENIAN, 28, seed=12)
    dec = [c for c in dec if c not in ("T3", "T5", "DJ")] + ["T3", "T5"]
    dfn = [c for c in dfn if c not in ("T3", "T5", "DJ")] + ["DJ"]
    misread = Sighting((0.0, 100.0), (0.0, -1.0), 80.0, (("T5", 0.999), ("T3", 0.0009), ("none", 0.0001)), 0, 0.9)
    piles = piles_of([seen(c, 0.99999 if c == "T5" else 0.995) for c in dec if c != "T3"] + [misread],
                     [seen(c) for c in dfn if c != "DJ"])
    for sizes in (None, SLOVENIAN.pile_sizes(4, len(dec) % 4)):
        d = _Decoder(SLOVENIAN, piles, None, (), HandSettings(), sizes=sizes)
        world, _ = d._solve()
        k = next(i for i, r in enumerate(d.reads) if r.s is misread)
        assert world[k] in d.reads[k].cost
        hand = d.run()
        if not hand.questions:
            assert sorted(ids(hand, "declarer")) == sorted(dec)


def test_pile_sizes_and_trick_cards():
    assert sorted(SLOVENIAN.pile_sizes(4, 3))[:4] == [3, 7, 11, 15] and max(SLOVENIAN.pile_sizes(4, 3)) == 51
    assert SLOVENIAN.pile_sizes(3, 0) == frozenset(range(0, 55, 3))
    assert HUNGARIAN.trick_cards(5) == 4 and SLOVENIAN.trick_cards(3) == 3 and SLOVENIAN.trick_cards(5) is None
    assert scoring.find_game("dappen").trick_cards(4) is None
    for bad in ((1, 0), (4, -1), (4, 13), (4.0, 3), (True, 3)):
        with pytest.raises(ValueError):
            SLOVENIAN.pile_sizes(*bad)


@pytest.mark.parametrize("k", range(20, 35))
def test_a_lost_plain_card_is_asked_only_when_its_pile_changes_the_rounded_points(k):
    dec, dfn = split(SLOVENIAN, k, seed=6)
    lost = next(c for c in dec if scoring.card(c).pips == 0 and not scoring.card(c).trull)
    hand = decode(SLOVENIAN, piles_of([seen(c) for c in dec if c != lost], [seen(c) for c in dfn]))
    with_it = SLOVENIAN.count(dec)
    without = SLOVENIAN.count([c for c in dec if c != lost])
    asked = [q.card for q in hand.questions if q.kind == "which_pile"]
    assert asked == ([lost] if with_it != without else [])
    assert SLOVENIAN.count(hand.sides["declarer"].ids()) in {with_it, without}


def test_thirds_exact_always_asks_for_a_lost_card():
    dec, dfn = split(KOENIGRUFEN, 25, seed=7)
    lost = next(c for c in dfn if scoring.card(c).pips == 0)
    hand = decode(KOENIGRUFEN, piles_of([seen(c) for c in dec], [seen(c) for c in dfn if c != lost]))
    assert [q.card for q in hand.questions] == [lost]


def test_rest_is_theirs_puts_every_unseen_card_on_the_other_side():
    dec, dfn = split(HUNGARIAN, 18, seed=8)
    pile = {"declarer": PileRead((2028, 1520), [seen(c) for c in dec])}
    hand = decode(HUNGARIAN, pile, rest="defenders")
    # Only the count is asked: a card hidden under another would silently count for the Defenders.
    assert [(q.kind, q.side, q.card) for q in hand.questions] == [("count", "declarer", "18")]
    assert ids(hand, "declarer") == sorted(dec) and ids(hand, "defenders") == sorted(dfn)
    assert all(not c.unsure for c in hand.sides["defenders"].cards)
    assert decode(HUNGARIAN, pile, rest="defenders", answers=[Answer("count", "declarer", "yes")]).questions == []
    again = decode(HUNGARIAN, pile, rest="defenders", answers=[Answer("count", "declarer", "no")]).questions
    assert [q.kind for q in again] == ["respread"]


def test_rest_is_theirs_with_a_hole_in_the_photographed_pile_asks_for_a_respread():
    dec, _ = split(HUNGARIAN, 18, seed=9)
    pile = PileRead((2028, 1520), [seen(c) for c in dec[1:]])
    from vision.hand import Gap
    pile.gaps.append(Gap((300.0, 400.0), (0.0, -1.0), 80.0, 0.8))
    hand = decode(HUNGARIAN, {"declarer": pile}, rest="defenders")
    assert [q.kind for q in hand.questions] == ["respread"]
    assert "the left part of the Declarer's pile" in hand.questions[0].text


def test_an_unsure_read_in_the_photographed_pile_that_could_be_a_rest_card_of_other_value_is_asked():
    dec, _ = split(HUNGARIAN, 18, seed=10)
    dec = [c for c in dec if c not in ("SK", "SQ")] + ["SQ"]
    sights = [seen(c) for c in dec if c != "SQ"] + [seen("SQ", 0.6, (("SK", 0.35),), pips=3)]
    hand = decode(HUNGARIAN, {"declarer": PileRead((2028, 1520), sights)}, rest="defenders")
    which = [set(q.choices) for q in hand.questions if q.kind == "which_card"]
    assert len(which) == 1 and {"SQ", "SK"} <= which[0]


def test_decode_refuses_impossible_requests():
    pile = PileRead((10, 10), [])
    with pytest.raises(ValueError, match="say whose the rest is"):
        decode(SLOVENIAN, {"declarer": pile})
    with pytest.raises(ValueError, match="unknown side"):
        decode(SLOVENIAN, {"north": pile}, rest="defenders")
    with pytest.raises(ValueError, match="cannot also be"):
        decode(SLOVENIAN, {"declarer": pile}, rest="declarer")


deals = st.tuples(st.sampled_from([SLOVENIAN, HUNGARIAN, KOENIGRUFEN]), st.integers(6, 36),
                  st.integers(0, 2**31 - 1), st.lists(st.floats(0.3, 1.0), min_size=54, max_size=54))


def dealt(deal):
    """A drawn deal as both piles' reads: each card read as sure as drawn, with a random rival card, or not
    found at all below 0.35. Returns (game, declarer's cards, defenders' cards, piles)."""
    game, k, seed, sureness = deal
    dec, dfn = split(game, k, seed)
    rng = np.random.default_rng(seed)
    ids_ = [c.id for c in game.deck]

    def sights(pile):
        out = []
        for n, c in enumerate(pile):
            p = sureness[n % 54]
            if p < 0.35:
                continue     # not found at all
            other = ids_[int(rng.integers(len(ids_)))]
            others = ((other, (1 - p) * 0.9),) if other != c else ()
            out.append(seen(c, p * 0.999 if others else p * 0.9, others))
        return out

    return game, dec, dfn, piles_of(sights(dec), sights(dfn))


@settings(max_examples=40, deadline=None)
@given(deals)
def test_every_deck_card_lies_in_exactly_one_pile_and_a_settled_hand_is_right(deal):
    game, dec, dfn, piles = dealt(deal)
    ids_ = [c.id for c in game.deck]
    hand = decode(game, piles)
    placed = [c for s in SIDES for c in hand.sides[s].ids()]
    assert sorted(placed) == sorted(ids_)
    if not hand.questions:
        for s in SIDES:
            assert hand.sides[s].card_points == game.count(dec if s == "declarer" else dfn)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 7), st.integers(0, 2**31 - 1))
def test_assignment_is_the_cheapest_permutation(n, seed):
    rng = np.random.default_rng(seed)
    cost = rng.uniform(0, 10, (n, n))
    cost[rng.random((n, n)) < 0.3] = 1e9            # options a read does not have
    solved = _assign(cost)
    assert sorted(solved.rows) == list(range(n))
    best = min(sum(cost[i][p[i]] for i in range(n)) for p in itertools.permutations(range(n)))
    assert solved.total == pytest.approx(best)
    # From that solve, one row forced onto one column (at another cost), several times over (the paths between
    # columns are found once): the cheapest permutation that has it.
    for _ in range(3):
        row, col, keep = int(rng.integers(n)), int(rng.integers(n)), float(rng.uniform(0, 10))
        forced = _forced(cost, solved, (row, col, keep))
        masked = cost.copy()
        masked[row] = 1e9
        masked[row, col] = keep
        best = min(sum(masked[i][p[i]] for i in range(n)) for p in itertools.permutations(range(n)))
        assert sorted(forced.rows) == list(range(n)) and forced.total == pytest.approx(best)
        assert forced.rows[row] == col
    # Some rows changed (a hand told an answer): solved again from the first, only those rows placed again.
    changed = cost.copy()
    for i in rng.choice(n, int(rng.integers(1, n + 1)), replace=False):
        changed[i] = rng.uniform(0, 10, n)
        changed[i][rng.random(n) < 0.3] = 1e9
    again = _assign(changed, (cost, solved))
    best = min(sum(changed[i][p[i]] for i in range(n)) for p in itertools.permutations(range(n)))
    assert sorted(again.rows) == list(range(n)) and again.total == pytest.approx(best)
    assert (changed - again.u[:, None] - again.v[None, :] >= -1e-6).all()     # its potentials stay feasible


def test_a_gap_in_a_steady_spread_is_found_where_the_card_lies():
    step = 0.95 * 80 * 10.4 / 44.5                # index widths at 80 px index height
    xs = [100 + i * step for i in range(9) if i != 5]
    reads = [seen("T2", x=x) for x in xs]
    gaps, _ = _gaps(reads, HandSettings())
    assert len(gaps) == 1
    assert gaps[0].centre[0] == pytest.approx(100 + 5 * step, abs=1.0) and gaps[0].chance > 0.5


def test_a_sloppy_spread_has_no_sure_gaps():
    rng = np.random.default_rng(0)
    xs = np.cumsum(rng.uniform(6, 30, 12))
    gaps, _ = _gaps([seen("T2", x=float(x)) for x in xs], HandSettings())
    assert all(g.chance < 0.5 for g in gaps)


def _at(card: str, centre, up, p: float = 0.98, others=()) -> Sighting:
    return replace(seen(card, p, others), centre=tuple(map(float, centre)), up=tuple(map(float, up)))


def test_a_cards_two_indices_join_only_when_they_agree_and_the_better_pair_first():
    from vision.recogniser import SAME_CARD_ANGLE, SAME_CARD_SPAN

    h = 80.0
    up, right = np.array([0.0, -1.0]), np.array([1.0, 0.0])
    a = np.radians(SAME_CARD_ANGLE)
    corner = np.array([300.0, 100.0])
    turned = corner + SAME_CARD_SPAN * h * (np.cos(a) * up + np.sin(a) * right)    # its bottom-right index
    # The D1 on top of the spread shows both indices; the T7 under it lies a little to its left, so its index
    # lies at the span from the D1's turned index too, nearly on the diagonal.
    t7 = corner - 0.12 * h * right
    # (the classifier gives every read a trace of its neighbours' cards)
    reads = [_at("T7", t7, up, 0.98, (("D1", 0.004),)), _at("D1", corner, up),
             _at("D1", turned, -up, 0.98, (("T7", 0.003),))]
    out = _merge_same_card(reads)
    assert sorted(s.likely[0][0] for s in out) == ["D1", "T7"]
    assert next(s for s in out if s.likely[0][0] == "T7").centre == tuple(t7)
    # two indices at the span that name different cards stay two reads
    out = _merge_same_card([_at("T7", corner, up, 0.98, (("D1", 0.004),)),
                            _at("D1", turned, -up, 0.98, (("T7", 0.003),))])
    assert sorted(s.likely[0][0] for s in out) == ["D1", "T7"]
    # an unsure index joins the sure one that agrees with it: their evidence multiplies
    out = _merge_same_card([_at("HK", corner, up, 0.4, (("HQ", 0.35),)), _at("HK", turned, -up, 0.9)])
    assert len(out) == 1 and out[0].likely[0][0] == "HK" and out[0].likely[0][1] > 0.9


def test_pile_read_round_trips_through_json():
    pile = PileRead((2028, 1520), [seen("T21"), seen("HK", 0.6, (("HQ", 0.3),))])
    back = PileRead.from_json(json.loads(json.dumps(pile.to_json())))
    assert [s.likely[0][0] for s in back.sightings] == ["T21", "HK"]
    assert back.size == (2028, 1520)


def test_one_photo_of_both_piles_splits_at_the_widest_gap():
    left = [seen(c, x=100 + 20 * i) for i, c in enumerate(["T1", "T2", "T3"])]
    right = [seen(c, x=900 + 20 * i) for i, c in enumerate(["HK", "HQ"])]
    piles = PileRead((2028, 1520), left + right).split_by_gap()
    assert [s.likely[0][0] for s in piles["declarer"].sightings] == ["T1", "T2", "T3"]
    assert [s.likely[0][0] for s in piles["defenders"].sightings] == ["HK", "HQ"]
    assert PileRead((2028, 1520), left).split_by_gap() is None


def test_hand_json_has_the_documented_shape():
    dec, dfn = split(SLOVENIAN, 24)
    hand = decode(SLOVENIAN, piles_of([seen(c) for c in dec], [seen(c) for c in dfn[1:]]))
    out = hand.to_json(SLOVENIAN)
    assert set(out["sides"]) == set(SIDES)
    card = out["sides"]["declarer"]["cards"][0]
    assert set(card) == {"id", "confidence", "pips", "quad", "unsure"}
    for q in out["questions"]:
        assert q["kind"] in {"which_card", "which_pile", "respread", "pile_size"} and q["text"]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "device.cli", "hand", *args], check=False, capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def test_cli_refuses_a_bad_image_with_the_reason(tmp_path):
    bad = tmp_path / "pile.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    good = ROOT / "device/demo/photos/hand1_defenders.jpg"
    out = _cli(str(bad), str(good), "--game", "slovenian", "--json")
    assert out.returncode == 1
    line = json.loads(out.stdout)
    assert line["image"] == str(bad) and line["error"]


def test_cli_says_what_the_tricks_need():
    out = _cli("a.jpg", "b.jpg", "--game", "slovenian", "--talon", "3")
    assert out.returncode == 2 and "--players" in json.loads(out.stdout)["error"]    # 3 or 4 play it
    out = _cli("a.jpg", "b.jpg", "--game", "koenigrufen", "--talon", "13")
    assert out.returncode == 2 and "0-12" in json.loads(out.stdout)["error"]
    out = _cli("a.jpg", "b.jpg", "--game", "slovenian", "--players", "4")
    assert out.returncode == 2 and "--talon" in json.loads(out.stdout)["error"]


def test_cli_takes_the_count_from_the_contract_and_says_what_it_cannot():
    from device.commands.hand import contract_talon

    game = SLOVENIAN
    assert contract_talon(game, None, "two") == (2, "") and contract_talon(game, 2, "two") == (2, "")
    assert contract_talon(game, None, None) == (None, "")       # nothing said: the count stays open
    assert contract_talon(scoring.find_game("zwanzigerrufen"), None, None) == (0, "")   # no talon dealt
    from device.commands.hand import pile_sizes

    hungarian = scoring.find_game("hungarian")        # four or five at the table, tricks of four either way
    assert pile_sizes(hungarian, 2, None) == (hungarian.pile_sizes(4, 2), "")
    assert pile_sizes(game, 2, None)[0] is None and "--players" in pile_sizes(game, 2, None)[1]   # 3 or 4
    out = _cli("a.jpg", "b.jpg", "--game", "slovenian", "--contract", "beggar", "--players", "4")
    assert out.returncode == 2 and "say the number" in json.loads(out.stdout)["error"]
    out = _cli("a.jpg", "b.jpg", "--game", "slovenian", "--contract", "three", "--talon", "2", "--players", "4")
    assert out.returncode == 2 and "disagree" in json.loads(out.stdout)["error"]
    out = _cli("a.jpg", "b.jpg", "--game", "koenigrufen", "--contract", "nonsense")
    assert out.returncode == 2 and "has no contract 'nonsense'" in json.loads(out.stdout)["error"]


def test_cli_says_how_many_photos_it_needs():
    out = _cli("a.jpg", "--game", "slovenian")
    assert out.returncode == 2 and "two photos" in json.loads(out.stdout)["error"]
    out = _cli("a.jpg", "b.jpg", "--game", "nonsense")
    assert out.returncode == 2 and "error" in json.loads(out.stdout)


@pytest.mark.slow
def test_cli_reads_the_demo_hand_as_one_hand():
    photos = ROOT / "device/demo/photos"
    out = _cli(str(photos / "hand1_declarer.jpg"), str(photos / "hand1_defenders.jpg"), "--game", "slovenian")
    assert out.returncode == 0, out.stderr
    hand = json.loads(out.stdout)
    placed = [c["id"] for s in SIDES for c in hand["sides"][s]["cards"]]
    assert sorted(placed) == sorted(c.id for c in SLOVENIAN.deck)
    for side in SIDES:
        truth = json.loads((photos / f"hand1_{side}.json").read_text())["pile"]
        if not hand["questions"]:
            assert sorted(c["id"] for c in hand["sides"][side]["cards"]) == sorted(truth)
    assert hand["ms"] > 0
    from vision.recogniser import latest_release
    assert hand["model"] == latest_release().name and "switched" not in hand     # the reference deck


@pytest.mark.slow
def test_cli_says_when_the_contract_cannot_make_the_declarers_count():
    photos = ROOT / "device/demo/photos"
    truth = json.loads((photos / "hand1_declarer.json").read_text())["pile"]
    fits = {3: "three", 2: "two", 1: "one", 0: "solo_without"}[len(truth) % 4]
    wrong = "three" if fits != "three" else "two"
    args = [str(photos / "hand1_declarer.jpg"), str(photos / "hand1_defenders.jpg"), "--game", "slovenian",
            "--players", "4", "--contract"]
    right = json.loads(_cli(*args, fits).stdout)
    assert "count_warning" not in right and len(right["sides"]["declarer"]["cards"]) == len(truth)
    out = json.loads(_cli(*args, wrong).stdout)
    assert out["count_warning"].startswith(f"the Declarer's pile holds {len(truth)} cards")


@pytest.mark.slow
def test_cli_reads_cards_the_default_reads_unsure_with_the_release_for_other_printings(monkeypatch, capsys):
    """The table's watch on the command line: past its line, both photos are read again with that release."""
    import argparse

    from device.commands import hand as hand_command
    from vision.printing import PrintingWatch
    from vision.recogniser import printing_release

    monkeypatch.setattr(PrintingWatch, "unlike_reference", lambda self: True)
    photos = ROOT / "device/demo/photos"
    args = argparse.Namespace(images=[str(photos / "hand1_declarer.jpg"), str(photos / "hand1_defenders.jpg")],
                              game="slovenian", rest=None, both=False, talon=None, contract=None, players=None,
                              json=True,
                              model=None)
    assert hand_command.run(args) == 0
    hand = json.loads(capsys.readouterr().out)
    assert hand["model"] == printing_release().name
    assert hand["switched"].startswith(f"read with {printing_release().name}, the release for other printings: ")
    assert sorted(c["id"] for s in SIDES for c in hand["sides"][s]["cards"]) == sorted(c.id for c in SLOVENIAN.deck) \
        or hand["questions"]
    from vision.recogniser import latest_release
    args.model = str(latest_release())      # a release named is never switched away from
    assert hand_command.run(args) == 0
    assert "switched" not in json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_reader_reads_a_photo_into_a_pile():
    import vision
    reader = HandReader(vision.Recogniser.load())
    pile = reader.read_pile(vision.read_image(ROOT / "device/demo/photos/hand1_declarer.jpg"), SLOVENIAN)
    truth = json.loads((ROOT / "device/demo/photos/hand1_declarer.json").read_text())["pile"]
    best = {s.likely[0][0] for s in pile.sightings}
    assert len(best & set(truth)) >= len(truth) - 2


# Fakes that read the photo itself (as in the recogniser's tests): a marker square is an index; its red level
# sets the detector's heat (255: sure, 220: faint), its green level the card the classifier reads.
FAKE_LABELS = ["T1", "T2", "T3", "HK", "none"]
FAINT = HandSettings(faint_heat=0.05)       # off by default (see the README: it settled an independent hand wrong)


def _fake_reader(settings=FAINT, labels=FAKE_LABELS):
    import math

    import cv2

    from vision.recogniser import Recogniser, Settings
    from vision.runners.fake import FakeRunner

    def detector(batch):
        _, _, h, w = batch.shape
        out = np.zeros((1, 6, h // 4, w // 4), np.float32)
        out[0, 0] = -10
        red = batch[0, 2]
        n, _, stats, cents = cv2.connectedComponentsWithStats((red > 200).astype(np.uint8))
        for k in range(1, n):
            cx, cy = cents[k]
            ix, iy = int(cx / 4), int(cy / 4)
            logit = 10.0 if red[int(cy), int(cx)] > 240 else -2.0     # heat 1.0 or 0.12
            out[0, :, iy, ix] = [logit, cx / 4 - ix - 0.5, cy / 4 - iy - 0.5, 0, -1, math.log(2 * stats[k, 2] / 32)]
        return out

    def classifier(batch):
        green = batch[:, 1, batch.shape[2] // 2, batch.shape[3] // 2]
        out = np.full((len(batch), len(labels) + 5), -10.0, np.float32)
        for i, g in enumerate(green):
            if g >= 240:                                         # "T2?": the T2, or perhaps the T3
                out[i, 1], out[i, 2] = 1.1, 0.0
            else:
                out[i, min(round(g / 50), len(labels) - 1)] = 10.0
            out[i, len(labels)] = 10.0                           # 0 pips (the fake's cards are read alike)
        return out

    rec = Recogniser(FakeRunner(detector), FakeRunner(classifier), labels,
                     {c: 0 for c in labels if c != "none"}, Settings(second_looks=0))
    return HandReader(rec, settings)


def _marker_photo(markers, side=24, labels=FAKE_LABELS):
    img = np.full((400, 1200, 3), 60, np.uint8)
    for x, red, card in markers:
        green = 250 if card == "T2?" else 50 * labels.index(card)
        img[200 - side // 2:200 + side // 2, x - side // 2:x + side // 2] = (0, green, red)
    return img


def test_a_faint_peak_that_reads_plainly_as_a_card_no_neighbour_shows_is_kept():
    photo = _marker_photo([(100, 255, "T1"), (300, 255, "T2"),     # found
                           (200, 220, "T3"),                       # faint, a card of its own: kept
                           (130, 220, "T1"),                       # faint, the neighbour seen again: not a card
                           (700, 220, "none")])                    # faint, no card
    pile = _fake_reader().read_pile(photo, SLOVENIAN)
    best = sorted((round(s.centre[0]), s.likely[0][0]) for s in pile.sightings)
    assert best == [(100, "T1"), (200, "T3"), (300, "T2")]
    faint = next(s for s in pile.sightings if s.likely[0][0] == "T3")
    assert faint.heat < 0.25                    # the decoder weighs it as the faint peak it is
    without = _fake_reader(HandSettings(faint_heat=None)).read_pile(photo, SLOVENIAN)
    assert sorted(s.likely[0][0] for s in without.sightings) == ["T1", "T2"]


def test_a_faint_peak_reading_a_doubt_of_the_read_beside_it_is_that_index_again():
    # the read at 300 is the T2 or perhaps the T3; a faint peak beside it reading the T3 is the same index seen
    # again (kept, it would take the T3 and push the read beside it onto a card it is not)
    photo = _marker_photo([(100, 255, "T1"), (300, 255, "T2?"), (326, 220, "T3")])
    pile = _fake_reader().read_pile(photo, SLOVENIAN)
    assert sorted(round(s.centre[0]) for s in pile.sightings) == [100, 300]
    doubtful = max(pile.sightings, key=lambda s: s.centre[0])
    assert doubtful.likely[0][0] == "T2" and doubtful.p("T3") > 0.2
    kept = _fake_reader(replace(FAINT, faint_doubt=1.0)).read_pile(photo, SLOVENIAN)     # the check off
    assert sorted(round(s.centre[0]) for s in kept.sightings) == [100, 300, 326]


def test_a_gap_close_beside_a_read_in_a_tight_pile_is_looked_at_again():
    """A tight pile's step is shorter than a third of an index: the gap a missing card leaves lies that close to
    the reads on both sides. It is looked at again (a fresh independent hand, seed 98000 hand 19, left a D2 read
    0.96 sure unread there), unless what the look reads is the read beside it, its own index seen again."""
    from vision.hand import Gap

    reader = _fake_reader(HandSettings())
    beside = Sighting.named("T1", 0, centre=(100.0, 200.0), height=48.0)
    gap = Gap((110.0, 200.0), (0.0, -1.0), 48.0, 0.8)                  # 10 px off: within 0.3 of a height
    photo = _marker_photo([(110, 255, "T3")], side=8)
    found = reader._look_again(photo, SLOVENIAN, gap, [beside])
    assert found is not None and found.relook and found.likely[0][0] == "T3"
    assert found.p("T3") == pytest.approx(0.8, abs=0.01)                 # only as sure as the spread's step
    off = _fake_reader(HandSettings(relook_near=False))
    assert off._look_again(photo, SLOVENIAN, gap, [beside]) is None      # as before: a gap that close was left
    # the neighbour's own index seen again is not a card
    same = _marker_photo([(110, 255, "T1")], side=8)
    assert reader._look_again(same, SLOVENIAN, gap, [beside]) is None
    # nor is a gap already looked at (a second look found there stands for it)
    assert reader._look_again(photo, SLOVENIAN, gap, [beside, found]) is None


def test_a_card_one_step_beyond_a_spreads_end_is_looked_at_again():
    """The detector can miss a spread's last index (glare on it, a pencil beside it: seed 128000 hands 19 and 97
    each lost one so, showing 65-72 % of its index). One step beyond each end of a spread is looked at again; a
    read there is kept when it is plainly a card, not the card beside it, nor one read plainly elsewhere (the top
    card's other index, or its own index seen again)."""
    labels = ["T2", "T3", "T4", "T5", "none"]         # plain Taroks (no pips), read alike by the fake
    photo = _marker_photo([(100, 255, "T2"), (130, 255, "T3"), (160, 255, "T4"),     # a spread, found
                           (190, 220, "T5"),      # beyond its end, too faint for the detector's first look
                           (70, 220, "T3")],      # before its start: the T3 read plainly already
                          labels=labels)
    pile = _fake_reader(HandSettings(), labels).read_pile(photo, SLOVENIAN)
    best = sorted((round(s.centre[0]), s.likely[0][0]) for s in pile.sightings)
    assert best == [(100, "T2"), (130, "T3"), (160, "T4"), (190, "T5")]
    end = next(s for s in pile.sightings if s.likely[0][0] == "T5")
    assert not end.relook and end.p("T5") > 0.9            # a plain read: the step says nothing of a card there
    without = _fake_reader(HandSettings(end_card=None), labels).read_pile(photo, SLOVENIAN)
    assert sorted(s.likely[0][0] for s in without.sightings) == ["T2", "T3", "T4"]


def test_peaks_found_are_the_detectors_and_the_weaker_ones_come_apart():
    photo = _marker_photo([(100, 255, "T1"), (300, 255, "T2"), (200, 220, "T3")])
    rec = _fake_reader().pile_rec
    found, weaker = rec.peaks(photo, None, 0.05)
    plain = rec.detect(photo)
    np.testing.assert_allclose(found[0], plain[0])
    assert sorted(np.round(found[0][:, 0])) == [100, 300] and np.round(weaker[0][:, 0]).tolist() == [200]
    assert (weaker[3] < 0.25).all() and len(rec.peaks(photo)[1][0]) == 0


# ---------------------------------------------------------------- only questions that narrow the score

PATIENT = HandSettings(check_s=60)     # no time cap in the way of the checks


def _possible(game, piles, q, answers=(), st=PATIENT):
    """The scores still possible after each answer to q, one set per answer."""
    return [_Decoder(game, piles, None, list(answers) + [a], st, False).run().outcomes for a in q.answers()]


def _fixture(name: str, told: bool = True):
    """A hand's pile reads kept in tests/vision/data/hands (from the benchmark): the game, both piles, the count
    of whole tricks when told (and the file has one), and where every card truly lies."""
    data = json.loads((ROOT / f"tests/vision/data/hands/{name}.json").read_text())
    game = scoring.find_game(data["game"])
    piles = {s: PileRead.from_json(data["piles"][s]) for s in SIDES}
    sizes = game.pile_sizes(data["players"], data["talon"]) if told and "players" in data else None
    return game, piles, sizes, data.get("truth")


def test_a_question_whose_answers_leave_the_same_scores_open_is_not_asked():
    game, piles, _, truth = _fixture("two_lost", told=False)
    # the 200-to-1 doubts of session 7, that made H3 quiet (a read's doubt shared alike by every family, as then)
    st_ = HandSettings(check_s=60, plausible=5.3, free_family=1.0)
    every = _Decoder(game, piles, None, [], st_, False).run()
    asked = _Decoder(game, piles, None, [], st_).run()
    lost = {q.card for q in every.questions if q.kind == "which_pile"}
    assert lost == {"T10", "H3"} and len(every.outcomes) == 2
    # Where the 3 of Hearts lies changes nothing until the X is placed: only the X is asked about.
    assert [(q.kind, q.card) for q in asked.questions] == [("which_pile", "T10")]
    for q in asked.questions:
        assert len(set(map(frozenset, _possible(game, piles, q)))) > 1
    told = _Decoder(game, piles, None, [Answer("which_pile", "declarer", "T10")], st_).run()
    assert told.questions == [] and len(told.outcomes) == 1
    for s in SIDES:
        assert told.sides[s].card_points == game.count(truth[s])


def _answered_truly(game, piles, sizes, truth, answers, most=6, settings=PATIENT):
    """The hand after the players answer its first question truthfully, again and again, until none is open."""
    answers = list(answers)
    hand = _Decoder(game, piles, None, answers, settings, sizes=sizes).run()
    while hand.questions and len(answers) < most:
        q = next(q for q in hand.questions if q.kind != "respread")     # players may answer instead of respreading
        if q.kind == "which_pile":
            answers.append(Answer("which_pile", next(s for s in SIDES if q.card in truth[s]), q.card))
        elif q.kind == "pile_size":
            assert str(len(truth[q.side])) in q.choices
            answers.append(Answer("pile_size", q.side, str(len(truth[q.side]))))
        else:
            answers.append(Answer("which_card", q.side, next((c for c in q.choices if c in truth[q.side]), "none"),
                                  q.sighting))
        hand = _Decoder(game, piles, None, answers, settings, sizes=sizes).run()
    assert hand.questions == []
    return hand


def test_a_read_unsure_of_every_card_is_asked_whether_it_is_one():
    """Hand 197 of seed 90000 (42 cards): the Declarer's read 14 is no card, unsure of every card it might be.
    Taken for the lost T18, it made the count fit with two more lost cards in the Declarer's pile, and the hand
    ended settled wrong after truthful taps. Whether such a read is a card at all is asked up to 200 to 1."""
    game, piles, sizes, truth = _fixture("no_card")
    hand = _answered_truly(game, piles, sizes, truth, [])
    assert {s: sorted(hand.sides[s].ids()) for s in SIDES} == {s: sorted(truth[s]) for s in SIDES}
    # asked about as any other reading, the truthful taps end on a wrong hand
    wrong = _answered_truly(game, piles, sizes, truth, [], settings=HandSettings(check_s=60, plausible_none=3.0))
    assert sorted(wrong.sides["declarer"].ids()) != sorted(truth["declarer"])


def test_a_read_of_a_card_seen_surely_in_its_own_photo_may_be_that_card_again():
    """Hand 52 of the generator's seed 90000: the Declarer's read 5 (D4 or D1, both read surely elsewhere in that
    photo) is one of them seen twice. Taken for the lost T12 it made the count fit with the lost Jacks in the
    Declarer's pile: settled wrong. Now the hand asks about that read, and the truthful answer settles it right."""
    game, piles, sizes, truth = _fixture("seen_twice")
    hand = _Decoder(game, piles, None, [], HandSettings(check_s=60), sizes=sizes).run()
    assert hand.questions, "settled although read 5 may be the T12 or nothing"
    q = next(q for q in hand.questions if q.kind == "which_card" and q.side == "declarer" and q.sighting == 5)
    assert "none" in q.choices and "T12" in q.choices
    answers = [Answer("which_card", "declarer", "none", 5)]
    told = _Decoder(game, piles, None, answers, HandSettings(check_s=60), sizes=sizes).run()
    # The lost cards then lie all in the Declarer's pile or all in the Defenders': a tap says which (read as
    # the reader did before session 48, the T12's pile; now that the Defenders' second look at their gap is the
    # C7, the Declarer's pile size). The other questions answered truthfully too, the hand is settled right.
    assert ("which_pile", "T12") in [(q.kind, q.card) for q in _Decoder(
        game, piles, None, answers, HandSettings(check_s=60, relook_none=1.0), sizes=sizes).run().questions]
    assert [q.kind for q in told.questions] == ["pile_size"]
    told = _answered_truly(game, piles, sizes, truth, answers)
    assert {s: sorted(told.sides[s].ids()) for s in SIDES} == {s: sorted(truth[s]) for s in SIDES}
    # Without the rule (a read's "none" only as the classifier says) and with a read unsure of every card asked
    # about as any other, the same hand settles wrong.
    old = _Decoder(game, piles, None, [], HandSettings(check_s=60, seen_twice=0.0, plausible_none=3.0),
                   sizes=sizes).run()
    assert not old.questions and sorted(old.sides["declarer"].ids()) != sorted(truth["declarer"])


def test_a_count_that_allows_two_numbers_of_lost_cards_asks_how_many():
    """Hand 34 of the generator's seed 90000: with five lost cards placed by the players, six 0-pip ones stay
    lost and the count of whole tricks allows one or four of them in the Declarer's pile. No single card's pile
    tells 24 from 27 cards, so no which_pile question narrows the score; the hand was once called settled with
    27. Now it asks how many cards the Declarer's pile holds, and the truthful answers settle it right."""
    game, piles, sizes, truth = _fixture("two_counts")
    placed = [Answer("which_pile", "defenders", c) for c in ("T1", "T3", "DQ", "DJ", "T5")] + [
        Answer("which_card", "declarer", "SQ", 22)]
    hand = _Decoder(game, piles, None, placed, HandSettings(check_s=60), sizes=sizes).run()
    assert len(hand.outcomes) > 1
    assert [(q.kind, q.side, q.choices) for q in hand.questions] == [("pile_size", "declarer", ("24", "27"))]
    told = _Decoder(game, piles, None, placed + [Answer("pile_size", "declarer", "24")], HandSettings(check_s=60),
                    sizes=sizes).run()
    assert len(told.outcomes) == 1 and len(told.sides["declarer"].ids()) == 24
    hand = _answered_truly(game, piles, sizes, truth, [], most=14)
    # settled is the score, not each card: 0-pip cards of one count may lie either way
    assert [hand.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    assert [len(hand.sides[s].ids()) for s in SIDES] == [len(truth[s]) for s in SIDES]


def test_lost_cards_that_round_the_points_only_together_ask_the_pile_size_once():
    """Hand 28 of the generator's seed 90000: three lost 0-pip cards whose piles move the rounded Card Points
    only together. A which_pile question was put first and left the same two scores open either way; the
    pile's size tells them apart in one tap."""
    game, piles, _, truth = _fixture("rounding", told=False)
    hand = _Decoder(game, piles, None, [], HandSettings(check_s=60)).run()
    assert len(hand.outcomes) == 2
    (q,) = hand.questions
    assert q.kind == "pile_size" and str(len(truth[q.side])) in q.choices
    assert q.side == "defenders" and len(truth["defenders"]) < len(truth["declarer"])   # the smaller to count
    after = [_Decoder(game, piles, None, [a], HandSettings(check_s=60)).run().outcomes for a in q.answers()]
    assert len(set(after)) > 1, "every answer leaves the same scores possible"
    told = _Decoder(game, piles, None, [Answer("pile_size", q.side, str(len(truth[q.side])))],
                    HandSettings(check_s=60)).run()
    assert told.settled and [told.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def test_a_read_that_may_be_a_card_or_none_rounding_the_points_asks_the_pile_size_not_an_idle_doubt():
    """Report hand 61 of seed 90000 read by the printings release: one unsure read in the Declarer's photo may
    be the lost D2 or no card, which moves the Card Points only by rounding (15 or 16). No card is lost in that
    reading, so no placement counted two sizes, and the doubt was put alone: "the 2 of Diamonds, or no card?",
    whose answers each left the same two scores open. The Declarer's count tells them apart in one tap.
    Since session 31 the read giving no card nothing is not doubted as no card (`none_doubt`); the other (no card
    0.069) is asked about alone, and the truthful taps end right. Weighed as before (and `twice_near` as before
    session 38), the count is asked."""
    game, piles, _, truth = _fixture("doubt_rounding", told=False)
    now = _Decoder(game, piles, None, [], HandSettings(check_s=60)).run()
    assert [(q.kind, q.choices) for q in now.questions] == [("which_card", ("T9", "none"))]
    right = _answered_truly(game, piles, None, truth, [], settings=HandSettings(check_s=60))
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    before = HandSettings(check_s=60, none_doubt=0.0, twice_near=0.8)
    hand = _Decoder(game, piles, None, [], before).run()
    assert len(hand.outcomes) == 2
    (q,) = hand.questions
    assert q.kind == "pile_size" and str(len(truth["declarer"])) in q.choices
    after = {a.card: _Decoder(game, piles, None, [a], before).run() for a in q.answers()}
    assert len({h.outcomes for h in after.values()}) > 1, "every answer leaves the same scores possible"
    right = after[str(len(truth["declarer"]))]
    assert right.settled and [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def test_lost_cards_that_matter_only_by_the_count_are_one_count_question_not_one_tap_each():
    """The independent renderer's hand 12 (seed 95000): three taroks of no pips lie unseen in the Defenders'
    pile, and where each lies moves the rounded Card Points. Three "which pile?" questions each narrowed the
    score; the Declarer's count alone settles it: one tap."""
    game, piles, _, truth = _fixture("count_only", told=False)
    hand = _Decoder(game, piles, None, [], HandSettings(check_s=60)).run()
    (q,) = hand.questions
    assert q.kind == "pile_size" and str(len(truth["declarer"])) in q.choices
    for a in q.answers():
        assert len(_Decoder(game, piles, None, [a], HandSettings(check_s=60)).run().outcomes) == 1
    told = _Decoder(game, piles, None, [Answer("pile_size", "declarer", str(len(truth["declarer"])))],
                    HandSettings(check_s=60)).run()
    assert told.settled and [told.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    each = _Decoder(game, piles, None, [], HandSettings(check_s=60, one_count=False)).run()
    assert sorted(q.card for q in each.questions if q.kind == "which_pile") == ["T10", "T11", "T4"]


def test_lost_cards_alike_to_the_score_are_placed_by_one_count_after_the_others():
    """A King and two Queens lost from the Declarer's photo: the King's pile is a bonus fact and is asked; the
    Queens differ only by how many lie in each pile, so once the King is placed one count places both."""
    dec, dfn = split(SLOVENIAN, 27, seed=13)
    lost = ["HK", "CQ", "HQ"]
    assert all(c in dec for c in lost)
    piles = piles_of([seen(c) for c in dec if c not in lost], [seen(c) for c in dfn])
    hand = decode(SLOVENIAN, piles)
    assert [(q.kind, q.card) for q in hand.questions] == [("which_pile", "HK"), ("pile_size", None)]
    king = [Answer("which_pile", "declarer", "HK")]
    (q,) = decode(SLOVENIAN, piles, answers=king).questions
    assert q.kind == "pile_size" and q.side == "declarer" and q.choices == ("25", "26", "27")
    told = decode(SLOVENIAN, piles, answers=king + [Answer("pile_size", "declarer", "27")])
    assert told.settled and [told.sides[s].card_points for s in SIDES] == [SLOVENIAN.count(dec), SLOVENIAN.count(dfn)]
    # one tap a card without it: the Queens asked one by one
    each = _Decoder(SLOVENIAN, piles, None, [], HandSettings(one_count=False)).run()
    assert sorted(q.card for q in each.questions) == ["CQ", "HK", "HQ"]


@settings(max_examples=12, deadline=None)
@given(deals)
def test_a_settled_hand_has_one_possible_score_and_every_question_narrows_it(deal):
    game, _dec, _dfn, piles = dealt(deal)
    # Every question tried (no time limit on that), each answer's other readings weighed for 0.25 s, up to 8
    # questions: the drawn hands link most cards in one group, slow to solve again and again.
    st_ = HandSettings(check_s=60, budget_s=0.25, check_questions=8)
    hand = _Decoder(game, piles, None, [], st_).run()
    if not hand.questions:
        assert len(hand.outcomes) == 1
        return
    assert len(hand.outcomes) > 1
    asked = [q for q in hand.questions if q.kind in ("which_card", "which_pile")]
    if len(asked) <= st_.check_questions:
        narrowing = [len(set(_possible(game, piles, q, st=st_))) > 1 for q in asked]
        assert all(narrowing) or not any(narrowing)   # none narrows alone: then all are kept


def test_questions_the_check_did_not_reach_wait_for_the_hand_read_again():
    """The check weighs each question's answers within a budget; past it (a hand of many taps, and on a slow
    machine its time cap binds first) the questions it did not reach were put unchecked, and some leave the score
    as it is (an independent hand put "Which pile is the XV in?" so). Now only those it found to narrow the score
    are put, beside the request for a better photo; the rest come back with the hand read again once they are
    answered, and truthful answers never settle the hand wrong."""
    game, piles, sizes, truth = _fixture("placed_pair")
    shows = json.loads((ROOT / "tests/vision/data/hands/placed_pair.json").read_text())["shows"]
    short = HandSettings(check_s=60, check_solves=600)      # counted, so the same on any machine

    def idle(q, answers=()):
        return len({_Decoder(game, piles, None, [*answers, a], PATIENT, False, sizes=sizes).run().outcomes
                    for a in q.answers()}) == 1

    hand = _Decoder(game, piles, None, [], short, sizes=sizes).run()
    before = _Decoder(game, piles, None, [], replace(short, checked_only=False), sizes=sizes).run()
    asked = [q for q in hand.questions if q.answers()]
    unchecked = [q for q in before.questions if q.answers() and q not in asked]
    assert asked and unchecked and all(q in before.questions for q in asked)
    assert [q.kind for q in hand.questions if not q.answers()] == ["respread", "respread"]
    assert not any(idle(q) for q in asked) and any(idle(q) for q in unchecked)
    # answered truthfully, one at a time, the rest are asked in turn (or a new photo alone): never settled wrong
    answers: list[Answer] = []
    while len(answers) < 12 and (open_ := [q for q in hand.questions if q.answers()]):
        answers.append(_truly(open_[0], truth, shows))
        hand = _Decoder(game, piles, None, answers, short, sizes=sizes).run()
    assert hand.settled or all(q.kind == "respread" for q in hand.questions)
    if hand.settled:
        assert [hand.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def _lost_pip_cards(n: int, seed: int = 13):
    dec, dfn = split(SLOVENIAN, 27, seed=seed)
    lost = [c for c in dec if scoring.card(c).pips >= 2][:n]
    return dec, dfn, lost, piles_of([seen(c) for c in dec if c not in lost], [seen(c) for c in dfn])


def test_many_lost_cards_ask_for_a_better_spread_first_with_the_taps_below():
    """Five lost cards whose pile matters: a better photo is quicker than five searches through the piles."""
    _, _, lost, piles = _lost_pip_cards(5)
    hand = decode(SLOVENIAN, piles)
    kinds = [q.kind for q in hand.questions]
    assert kinds[:2] == ["respread", "respread"] and {q.side for q in hand.questions[:2]} == set(SIDES)
    assert "5 cards were not found in either photo" in hand.questions[0].text
    assert sorted(q.card for q in hand.questions if q.kind == "which_pile") == sorted(lost)
    # a pile whose spread shows short steps is the one to spread again
    piles["declarer"].tight.append((1800.0, 700.0))
    hand = decode(SLOVENIAN, piles)
    respread = [q for q in hand.questions if q.kind == "respread"]
    assert [(q.side, q.where) for q in respread] == [("declarer", (1800.0, 700.0))]
    assert "Spread the right part of the Declarer's pile a little" in respread[0].text
    # four are four taps
    assert "respread" not in [q.kind for q in decode(SLOVENIAN, _lost_pip_cards(4)[3]).questions]


def test_the_taps_a_better_photo_makes_needless_wait_behind_it_and_the_other_piles_doubts_stay_asked():
    """A better photo asked of the Declarer's pile (five lost cards, its spread short-stepped): where each lost
    card lies, and how many the pile holds, wait behind the request (`HandRead.instead`) for players who would
    rather tap; a doubt in the Defenders' pile, which that photo cannot settle, stays asked."""
    from vision.hand import decode as read_hand

    _, dfn, lost, piles = _lost_pip_cards(5)
    # a Defenders' King read unsure of one of the lost cards (a Cavalier, 2 pips)
    doubt = next(c for c in dfn if scoring.card(c).pips == 4 and c.endswith("K"))
    other = next(c for c in lost if scoring.card(c).pips == 2)
    piles["defenders"].sightings[dfn.index(doubt)] = seen(doubt, 0.55, ((other, 0.4),), pips=4)
    piles["declarer"].tight.append((1800.0, 700.0))
    before = read_hand(SLOVENIAN, piles, settings=HandSettings(photo_first=False))
    hand = read_hand(SLOVENIAN, piles)
    assert before.questions[0].kind == "respread" and not before.instead
    assert len([q for q in before.questions if q.kind != "respread"]) > 2     # the taps were put below it
    assert [(q.kind, q.side) for q in hand.questions] == [("respread", "declarer"), ("which_card", "defenders")]
    assert hand.questions[1].choices and doubt in hand.questions[1].choices
    assert hand.instead == [q for q in before.questions if q not in hand.questions]
    assert {q.kind for q in hand.instead} <= {"which_pile", "pile_size"} and not hand.settled
    assert sorted(q.card for q in hand.instead if q.kind == "which_pile") == sorted(
        q.card for q in before.questions if q.kind == "which_pile")
    out = hand.to_json(SLOVENIAN)
    assert [q["kind"] for q in out["questions"]] == ["respread", "which_card"]
    assert [q["kind"] for q in out["instead"]] == [q.kind for q in hand.instead]
    # a tap behind the request is answered like any put: the Pagat's pile said, it is asked no more
    first = hand.instead[0]
    told = read_hand(SLOVENIAN, piles, answers=[first.answers()[0]])
    assert first not in told.questions + told.instead


def test_four_lost_plain_cards_are_asked_by_the_pile_size_not_by_an_idle_which_pile():
    """Report hand 61 of seed 90000: four lost 0-pip cards round the Card Points only by how many lie in the
    Declarer's pile, so no single card's pile narrows the score; the pile's size (five possible counts) does,
    in one tap. Before, the size was asked only for up to four counts, and an idle which_pile was put instead."""
    dec, dfn = split(SLOVENIAN, 16, seed=21)
    plain = [c for c in dec + dfn if scoring.card(c).pips == 0 and not scoring.card(c).trull]
    lost = [c for c in dec if c in plain][:4]
    assert len(lost) == 4
    piles = piles_of([seen(c) for c in dec if c not in lost], [seen(c) for c in dfn])
    hand = decode(SLOVENIAN, piles)
    assert [q.kind for q in hand.questions] == ["pile_size"]
    q = hand.questions[0]
    assert q.choices == tuple(str(len(dec) - 4 + k) for k in range(5))
    for a in q.answers():
        told = decode(SLOVENIAN, piles, answers=[a])
        assert told.questions == [] and len(told.outcomes) == 1
    right = decode(SLOVENIAN, piles, answers=[next(a for a in q.answers() if a.card == str(len(dec)))])
    assert right.sides["declarer"].card_points == SLOVENIAN.count(dec)


def test_the_pile_size_is_not_asked_when_its_answer_could_not_be_used():
    """Report hand 103: seven lost cards (past the six whose every placement is tried) made a size question
    whose answer was not used, so it came back after every tap; a size already said is not asked again."""
    dec, dfn = split(SLOVENIAN, 16, seed=21)
    plain = [c for c in dec + dfn if scoring.card(c).pips == 0 and not scoring.card(c).trull]
    seven = [c for c in dec if c in plain][:4] + [c for c in dfn if c in plain][:3]
    hand = decode(SLOVENIAN, piles_of([seen(c) for c in dec if c not in seven], [seen(c) for c in dfn if c not in seven]))
    assert hand.questions and "pile_size" not in [q.kind for q in hand.questions]
    four = seven[:4]
    piles = piles_of([seen(c) for c in dec if c not in four], [seen(c) for c in dfn])
    assert [q.kind for q in decode(SLOVENIAN, piles).questions] == ["pile_size"]
    # a size no placement makes (a miscount) is dropped, and the same question is not put again
    again = decode(SLOVENIAN, piles, answers=[Answer("pile_size", "declarer", str(len(dec) + 9))])
    assert "pile_size" not in [q.kind for q in again.questions] and again.questions


class _SlowClock:
    """perf_counter on a machine where every look at the clock finds `tick` seconds gone."""
    def __init__(self, tick: float):
        self.t, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.t += self.tick
        return self.t


@pytest.mark.parametrize("name,tick", [("two_counts", 0.02), ("rounding", 0.02)])
def test_a_slow_or_busy_machine_asks_the_same_questions(monkeypatch, name, tick):
    """The other readings weighed and the questions checked are counted, not timed (the time is only a safety
    net), so a Raspberry Pi, or this machine under load, puts the same questions as a fast idle one. Budgets in
    seconds (the old 1.0 and 0.6 s) gave other questions on the same hand once the clock ran slow."""
    import vision.decoder as decoder_module

    game, piles, sizes, _ = _fixture(name)
    timed = HandSettings(budget_solves=10 ** 9, check_solves=10 ** 9, budget_s=1.0, check_s=0.6, free_family=1.0)

    def questions(st):
        return [(q.kind, q.card, q.sighting) for q in _Decoder(game, piles, None, [], st, sizes=sizes).run().questions]

    fast, fast_timed = questions(HandSettings()), questions(timed)
    # only the decoder's clock runs slow (pytest's own stays as it is)
    monkeypatch.setattr(decoder_module, "time", SimpleNamespace(perf_counter=_SlowClock(tick)))
    assert questions(HandSettings()) == fast
    monkeypatch.setattr(decoder_module, "time", SimpleNamespace(perf_counter=_SlowClock(tick)))
    assert questions(timed) != fast_timed


@pytest.mark.parametrize("n", [7, 8])
def test_lost_cards_that_matter_only_together_ask_for_a_new_photo_not_an_idle_tap(n):
    """Hand 30 of the independent renderer's seed 96000: eight lost 0-pip cards round the Card Points only by
    how many lie in each pile, too many counts for one tap. No single card's pile narrows the score, and a
    which_pile put alone below the request for a new photo left the same scores open either way. Now the
    request stands alone."""
    dec, dfn = split(SLOVENIAN, 27, seed=13)
    lost = [c for c in dec if scoring.card(c).pips == 0 and not scoring.card(c).trull][:n]
    piles = piles_of([seen(c) for c in dec if c not in lost], [seen(c) for c in dfn])
    hand = decode(SLOVENIAN, piles)
    assert len(hand.outcomes) > 1 and not hand.settled
    assert [q.kind for q in hand.questions] == ["respread", "respread"]
    assert f"{n} cards were not found in either photo" in hand.questions[0].text
    # where one card's pile does narrow the score, it is still asked below the request ...
    five = [c for c in dec if scoring.card(c).pips == 0 and not scoring.card(c).trull][:5]
    piles = piles_of([seen(c) for c in dec if c not in five], [seen(c) for c in dfn])
    each = _Decoder(SLOVENIAN, piles, None, [], HandSettings(one_count=False)).run()
    assert sorted(q.card for q in each.questions if q.kind == "which_pile") == sorted(five)
    # ... unless the Declarer's count settles them all: then that is the one tap below the request (six counts)
    *spread, q = decode(SLOVENIAN, piles).questions
    assert [r.kind for r in spread] == ["respread", "respread"] and "5 cards were not found" in spread[0].text
    assert q.kind == "pile_size" and q.choices == tuple(str(n) for n in range(22, 28))


@pytest.mark.parametrize("told", [False, True])
def test_a_card_an_unsure_read_takes_may_lie_hidden_in_the_other_pile(monkeypatch, told):
    """Hand 11 of seed 90000 on an enrolled printing of the deck: the Declarer's read 36 is no card, unsure
    between four 0-pip taroks, and took the T4 that lies hidden in the Defenders' pile. As none, another unsure
    read beside it took the T4 up, so no single read's doubt showed the other world and the hand was settled
    wrong. Now the reader also weighs each such card off every read and in the other pile: the T4 is asked
    about (its pile, or with the count told, read 36's card). Since session 23 the T10, which the Declarer's read 5
    took while it reads the T18 its neighbour is sure of (0.56), is weighed in the other pile as well: its pile is
    asked too."""
    import vision.decoder as decoder_module

    game, piles, sizes, truth = _fixture("elsewhere", told)
    hand = _Decoder(game, piles, None, [], HandSettings(), sizes=sizes).run()
    # Told the count, read 35 as "none, T3, T4 or T5?" was put alone until session 30 (its answers alone left
    # both scores open); now a reading no count fits costs the read that mends it (`count_fix`), and the two
    # piles are asked as with two photos alone.
    assert [(q.kind, q.card, q.text) for q in hand.questions] == [
        ("which_pile", "T10", "Which pile is the X in?"), ("which_pile", "T4", "Which pile is the IV in?")]
    assert next(c for c in hand.sides["declarer"].cards if c.card_id == "T4").unsure
    right = _answered_truly(game, piles, sizes, truth, [], most=12, settings=HandSettings())
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    # answered the other way, the read keeps the T4 and only the T10's pile is left open
    kept = _Decoder(game, piles, None, [Answer("which_pile", "declarer", "T4")], HandSettings(), sizes=sizes).run()
    assert "T4" in kept.sides["declarer"].ids()
    assert [(q.kind, q.card) for q in kept.questions] == [("which_pile", "T10")]
    # without the check the hand is settled, wrong
    monkeypatch.setattr(decoder_module._Decoder, "_elsewhere", lambda *a: {})
    old = _Decoder(game, piles, None, [], HandSettings(), sizes=sizes).run()
    assert old.settled and [old.sides[s].card_points for s in SIDES] != [game.count(truth[s]) for s in SIDES]


@pytest.mark.parametrize("told", [False, True])
def test_a_lost_card_taken_by_a_read_unsure_of_it_may_lie_in_the_other_pile(monkeypatch, told):
    """Hand 127 of seed 90000 on an enrolled printing (session 23's fine-tune): the Defenders' read 40 is the
    SJ read 33 beside it is sure of, seen again (SJ 0.55, none 0.10, CJ 0.025), and took the lost CJ, which lies
    hidden in the Declarer's pile. Its likeliest card was sure enough that it was not weighed in the other pile,
    though another read holds that card: settled wrong. A read most likely its neighbour's card seen again, unsure
    of the card it took, now has that card weighed in the other pile too; since session 50 such a read is weighed
    as no card as far as an unsure read (`twice_none`), so whether it is a card at all is asked instead (answered
    "no card", the CJ is lost and its pile asked)."""
    import vision.decoder as decoder_module

    game, piles, sizes, truth = _fixture("seen_again", told)
    hand = _Decoder(game, piles, None, [], HandSettings(), sizes=sizes).run()
    assert [(q.kind, q.sighting, q.choices) for q in hand.questions] == [("which_card", 40, ("CJ", "none"))]
    before = _Decoder(game, piles, None, [], HandSettings(twice_none=False), sizes=sizes).run()
    assert ("which_pile", "CJ") in [(q.kind, q.card) for q in before.questions]
    right = _answered_truly(game, piles, sizes, truth, [], most=12, settings=HandSettings())
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    assert "CJ" in right.sides["declarer"].ids()
    # neither weighed in the other pile nor as no card, the hand is settled with the Jack on the wrong side
    monkeypatch.setattr(decoder_module._Decoder, "_elsewhere", lambda *a: {})
    old = _Decoder(game, piles, None, [], HandSettings(twice_none=False), sizes=sizes).run()
    assert old.settled and "CJ" in old.sides["defenders"].ids()
    assert [old.sides[s].card_points for s in SIDES] != [game.count(truth[s]) for s in SIDES]


@pytest.mark.parametrize("told", [False, True])
def test_faint_reads_that_took_lost_cards_are_weighed_as_none_together_past_a_single_doubts_odds(told):
    """Hand 61 of the held-out printing again, read by session 26's printings detector: three faint Defenders'
    reads (each most likely no card) take the D2, IX and S10, 0-pip cards hidden in the Declarer's pile. Moved
    one at a time they change nothing (a third of a point each); all three as none at once is e^5.39 less likely
    than the reading, past a single doubt's e^5.3, and there the Declarer has one Card Point more. A settled hand
    must be right: the joint reading is weighed up to e^6."""
    game, piles, sizes, truth = _fixture("no_cards_faint", told)
    hand = _Decoder(game, piles, None, [], HandSettings(), sizes=sizes).run()
    assert hand.questions and len(hand.outcomes) > 1
    # Since session 39 a doubt put alone whose answers alone change nothing is a request for a better photo
    # (with two photos at once, told the count after two taps); players who tap through as before (seven taps)
    # end right. Two photos alone, after "none" for a faint read a question asks the Declarer's count: it holds
    # 18, and the two faint reads left in the Defenders' photo may be none, so 18 and 19 are offered with 16, 17.
    assert [q.kind for q in hand.questions] == (["pile_size"] if told else ["respread"])
    right = _answered_truly(game, piles, sizes, truth, [], most=12, settings=HandSettings(together_respread=False))
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    old = _Decoder(game, piles, None, [], HandSettings(plausible_no_cards=5.3, free_family=1.0), sizes=sizes).run()
    assert old.settled
    assert [old.sides[s].card_points for s in SIDES] != [game.count(truth[s]) for s in SIDES]


def test_reads_whose_likeliest_reading_is_no_card_are_weighed_as_none_together():
    """Hand 61 of seed 90000 on the enrolled printing (round 1), Talon cards said: two of the Defenders' reads
    whose likeliest reading is no card (0.35, 0.47) took the D1 and the IX, and with the lost D2 and S10 the
    count of whole tricks fit; all four lie in the Declarer's pile. Each read alone as none breaks the count, so
    no single doubt showed it: settled wrong. Now those reads are also weighed as no card together."""
    import vision.decoder as decoder_module

    game, piles, sizes, truth = _fixture("no_cards")
    hand = _Decoder(game, piles, None, [], HandSettings(), sizes=sizes).run()
    assert hand.questions and len(hand.outcomes) > 1
    right = _answered_truly(game, piles, sizes, truth, [], most=12, settings=HandSettings())
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    original = decoder_module._Decoder._no_cards
    try:
        decoder_module._Decoder._no_cards = lambda *a: frozenset()
        old = _Decoder(game, piles, None, [], HandSettings(free_family=1.0), sizes=sizes).run()
    finally:
        decoder_module._Decoder._no_cards = original
    assert old.settled and [old.sides[s].card_points for s in SIDES] != [game.count(truth[s]) for s in SIDES]


def test_a_faint_peak_read_surely_as_a_card_may_be_a_sliver_of_a_hidden_one():
    """The independent renderer's hand 29 (seed 95000), in small: a detector peak below the recogniser's own
    threshold, beside the C10 where the S10 no read took lies, read as the SQ at 0.66; the SQ lies unseen in the
    other pile.
    Weighed only as read, the truthful taps ended settled wrong (the Queen on the wrong side). Such a read's card
    is now also weighed in the other pile, so its pile is asked."""
    decl, defs = split(SLOVENIAN, 27, seed=3)
    decl = [c for c in decl if c not in ("SQ", "S10")] + ["S10"]
    defs = [c for c in defs if c not in ("SQ", "S10")] + ["SQ"]
    decl, defs = (decl, defs) if len(decl) == 27 else (decl + defs[:1], defs[1:])
    sliver = Sighting((900.0, 100.0), (0.0, -1.0), 80.0, (("SQ", 0.66), ("DQ", 0.16), ("HQ", 0.09), ("CQ", 0.06),
                                                          ("none", 0.03)), 3, 0.16)
    piles = piles_of([seen(c, x=40.0 * k) for k, c in enumerate(c for c in decl if c != "S10")] + [sliver],
                     [seen(c, x=40.0 * k) for k, c in enumerate(c for c in defs if c != "SQ")])
    truth = {"declarer": decl, "defenders": defs}
    hand = _Decoder(SLOVENIAN, piles, None, [], HandSettings()).run()
    assert ("which_pile", "SQ") in [(q.kind, q.card) for q in hand.questions]
    right = _answered_truly(SLOVENIAN, piles, None, truth, [], most=12, settings=HandSettings())
    assert [right.sides[s].card_points for s in SIDES] == [SLOVENIAN.count(truth[s]) for s in SIDES]
    assert "SQ" in right.sides["defenders"].ids()
    # a detector peak as strong as the recogniser's own is read as it is: the old way, and the taps end wrong
    strong = piles_of(piles["declarer"].sightings[:-1] + [replace(sliver, heat=0.5)], piles["defenders"].sightings)
    old = _answered_truly(SLOVENIAN, strong, None, truth, [], most=12, settings=HandSettings())
    assert "SQ" in old.sides["declarer"].ids()
    assert [old.sides[s].card_points for s in SIDES] != [SLOVENIAN.count(truth[s]) for s in SIDES]


@pytest.mark.parametrize("looks", [0, 2, 4])
def test_the_pile_read_s_second_looks_are_the_hand_settings_not_the_recogniser_s(looks):
    """An unsure index of a pile photo is cropped again `HandSettings.second_looks` times (the decoder weighs its
    doubt against the deck either way); the recogniser's own setting stays for plain recognition."""
    from vision.recogniser import Recogniser, Settings
    from vision.runners.fake import FakeRunner

    crops = []

    def detector(batch):
        _, _, h, w = batch.shape
        out = np.zeros((1, 6, h // 4, w // 4), np.float32)
        out[0, 0] = -10.0
        out[0, 0, 50, 40] = 10.0
        out[0, 3:5, 50, 40] = (0.0, -1.0)
        out[0, 5, 50, 40] = math.log(40 / 32)
        return out

    def classifier(batch):
        crops.append(len(batch))
        out = np.full((len(batch), 10), -10.0, np.float32)
        out[:, 0] = out[:, 1] = 10.0    # T1 or T2, half and half: unsure
        out[:, 5] = 10.0
        return out

    rec = Recogniser(FakeRunner(detector), FakeRunner(classifier), ["T1", "T2", "T3", "HK", "none"],
                     {"T1": 0, "T2": 0, "T3": 0, "HK": 0}, Settings(second_looks=4))
    reader = HandReader(rec, HandSettings(second_looks=looks, cover_card=None, pile_zoom=None))
    image = np.zeros((400, 600, 3), np.uint8)
    crops.clear()
    reader.read_pile(image, scoring.find_game("slovenian"))
    assert crops[:1 + looks] == [1] * (1 + looks) and sum(crops) == 1 + looks
    crops.clear()
    rec.recognise(image)
    assert sum(crops) == 5


def _spread(cards, doubt: Mapping[int, tuple] = MappingProxyType({}), turned: set[int] = frozenset(), step: float = 130.0):
    """A straight spread of sure reads, one index every `step` px (an index is 80 px tall); doubt: position ->
    the likely cards of an unsure read there instead; turned: positions read upside down (a card's other corner)."""
    game = scoring.find_game("slovenian")
    pips = {c.id: c.pips for c in game.deck}
    out = []
    for n, c in enumerate(cards):
        up = (0.0, 1.0) if n in turned else (0.0, -1.0)
        if n in doubt:
            out.append(Sighting((100.0 + n * step, 300.0), up, 80.0, doubt[n], pips[c], 0.85))
        else:
            out.append(replace(Sighting.named(c, pips[c], (100.0 + n * step, 300.0), up), heat=0.9))
    return out


@pytest.mark.parametrize("turned", [False, True])
def test_an_unsure_read_whose_rivals_are_its_neighbours_is_a_card_not_one_of_them_seen_again(turned):
    """An unsure read (XI, XII or XIII) beside sure reads of the XII and XIII is the XI: a neighbour a step away
    is another card's index, so the read is not "one of them seen again" (and not asked about whether it is a card
    at all). Turned against the pile's run it may be a card's other corner: then that doubt stays."""
    game = scoring.find_game("slovenian")
    dec = ["T12", "T11", "T13"] + [c for c in split(game, 40, 5)[0] if c not in ("T11", "T12", "T13")][:23]
    dfn = [c.id for c in game.deck if c.id not in dec]
    doubt = {1: (("T12", 0.35), ("T13", 0.3), ("T11", 0.12), ("T10", 0.1), ("none", 0.01))}
    piles = piles_of(_spread(dec, doubt, {1} if turned else set()), _spread(dfn))
    reads = _Decoder(game, piles, None, (), HandSettings()).reads
    none = next(r for r in reads if r.side == "declarer" and r.k == 1).cost["none"]
    anywhere = _Decoder(game, piles, None, (), HandSettings(twice_near=None))
    none_anywhere = next(r for r in anywhere.reads if r.side == "declarer" and r.k == 1).cost["none"]
    if turned:
        assert none == pytest.approx(none_anywhere)
    else:
        assert none > none_anywhere + 1.0     # "no card" at least e times less likely
        hand = decode(game, piles)
        assert not hand.questions and "T11" in hand.sides["declarer"].ids()
        # (taken as one of its neighbours seen again, its 26 cards or 25 and the XI lost round differently)
        assert [q.choices for q in anywhere.run().questions] == [("T11", "none")]


def test_a_read_a_tight_step_from_a_sure_read_of_its_likeliest_card_is_the_card_under_it():
    """The generator's hand 102 (seed 90000) in small: in a tight spread (a step of 0.55 index heights) the Mond's
    index is half covered and its read says the XX (0.72) before the XXI (0.15), the XX being read surely one step
    along. A read that far from another is another card's index, not that one seen again (three caches: 0 of 104
    such reads 0.3-0.8 index heights along the run; `twice_near` 0.3): the Mond, settled. Taken within 0.8 as
    the XX seen again, the Mond might be lost and lie in the other pile: asked (since session 50 as whether the
    read is a card at all, `twice_none`)."""
    game = scoring.find_game("slovenian")
    dec, dfn = split(game, 26, seed=7)
    dec = [c for c in dec if c not in ("T20", "T21")] + ["T20", "T21"]
    dfn = [c for c in dfn if c not in ("T20", "T21")]
    doubt = {len(dec) - 1: (("T20", 0.72), ("T21", 0.15), ("T14", 0.02), ("none", 0.005))}
    piles = piles_of(_spread(dec, doubt, step=44.0), _spread(dfn))
    hand = decode(game, piles)
    assert hand.questions == [] and "T21" in ids(hand, "declarer")
    assert [hand.sides[s].card_points for s in SIDES] == [game.count(dec), game.count(dfn)]
    old = _Decoder(game, piles, None, (), HandSettings(twice_near=0.8)).run()
    assert [(q.kind, q.sighting, q.choices) for q in old.questions] == [("which_card", len(dec) - 1, ("T21", "none"))]
    old = _Decoder(game, piles, None, (), HandSettings(twice_near=0.8, twice_none=False)).run()
    assert ("which_pile", "T21") in [(q.kind, q.card) for q in old.questions]


def test_a_read_surely_a_card_whose_likeliest_cards_lie_elsewhere_is_the_lost_card_not_no_card():
    """The independent renderer's hand 23 (seed 103000) in small: a partly covered Queen of Hearts read as the
    Jack (0.49) or the Cavalier of Hearts (0.27), both read surely elsewhere, and no card at 0.08 on a strong
    peak (0.024 after the heat). Such reads lay on no index 0 of 259 times in three caches (`claimed_none`): the
    Queen, settled with two photos and nothing said. Weighed as before, "the Queen of Hearts, or no card?" was
    asked."""
    game = scoring.find_game("slovenian")
    dec, dfn = split(game, 27, seed=11)
    mine = ("HQ", "HJ", "HC", "DJ", "H4")
    dec = [c for c in dec if c not in mine] + ["HQ"]
    dfn = [c for c in dfn if c not in mine] + ["HJ", "HC", "DJ", "H4"]
    doubt = {len(dec) - 1: (("HJ", 0.49), ("HC", 0.27), ("none", 0.08), ("DJ", 0.06), ("H4", 0.06))}
    piles = piles_of(_spread(dec, doubt), _spread(dfn))
    hand = decode(game, piles)
    assert hand.questions == [] and "HQ" in ids(hand, "declarer")
    assert [hand.sides[s].card_points for s in SIDES] == [game.count(dec), game.count(dfn)]
    old = _Decoder(game, piles, None, (), HandSettings(claimed_none=1.0)).run()
    assert [(q.kind, q.choices) for q in old.questions] == [("which_card", ("HQ", "none"))]


def test_a_read_that_leans_to_the_taroks_is_not_asked_about_a_lost_suit_card():
    """The independent renderer's hand 16 in small: the top of a partly covered XI is hidden, and its read
    spreads over the Taroks whose numerals end alike (the others read surely elsewhere); the Cavalier of Clubs
    lies hidden in the other pile. The read's doubt, shared alike by every card no read holds, made "the XI or
    the Cavalier of Clubs?" a question (the Cavalier scores 2). Shared by family, a read that leans to the
    Taroks gives a lost suit card a tenth as much: the count of whole tricks settles the hand, right."""
    dec, dfn = split(SLOVENIAN, 26, seed=3)
    dec = [c for c in dec if c not in ("T11", "CC")] + ["T11"]
    dfn = [c for c in dfn if c not in ("T11", "CC")] + ["CC"]
    taroks = (("T15", 0.2), ("T13", 0.1), ("T19", 0.08), ("T17", 0.05), ("T7", 0.03), ("T9", 0.02), ("T5", 0.01))
    reads = [seen(c, x=100.0 * k) for k, c in enumerate(dec) if c != "T11"] + [
        seen("T11", 0.5, taroks, x=5000.0, pips=2)]     # the stars read as two: the pips do not tell it apart
    piles = piles_of(reads, [seen(c, x=100.0 * k) for k, c in enumerate(dfn) if c != "CC"])
    sizes = SLOVENIAN.pile_sizes(4, len(dec) % 4)
    hand = _Decoder(SLOVENIAN, piles, None, (), HandSettings(), sizes=sizes).run()
    assert hand.questions == []
    assert "T11" in ids(hand, "declarer") and "CC" in ids(hand, "defenders")
    assert [hand.sides[s].card_points for s in SIDES] == [SLOVENIAN.count(dec), SLOVENIAN.count(dfn)]
    alike = _Decoder(SLOVENIAN, piles, None, (), HandSettings(free_family=1.0), sizes=sizes).run()
    assert [(q.kind, q.choices) for q in alike.questions] == [("which_card", ("T11", "CC"))]


def test_a_read_s_doubt_goes_to_a_lost_card_with_its_pips_ten_times_before_one_without():
    """The share of a read's doubt that goes to the cards no read holds: a lost card whose pips are not the
    stars read under the index gets a tenth of what one with them gets (`free_pips`; a quarter until session 29:
    with a tenth, one more independent 54-card report hand settled and right in each row, none wrong)."""
    dec, dfn = split(SLOVENIAN, 26, seed=3)
    lost = ("T3", "T21")          # both Taroks, so the family does not tell them apart; 0 and 4 pips
    dec = [c for c in dec if c not in ("T11",) + lost] + ["T11"]
    dfn = [c for c in dfn if c not in ("T11",) + lost] + list(lost)
    taroks = (("T15", 0.3), ("T13", 0.2), ("T19", 0.1), ("T17", 0.09))
    reads = [seen(c, x=100.0 * k) for k, c in enumerate(dec) if c != "T11"] + [
        seen("T11", 0.3, taroks, x=5000.0, pips=0)]
    piles = piles_of(reads, [seen(c, x=100.0 * k) for k, c in enumerate(dfn) if c not in lost])
    for free_pips in (0.1, 0.25):
        cost = next(r.cost for r in _Decoder(SLOVENIAN, piles, None, (), HandSettings(free_pips=free_pips)).reads
                    if r.s.centre[0] == 5000.0)
        # the free 0-pip cards (T3 and the read's own T11) share the same-pips part; T21 is alone at 4 pips
        assert cost["T21"] - cost["T3"] == pytest.approx(math.log(1 / (2 * free_pips)), abs=0.05)
    assert HandSettings().free_pips == 0.1


def test_told_the_count_a_reading_no_count_fits_is_not_asked_about():
    """Dev hand 57 (seed 70000): read 42 of the Declarer's pile is none or the HJ, which lies in the Defenders'
    pile; as the HJ the Declarer would hold 43 cards, which the tricks told do not allow. That reading now costs
    the cheapest read that would mend the count, so the hand is settled, right; before, it was asked."""
    game, piles, sizes, truth = _fixture("count_fix")
    hand = _Decoder(game, piles, None, [], HandSettings(), sizes=sizes).run()
    assert hand.questions == []
    assert [hand.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    old = _Decoder(game, piles, None, [], HandSettings(count_fix=False, claimed_none=1.0), sizes=sizes).run()
    assert [(q.kind, q.choices) for q in old.questions] == [("which_card", ("none", "HJ"))]
    # two photos alone (no count) the doubt stood; since session 38 the Defenders' read 7 that takes the HJ (DJ
    # 0.97, HJ 0.017, no card 0.006; the DJ read surely elsewhere) is a card, and the HJ the one it can be
    # (`claimed_none`), so read 42 is no card and the hand is settled, right, with no count either
    assert _Decoder(game, piles, None, [], HandSettings(claimed_none=1.0)).run().questions
    two = _Decoder(game, piles, None, [], HandSettings()).run()
    assert two.questions == []
    assert [two.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def test_a_fan_s_covers_do_not_settle_where_a_lost_card_lies():
    """A fresh independent hand (seed 97000, hand 68; `test_vision_covered` has it made up): the Declarer's pile a
    fan whose cards were all read, one read 0.918 sure of a covered card beside it (the fan's edges): the count put
    the Defenders' hidden S10 with the Declarer, settled wrong. Now its pile is asked, and the truthful answer
    settles the hand right."""
    game, piles, _, truth = _fixture("fan_cover", told=False)
    assert piles["declarer"].fanned(HandSettings())
    hand = _Decoder(game, piles, None, [], HandSettings()).run()
    assert ("which_pile", "S10") in [(q.kind, q.card) for q in hand.questions]
    right = _answered_truly(game, piles, None, truth, [], settings=HandSettings())
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    old = _Decoder(game, piles, None, [], HandSettings(fan_covers=True, lone_cover=False)).run()
    assert old.settled and "S10" in old.sides["declarer"].ids()
    # the fan's one cover alone: read again without it, the S10's pile is open (`lone_cover`)
    assert not _Decoder(game, piles, None, [], HandSettings(fan_covers=True)).run().settled


def test_a_fan_s_unread_gap_keeps_a_spread_s_covers_from_placing_its_card():
    """A fresh independent hand (seed 101000, hand 28, drawn after session 31's rules were chosen): the SK lies in
    the Declarer's fan, 0.24 of its index showing, where the fan's run has a gap no second look read; two reads of
    the Defenders' pile, all of whose cards were read, are sure of covered cards beside them. The covered count
    put the SK with the Defenders: settled wrong. The fan's gap counts one card in the Declarer's pile
    (`fan_gap`): the counts disagree, the SK's pile is asked, and the truthful answer settles the hand right."""
    game, piles, _, truth = _fixture("fan_gap_wrong", told=False)
    st_ = HandSettings()
    assert piles["declarer"].fanned(st_) and len(piles["declarer"].hidden(st_)) == 1
    hand = _Decoder(game, piles, None, [], st_).run()
    assert ("which_pile", "SK") in [(q.kind, q.card) for q in hand.questions]
    right = _answered_truly(game, piles, None, truth, [], settings=st_)
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    old = _Decoder(game, piles, None, [], HandSettings(fan_gap=False, fan_spare=False)).run()
    assert old.settled and "SK" in old.sides["defenders"].ids() and "SK" in truth["declarer"]
    # without the gap's count, the fan counts none: one lost card stays free of the spread's covers (`fan_spare`)
    assert ("which_pile", "SK") in [(q.kind, q.card) for q in
                                    _Decoder(game, piles, None, [], HandSettings(fan_gap=False)).run().questions]


def test_a_fan_s_gap_a_second_look_read_as_likelier_no_card_still_counts():
    """The independent renderer's hand 24 (seed 95000) read by the printings release with the close second look:
    the Declarer's fan's gap, open before, is read likelier no card than the T5 that lies there, so no open gap
    was left to count; the lost CK then went with a Defenders' read sure of a covered card: settled wrong. A
    fan's gap read as likelier no card counts as an open one."""
    game, piles, _, truth = _fixture("fan_relook", told=False)
    st_ = HandSettings()
    fan = piles["declarer"]
    assert fan.fanned(st_) and not fan.gaps and any(s.relook and s.likely[0][0] == "none" for s in fan.sightings)
    assert len(fan.hidden(st_)) == 1
    hand = _Decoder(game, piles, None, [], st_).run()
    assert not hand.settled
    right = _answered_truly(game, piles, None, truth, [], settings=st_)
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    old = _Decoder(game, piles, None, [], HandSettings(fan_gap=False, lone_cover=False, fan_spare=False,
                                                       relook_none=1.0, free_pips_weak=None)).run()
    assert old.settled and "CK" in old.sides["defenders"].ids() and "CK" in truth["declarer"]
    # the Defenders' one cover alone: read again without it, the CK's pile is open (`lone_cover`)
    assert not _Decoder(game, piles, None, [], HandSettings(fan_gap=False, fan_spare=False)).run().settled
    # and without the gap's count the fan counts none, so the one lost card stays free of that cover (`fan_spare`)
    assert not _Decoder(game, piles, None, [], HandSettings(fan_gap=False, lone_cover=False)).run().settled


@pytest.mark.parametrize("name", ["lone_cover", "lone_cover_42"])
def test_a_pile_s_one_covered_card_alone_does_not_settle_where_the_lost_cards_lie(name):
    """Two fresh independent hands (seed 102000, hands 69 and 72, drawn before session 33's rules were chosen):
    every card of the Defenders' pile read, one read sure a covered card lies beside it where none does; the
    Declarer's lost cards, split by that count, settled both hands wrong. Read again without a pile's lone cover,
    the lost cards' piles are open: asked, and the truthful answers settle the hands right. Told how the tricks
    lie, the count of whole tricks settles both rightly (the lone cover is not asked about then)."""
    game, piles, sizes, truth = _fixture(name, told=False)
    st_ = HandSettings()
    assert len(piles["defenders"].sightings) == len(truth["defenders"])
    assert len(piles["defenders"].hidden(st_)) == len(piles["defenders"].covers(st_)) == 1
    old = _Decoder(game, piles, None, [], HandSettings(lone_cover=False)).run()
    assert old.settled and [old.sides[s].card_points for s in SIDES] != [game.count(truth[s]) for s in SIDES]
    hand = _Decoder(game, piles, None, [], st_).run()
    assert not hand.settled and hand.questions and len(hand.outcomes) > 1
    # each question's answers, read as the hand will read them (without the lone cover), leave other scores
    for q in hand.questions:
        if q.answers():
            assert len({_Decoder(game, piles, None, [a], st_).run().outcomes for a in q.answers()}) > 1
    right = _answered_truly(game, piles, None, truth, [], settings=st_)
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    _, _, sizes, _ = _fixture(name)
    told = _Decoder(game, piles, None, [], st_, sizes=sizes).run()
    assert told.settled and [told.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def test_told_the_tricks_a_lone_cover_that_pushes_a_full_pile_past_its_count_asks():
    """A held-out printing's hand (pr4, Caladea numerals; generator seed 90000 hand 21, read by the printings
    release): the Declarer's 30 cards all read, one read sure of a covered card where none lies; the Defenders'
    pile lacks four. Told the tricks (a multiple of 3), the cover made 31 and took three lost cards to make 33:
    settled wrong. The lone cover is checked where the pile's reads alone make an allowed count (`lone_told`):
    the Defenders' count is asked, and its true answer settles the hand right."""
    game, piles, sizes, truth = _fixture("lone_told")
    st_ = HandSettings()
    assert len(piles["declarer"].sightings) == len(truth["declarer"]) == 30 and 30 in sizes
    assert len(piles["declarer"].hidden(st_)) == len(piles["declarer"].covers(st_)) == 1
    old = _Decoder(game, piles, None, [], HandSettings(lone_told=False), sizes=sizes).run()
    assert old.settled and [old.sides[s].card_points for s in SIDES] != [game.count(truth[s]) for s in SIDES]
    hand = _Decoder(game, piles, None, [], st_, sizes=sizes).run()
    assert not hand.settled and len(hand.outcomes) > 1
    assert [q.kind for q in hand.questions] == ["pile_size"]
    q = hand.questions[0]
    assert len({_Decoder(game, piles, None, [a], st_, sizes=sizes).run().outcomes for a in q.answers()}) > 1
    right = _answered_truly(game, piles, sizes, truth, [], settings=st_)
    assert right.settled and [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    # without the count told, the hand asks too (the rule before, `lone_cover`)
    assert not _Decoder(game, piles, None, [], st_).run().settled


def test_a_fan_that_counts_no_card_may_still_hold_a_lost_one():
    """A fresh independent hand (seed 103000, hand 67, drawn before session 33's rules were chosen): the
    Declarer's spread counts five covered cards where two lie lost; the Defenders' fan hides its Pagat with no gap
    in its run. A pile counting more than are lost holds them all (`count_cap`): the Pagat went to the Declarer,
    settled wrong. Beside a fan that counts none, one lost card stays free: the Pagat's pile is asked, and the
    truthful answer settles the hand right."""
    game, piles, _, truth = _fixture("fan_spare", told=False)
    st_ = HandSettings()
    fan, spread = piles["defenders"], piles["declarer"]
    assert fan.fanned(st_) and not fan.hidden(st_) and "T1" in truth["defenders"]
    assert len(spread.hidden(st_)) == 5
    old = _Decoder(game, piles, None, [], HandSettings(fan_spare=False)).run()
    assert old.settled and "T1" in old.sides["declarer"].ids()
    hand = _Decoder(game, piles, None, [], st_).run()
    assert ("which_pile", "T1") in [(q.kind, q.card) for q in hand.questions]
    right = _answered_truly(game, piles, None, truth, [], settings=st_)
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    assert "T1" in right.sides["defenders"].ids()


def test_beside_a_fan_that_counts_none_a_pile_counting_just_the_lost_cards_leaves_one_free():
    """A fresh independent hand (seed 104000, hand 48, drawn at session 38's start; Hungarian): the Declarer's fan
    hides its King of Diamonds with no gap in its run and counts none; the Defenders' spread counts two covered
    cards, and two cards (the DK and the HC) are lost. The count put both with the Defenders: settled, wrong (one
    of two such hands of that set). As when the spread counts more than are lost, one lost card stays free of
    its count: the King's pile is asked, and the truthful answer settles the hand right."""
    game, piles, _, truth = _fixture("fan_spare_even", told=False)
    st_ = HandSettings()
    assert piles["declarer"].fanned(st_) and not piles["declarer"].hidden(st_)
    assert len(piles["defenders"].hidden(st_)) == 2 and "DK" in truth["declarer"]
    hand = _Decoder(game, piles, None, [], st_).run()
    assert not hand.settled and "DK" in [q.card for q in hand.questions if q.kind == "which_pile"]
    right = _answered_truly(game, piles, None, truth, [], settings=st_)
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def test_a_fan_that_counts_none_may_hold_two_of_the_lost_cards():
    """A fresh generator hand (seed 124000, hand 67, drawn in session 52; Slovenian, two photos, nothing said): the
    Declarer's spread of 43 cards counts three covered cards and lacks none; the Defenders' fan hides the 9 of
    Clubs and the XVIII with no gap in its run and counts none. With one lost card free of the spread's count, the
    other went to the Declarer: settled, wrong. Fans that count none lacked two cards in 7 of 273 such piles: two
    stay free (`fan_spares`), and the hand asks."""
    game, piles, _, truth = _fixture("fan_two", told=False)
    st_ = HandSettings()
    fan, spread = piles["defenders"], piles["declarer"]
    assert fan.fanned(st_) and not fan.hidden(st_) and {"C9", "T18"} <= set(truth["defenders"])
    assert len(spread.hidden(st_)) == 3
    old = _Decoder(game, piles, None, [], replace(st_, fan_spares=1)).run()
    assert old.settled and [old.sides[s].card_points for s in SIDES] != [game.count(truth[s]) for s in SIDES]
    hand = _Decoder(game, piles, None, [], st_).run()
    assert not hand.settled and hand.questions
    right = _answered_truly(game, piles, None, truth, [], settings=st_)
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def test_a_read_listing_the_card_the_players_named_for_another_read_may_be_it_seen_again():
    """A fresh generator hand (seed 124000, hand 26, drawn in session 52; the contract said): the Declarer's read 2 is
    the XI's index, read as the XIII or the XI; read 17, a small weak peak turned across the pile's run, lies on
    the XI's other corner. Told truthfully that read 17 is the XI, read 2 took the lost XIX (no card was not among
    its readings), and the Queen of Clubs went to the Defenders: settled wrong after six taps. A read the players
    named is sure of its card, and one turned across the run may be the other corner of a card another read
    lists (`said_twice`): read 2 may be no card, so the XIX's pile is asked."""
    game, piles, sizes, truth = _fixture("said_twice")
    said = [Answer("which_pile", "defenders", "T1"), Answer("which_card", "defenders", "SC", 19),
            Answer("which_pile", "defenders", "HK"), Answer("which_card", "declarer", "CK", 16),
            Answer("which_card", "declarer", "T11", 17)]
    assert all(a.card in truth[a.side] for a in said)
    right = [game.count(truth[s]) for s in SIDES]
    old = _Decoder(game, piles, None, said, HandSettings(said_twice=False), sizes=sizes).run()
    assert old.settled and [old.sides[s].card_points for s in SIDES] != right
    hand = _Decoder(game, piles, None, said, HandSettings(), sizes=sizes).run()
    assert not hand.settled and ("which_pile", "T19") in [(q.kind, q.card) for q in hand.questions]
    told = _Decoder(game, piles, None, said + [Answer("which_pile", "defenders", "T19")], HandSettings(),
                    sizes=sizes).run()
    assert [told.sides[s].card_points for s in SIDES] == right


def test_doubts_that_matter_only_together_ask_for_a_better_photo_not_an_idle_tap():
    """A fresh independent hand (seed 107000, hand 1): three cards hidden, fifteen reads unsure. Told the count
    of whole tricks, two scores stay possible and no doubt narrows them alone; the one put alone was a tap whose
    every answer left the same two scores. Now the players are asked for a better photo of that pile instead,
    and every question left changes what is possible."""
    game, piles, sizes, truth = _fixture("together")
    # since session 54 the Declarer's read 35 (no pips seen under a weak peak) may be the HQ too
    # (`free_pips_weak`): asked, and that answer alone narrows the scores (the others leave both)
    now = _Decoder(game, piles, None, [], HandSettings(), sizes=sizes).run()
    assert [(q.kind, q.sighting, q.choices) for q in now.questions] == [("which_card", 35, ("T3", "none", "HQ"))]
    assert len({_Decoder(game, piles, None, [a], HandSettings(), sizes=sizes).run().outcomes
                for a in now.questions[0].answers()}) > 1
    hand = _Decoder(game, piles, None, [], HandSettings(free_pips_weak=None), sizes=sizes).run()
    assert len(hand.outcomes) > 1 and not hand.settled
    assert [(q.kind, q.side) for q in hand.questions] == [("respread", "declarer")]
    assert "no one answer settles the score" in hand.questions[0].text
    # (its likeliest reading is the truth; the other score stays possible)
    assert {s: sorted(hand.sides[s].ids()) for s in SIDES} == {s: sorted(truth[s]) for s in SIDES}
    # as before: the doubt put alone, and each of its answers leaves the same two scores possible
    old = _Decoder(game, piles, None, [], HandSettings(together_respread=False, free_pips_weak=None),
                   sizes=sizes).run()
    assert [q.kind for q in old.questions] == ["which_card"]
    after = {_Decoder(game, piles, None, [a], HandSettings(free_pips_weak=None), sizes=sizes).run().outcomes
             for a in old.questions[0].answers()}
    assert after == {hand.outcomes}


def test_a_read_sure_it_is_a_card_if_not_which_is_not_asked_whether_it_is_one():
    """A fresh independent hand (seed 97000, hand 3): a partly covered Tarock's read spread over five Taroks, none
    above 0.25, and gave no card nothing; weighed as a read unsure of every card (no card up to 200 to 1), it was
    asked "the III or no card?". A read giving no card under `none_doubt` (1 %) is sure it is a card: settled,
    right."""
    game, piles, _, truth = _fixture("none_doubt", told=False)
    hand = _Decoder(game, piles, None, [], HandSettings()).run()
    assert hand.settled
    assert [hand.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    assert all(c in truth[s] for s in SIDES for c in hand.sides[s].ids())
    old = _Decoder(game, piles, None, [], HandSettings(none_doubt=0.0)).run()
    # "the III or no card?" (the III and the XIV, both lost 0-pip Taroks, cost the read alike: `_tie` picks one)
    assert [(q.kind, q.side, q.choices[1]) for q in old.questions] == [("which_card", "defenders", "none")]
    assert old.questions[0].choices[0] in ("T3", "T14")


def test_a_fan_with_a_gap_no_second_look_read_holds_a_card_no_read_shows():
    """A fresh independent hand (seed 97000, hand 12): the Declarer's fan shows a gap in its run that a second look
    did not read; a fan's covers do not count, so nothing said the pile holds a card no read shows, and a read
    doubting between the HC, the T3, the T9 and no card was asked. The gap counts one such card (`fan_gap`: in
    the benchmark's caches a fan with such a gap held one in 20 of 21 piles): settled, right."""
    game, piles, _, truth = _fixture("fan_gap", told=False)
    st_ = HandSettings()
    assert piles["declarer"].fanned(st_) and piles["declarer"].gaps and not piles["declarer"].covers(st_)
    assert len(piles["declarer"].hidden(st_)) == 1 and piles["defenders"].hidden(st_) == []
    hand = _Decoder(game, piles, None, [], st_).run()
    assert hand.settled
    assert [hand.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    assert all(c in truth[s] for s in SIDES for c in hand.sides[s].ids())
    old = _Decoder(game, piles, None, [], HandSettings(fan_gap=False, free_pips_weak=None)).run()
    assert not old.settled and [q.kind for q in old.questions] == ["which_card"]
    assert piles["declarer"].hidden(HandSettings(fan_gap=False)) == []
    # a spread's gap is no such count (a spread with a gap held a lost card in 19 of 26 piles only)
    spread = PileRead(piles["declarer"].size, [replace(r, up=(0.0, -1.0)) for r in piles["declarer"].sightings],
                      piles["declarer"].gaps)
    assert not spread.fanned(st_) and spread.hidden(st_) == []


def _truly(q, truth, shows) -> Answer:
    """The players' truthful answer to q ('shows': the card each read truly shows)."""
    if q.kind == "which_pile":
        return Answer("which_pile", next(s for s in SIDES if q.card in truth[s]), q.card)
    if q.kind == "pile_size":
        return Answer("pile_size", q.side, str(len(truth[q.side])))
    return Answer("which_card", q.side, shows[q.side][q.sighting] or "none", q.sighting)


def _tapped(game, piles, sizes, truth, shows, answers, most=12, last=False):
    """The hand after the players answer its first question (`last`: its last one; the page shows them all)
    truthfully (`_truly`), again and again, until none is open but a new photo (or `most` taps)."""
    answers = list(answers)
    hand = _Decoder(game, piles, None, answers, HandSettings(), sizes=sizes).run()
    while len(answers) < most and (open_ := [q for q in hand.questions if q.kind != "respread"]):
        answers.append(_truly(open_[-1] if last else open_[0], truth, shows))
        hand = _Decoder(game, piles, None, answers, HandSettings(), sizes=sizes).run()
    return hand


def test_two_unsure_reads_that_may_be_cards_the_players_placed_in_their_pile_are_weighed_at_once():
    """An independent hand (seed 105000, hand 23, the contract said): told truthfully that the XI, the XX and the
    2 of Hearts lie in the Declarer's pile, the decoder kept reads 7 and 9 there as the XVIII and the 3 of Diamonds
    (they show the XI and the 2 of Hearts) and counted 27 cards, truly 23: settled wrong. Either reading alone
    leaves 27 possible (the lost cards make up the count); both at once allow 23, so the hand stays open. Answered
    truthfully to the end, it is never settled wrong."""
    game, piles, sizes, truth = _fixture("placed_pair")
    shows = json.loads((ROOT / "tests/vision/data/hands/placed_pair.json").read_text())["shows"]
    said = [Answer("which_pile", s, c) for s, c in (("defenders", "T2"), ("defenders", "T3"), ("declarer", "T11"),
                                                    ("declarer", "T20"), ("declarer", "H2"), ("defenders", "CK"),
                                                    ("defenders", "CJ"))]
    old = _Decoder(game, piles, None, said, HandSettings(placed_pairs=0, relook_none=1.0), sizes=sizes).run()
    assert old.settled and len(old.sides["declarer"].ids()) == 27 != len(truth["declarer"])
    assert old.sides["declarer"].card_points != game.count(truth["declarer"])
    hand = _Decoder(game, piles, None, said, HandSettings(), sizes=sizes).run()
    assert not hand.settled and len(hand.outcomes) > 1
    hand = _tapped(game, piles, sizes, truth, shows, said, most=len(said) + 12)
    if hand.settled:    # else only a new photo is asked: open, not wrong
        assert [hand.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def test_a_card_the_players_placed_in_a_misreads_pile_may_be_that_read():
    """An independent hand (seed 102000, hand 19, 42 cards, nothing said): the Defenders' read 9 shows the IX, read
    as the Jack of Diamonds (0.56, the IX not among its likeliest nine, its pips read as one) although another read
    is sure of that Jack: a misread. Told truthfully that the IX lies in the Defenders' pile and how many cards that
    pile holds, the decoder kept read 9 as the Jack of Spades, which lies in the Declarer's pile, with the IX lost
    beside it: settled wrong. A card placed in a misread's pile that the read does not list now has half of the
    most an unlisted card may have (`placed_tail`): read 9 is asked about, and the truthful taps end right."""
    game, piles, _, truth = _fixture("placed_unlisted", told=False)
    shows = json.loads((ROOT / "tests/vision/data/hands/placed_unlisted.json").read_text())["shows"]
    assert shows["defenders"][9] == "T9" and "T9" not in dict(piles["defenders"].sightings[9].likely)
    said = [Answer("which_pile", s, c) for s, c in (("declarer", "T6"), ("defenders", "T9"), ("declarer", "T12"),
                                                    ("declarer", "T14"), ("declarer", "CQ"), ("declarer", "CC"))]
    said.append(Answer("pile_size", "defenders", "11"))
    old = _Decoder(game, piles, None, said, replace(BEFORE_42, placed_tail=0.0)).run()
    assert old.settled and "SJ" in old.sides["defenders"].ids()
    assert old.sides["defenders"].card_points != game.count(truth["defenders"])
    hand = _Decoder(game, piles, None, said, HandSettings()).run()
    assert ("defenders", 9) in [(q.side, q.sighting) for q in hand.questions if q.kind == "which_card"]
    hand = _tapped(game, piles, None, truth, shows, said, most=len(said) + 12)
    assert hand.settled
    assert [hand.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def test_truthful_answers_in_another_order_do_not_settle_a_hand_wrong():
    """An independent hand (seed 103000, hand 14, 42 cards, two photos): the reader asks whether the Declarer's read
    18 is the X or no card, and which pile the XI is in. Players who answer the second first (the XI, then the X,
    both with the Declarer) were given a settled hand with the XVII on the wrong side: read 5 shows the XI but reads
    the XVII (0.59), and the XVII lies hidden with the Defenders. Once the players have placed a card, a read less
    sure than 0.7 of its card may hold one lying in the other pile (`elsewhere_told`): the XVII's pile is asked,
    and truthful answers in either order end right."""
    game, piles, _, truth = _fixture("answer_order", told=False)
    shows = json.loads((ROOT / "tests/vision/data/hands/answer_order.json").read_text())["shows"]
    assert shows["declarer"][5] == "T11" and piles["declarer"].sightings[5].likely[0][0] == "T17"
    first = _Decoder(game, piles, None, [], HandSettings()).run()
    assert {(q.kind, q.card or q.sighting) for q in first.questions} == {("which_card", 18), ("which_pile", "T11")}
    said = [Answer("which_pile", "declarer", "T11"), Answer("which_pile", "declarer", "T10")]
    old = _Decoder(game, piles, None, said, BEFORE_42).run()
    assert old.settled and old.sides["declarer"].card_points != game.count(truth["declarer"])
    hand = _Decoder(game, piles, None, said, HandSettings()).run()
    assert ("which_pile", "T17") in [(q.kind, q.card) for q in hand.questions]
    for last in (False, True):
        hand = _tapped(game, piles, None, truth, shows, [], last=last)
        assert hand.settled
        assert [hand.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def test_a_misread_may_be_a_lost_card_it_does_not_list_once_the_players_answer():
    """An independent hand (seed 105000, hand 75, 54 cards, the contract said): the Declarer's read 15 shows the
    King of Spades but reads the VIII (0.50, which another read is sure of; pips read as none), and the King is not
    among its likeliest nine. Players answering the last question first (read 31 is the X, the Defenders hold 22
    cards, read 30 is the Knight of Hearts) were given a settled hand with the King with the Defenders and a
    XVII in read 15. Once the players have answered, a misread may be any card no read claims, at half the least it
    lists (`misread_free`): read 15 is asked about, and the truthful taps end right."""
    game, piles, sizes, truth = _fixture("misread_unlisted")
    shows = json.loads((ROOT / "tests/vision/data/hands/misread_unlisted.json").read_text())["shows"]
    assert shows["declarer"][15] == "SK" and "SK" not in dict(piles["declarer"].sightings[15].likely)
    said = [Answer("which_card", "declarer", "T10", 31), Answer("pile_size", "defenders", "22"),
            Answer("which_card", "declarer", "HC", 30)]
    old = _Decoder(game, piles, None, said, BEFORE_42, sizes=sizes).run()
    assert old.settled and "SK" in old.sides["defenders"].ids()
    hand = _Decoder(game, piles, None, said, HandSettings(), sizes=sizes).run()
    assert ("declarer", 15) in [(q.side, q.sighting) for q in hand.questions if q.kind == "which_card"]
    for last in (False, True):
        hand = _tapped(game, piles, sizes, truth, shows, [], last=last)
        assert hand.settled
        assert [hand.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def test_no_pips_seen_under_a_weak_misread_is_weak_evidence_of_a_card_without_pips():
    """Hand 55 of the independent renderer's seed 129000 (fresh in session 54), the count said: the Declarer's read
    35 lies on the King of Spades (30 % of its index showing) and reads the 8 of Spades, which another read holds
    surely; it saw no pips, under a weak peak. Weighing a card with pips at a tenth (`free_pips`), the read was
    taken for the 10 of Spades and the King put with the Defenders: settled wrong. Such reads (likely a card, no
    pips seen, a peak under 0.5, the likeliest card held elsewhere) lay on a card with pips 48 times of 256 in
    twelve caches (19 %; a third of the deck has pips), so there such a card weighs 0.4 (`free_pips_weak`)."""
    game, piles, sizes, truth = _fixture("pips_unseen")
    read = piles["declarer"].sightings[35]
    assert read.pips == 0 and read.heat < 0.5 and "SK" not in dict(read.likely)
    # (session 56's `misread_first` keeps it open too: the reader before both)
    old = _Decoder(game, piles, None, [], replace(PATIENT, free_pips_weak=None, misread_first=False), sizes=sizes).run()
    assert old.settled and "SK" in old.sides["defenders"].ids()            # settled wrong
    hand = _Decoder(game, piles, None, [], PATIENT, sizes=sizes).run()
    # the question is read 35's (with `misread_first` the lost Skis is one of its choices too)
    assert [(q.kind, q.sighting) for q in hand.questions] == [("which_card", 35)]
    assert {"S10", "SK"} <= set(hand.questions[0].choices)
    done = _answered_truly(game, piles, sizes, truth, [])      # one truthful tap ends right
    assert [done.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    assert "SK" in done.sides["declarer"].ids()


def test_a_second_look_kept_at_a_gap_is_a_card_though_the_classifier_doubts_it():
    """Hand 52 of the generator's seed 90000 (two photos, nothing said): the Defenders' read 17 is a second look
    at a gap of their spread, "no card" 0.55, the C7 0.17; the C7 lies there in full view. The spread's step is
    itself evidence of a card (such reads lay on a card's index 148 of 148 times in eight caches), so its
    "no card" counts `relook_none` of itself and the hand is settled right, where it asked "the 7 of Clubs, or
    no card?" before."""
    game, piles, _, truth = _fixture("relook_card", told=False)
    read = piles["defenders"].sightings[17]
    assert read.relook and read.likely[0][0] == "none"
    before = _Decoder(game, piles, None, [], replace(PATIENT, relook_none=1.0)).run()
    assert [(q.kind, q.sighting, q.choices) for q in before.questions] == [("which_card", 17, ("C7", "none"))]
    hand = _Decoder(game, piles, None, [], PATIENT).run()
    assert hand.questions == []
    assert {s: sorted(hand.sides[s].ids()) for s in SIDES} == {s: sorted(truth[s]) for s in SIDES}


def test_covers_that_push_the_count_past_one_the_tricks_allow_are_doubted_by_one():
    """Hand 97 of the generator's seed 119000 (the contract said: the Declarer's pile holds 15 or 18 cards): 13
    reads and 3 covered cards make 16, but two cards hide there, so the lost cards went to make 18 and the hand
    was settled wrong. One cover fewer makes 15: the hand is read that way too, and stays open where the two
    readings score otherwise; answered truthfully, it ends right."""
    game, piles, sizes, truth = _fixture("cover_doubt")
    old = _Decoder(game, piles, None, [], replace(PATIENT, cover_doubt=False), sizes=sizes).run()
    assert old.settled and old.sides["declarer"].card_points != game.count(truth["declarer"])
    hand = _Decoder(game, piles, None, [], PATIENT, sizes=sizes).run()
    assert not hand.settled and old.outcomes < hand.outcomes      # the scores of both readings stay possible
    right = _answered_truly(game, piles, sizes, truth, [], most=12)
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def test_a_likeliest_reading_the_tricks_do_not_allow_gives_way_to_one_read_mended():
    """Hand 79 of the generator's seed 119000 (the contract said: the Declarer's pile holds 15 or 19 cards): 13
    reads there, the T16 and the hidden Skus lost. The likeliest reading gave the Skus to a faint peak of the
    Defenders' spread that lies on no card, leaving the Declarer 13 or 14 cards, which the tricks do not allow,
    so the count was not used and two questions were put. The cheapest one read changed that makes an allowed
    count (that peak no card: 15) is now the reading the others are weighed against: settled right. (Since session
    54 the Declarer's reads 7 and 8, no pips seen under weak peaks, may be cards with pips (`free_pips_weak`),
    and the Defenders' read 39 is asked, "no card" or the H3: the mend is shown without that rule.)"""
    game, piles, sizes, truth = _fixture("count_mend")
    before = replace(PATIENT, free_pips_weak=None)
    old = _Decoder(game, piles, None, [], replace(before, count_mend=None), sizes=sizes).run()
    assert [(q.kind, q.sighting) for q in old.questions] == [("which_card", 39), ("which_card", 40)]
    now = _answered_truly(game, piles, sizes, truth, [])
    assert {s: sorted(now.sides[s].ids()) for s in SIDES} == {s: sorted(truth[s]) for s in SIDES}
    decoder = _Decoder(game, piles, None, [], before, sizes=sizes)
    hand = decoder.run()
    assert decoder.mend is not None and decoder.reads[decoder.mend[0]].k == 40 and decoder.mend[1] == "none"
    assert hand.settled
    assert {s: sorted(hand.sides[s].ids()) for s in SIDES} == {s: sorted(truth[s]) for s in SIDES}
    # Not told, nothing is mended: the same two questions.
    free = _Decoder(game, piles, None, [], before).run()
    assert [(q.kind, q.sighting) for q in free.questions] == [("which_card", 39), ("which_card", 40)]


def test_no_mend_is_taken_beyond_its_limit():
    """A mend costs at most `count_mend` more than the likeliest reading; at 0 none is, and the hand stays as
    without it."""
    game, piles, sizes, _ = _fixture("count_mend")
    at0 = _Decoder(game, piles, None, [], replace(PATIENT, count_mend=0.0), sizes=sizes)
    hand = at0.run()
    assert at0.mend is None and not hand.settled


def test_a_count_that_takes_more_lost_cards_than_the_covers_show_beside_a_covered_fan_is_doubted():
    """Hand 33 of the independent renderer's seed 114000 (Solo without: the Declarer's pile is whole tricks of 4):
    two false covers in the Declarer's spread and the count took all three lost cards there (40 cards), while the
    Defenders' fan, whose covered-card model also fires but is not trusted, hid four: settled wrong. A pile given
    more lost cards than its covers count beside such a fan is read again without its covers (`beyond_covers`):
    the hand stays open, and answered truthfully it ends right."""
    game, piles, sizes, truth = _fixture("beyond_covers")
    old = _Decoder(game, piles, None, [], replace(PATIENT, beyond_covers=None), sizes=sizes).run()
    assert old.settled and old.sides["declarer"].card_points != game.count(truth["declarer"])
    hand = _Decoder(game, piles, None, [], PATIENT, sizes=sizes).run()
    assert not hand.settled and old.outcomes < hand.outcomes
    right = _answered_truly(game, piles, sizes, truth, [], most=12)
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    # Beside a fan that shows no covers of its own, the count stands: the same hand with the fan's covers gone.
    fan = piles["defenders"]
    quiet = {**piles, "defenders": replace(fan, sightings=[replace(s, covered=0.0) for s in fan.sightings])}
    assert _Decoder(game, quiet, None, [], PATIENT, sizes=sizes).run().settled


def test_a_dropped_count_does_not_leave_the_other_pile_s_over_count_to_decide():
    """Hand 36 of the independent renderer's seed 115000 (two photos, nothing said): one lost card, the Declarer's
    C7; four covers in the Declarer's spread (dropped as the model firing at something else, `cover_over`) and two
    in the Defenders' (capped at one) took it to the Defenders: settled wrong. The Defenders' count, as much over,
    is dropped with it (`over_both`): the C7's pile is asked, and the truthful answer ends right."""
    game, piles, _, truth = _fixture("over_both", told=False)
    st_ = HandSettings()
    assert [len(piles[s].covers(st_)) for s in SIDES] == [4, 2]
    assert sum(len(truth[s]) - len(piles[s].sightings) for s in SIDES) == 1
    old = _Decoder(game, piles, None, [], replace(PATIENT, over_both=False)).run()
    assert old.settled and old.sides["defenders"].card_points != game.count(truth["defenders"])
    hand = _Decoder(game, piles, None, [], PATIENT).run()
    assert [(q.kind, q.card) for q in hand.questions] == [("which_pile", "C7")]
    right = _answered_truly(game, piles, None, truth, [])
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    # the rule reaches only a count beside one dropped as noise: with the Declarer's covers gone, the Defenders' two
    # still take the lost card (`count_cap`, as before)
    fewer = {**piles, "declarer": replace(piles["declarer"], sightings=[
        replace(s, covered=0.0) for s in piles["declarer"].sightings])}
    kept = _Decoder(game, fewer, None, [], PATIENT).run()
    assert kept.settled and "C7" in kept.sides["defenders"].ids()


def test_a_hand_s_scores_still_possible_cross_to_another_process():
    """The decoder keeps each score's hash (`_Facts`); it stays behind when pickled, since another process hashes
    card ids otherwise: the scores still possible unpickled there are the same set."""
    game, piles, _, _ = _fixture("over_both", told=False)
    outcomes = _Decoder(game, piles, None, [], PATIENT).run().outcomes
    assert len(outcomes) == 2
    code = ("import pickle, sys; o = pickle.load(sys.stdin.buffer); "
            "print(len(o), all(tuple(x) in o for x in o), len({tuple(x) for x in o} | set(o)))")
    out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(outcomes), capture_output=True,
                         cwd=ROOT, env={"PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT)}, check=True)
    assert out.stdout.split() == [b"2", b"True", b"2"]


def test_a_read_of_a_card_seen_again_is_weighed_as_no_card_as_far_as_an_unsure_one():
    """Hand 2 of the independent renderer's seed 116000: the Declarer's fan holds a second read of the VIII's index
    (0.53 the VIII, which another read is sure of). Told where the King of Hearts lies, the hand took that read for
    the lost XII, no card there costing e^3.03 more (past `plausible`, e^3): settled wrong after one truthful tap.
    A read whose likeliest card another read beside it is surer of is weighed as no card up to `plausible_none`, as
    a read unsure of every card is (`twice_none`): its doubt is put, and the truthful answers end right."""
    game, piles, _, truth = _fixture("twice_none", told=False)
    said = [Answer("which_pile", "defenders", "HK")]
    old = _Decoder(game, piles, None, said, replace(PATIENT, twice_none=False)).run()
    assert old.settled and old.sides["declarer"].card_points != game.count(truth["declarer"])
    hand = _Decoder(game, piles, None, said, PATIENT).run()
    # the lost XII or the 1 of Diamonds (both 0 pips, alike to the read: `_tie` picks one), or no card
    assert [(q.kind, q.sighting, q.choices[1]) for q in hand.questions] == [("which_card", 34, "none")]
    assert hand.questions[0].choices[0] in ("T12", "D1")
    right = _answered_truly(game, piles, None, truth, [])
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def test_a_card_the_players_put_in_a_pile_is_weighed_for_a_misread_there():
    """Hand 23 of the independent renderer's seed 117000, fifteen cards hidden, the count of whole tricks said: the
    players, asked for two better photos, answered the taps behind them instead. Told the King of Diamonds lies
    with the Defenders, the decoder kept the Defenders' read of that King's index (the Cavalier of Diamonds 0.76,
    which another read is sure of; the King 0.0018, cut as far less likely than the read's best) for the Cavalier
    of Hearts, the King unseen beside it: settled wrong after nine truthful taps. Such a card is now weighed for a
    misread in its pile as a share of what the read leaves beside its best card (`placed_rest`)."""
    game, piles, sizes, truth = _fixture("placed_rest")
    said = [Answer("which_pile", "defenders" if c == "DK" else "declarer", c)
            for c in ("T2", "T7", "T18", "HQ", "HJ", "DK", "DJ", "CK", "CJ")]
    assert all(a.card in truth[a.side] for a in said)
    old = _Decoder(game, piles, None, said, replace(PATIENT, placed_rest=0.0), sizes=sizes).run()
    assert old.settled and [old.sides[s].card_points for s in SIDES] != [game.count(truth[s]) for s in SIDES]
    hand = _Decoder(game, piles, None, said, PATIENT, sizes=sizes).run()
    assert ("which_card", "defenders", 14) in [(q.kind, q.side, q.sighting) for q in hand.questions]
    assert "DK" in next(q for q in hand.questions if q.sighting == 14).choices
    right = _answered_truly(game, piles, sizes, truth, said, most=14)
    assert [right.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    # before any answer nothing is placed, so nothing changes: the hand asks for the better photos first
    first = _Decoder(game, piles, None, [], PATIENT, sizes=sizes).run()
    assert [q.kind for q in first.questions[:3]] == ["respread", "respread", "which_pile"]


def test_a_count_one_over_its_pile_s_lost_cards_does_not_take_the_other_pile_s_hidden_card():
    """Hand 48 of the independent renderer's seed 118000 (42 cards, two photos, nothing said): the Declarer's XIV
    hides under its neighbour (5 % showing, no cover, no gap); the Defenders' six covers count one more than the five
    cards lost there, and their read torn between no card and four cards takes the XIV, or leaves it to that count.
    Settled wrong (session 51); the Declarer's read over the XIV is 0.34 sure a covered card lies beside it, so one
    of the lost cards may lie there (`weak_spare`): the hand must ask where the XIV lies (or settle it right)."""
    game, piles, _, truth = _fixture("count_over_one", told=False)
    old = _Decoder(game, piles, None, [], replace(PATIENT, weak_spare=None)).run()
    assert old.settled and [old.sides[s].card_points for s in SIDES] != [game.count(truth[s]) for s in SIDES]
    hand = _Decoder(game, piles, None, [], PATIENT).run()
    assert not hand.settled or [hand.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]
    assert hand.questions


def test_a_misread_may_be_any_lost_card_before_the_players_answer_too():
    """Hand 50 of the independent renderer's seed 131000 (fresh in session 55), 42 cards, the count said, read by a
    classifier trained on whole trick piles (session 56): the Defenders' read 26 lies on the King of Hearts (a
    quarter of its index showing) and reads the 1 of Hearts 0.71, which the Declarer's read holds surely; of the
    lost cards it lists the XII at 0.01 and not the King, so the King went to the Declarer's unsure read 14 (on
    the XII): settled wrong. A misread's other options say little before any answer too (`misread_first`): the
    hand stays open, and the truthful taps end right in either order."""
    game, piles, sizes, truth = _fixture("misread_first")
    shows = json.loads((ROOT / "tests/vision/data/hands/misread_first.json").read_text())["shows"]
    read = piles["defenders"].sightings[26]
    assert shows["defenders"][26] == "HK" and read.likely[0][0] == "H1" and "HK" not in dict(read.likely)
    assert any(s.p("H1") > 0.9 for s in piles["declarer"].sightings)
    old = _Decoder(game, piles, None, [], replace(PATIENT, misread_first=False), sizes=sizes).run()
    assert old.settled and "HK" in old.sides["declarer"].ids()             # settled wrong
    hand = _Decoder(game, piles, None, [], PATIENT, sizes=sizes).run()
    assert not hand.settled and hand.questions
    for last in (False, True):
        done = _tapped(game, piles, sizes, truth, shows, [], last=last)
        assert done.settled
        assert [done.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


def test_a_card_the_players_placed_in_a_misreads_pile_is_nearly_as_likely_there_as_a_lost_card():
    """Hand 71 of the independent renderer's seed 132000 (fresh in session 56), 54 cards, two photos: the Defenders'
    read 20 lies on the King of Clubs and reads the Queen of Diamonds 0.75, which read 10 holds surely (a misread);
    it lists the lost XXI at 0.004, the King not at all. Told truthfully that the King lies with the Defenders and
    then the Declarer's pile size, the decoder put the XXI on read 20 (the King unseen beside it) and the 4 of
    Diamonds with the Declarer: settled wrong after 12 taps. A card placed in a misread's pile is nearly as likely
    there as a lost card of its pips the players have not placed (`placed_rival`): the read is asked about, and
    the truthful taps never settle it wrong."""
    game, piles, _, truth = _fixture("placed_rival", told=False)
    shows = json.loads((ROOT / "tests/vision/data/hands/placed_rival.json").read_text())["shows"]
    read = piles["defenders"].sightings[20]
    assert shows["defenders"][20] == "CK" and read.likely[0][0] == "DQ" and "CK" not in dict(read.likely)
    assert piles["defenders"].sightings[10].p("DQ") > 0.9 and read.pips == 3
    said = [Answer(k, s, c, q) for k, s, c, q in (
        ("which_card", "declarer", "C8", 19), ("which_pile", "declarer", "T10", None),
        ("which_pile", "defenders", "T17", None), ("which_pile", "defenders", "CK", None),
        ("which_pile", "defenders", "SK", None), ("which_pile", "declarer", "T4", None),
        ("which_pile", "defenders", "T11", None), ("which_pile", "defenders", "T8", None),
        ("which_card", "defenders", "T17", 5), ("which_pile", "defenders", "T14", None),
        ("which_pile", "declarer", "T13", None), ("pile_size", "declarer", "27", None))]
    old = _Decoder(game, piles, None, said, replace(PATIENT, placed_rival=None)).run()
    assert old.settled and "T21" in old.sides["defenders"].ids()            # settled wrong
    hand = _Decoder(game, piles, None, said, PATIENT).run()
    assert not hand.settled
    assert any(q.kind == "which_card" and q.sighting == 20 and {"CK", "T21"} <= set(q.choices)
               or q.kind == "which_pile" and q.card == "T21" for q in hand.questions)
    for last in (False, True):
        done = _tapped(game, piles, None, truth, shows, [], most=16, last=last)
        if done.settled:    # else only a new photo is asked: open, not wrong
            assert [done.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


@pytest.mark.xfail(strict=True, reason="issue 15, open: a card the players place in a pile is not weighed for a "
                   "read there whose cards are held elsewhere (session 57's tries settled other hands wrong)")
@pytest.mark.parametrize("name, told", [("placed_claimed", False), ("claimed_lost", False), ("claimed_lost", True)])
def test_truthful_taps_never_settle_a_hand_wrong_where_a_read_lies_on_a_card_placed_in_its_pile(name, told):
    """Known defect (session 57), kept as a reproduction: in each hand a read unsure of every card lies on a card
    the players then place in its pile (told "the King lies with the Defenders"), its classifier reads cards other
    reads hold (independent seed 133000 hand 53: the King of Clubs read as the Queen of Diamonds 0.36 and the XXI;
    generator seed 128000 hand 18: a second look on the King of Diamonds read as the Cavaliers) and lists a lost
    card the players did not place faintly (0.004) and the placed card not at all, so the lost card takes the read
    and the hand settles wrong after 1-4 truthful taps, first question first. Weighing such a read for the placed
    card as a misread is (`placed_claimed`, tried in session 57) mends these but settled another hand wrong
    (independent seed 126000 hand 60, the contract said)."""
    game, piles, sizes, truth = _fixture(name, told=told)
    shows = json.loads((ROOT / f"tests/vision/data/hands/{name}.json").read_text())["shows"]
    counted = HandSettings(check_s=600, budget_s=600)     # the budgets counted, so the same on any machine
    said: list[Answer] = []     # first question first, as `_tapped`
    done = _Decoder(game, piles, None, said, counted, sizes=sizes).run()
    while len(said) < 16 and (open_ := [q for q in done.questions if q.kind != "respread"]):
        said.append(_truly(open_[0], truth, shows))
        done = _Decoder(game, piles, None, said, counted, sizes=sizes).run()
    assert not done.settled or [done.sides[s].card_points for s in SIDES] == [game.count(truth[s]) for s in SIDES]


@pytest.mark.parametrize("name, told, said, answer", [
    # a which_pile answer whose readings tie: the copy's solve, warm-started from the hand before, picked another
    ("told_tie", True, [("which_pile", "declarer", "T9"), ("which_pile", "defenders", "SC"),
                        ("which_pile", "defenders", "T2")], ("which_pile", "declarer", "T12")),
    # a card placed with the Declarer leaves the lost cards a misread of the Defenders' weighs (`placed_rival`)
    ("told_rival", False, [("which_pile", "defenders", "T2")], ("which_pile", "declarer", "D3")),
    # a read the players name is sure of its card: another read listing it may be it seen twice (`said_twice`)
    ("told_said", True, [("which_pile", "declarer", "T1")], ("which_card", "defenders", "HQ", 27)),
])
def test_the_check_weighs_an_answer_as_the_hand_read_again_with_it(name, told, said, answer):
    """The check weighs each answer on a copy of the hand told it, reusing what the answer does not change. In
    three cached hands (session 58) the copy's scores still possible differed from those of the hand decoded afresh
    with the answer: the question could then be kept though no answer narrowed the score, or dropped though one
    did. The copy now weighs again what such answers change, and two readings never cost exactly the same (`_tie`)."""
    game, piles, sizes, _ = _fixture(name, told=told)
    counted = HandSettings(check_s=600, budget_s=600)
    answers = [Answer(*a) for a in said]
    hand = _Decoder(game, piles, None, answers, counted, sizes=sizes)
    hand.run()
    a = Answer(*answer)     # the answer to a question of that hand as read before (session 57's reader)
    copy = hand._told(a, hand._check_budget()).run().outcomes
    assert copy == _Decoder(game, piles, None, answers + [a], counted, False, sizes=sizes).run().outcomes
