"""The recogniser's deck-unique step (`vision.recogniser._resolve`), read by read (issue 16, item 8).

One deck holds each card once, so a read whose card a surer read already holds elsewhere takes its next
likeliest card that is still free, and is flagged for the players to confirm. These tests fail when the step
hands out a card that is already taken, or forgets to flag a read it changed."""
from __future__ import annotations

import numpy as np
import pytest

from vision.recogniser import SAME_CARD_SPAN, _Read, _resolve

CONFIDENT = 0.5  # below this a read is flagged anyway; the alternatives below are all surer than that


def read(card: str, conf: float, x: float, options=(), *, y: float = 100.0, up=(0.0, -1.0)) -> _Read:
    return _Read(card, conf, 0, np.array([x, y]), np.array(up), 40.0, False, list(options))


def by_place(reads) -> list[tuple[str, bool]]:
    """(card id, flagged) of each result, left to right (reads sit 200 px apart on one row)."""
    return [(r.card_id, r.flagged) for r in reads]


def test_a_duplicate_takes_its_next_free_card_not_one_already_taken():
    reads = [read("T1", 0.99, 100), read("T2", 0.98, 300),
             read("T1", 0.90, 500, [("T2", 0.85, False), ("T3", 0.80, False)])]  # T2 is held at x=300
    out = _resolve(reads, CONFIDENT)
    ids = [r.card_id for r in out]
    assert len(ids) == len(set(ids)), ids  # never two places with one card
    assert by_place(out) == [("T1", False), ("T2", False), ("T3", True)]


def test_a_reassigned_read_is_flagged_however_sure_its_new_card_looks():
    reads = [read("SKUS", 0.99, 100), read("SKUS", 0.95, 300, [("T21", 0.94, False)])]
    out = _resolve(reads, CONFIDENT)
    assert by_place(out) == [("SKUS", False), ("T21", True)]
    assert out[1].confidence == pytest.approx(0.94)  # its new card's own confidence, not the old one's


def test_the_surer_read_keeps_the_card_whichever_comes_first():
    reads = [read("HK", 0.70, 100, [("HQ", 0.65, False)]), read("HK", 0.97, 300, [("HQ", 0.60, False)])]
    out = _resolve(reads, CONFIDENT)
    assert by_place(out) == [("HQ", True), ("HK", False)]


def test_chained_duplicates_each_take_a_different_free_card():
    reads = [read("C1", 0.99, 100), read("C2", 0.98, 300), read("C3", 0.97, 500),
             read("C1", 0.90, 700, [("C2", 0.89, False), ("C3", 0.88, False), ("C4", 0.87, False)]),
             read("C1", 0.85, 900, [("C2", 0.84, False), ("C4", 0.83, False), ("C5", 0.82, False)])]
    out = _resolve(reads, CONFIDENT)
    assert by_place(out) == [("C1", False), ("C2", False), ("C3", False), ("C4", True), ("C5", True)]


def test_with_no_free_alternative_it_stays_a_flagged_duplicate():
    reads = [read("T1", 0.99, 100), read("T2", 0.98, 300),
             read("T1", 0.90, 500, [("T2", 0.85, False), ("T5", 0.05, False)])]  # T5 is too unlikely
    out = _resolve(reads, CONFIDENT)
    assert by_place(out) == [("T1", True), ("T2", False), ("T1", True)]  # both T1 places flagged


def test_the_two_indices_of_one_card_are_one_card_not_a_duplicate():
    # the turned index at the card's other corner: SAME_CARD_SPAN index heights away, pointing the other way
    span = SAME_CARD_SPAN * 40.0
    reads = [read("T7", 0.99, 100), read("T7", 0.97, 100 + span * 0.6, [("T8", 0.9, False)],
                                         y=100 + span * 0.8, up=(0.0, 1.0))]
    out = _resolve(reads, CONFIDENT)
    assert by_place(out) == [("T7", False)]  # merged into one card; the second index is not moved to T8


@pytest.mark.parametrize("span_heights", [1.6, 1.75, 2.05, 2.3])
def test_a_printing_with_a_shorter_index_still_reads_its_two_indices_as_one_card(span_heights):
    # A held-out printing's indices read shorter, so the same 77.6 mm span is 1.84-2.33 index heights there.
    span = span_heights * 40.0
    reads = [read("T7", 0.99, 100), read("T7", 0.97, 100 + span * 0.6, y=100 + span * 0.8, up=(0.0, 1.0))]
    out = _resolve(reads, CONFIDENT)
    assert by_place(out) == [("T7", False)]


@pytest.mark.parametrize("span_heights", [0.8, 3.0])
def test_two_places_of_one_card_too_near_or_too_far_stay_a_flagged_duplicate(span_heights):
    span = span_heights * 40.0
    reads = [read("T7", 0.99, 100), read("T7", 0.97, 100 + span * 0.6, y=100 + span * 0.8, up=(0.0, 1.0))]
    out = _resolve(reads, CONFIDENT)
    assert [flag for _, flag in by_place(out)] == [True, True]
