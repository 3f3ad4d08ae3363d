"""The hand reader: both sides' trick piles of one hand read together against the game's deck.

    reader = HandReader(Recogniser.load())
    piles = {"declarer": reader.read_pile(photo_a, game), "defenders": reader.read_pile(photo_b, game)}
    hand = reader.decode(game, piles)          # or decode(game, {"declarer": ...}, rest="defenders")
    hand.questions                             # only the ones whose answers change the score

Every card of the deck lies in exactly one pile. `read_pile` keeps each index read with its probabilities over
the deck (not only its best guess) and looks again where the sequence of found indices in a spread has a gap.
`decode` finds the likeliest way to give every deck card one place (a read, or no read at all), then tries every
plausible other way: where all of them give the same Card Points and put the Trull cards and Kings on the same
sides, the hand is settled (doubtful cards are marked unsure); otherwise it asks one question per doubt.
"""
from __future__ import annotations

import copy
import itertools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np

from scoring.deck import card as deck_card
from scoring.game import Game
from vision.geometry import INDEX_ASPECT, index_quad, other_index, spread_slots, turning
from vision.image import check_array
from vision.recogniser import NOT_A_CARD, Recogniser, one_card_span

SIDES = ("declarer", "defenders")
SURE = 0.999    # how sure a card the players named is
SIDE_NAMES = {"declarer": "the Declarer's pile", "defenders": "the Defenders' pile"}


@dataclass(frozen=True, slots=True)
class HandSettings:
    keep: float = 5.3               # a read's options at most e^5.3 (200) times less likely than its best are weighed
    plausible: float = 3.0          # an other reading is asked about when at most e^3 (20) times less likely,
    plausible_none: float = 5.3     # ... whether a read unsure of every card is one at all up to e^5.3 (200):
    #                                 a card that is not there moves the count
    none_doubt: float = 0.01        # ... but a read giving no card less than this is sure it is a card, if not
    #                                 which (a partly covered Tarock spread over the Taroks; session 31, independent
    #                                 sets: settled and right +1 to +2 a set, none wrong; 0.1 gains one more, but a
    #                                 generated hand's read that was no card gave it 0.042, `test_a_read_unsure_...`)
    twice_none: bool = True         # ... and so is a read whose likeliest card another read beside it is surer of
    #                                 (`seen_twice`: that card's index seen again), however sure it is of it
    #                                 (session 50: a fresh independent hand, seed 116000 hand 2, whose read of
    #                                 the VIII seen again took the lost XII at e^3.03 against no card, ended
    #                                 settled wrong after one truthful tap)
    plausible_no_cards: float = 6.0  # ... and every read of a pile most likely no card, yet taking one, none at
    #                                 once (`_no_cards`) up to e^6 (400): a settled hand must be right, and such
    #                                 reads can take lost 0-pip cards of the other pile whose move changes the
    #                                 score only together (session 26, held-out printing hand 61: e^5.39)
    floor: float = 1e-6             # smallest probability a read gives any card (the classifier is not perfect)
    candidates: int = 8             # cards kept per read (and the card of no read: "none")
    min_candidate: float = 1e-5
    hidden: float = 0.02            # chance that a card of a pile was not detected at all
    seen_twice: float = 0.1         # chance that a read is a card another read of its photo is sure of, seen again
    twice_near: float | None = 0.3  # ... when it is turned against the pile's run (a card's other corner) or lies
    #                                 within this many index heights of that read; None: anywhere in the photo (dev
    #                                 hands: settled and right 37, 46, 11, 19 -> 38, 46, 13, 19; independent 11, 18,
    #                                 3, 6 -> 12, 18, 4, 6; none wrong, at 0.8). Session 38: of the reads of three
    #                                 caches giving a card a tenth or more that a read 0.3-0.8 index heights along
    #                                 the run is sure of, and sits on, none was that index again (0 of 104; 25 of 160
    #                                 within 0.1-0.3): a neighbour's index misread. 0.8 -> 0.3: settled +4, none wrong
    claimed_none: float = 0.2       # a read giving no card less than `claimed_pn` (after the heat), whose likeliest
    claimed_pn: float = 0.05        # cards (half its mass) surer reads hold elsewhere, not beside it, is a card
    #                                 those reads do not show: its "no card" counts this share (session 38, three
    #                                 caches: such reads lay on no index 0 of 259 times, on a card read elsewhere 4;
    #                                 settled +2, none wrong)
    free_share: float = 0.1         # share of a read's doubt given to the cards no read claims
    free_pips: float = 0.1          # ... to a card whose pips are not those read under the index, this share of it
    free_family: float = 0.1        # ... to a card of another family (the Taroks, a suit) than the read's free
    #                                 options this share of it at least, more as they lean to its family (1: alike)
    placed_tail: float = 0.5        # a read sure of a card another read is sure of elsewhere (a misread): a card the
    #                                 players placed in its pile that it does not list has this share of the most an
    #                                 unlisted card may have (the least it lists; no more than its list leaves;
    #                                 session 41: seed 102000 hand 19, the IX read as a Jack another read is sure of)
    misread_free: float = 0.5       # ... and, once the players have answered, any card no read claims this share
    #                                 of it (session 42: seed 105000 hand 75, answered last question first, settled
    #                                 a King in the wrong pile; the page shows every question, answered in any order)
    elsewhere_told: float = 0.7     # once the players placed a card, a read less sure of its card than this may
    #                                 hold a card lying in the other pile (`_elsewhere`; before: 0.5; session 42:
    #                                 seed 103000 hand 14, two lost Taroks placed, a read of the XI as the XVII kept)
    placed_pairs: int = 12          # two unsure reads of a pile that may each be a card the players placed there
    #                                 unseen are weighed at once too (each alone may leave the count as it was),
    #                                 the likeliest this many pairs (session 41: seed 105000 hand 23)
    gap_ratio: float = 1.7          # a step this many times the pile's usual step leaves room for a card
    relook_heat: float = 0.08       # detector threshold when looking again at a gap
    relook_card: float = 0.3        # a second look is a card when it is at least this sure it is one
    relook_near: bool = True        # a gap close beside a read (a tight pile's step) is looked at too; its read is
    #                                 kept unless a read beside it reads the same card (the neighbour's index seen
    #                                 again); session 31: settled and right +1 to +2 in five of seven sets, -1 in one
    relook_none: float = 0.01       # a second look kept at a gap: its "no card" counts this share (the spread's
    #                                 step says a card lies there: such reads lay on a card's index 148 of 148 times
    #                                 in eight caches, 11 of them on one another read found too, which `seen_twice`
    #                                 weighs; "no card" 0.2-0.95 as read). Session 48, the cached reads of those
    #                                 caches: settled and right +13 hand-modes of 1,880 at 0.01 (+5 at 0.1, +15 at
    #                                 0.003), none lost, none wrong; 1.0: as read
    pile_heat: float | None = 0.15  # detector threshold for a pile photo (None: the recogniser's own, 0.25): a
    #                                 partly covered index peaks weakly, and the classifier rejects what is none
    #                                 (report hands: lost cards -14 % generated, -20 % independent; 0.10 settled one
    #                                 dev hand wrong)
    pile_zoom: tuple[float, float] | None = (80.0, 100.0)   # indices shorter than this on the detector are
    #                                 looked at again this tall (the recogniser's own: 52, 72): its boxes then sit
    #                                 truer on a partly covered index, and the classifier reads the card, not its
    #                                 neighbour (dev hands: settled 0.52 -> 0.54, with the count 0.70 -> 0.74)
    faint_read: float = 0.25        # a read of a peak weaker than this (the recogniser's own threshold) may be
    #                                 a sliver of a hidden card misread: its card is weighed in the other pile too
    min_card: float = 0.1           # a read whose likeliest card is less likely than this is no card
    faint_heat: float | None = None  # weaker detector peaks down to this heat (0.05) are read too ...
    faint_card: float = 0.5         # ... and kept when at least this sure of a card no read beside them shows
    faint_apart: float = 0.12       # ... and this many index heights from every read and from each other
    faint_doubt: float = 0.05       # ... and no read beside them gives their card this much
    faint_level: float = 0.25       # ... and level with the nearest read (a spread's next index), within this
    faint_most: int = 12            # ... the strongest this many of them per photo
    heat_floor: float = 0.2         # a sure detector peak leaves at most this share of the classifier's "none"
    budget_solves: int = 2000       # other readings weighed against the whole hand, at most; past it, by class
    budget_s: float = 3.0           # ... and a cap on the time that takes (a safety net on a slow or busy machine)
    tight_questions: int = 3        # this many doubts in one pile: ask for a better spread instead
    lost_respread: int = 5          # this many taps for lost cards: ask for a better spread first
    together_respread: bool = True  # the one doubt put alone whose answers alone change nothing (its doubts
    #                                 matter only together): a better photo of its pile instead of that idle tap
    #                                 (the only two idle questions over nine cached sets, seeds 106000 and 107000)
    photo_first: bool = True        # a better photo asked for: the taps it makes needless (doubts in that pile,
    #                                 lost cards, counts) wait behind it (`HandRead.instead`) for players who would
    #                                 rather tap; before, they were put below it (about 6 taps a hand where asked)
    check_questions: int = 24       # up to this many questions, each is tried with every answer ...
    check_solves: int = 3000        # ... weighing at most this many other readings in all, and one no answer
    #                                 narrows is dropped (counted, not timed: the same questions on any machine)
    check_s: float = 2.0            # ... and a cap on the time that takes (a safety net)
    checked_only: bool = True       # past that budget, only the questions checked are put (where there are
    #                                 any): those not reached come back with the hand read again with the answers
    sliver_card: float = 0.6        # a peak of the detector's sliver channel this strong (a release with it) ...
    sliver_match: float = 0.5       # ... that no read explains (`PileRead.hidden`: its nearest peak this close)
    sliver_apart: float = 0.12      # ... and this many index heights from a stronger such peak is a card no read
    #                                 shows: the lost cards are placed so that each pile holds that many at least
    second_looks: int = 4           # extra crops of an unsure pile read, averaged (the recogniser's own). 0 is a
    #                                 tenth faster (time ratio 1.41 -> 1.33 at 2028x1520) and settles as many dev hands
    #                                 (37, 46, 11, 19 -> 37, 45, 10, 19 of 60, 60, 30, 30), but the report hands
    #                                 lost one settled hand in two rows and put one question whose answers alone
    #                                 change nothing (a doubt that matters only together with another)
    cover_card: float | None = 0.9  # a read this sure a covered card lies beside it (a release with the covered-
    #                                 card model) counts that card the same way (dev hands: settled and right 32,
    #                                 43, 9, 17 -> 37, 46, 11, 19 of 60, 60, 30, 30 at 0.97; 0.99: 36, 46, 11, 19;
    #                                 with `count_cap`, 0.97: 40, 47, 15, 19; 0.9 and 0.8: 43, 48, 16, 20; 0.5: 47,
    #                                 48, 17, 21 but one 42-card hand settled wrong); None: the model is not run (it
    #                                 costs 0.2-0.3 of the hand time ratio)
    fan_covers: bool = False        # ... in a fan too: a fan's stacked edges read as covered cards (its covers
    #                                 held a lost card in 12 of 23 piles of the benchmark's hands, a spread's one
    #                                 cover 79 %, two 99 %), and they settled two fresh independent hands wrong
    #                                 (session 30)
    fan_degrees: float = 20.0       # a pile whose indices turn more than this from the pile's way (80th
    #                                 percentile) is a fan
    fan_gap: bool = True            # a fan with a gap no second look read (`PileRead.gaps`), or read as likelier no
    #                                 card, holds one card no read shows, at least (in place of its covers): fans
    #                                 with an open gap held one in 20 of 21 piles, with such a read 15 of 15
    #                                 of seven caches; without it a fresh independent hand (seed 101000 hand 28)
    #                                 settled wrong, a spread's covers taking the fan's hidden King (session 31)
    one_count: bool = True          # lost cards that matter only by how many lie in each pile: one count question
    #                                 (for the whole hand when it alone settles it, else for the cards alike)
    count_cap: bool = True          # a pile that counts more such cards than are lost holds all the lost cards
    #                                 (unless the other pile's count wants some too); False: the count is then not
    #                                 trusted at all (dev: 38, 46, 13, 19 at 0.97)
    cover_over: int | None = 2      # ... but a pile counting more than this many times the lost cards, and one
    #                                 more (a covered card lies beside two reads at most), shows the covered-card
    #                                 model firing at something else (glare, a messy pile): its count is dropped
    #                                 (a fresh independent hand settled wrong by four covers under glare; report
    #                                 hands: settled and right 119, 136 -> 118, 135 generated, the same
    #                                 independent; that fresh set 38 -> 37 with two photos); None: always capped
    over_both: bool = True          # ... and the other pile's count with it where it too counts more than are lost
    #                                 (session 50: a fresh independent hand, seed 115000 hand 36, four covers in
    #                                 the Declarer's spread dropped, two in the Defenders' for one lost card took
    #                                 it there: settled wrong)
    fan_spare: bool = True          # ... but where the other pile is a fan that counts no card, one of the lost
    #                                 cards may lie there (a fan hides a card without a gap: such fans lacked a
    #                                 card in 2 of 33 piles of ten caches, a spread 2 of 79, and one settled a fresh
    #                                 independent hand wrong, seed 103000 hand 67: its Pagat); since session 38
    #                                 also where a spread's covers count just as many as are lost (a fresh
    #                                 independent set, seed 104000: two 42-card hands settled wrong so)
    lone_cover: bool = True         # a hand settled where a pile counts one covered card and nothing else is read
    #                                 again without that count, and its questions are put when that leaves other
    #                                 scores: a spread's one cover lacked nothing in 45 of 120 such piles, and
    #                                 settled three fresh independent hands wrong (seed 102000 hands 69 and 72,
    #                                 seed 103000 hand 14); not where the players said how the tricks lie (the
    #                                 count of whole tricks then refuses a false cover's card where it would move
    #                                 the score; none of 1,000 cached hands settled wrong so). Ten caches, two
    #                                 photos / Talon said: 584 / 734 settled and right, 4 wrong -> 547 / 733, none
    #                                 wrong with `fan_spare`
    lone_told: bool = True          # ... and where they said it, when a lone pile's reads alone make a count the
    #                                 tricks allow, so that its cover takes lost cards to make the next (a held-out
    #                                 printing's hand settled wrong so: 30 reads and a false cover took three of
    #                                 the other pile's lost cards to make 33)
    cover_doubt: bool = True        # ... and, told, where a pile's covers make a count the tricks do not allow
    #                                 but one cover fewer does (`_one_cover_fewer`): the hand is read again with
    #                                 that one fewer (session 48: a fresh generated hand, seed 119000 hand 97, three
    #                                 covers for two hidden cards took the count from 16 to 18: settled wrong)
    beyond_covers: int | None = 1   # ... and where the count puts this many more lost cards in a pile than its covers
    #                                 count while the other pile is a fan whose own covers (not trusted, so counting
    #                                 none) say it hides cards too, the hand is read again without that pile's covers
    #                                 (`_beyond_covers`; session 49: a fresh independent hand, seed 114000 hand 33,
    #                                 two false covers and tricks of 4 took three lost cards to the Declarer and none
    #                                 to the Defenders' fan, which hid four: settled wrong)
    slot_along: float | None = 0.3  # a release of the slot kind (`Recogniser.cover_slots`): a slot between two reads
    #                                 lying further apart than this along their up, index heights (a spread running
    #                                 down the cards, or two reads not neighbours), counts nothing: not run (with
    #                                 session 44's model half trained, such slots held 38 of the 42 covers in the
    #                                 generator's spreads that lacked nothing, 22 of 174 in those that lacked some)
    count_mend: float | None = 3.0  # told how the tricks lie, a likeliest reading that leaves no count the tricks
    #                                 allow gives way to the cheapest reading of one read changed (a card to no
    #                                 card, or back) that does, at most e^3 (20) times less likely; the others are
    #                                 weighed against it (`_mend`, session 49). None: the count is not used for such
    #                                 a hand
    count_fix: bool = True          # told how the tricks lie, another reading that leaves no count the tricks
    #                                 allow costs the cheapest change of one more read that mends it (dev hands
    #                                 with the Talon said: settled and right 31, 14 -> 32, 14 generated, 19, 7 ->
    #                                 20, 7 independent; none wrong)


@dataclass(frozen=True, slots=True)
class Sighting:
    """One card seen in a pile photo: its index (centre, up, height px) and its likeliest cards."""
    centre: tuple[float, float]
    up: tuple[float, float]
    height: float
    likely: tuple[tuple[str, float], ...]      # (card id or "none", probability), best first
    pips: int                                  # the pips read under the index
    heat: float
    relook: bool = False                       # found by looking again at a gap
    covered: float = 0.0                       # chance a card lies under its card, too little of its index showing

    @property
    def quad(self) -> tuple[tuple[float, float], ...]:
        q = index_quad(np.array([self.centre]), np.array([self.up]), np.array([self.height]))[0]
        return tuple((float(x), float(y)) for x, y in q)

    def p(self, card_id: str) -> float:
        return next((p for c, p in self.likely if c == card_id), 0.0)

    @classmethod
    def named(cls, card_id: str, pips: int, centre=(0.0, 0.0), up=(0.0, -1.0), height: float = 80.0) -> Sighting:
        """A card the players named: as sure as a read gets."""
        return cls((float(centre[0]), float(centre[1])), (float(up[0]), float(up[1])), float(height),
                   ((card_id, SURE), (NOT_A_CARD, 1 - SURE)), pips, 1.0)


@dataclass(frozen=True, slots=True)
class Gap:
    """A place in a spread where the step says a card lies but no index was read: centre, up, height px."""
    centre: tuple[float, float]
    up: tuple[float, float]
    height: float
    chance: float                              # how likely a card is there, from the spread's regularity


@dataclass(slots=True)
class PileRead:
    """What one photo shows of one side's pile."""
    size: tuple[int, int]
    sightings: list[Sighting]
    gaps: list[Gap] = field(default_factory=list)
    tight: list[tuple[float, float]] = field(default_factory=list)   # centres of stretches with small steps
    ms: float = 0.0
    slivers: list[tuple[float, float, float]] = field(default_factory=list)   # sliver channel peaks: x, y, heat

    def to_json(self) -> dict:
        return {"size": list(self.size), "ms": round(self.ms, 1),
                "sightings": [{"centre": _r(s.centre), "up": _r(s.up, 4), "height": round(s.height, 1),
                               "likely": [[c, round(p, 5)] for c, p in s.likely], "pips": s.pips,
                               "heat": round(s.heat, 3), "relook": s.relook, "covered": round(s.covered, 4)}
                              for s in self.sightings],
                "gaps": [{"centre": _r(g.centre), "up": _r(g.up, 4), "height": round(g.height, 1),
                          "chance": round(g.chance, 3)} for g in self.gaps],
                "tight": [_r(t) for t in self.tight], "slivers": [_r(t, 3) for t in self.slivers]}

    def split(self, side_of) -> dict[str, PileRead]:
        """One photo of both piles as two: side_of(centre) names the side ("declarer", "defenders") or None."""
        out = {s: PileRead(self.size, [], [], [], self.ms) for s in SIDES}
        for group, items in (("sightings", self.sightings), ("gaps", self.gaps)):
            for x in items:
                side = side_of(x.centre)
                if side in out:
                    getattr(out[side], group).append(x)
        for x in self.slivers:
            side = side_of(x[:2])
            if side in out:
                out[side].slivers.append(x)
        return out

    def split_by_gap(self, min_gap: float = 1.0) -> dict[str, PileRead] | None:
        """One photo of two piles laid apart: split at the widest empty stretch between the indices along the
        photo's longer axis; the Declarer's pile is the left (or upper) one. None when no stretch is at least
        min_gap index heights wide."""
        if len(self.sightings) < 2:
            return None
        axis = 0 if self.size[0] >= self.size[1] else 1
        xs = sorted(s.centre[axis] for s in self.sightings)
        h = float(np.median([s.height for s in self.sightings]))
        gaps = [(b - a, (a + b) / 2) for a, b in itertools.pairwise(xs)]
        width, cut = max(gaps)
        if width < min_gap * h:
            return None
        return self.split(lambda c: "declarer" if c[axis] < cut else "defenders")

    @classmethod
    def from_json(cls, data: Mapping) -> PileRead:
        sightings = [Sighting(tuple(s["centre"]), tuple(s["up"]), float(s["height"]),
                              tuple((str(c), float(p)) for c, p in s["likely"]), int(s["pips"]),
                              float(s["heat"]), bool(s.get("relook", False)), float(s.get("covered", 0.0)))
                     for s in data["sightings"]]
        gaps = [Gap(tuple(g["centre"]), tuple(g["up"]), float(g["height"]), float(g["chance"]))
                for g in data.get("gaps", [])]
        return cls(tuple(data["size"]), sightings, gaps, [tuple(t) for t in data.get("tight", [])],
                   float(data.get("ms", 0.0)), [tuple(map(float, t)) for t in data.get("slivers", [])])

    def covers(self, st: HandSettings, fanned: bool | None = None) -> list[tuple[float, float, float]]:
        """Each read at least `cover_card` sure a covered card lies beside it (its centre and that chance); none
        in a fan (`fanned`, worked out unless given), whose stacked edges the covered-card model takes for covered
        cards. fanned=False: what the model says whether or not the pile is a fan."""
        if fanned is None:
            fanned = self.fanned(st)
        if st.cover_card is None or (fanned and not st.fan_covers):
            return []
        return [(*s.centre, s.covered) for s in self.sightings if s.covered >= st.cover_card]

    def fanned(self, st: HandSettings) -> bool:
        """Whether the pile is a fan: the indices of its reads that are likeliest a card turned more than
        `fan_degrees` from the pile's way (the 80th percentile). Ways are axes: a card's other corner, turned
        half round, runs with its pile."""
        ups = [s.up for s in self.sightings if s.likely and s.likely[0][0] != NOT_A_CARD]
        return len(ups) >= 3 and turning(ups) > st.fan_degrees

    def hidden(self, st: HandSettings) -> list[tuple[float, float, float]]:
        """Sliver peaks no read explains: cards of this pile whose index shows too little to be read. Each read
        and each read's other index (top-left <-> turned bottom-right) explains its nearest peak within
        `sliver_match` index heights, the nearest pairs first, one peak each (a partly covered read sits off its
        index's centre, and a hidden card's peak may lie closer to a read than that read's own); a peak left
        over that is `sliver_card` strong and `sliver_apart` index heights from a stronger one is a card. So is
        each read at least `cover_card` sure a covered card lies beside it (`covers`)."""
        fanned = self.fanned(st)
        beside = self.covers(st, fanned)
        if st.fan_gap and not st.fan_covers and fanned:
            # an open gap, or one a second look read as likelier no card than any card
            spots = [(*g.centre, g.chance) for g in self.gaps] + [
                (*s.centre, s.p(NOT_A_CARD)) for s in self.sightings if s.relook and s.likely[0][0] == NOT_A_CARD]
            if spots:
                beside = beside + [max(spots, key=lambda t: t[2])]
        if not self.slivers or not self.sightings:
            return beside
        h = float(np.median([s.height for s in self.sightings]))
        peaks = np.array(self.slivers, np.float64).reshape(-1, 3)
        marks = np.array([s.centre for s in self.sightings]
                         + [other_index(s.centre, s.up, s.height) for s in self.sightings], np.float64)
        d = np.hypot(*(marks[:, None, :] - peaks[None, :, :2]).transpose(2, 0, 1)) / h
        taken_mark, taken_peak = set(), set()
        for m, k in zip(*np.unravel_index(np.argsort(d, axis=None), d.shape)):
            if d[m, k] > st.sliver_match:
                break
            if m in taken_mark or k in taken_peak:
                continue
            taken_mark.add(m); taken_peak.add(k)
        out: list[tuple[float, float, float]] = []
        for k in np.argsort(-peaks[:, 2], kind="stable"):
            x, y, heat = (float(v) for v in peaks[k])
            if heat < st.sliver_card:
                break
            if k in taken_peak or any(math.dist((x, y), o[:2]) < st.sliver_apart * h for o in out):
                continue
            out.append((x, y, heat))
        return out + beside


@dataclass(frozen=True, slots=True)
class HandCard:
    """One card of the decoded hand. quad is None for a card no read shows (placed by elimination)."""
    card_id: str
    confidence: float
    pips: int
    quad: tuple[tuple[float, float], ...] | None
    unsure: bool
    sighting: int | None = None                 # index into the side's PileRead.sightings

    def to_json(self) -> dict:
        return {"id": self.card_id, "confidence": round(self.confidence, 4), "pips": self.pips,
                "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad] if self.quad else None,
                "unsure": self.unsure}


@dataclass(frozen=True, slots=True)
class Question:
    """A doubt whose answers give different scores. kind: which_card, which_pile, respread, count (with
    "the rest is theirs": does the photographed pile hold `card` cards? yes / no), or pile_size (how many
    cards does `side`'s pile hold? one of `choices`: asked when more than one score stays possible, no single
    doubt tells them apart, and the pile's size does)."""
    kind: str
    side: str | None
    choices: tuple[str, ...]
    text: str
    sighting: int | None = None                 # which_card: the read asked about, in `side`'s pile
    card: str | None = None                     # which_pile: the card asked about
    where: tuple[float, float] | None = None    # respread / which_card: image px to point at

    def answers(self) -> list[Answer]:
        """Every answer a which_card, which_pile or pile_size question takes (none for respread and count)."""
        if self.kind == "which_pile":
            return [Answer("which_pile", side, self.card) for side in self.choices]
        if self.kind == "which_card":
            return [Answer("which_card", self.side, c, self.sighting) for c in self.choices]
        if self.kind == "pile_size":
            return [Answer("pile_size", self.side, c) for c in self.choices]
        return []

    def to_json(self) -> dict:
        out = {"kind": self.kind, "side": self.side, "choices": list(self.choices), "text": self.text}
        if self.sighting is not None:
            out["sighting"] = self.sighting
        if self.card is not None:
            out["card"] = self.card
        if self.where is not None:
            out["where"] = _r(self.where)
        return out


@dataclass(frozen=True, slots=True)
class Answer:
    """A player's answer: the read `sighting` of `side` is `card` (which_card), `card` lies in `side`
    (which_pile), or `card` is "yes" / "no" to the count of `side`'s pile (count)."""
    kind: str
    side: str
    card: str
    sighting: int | None = None


@dataclass(slots=True)
class SideCards:
    cards: list[HandCard]
    card_points: Fraction | None

    def ids(self) -> list[str]:
        return [c.card_id for c in self.cards]


@dataclass(slots=True)
class HandRead:
    game: str
    sides: dict[str, SideCards]
    questions: list[Question]
    rest: str | None = None
    outcomes: frozenset = frozenset()   # the scores still possible: ((Card Points per side), bonus cards' sides)
    instead: list[Question] = field(default_factory=list)  # taps behind a better photo, for players who rather tap

    @property
    def settled(self) -> bool:
        return not self.questions and not self.instead

    def to_json(self, game: Game) -> dict:
        return {"game": self.game, "rest": self.rest,
                "sides": {s: {"cards": [c.to_json() for c in v.cards],
                              "card_points": game.format(v.card_points) if v.card_points is not None else None}
                          for s, v in self.sides.items()},
                "questions": [q.to_json() for q in self.questions],
                "instead": [q.to_json() for q in self.instead]}


class HandReader:
    def __init__(self, recogniser: Recogniser, settings: HandSettings = HandSettings()):
        self.rec, self.settings = recogniser, settings
        # pile photos are detected closer than plain recognition does (the same models)
        zoom = settings.pile_zoom
        self.pile_rec = recogniser if zoom is None else recogniser.with_settings(
            small_index_px=zoom[0], target_index_px=zoom[1])
        self.read_rec = recogniser.with_settings(second_looks=settings.second_looks)
        self.screen_rec = recogniser.with_settings(second_looks=0)     # a first look at faint peaks

    # ------------------------------------------------------------ one photo

    def read_pile(self, image: np.ndarray, game: Game) -> PileRead:
        """Every index in the photo with its probabilities over the game's deck, and the gaps looked at again."""
        check_array(image)
        t0 = time.perf_counter()
        st = self.settings
        slivers: list = []
        (centres, ups, heights, heat), weaker = self.pile_rec.peaks(image, st.pile_heat, st.faint_heat, slivers)
        deck = [c.id for c in game.deck]
        probs, pips = self._probabilities(image, game, centres, ups, heights)
        reads = [_sighting(centres[i], ups[i], heights[i], probs[i], heat[i], st, pips[i], deck)
                 for i in range(len(centres))]
        # An index the classifier is sure is no card is left out (coins, pencils, the score pad, card backs);
        # one it doubts stays, with its doubt, for the decoder to weigh against the deck.
        reads = _drop_same_index([s for s in reads if _best_card(s) >= st.min_card])
        reads = _merge_same_card(reads + self._faint(image, game, weaker, reads))
        gaps, tight = _gaps(reads, self.settings)
        found: list[Sighting] = []
        open_gaps = []
        for g in gaps:
            s = self._look_again(image, game, g, reads + found)
            if s is None:
                open_gaps.append(g)
            else:
                found.append(s)
        reads = self._covered(image, reads + found)
        h, w = image.shape[:2]
        sl = [(float(x), float(y), float(v)) for part in slivers for (x, y), v in zip(*part)]
        return PileRead((w, h), reads, open_gaps, tight, (time.perf_counter() - t0) * 1000, sl)

    def _covered(self, image, reads: list[Sighting]) -> list[Sighting]:
        """Each read with the chance that a covered card peeks out beside it (when the release can tell)."""
        if self.settings.cover_card is None:
            return reads
        if getattr(self.rec, "cover_slots", False):
            return self._slots_covered(image, reads)
        p = self.rec.covered(image, np.array([s.centre for s in reads]).reshape(-1, 2),
                             np.array([s.up for s in reads]).reshape(-1, 2), np.array([s.height for s in reads]))
        return reads if p is None else [replace(s, covered=float(q)) for s, q in zip(reads, p)]

    def _slots_covered(self, image, reads: list[Sighting]) -> list[Sighting]:
        """The slot kind of covered-card model: the chance that a card no read shows lies in each slot of a spread
        (before, between and after its card reads, `spread_slots`), given to the read after the slot (the last
        read takes the surer of the last two slots), so that a hidden card is counted once, not beside each
        neighbour. A fan (`PileRead.fanned`'s test) is not looked at, whatever `fan_covers` says."""
        if PileRead((0, 0), reads, [], []).fanned(self.settings):
            return reads
        cards = [i for i, s in enumerate(reads) if _cardlike(s)]
        if len(cards) < 2:
            return reads
        order, centres, ups, heights = spread_slots([reads[i].centre for i in cards], [reads[i].up for i in cards],
                                                    [reads[i].height for i in cards])
        run = np.ones(len(centres), bool)
        if self.settings.slot_along is not None:
            c = np.array([reads[cards[k]].centre for k in order])
            u = np.array([reads[cards[k]].up for k in order])
            along = np.abs(np.sum(np.diff(c, axis=0) * u[:-1], 1)) / heights[1:-1]
            run[1:-1] = along <= self.settings.slot_along
        p = np.zeros(len(centres))
        if run.any():
            q = self.rec.covered(image, centres[run], ups[run], heights[run])
            if q is None:
                return reads
            p[run] = q
        chance = [float(q) for q in p[:-1]]
        chance[-1] = max(chance[-1], float(p[-1]))
        out = list(reads)
        for k, q in zip(order, chance):
            out[cards[k]] = replace(reads[cards[k]], covered=q)
        return out

    def _faint(self, image, game: Game, weaker, reads: list[Sighting]) -> list[Sighting]:
        """Faint or suppressed detector peaks that read plainly as a card no read beside them shows: a partly
        covered index squeezed between found ones (the detector often peaks there weakly, or only inside the
        neighbour's box)."""
        st = self.settings
        centres, ups, heights, heat = weaker
        if not len(centres):
            return []
        own = np.array([s.centre for s in reads]).reshape(-1, 2)
        tall = np.array([s.height for s in reads]).reshape(-1)
        ups_own = np.array([s.up for s in reads]).reshape(-1, 2)
        keep: list[int] = []
        for k in np.argsort(-heat, kind="stable"):
            if len(keep) >= st.faint_most:
                break
            if len(own):
                d = own - centres[k]
                dist = np.hypot(*d.T)
                if (dist < st.faint_apart * np.maximum(tall, heights[k])).any():
                    continue     # a peak on an index already read
                j = int(dist.argmin())
                if abs(d[j] @ ups_own[j]) > st.faint_level * tall[j]:
                    continue     # higher or lower than the nearest index: another part of a card, not a spread's
            if any(math.dist(centres[k], centres[j]) < st.faint_apart * heights[k] for j in keep):
                continue
            keep.append(int(k))
        if not keep:
            return []
        idx = np.array(keep)
        # one look at each (no second looks: most are no card, and a card kept must read plainly at once)
        probs, pips = self._probabilities(image, game, centres[idx], ups[idx], heights[idx], self.screen_rec)
        deck = [c.id for c in game.deck]
        out = []
        for j, k in enumerate(idx):
            s = _sighting(centres[k], ups[k], heights[k], probs[j], heat[k], st, pips[j], deck)
            card, p = max(((c, q) for c, q in s.likely if c != NOT_A_CARD), key=lambda t: t[1], default=(None, 0))
            if card is None or p < st.faint_card:
                continue
            # the neighbour's own index seen again reads as the neighbour (or as one of its doubts): not a card
            if any(r.p(card) >= st.faint_doubt and math.dist(r.centre, s.centre) < 1.2 * r.height for r in reads):
                continue
            out.append(s)
        return out

    def _probabilities(self, image, game: Game, centres, ups, heights, rec: Recogniser | None = None
                       ) -> tuple[np.ndarray, np.ndarray]:
        """(N, len(deck) + 1) probabilities of each deck card and of "not a card", pips read in; the pips read."""
        deck = [c.id for c in game.deck]
        n = len(centres)
        if n == 0:
            return np.zeros((0, len(deck) + 1)), np.zeros(0, int)
        cards, pips = (rec or self.read_rec).classify(image, np.asarray(centres), np.asarray(ups), np.asarray(heights))
        lab = {c: k for k, c in enumerate(self.rec.labels)}
        cols = [lab.get(c) for c in deck]
        out = np.zeros((n, len(deck) + 1))
        for j, (cid, k) in enumerate(zip(deck, cols)):
            if k is not None:
                p = deck_card(cid).pips
                out[:, j] = cards[:, k] * (pips[:, p] if p < pips.shape[1] else 0.0)
        none = lab.get(NOT_A_CARD)
        out[:, -1] = cards[:, none] if none is not None else 0.0
        # cards outside this game's deck (the 42-card game) do not exist: their share is renormalised away
        total = out.sum(1, keepdims=True)
        return out / np.maximum(total, 1e-12), pips.argmax(1)

    def _look_again(self, image, game: Game, gap: Gap, known: list[Sighting]) -> Sighting | None:
        """A closer look at a gap: the detector at a lower threshold on the region, then crops both ways up."""
        st = self.settings
        c, u, h = np.array(gap.centre), np.array(gap.up), gap.height
        near = _near_known(c, h, known)
        if near and (not st.relook_near or _near_known(c, h, [k for k in known if k.relook])):
            return None
        pad = 1.6 * h
        H, W = image.shape[:2]
        roi = (int(max(c[0] - pad, 0)), int(max(c[1] - pad, 0)), int(min(c[0] + pad, W)), int(min(c[1] + pad, H)))
        poses = [(c, u, h), (c, -u, h)]
        if roi[2] - roi[0] >= 32 and roi[3] - roi[1] >= 32:
            scale = min(1.0, self.pile_rec.settings.target_index_px / max(h, 1.0))
            cs, us, hs, _score = self.pile_rec.look(image, scale, roi, st.relook_heat)
            for k in range(len(cs)):
                d = cs[k] - c
                if math.hypot(*d) < 0.45 * h and not _near_known(cs[k], hs[k], known):
                    poses.append((cs[k], us[k], float(hs[k])))
        cen = np.array([p[0] for p in poses])
        ups = np.array([p[1] for p in poses])
        hts = np.array([p[2] for p in poses])
        probs, pips = self._probabilities(image, game, cen, ups, hts)
        deck = [card.id for card in game.deck]
        cardlike = 1 - probs[:, -1]
        if near:    # beside a read: no pose that reads as that read's card (the neighbour's own index seen again)
            for k in range(len(poses)):
                card = deck[int(np.argmax(probs[k, :-1]))]
                if any(r.likely[0][0] == card and math.dist(r.centre, cen[k]) < 1.2 * r.height for r in known):
                    cardlike[k] = 0.0
        best = int(np.argmax(cardlike))
        if cardlike[best] < st.relook_card:
            return None
        # The gap may hold no card at all (a sloppy spread): the read is only as sure as the spread's step.
        probs = probs[best] * gap.chance
        probs[-1] += 1 - gap.chance
        return replace(_sighting(cen[best], ups[best], hts[best], probs, 0.0, st, int(pips[best]), deck),
                       relook=True)

    # ------------------------------------------------------------ the hand

    def decode(self, game: Game, piles: Mapping[str, PileRead], rest: str | None = None,
               answers: Sequence[Answer] = (), sizes: frozenset[int] | None = None) -> HandRead:
        """Both sides' cards and the questions whose answers change the score.

        piles: side -> PileRead for each photographed side. rest: the side that was not photographed and
        holds every card not seen ("the rest is theirs"). answers: what the players said so far. sizes: the
        Declarer's pile's possible card counts when the players said how the tricks and the Talon lie
        (`Game.pile_sizes`): a card no photo shows then goes where the count allows."""
        return decode(game, piles, rest, answers, self.settings, sizes)


def decode(game: Game, piles: Mapping[str, PileRead], rest: str | None = None, answers: Sequence[Answer] = (),
           settings: HandSettings = HandSettings(), sizes: frozenset[int] | None = None) -> HandRead:
    """`HandReader.decode` without a recogniser: the decoder needs only the pile reads.

    sizes: how many cards the Declarer's pile may hold (whole tricks plus the Talon cards of the contract,
    `scoring.pile_sizes`); None when not known."""
    hand = _Decoder(game, piles, rest, answers, settings, sizes=sizes).run()
    return _photo_first(hand) if settings.photo_first else hand


def _photo_first(hand: HandRead) -> HandRead:
    """Where a better photo of a pile is asked for, the taps it makes needless wait behind it (`instead`): the
    doubts of that pile, and where each lost card lies or how many cards a pile holds (the new photo counts
    again). Doubts of a pile that is not photographed again stay asked."""
    again = {q.side for q in hand.questions if q.kind == "respread"}
    if not again:
        return hand
    behind = [q for q in hand.questions if q.kind != "respread" and (q.kind != "which_card" or q.side in again)]
    return replace(hand, questions=[q for q in hand.questions if q not in behind], instead=behind)


def photo_cards(game: Game, pile: PileRead, settings: HandSettings = HandSettings()) -> dict[int, str]:
    """One photo on its own: sighting index -> card (or "none"), each deck card used at most once."""
    return _Decoder(game, {"declarer": pile}, "defenders", (), settings)._solve()[0]


# ---------------------------------------------------------------- reading helpers

def _r(v, nd: int = 1) -> list[float]:
    return [round(float(x), nd) for x in v]


def _sighting(centre, up, height, probs: np.ndarray, heat: float, st: HandSettings, pips: int,
              deck: list[str]) -> Sighting:
    order = np.argsort(-probs)
    likely = []
    for k in order[: st.candidates + 1]:
        if probs[k] < st.min_candidate and likely:
            break
        likely.append((NOT_A_CARD if k == len(probs) - 1 else deck[k], float(probs[k])))
    return Sighting((float(centre[0]), float(centre[1])), (float(up[0]), float(up[1])), float(height),
                    tuple(likely), int(pips), float(heat))


def _drop_same_index(reads: list[Sighting]) -> list[Sighting]:
    """Neighbouring detector peaks on one index: keep the surer read."""
    kept: list[Sighting] = []
    for s in sorted(reads, key=lambda s: -(1 - s.p(NOT_A_CARD))):
        if any(math.dist(s.centre, k.centre) < 0.12 * max(s.height, k.height) for k in kept):
            continue
        kept.append(s)
    return kept


def _merge_same_card(reads: list[Sighting], agree: float = 0.02) -> list[Sighting]:
    """The two indices of one card (top-left and the turned bottom-right) become one read, their evidence
    multiplied, when the geometry fits and they agree on the card: the chance that both show the same card,
    sum over cards of p_a * p_b, is at least `agree` (about 1 in the deck's size, the chance for two unrelated
    reads that know nothing). The best-agreeing pairs are joined first, each read at most once: the top card's
    bottom-right index also lies at the span from a neighbour's index, and joining it there loses a card."""
    pairs = []
    for i, a in enumerate(reads):
        pa = dict(a.likely)
        for j in range(i + 1, len(reads)):
            b = reads[j]
            if not _twin(a, b):
                continue
            same = sum(p * b.p(c) for c, p in pa.items() if c != NOT_A_CARD)
            if same >= agree:
                pairs.append((same, i, j))
    out = list(reads)
    gone: set[int] = set()
    for _, i, j in sorted(pairs, reverse=True):
        if i in gone or j in gone:
            continue
        a, b = reads[i], reads[j]
        pa, pb = dict(a.likely), dict(b.likely)
        both = {c: pa.get(c, 1e-6) * pb.get(c, 1e-6) for c in set(pa) | set(pb) if c != NOT_A_CARD}
        total = sum(both.values())
        likely = tuple(sorted(((c, p / total) for c, p in both.items()), key=lambda t: -t[1]))
        best = a if a.p(NOT_A_CARD) <= b.p(NOT_A_CARD) else b
        out[i] = replace(best, likely=likely, heat=max(a.heat, b.heat))
        gone.update((i, j))
        out[j] = None
    return [s for s in out if s is not None]


def _twin(a: Sighting, b: Sighting) -> bool:
    return one_card_span(a.centre, a.up, a.height, b.centre, b.up, b.height)


def _near_known(c, h, known: list[Sighting]) -> bool:
    return any(math.dist(c, k.centre) < 0.3 * max(h, k.height) for k in known)


def _best_card(s: Sighting) -> float:
    return max((p for c, p in s.likely if c != NOT_A_CARD), default=0.0)


def _cardlike(s: Sighting) -> bool:
    return s.p(NOT_A_CARD) < 0.5


def _gaps(reads: list[Sighting], st: HandSettings) -> tuple[list[Gap], list[tuple[float, float]]]:
    """Gaps in the spreads: chains of indices side by side with a steady step, and a step too long for it.

    Also the stretches where the step is so short that the numerals are covered (for a respread)."""
    pts = [s for s in reads if _cardlike(s)]
    n = len(pts)
    if n < 3:
        return [], []
    c = np.array([s.centre for s in pts])
    u = np.array([s.up for s in pts])
    h = np.array([s.height for s in pts])
    # Each index's nearest neighbour on either side across its up direction.
    sides: list[dict[int, tuple[int, float]]] = [{} for _ in range(n)]
    turned = math.cos(math.radians(30))
    for i in range(n):
        right = np.array([-u[i, 1], u[i, 0]])
        d = c - c[i]
        along = (d @ u[i]) / h[i]
        across = (d @ right) / (h[i] * INDEX_ASPECT)
        near = (np.abs(u @ u[i]) >= turned) & (np.abs(along) < 0.35) & (np.abs(across) > 0.25) & (np.abs(across) < 5.0)
        near[i] = False
        for k, side in ((1, across > 0), (-1, across < 0)):
            if (near & side).any():   # the nearest on that side (the first of equals, as a loop would take)
                j = int(np.argmin(np.where(near & side, np.abs(across), np.inf)))
                sides[i][k] = (j, float(abs(across[j])))
    # Mutual neighbours form links; links form chains.
    links: dict[int, set[int]] = {i: set() for i in range(n)}
    for i in range(n):
        for j, _ in sides[i].values():
            if any(back == i for back, _ in sides[j].values()):
                links[i].add(j)
                links[j].add(i)
    seen, gaps, tight = set(), [], []
    for start in range(n):
        if start in seen or len(links[start]) > 1:
            continue
        chain, prev, cur = [], None, start
        while cur is not None and cur not in seen:
            seen.add(cur)
            chain.append(cur)
            nxt = [j for j in links[cur] if j != prev and j not in seen]
            prev, cur = cur, (nxt[0] if nxt else None)
        if len(chain) < 3:
            continue
        width = np.array([h[k] * INDEX_ASPECT for k in chain])
        steps = np.array([math.dist(c[a], c[b]) for a, b in itertools.pairwise(chain)]) / ((width[:-1] + width[1:]) / 2)
        usual = float(np.median(steps))
        spread = float(np.median(np.abs(steps - usual))) / max(usual, 1e-6)
        chance = float(np.clip(0.9 - 2.5 * spread, 0.15, 0.9))
        for k, step in enumerate(steps):
            if step < st.gap_ratio * usual:
                continue
            a, b = chain[k], chain[k + 1]
            missing = max(1, round(step / usual) - 1)
            ub = u[b] * (1 if float(u[a] @ u[b]) >= 0 else -1)
            for m in range(1, missing + 1):
                t = m / (missing + 1)
                up = (1 - t) * u[a] + t * ub
                up /= max(np.hypot(*up), 1e-9)
                gaps.append(Gap(tuple((1 - t) * c[a] + t * c[b]), (float(up[0]), float(up[1])),
                                float((1 - t) * h[a] + t * h[b]), chance))
        short = steps < 0.8
        if short.sum() >= 3:
            where = np.mean([c[chain[k]] for k in np.nonzero(short)[0]], 0)
            tight.append((float(where[0]), float(where[1])))
    return gaps, tight


# ---------------------------------------------------------------- assignment

_INF = 1e9
_LOST = -1      # a force whose card no read shows: (_LOST, card)


def _assign(cost, warm: tuple[np.ndarray, _Assignment] | None = None) -> _Assignment:
    """Minimum-cost perfect assignment of a square matrix (Hungarian method with potentials, O(n^3), the
    inner scan in numpy); row -> column. Small and exact, so no scipy on the Pi.

    warm: (another matrix of the same shape, its assignment): only the rows that differ are placed again,
    from its potentials (still feasible for every row that is the same), at O(n^2) each: a hand told one
    more answer changes a few reads."""
    c = np.asarray(cost, np.float64)
    n = len(c)
    u, v = np.zeros(n + 1), np.zeros(n + 1)
    p = np.zeros(n + 1, np.int64)       # p[j]: row (1-based) matched to column j; column 0 is the root
    free_rows = range(1, n + 1)
    if warm is not None and warm[1] is not None and warm[0].shape == c.shape:
        old, a = warm
        u[1:], v[1:] = a.u, a.v
        p[np.asarray(a.rows) + 1] = np.arange(1, n + 1)
        changed = np.nonzero((old != c).any(1))[0]
        p[np.asarray(a.rows)[changed] + 1] = 0
        u[changed + 1] = (c[changed] - a.v[None, :]).min(1)     # each changed row's reduced costs >= 0
        free_rows = (changed + 1).tolist()
    way = np.zeros(n + 1, np.int64)
    for i in free_rows:
        p[0], j0 = i, 0
        minv = np.full(n + 1, np.inf)
        used = np.zeros(n + 1, bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            free = ~used[1:]
            cur = c[i0 - 1] - u[i0] - v[1:]
            better = free & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            masked = np.where(free, minv[1:], np.inf)
            j1 = int(np.argmin(masked)) + 1
            delta = masked[j1 - 1]
            u[p[used]] += delta
            v[used] -= delta
            minv[~used] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    rows = [0] * n
    for j in range(1, n + 1):
        if p[j]:
            rows[p[j] - 1] = j - 1
    return _Assignment(rows, float(sum(c[i, rows[i]] for i in range(n))), u[1:], v[1:])


def _forced(cost, base: _Assignment, force: tuple[int, int, float]) -> _Assignment:
    """The cheapest assignment of `cost` with row force[0] on column force[1] at cost force[2], from `base`,
    the cheapest without the force. Exact: the row that held that column moves along the shortest path of
    reduced costs to the column the forced row left (every other pair stays as it is), and those paths
    between all columns are found once per base (Floyd-Warshall in numpy), so each force is a lookup."""
    c = np.asarray(cost, np.float64)
    row, col, keep = force
    rows = list(base.rows)
    left = rows[row]
    if left != col:
        _dist, step = base.paths(c)
        owner = {j: i for i, j in enumerate(rows)}
        at = col
        while at != left:
            nxt = int(step[at, left])
            rows[owner[at]] = nxt
            at = nxt
        rows[row] = col
    total = float(c[np.arange(len(c)), rows].sum() - c[row, col] + keep)
    return _Assignment(rows, total, base.u, base.v)


@dataclass(slots=True)
class _Assignment:
    rows: list[int]            # row -> column
    total: float
    u: np.ndarray              # the dual potentials: cost[i, j] >= u[i] + v[j], equal on the assignment
    v: np.ndarray
    _paths: tuple | None = None

    def paths(self, cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Shortest paths between columns over reduced costs: column a's row moves on to column b, and so on.
        (dist (n, n), step (n, n): the next column on the path from a to b)."""
        if self._paths is None:
            n = len(cost)
            owner = np.empty(n, np.int64)
            owner[self.rows] = np.arange(n)
            dist = np.maximum(cost - self.u[:, None] - self.v[None, :], 0.0)[owner]
            np.fill_diagonal(dist, 0.0)
            step = np.tile(np.arange(n), (n, 1))
            for k in range(n):
                via = dist[:, k, None] + dist[None, k, :]
                better = via < dist
                if better.any():
                    dist = np.where(better, via, dist)
                    step = np.where(better, step[:, k, None], step)
            self._paths = (dist, step)
        return self._paths


@dataclass(slots=True)
class _Read:
    side: str
    k: int                     # index in its pile's sightings
    s: Sighting
    cost: dict[str, float]     # card id or "none" -> -log probability
    twice: float = 0.0         # how likely it reads a card another read beside it (or turned) is sure of
    seen_again: bool = False   # its likeliest card is one such a read is surer of: that card's index seen again
    misread: bool = False      # sure of a card another read is sure of elsewhere (`_misread`)


class _Facts(tuple):
    """What a placement scores: ((Card Points per side), bonus cards' sides). A tuple that keeps its hash: the
    same facts go into many sets, and Card Points (Fractions) hash slowly."""

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            self._hash = h = tuple.__hash__(self)
            return h

    def __reduce__(self):   # the kept hash stays behind: another process hashes its strings otherwise
        return _Facts, (tuple(self),)


class _Budget:
    """How many more other readings may be weighed against the whole hand. Counted, so a hand gets the same
    questions on a fast or a slow machine, busy or not; the time cap is only a safety net."""
    __slots__ = ("deadline", "left")

    def __init__(self, solves: int, seconds: float):
        self.left, self.deadline = solves, time.perf_counter() + seconds

    def spent(self) -> bool:
        return self.left <= 0 or time.perf_counter() > self.deadline

    def take(self) -> None:
        self.left -= 1


class _Decoder:
    def __init__(self, game: Game, piles: Mapping[str, PileRead], rest: str | None, answers: Sequence[Answer],
                 st: HandSettings, check: bool = True, sizes: frozenset[int] | None = None):
        unknown = [s for s in list(piles) + ([rest] if rest else []) if s not in SIDES]
        if unknown:
            raise ValueError(f"unknown side {unknown[0]!r}; known: {', '.join(SIDES)}")
        if rest is not None and rest in piles:
            raise ValueError(f"{rest} is photographed, so it cannot also be 'the rest'")
        if not piles:
            raise ValueError("no pile photographed")
        if rest is None and len(piles) < 2:
            raise ValueError("one pile photographed: say whose the rest is (rest=...)")
        self.game, self.piles, self.rest, self.st, self.check = game, piles, rest, st, check
        self.sizes = sizes
        self.deck = [c.id for c in game.deck]
        self.cards = {c.id: c for c in game.deck}
        self.pips = {c.id: c.pips for c in game.deck}
        self.family = {c.id: "tarok" if c.kind == "tarok" else str(c.suit) for c in game.deck}
        self.special = {c.id for c in game.deck if c.trull or (c.kind == "suit" and c.is_king)}
        if game.id == "zwanzigerrufen":
            self.special.add("T20")
        self.answers = list(answers)
        self.reads = [_Read(side, k, s, {}) for side in SIDES if side in piles
                      for k, s in enumerate(piles[side].sightings)]
        self.placed = {a.card: a.side for a in self.answers if a.kind == "which_pile"}
        # cards a pile shows only as slivers or covered: its lost cards are at least that many (once the players
        # have answered, it no longer settles a hand alone: `_unconfirmed`)
        self.least = {side: len(piles[side].hidden(st)) for side in SIDES if side in piles}
        self.fans = {side for side in piles if piles[side].fanned(st)}
        # the piles whose count is one covered card alone (`_recounted`)
        self.lone = {side for side, n in self.least.items()
                     if n == 1 and len(piles[side].covers(st, side in self.fans)) == 1}
        if self.answers and self.lone and check and st.lone_cover:
            probe = _Decoder(game, piles, rest, (), st, False, sizes=sizes)
            if probe._lone_counts(probe._solve()[0]) and len(probe.run().outcomes) == 1:
                # a hand the lone cover settled asks what its reading without it asks: answered, it is read so
                self.least.update(dict.fromkeys(self.lone, 0))
        self._fact_cache: dict = {}
        self._interned: dict = {}       # facts -> the one object for them (sets compare it by identity first)
        self._placed_facts: dict = {}   # (the world's piles, a placement of the lost cards) -> facts
        self._group_cache: dict = {}    # a group's solves, shared with the copies told one more answer
        self._first_solve: dict = {}    # (reads, cards) -> the group's first matrix and solve, shared so too
        # side -> the sum of its reads' up vectors (the way its pile runs)
        self._runs = {side: np.sum([s.up for s in piles[side].sightings], 0) for side in piles}
        self.budget: _Budget | None = None   # a copy told an answer weighs within its checker's budget
        self.mend: tuple[int, str] | None = None    # one read's other reading the count of whole tricks asks for
        self._costs()
        self._groups()

    # -- costs

    def _costs(self) -> None:
        st = self.st
        sure: dict[tuple[str, str], list[int]] = {}      # (side, card) -> the reads there sure of it
        holders: dict[str, list[tuple[str, int]]] = {}     # card -> the reads sure of it, (side, read) each
        for r in self.reads:
            for c, p in r.s.likely:
                if c != NOT_A_CARD and p >= 0.5:
                    sure.setdefault((r.side, c), []).append(r.k)
                    holders.setdefault(c, []).append((r.side, r.k))
        free = [c for c in self.deck if c not in holders]
        by_pips: dict[int, list[str]] = {}
        for c in free:
            by_pips.setdefault(self.pips[c], []).append(c)
        forced = self._said_reads()
        for r in self.reads:
            probs = {c: p for c, p in r.s.likely if c == NOT_A_CARD or c in self.pips}
            if NOT_A_CARD in probs and not r.s.relook:
                # a strong detector peak is itself evidence of a card: the classifier's "none" counts less
                probs[NOT_A_CARD] *= float(np.clip(2 * (1 - r.s.heat), st.heat_floor, 1.0))
            elif NOT_A_CARD in probs:
                # so is a spread's step: a second look kept at a gap lies on a card (if maybe one read already)
                probs[NOT_A_CARD] *= st.relook_none
            if probs.get(NOT_A_CARD, 1.0) < st.claimed_pn and self._claimed(r, holders) >= 0.5:
                # its cards are surely elsewhere, yet it is surely a card: a card those reads do not show
                probs[NOT_A_CARD] *= st.claimed_none
            # A read whose cards another read of the same photo is sure of may be that card seen twice (its
            # other index, not joined): then it is no card of its own.
            twice = sum(p for c, p in probs.items() if c != NOT_A_CARD
                        and any(k != r.k and self._again(r, k) for k in sure.get((r.side, c), ())))
            probs[NOT_A_CARD] = max(probs.get(NOT_A_CARD, 0.0), st.seen_twice * twice)
            r.twice = twice
            best = max((c for c in probs if c != NOT_A_CARD), key=probs.__getitem__, default=None)
            pile = self.piles[r.side].sightings
            r.seen_again = any(k != r.k and self._again(r, k) and pile[k].p(best) > r.s.p(best)
                               for k in sure.get((r.side, best), ()))
            cardness = 1 - probs.get(NOT_A_CARD, 0.0)
            top = max(p for c, p in probs.items() if c != NOT_A_CARD) if len(probs) > 1 else 0.0
            # What the classifier is not sure of may belong to any card that no read claims: more so to one
            # with the pips read under it.
            share = st.free_share * cardness * max(1 - top, 1e-4)
            if self.rest is not None:   # the unseen cards are expected in the other pile, not hidden here
                share *= 0.1
            # ... and more to a card of the family (the Taroks, a suit) its free options lean to: the family of
            # options that surer reads hold elsewhere says nothing (a misread, or that card seen again)
            family = self._families({c: p for c, p in probs.items()
                                     if not any(k != (r.side, r.k) for k in holders.get(c, ()))})
            for c in free:
                same = 1.0 if self.pips[c] == r.s.pips else st.free_pips
                if family:
                    same *= st.free_family + (1 - st.free_family) * family.get(self.family[c], 0.0)
                probs[c] = probs.get(c, 0.0) + share * same / max(len(by_pips.get(self.pips[c], ())), 1)
            if st.placed_tail or st.misread_free:
                self._misread(r, probs, free, holders)
            cost = {c: -math.log(max(p, st.floor)) for c, p in probs.items()}
            # options far less likely than the read's best cannot make a plausible reading
            best = min(cost.values())
            # "No card" always stays (at its own cost): a read whose likeliest card is surer elsewhere can then
            # be nothing rather than be forced onto an arbitrary card.
            cost = {c: v for c, v in cost.items() if v <= best + st.keep or c == NOT_A_CARD}
            cost.setdefault(NOT_A_CARD, -math.log(st.floor))
            key = (r.side, r.k)
            if key in forced:
                cost = {forced[key]: 0.0}
            else:   # a card the players placed in the other pile is no card of this one
                cost = _without_placed(cost, r.side, self.placed)
            r.cost = cost

    def _misread(self, r: _Read, probs: dict[str, float], free: list[str],
                 holders: Mapping[str, list[tuple[str, int]]]) -> None:
        """A read sure of a card that another read, not beside it, is sure of too is a misread whose other options
        say little: a card the players placed in its pile that it does not list may be it (`placed_tail`), and once
        they have answered, any card no read claims (`misread_free`)."""
        listed = [(c, p) for c, p in r.s.likely if c != NOT_A_CARD]
        if not listed:
            return
        best, p = max(listed, key=lambda t: t[1])
        r.misread = p >= 0.5 and any(h != (r.side, r.k) and not (h[0] == r.side and self._again(r, h[1]))
                                     for h in holders.get(best, ()))
        if not r.misread:
            return
        tail = min([q for _, q in listed] + [1 - sum(q for _, q in r.s.likely)])
        if tail <= 0:
            return
        names = {c for c, _ in listed}
        for c, side in self.placed.items():
            if side == r.side and c in free and c not in names:
                probs[c] = max(probs.get(c, 0.0), self.st.placed_tail * tail)
        if self.st.misread_free and self.answers:
            for c in free:
                if c not in names and c not in self.placed:
                    probs[c] = max(probs.get(c, 0.0), self.st.misread_free * tail)

    def _claimed(self, r: _Read, holders: Mapping[str, list[tuple[str, int]]]) -> float:
        """What read r gives the cards that other reads are sure of, not beside it (not that index seen again)."""
        return sum(p for c, p in r.s.likely if c != NOT_A_CARD and any(
            h != (r.side, r.k) and not (h[0] == r.side and self._again(r, h[1])) for h in holders.get(c, ())))

    def _families(self, probs: Mapping[str, float]) -> dict[str, float]:
        """A read's card probabilities summed per family (the Taroks, each suit), as shares of its card mass."""
        out: dict[str, float] = {}
        for c, p in probs.items():
            if c != NOT_A_CARD:
                out[self.family[c]] = out.get(self.family[c], 0.0) + p
        total = sum(out.values())
        return {f: p / total for f, p in out.items()} if total > 0 else {}

    def _again(self, r: _Read, k: int) -> bool:
        """Whether read r may be the index of the card its photo's read k is sure of, seen again: turned against
        the pile's run (a card's other corner, often showing on the top cards) or beside read k (a second peak on
        the same index). A read that runs with the pile, a neighbour's step away, is another card's index."""
        near = self.st.twice_near
        if near is None:
            return True
        pile = self.piles[r.side].sightings
        if float(np.dot(r.s.up, self._runs[r.side])) <= 0:
            return True
        return math.dist(r.s.centre, pile[k].centre) < near * max(r.s.height, pile[k].height)

    def _said_reads(self) -> dict[tuple[str, int], str]:
        """(side, read) -> the card the players said it is."""
        return {(a.side, a.sighting): a.card for a in self.answers if a.kind == "which_card"}

    def _unplaced_cost(self, card: str) -> float:
        """A card no read shows: in the rest (free), or a pile's card the detector never found."""
        if self.rest is not None and self.placed.get(card, self.rest) == self.rest:
            return 0.0
        return -math.log(self.st.hidden)

    # -- solving

    def _groups(self) -> None:
        """Reads that share candidate cards, with those cards: each group is solved on its own."""
        m = len(self.reads)
        col = {c: j for j, c in enumerate(self.deck)}
        parent = list(range(m + len(self.deck)))

        def find(a):
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        for i, r in enumerate(self.reads):
            for c in r.cost:
                if c in col:
                    parent[find(i)] = find(m + col[c])
        groups: dict[int, tuple[list[int], list[str]]] = {}
        for i in range(m):
            groups.setdefault(find(i), ([], []))[0].append(i)
        for j, c in enumerate(self.deck):
            groups.setdefault(find(m + j), ([], []))[1].append(c)
        self.group_of = {}
        self.solved = {}
        self._solved_with: dict = {}    # force -> (world, cost); shared with a copy told where a card lies
        for g, (reads, cards) in groups.items():
            for i in reads:
                self.group_of[i] = g
            for c in cards:
                self.group_of[c] = g
            self.solved[g] = (reads, cards, *self._solve_group(reads, cards, None))

    def _solve_group(self, reads: list[int], cards: list[str], force: tuple[int, str] | None):
        """Likeliest assignment of a group (read -> card or "none", and its cost), once per group and force:
        a copy told one more answer solves again only the groups the answer changes, and a forced solve
        starts from the group's own. A read's costs are known by their dict (an answered read gets a new
        one), kept alive in the cache so that its id is never another's."""
        costs = tuple(self.reads[i].cost for i in reads)
        placed = tuple(self.placed.get(c) for c in cards) if self.rest is not None else ()
        key = (tuple(reads), tuple(cards), tuple(map(id, costs)), placed)
        if key not in self._group_cache:
            matrix = self._group_matrix(reads, cards)
            # the same reads and cards solved before (this hand before an answer) start the solve
            first = self._first_solve.get(key[:2])
            base = _assign(matrix, first) if len(matrix) else None
            self._first_solve.setdefault(key[:2], (matrix, base))
            self._group_cache[key] = (matrix, base, {}, costs)
        matrix, base, forced, _ = self._group_cache[key]
        if base is None:
            return {}, 0.0
        if force is None:
            solved = base
        else:
            if force not in forced:
                if force[0] == _LOST:   # the card's own "no read" row takes it: no read shows it
                    col = cards.index(force[1])
                    pin = (len(reads) + col, col, self._unplaced_cost(force[1]))
                else:
                    a = reads.index(force[0])
                    col = len(cards) + a if force[1] == NOT_A_CARD else cards.index(force[1])
                    # an option the read does not have is taken at no cost, as asked
                    pin = (a, col, self.reads[force[0]].cost.get(force[1], 0.0))
                forced[force] = _forced(matrix, base, pin)
            solved = forced[force]
        k = len(cards)
        return ({i: (cards[solved.rows[a]] if solved.rows[a] < k else NOT_A_CARD) for a, i in enumerate(reads)},
                solved.total)

    def _group_matrix(self, reads: list[int], cards: list[str]) -> np.ndarray:
        """rows = the group's reads + one "no read" row per card, columns = its cards + one "none" column per
        read."""
        m, k = len(reads), len(cards)
        col = {c: j for j, c in enumerate(cards)}
        n = m + k
        cost = np.full((n, n), _INF)
        for a, i in enumerate(reads):
            for c, v in self.reads[i].cost.items():
                if c == NOT_A_CARD:
                    cost[a, k + a] = v
                elif c in col:
                    cost[a, col[c]] = v
        for j, c in enumerate(cards):
            cost[m + j, j] = self._unplaced_cost(c)
            cost[m + j, k:] = 0.0
        return cost

    def _solve(self, force: tuple[int, str] | None = None) -> tuple[dict[int, str], float]:
        """Likeliest assignment (read index -> card or "none"), optionally with one read forced to a card, or one
        card forced off every read ((_LOST, card))."""
        key = self._solve_key(force)
        if key not in self._solved_with:
            self._solved_with[key] = self._solve_now(force)
        return self._solved_with[key]

    def _solve_key(self, force: tuple[int, str] | None):
        """`_solved_with`'s key of a solve: the force, and the count's mend it stands on (`_mend`)."""
        return force if self.mend is None else (force, self.mend)

    def _solve_now(self, force: tuple[int, str] | None) -> tuple[dict[int, str], float]:
        world: dict[int, str] = {}
        total = 0.0
        touched = set()
        if force is not None:
            touched = {self.group_of[force[1]]} if force[0] == _LOST else {self.group_of[force[0]]}
            if force[1] in self.group_of:
                touched.add(self.group_of[force[1]])
            reads = [i for g in touched for i in self.solved[g][0]]
            cards = [c for g in touched for c in self.solved[g][1]]
            got, t = self._solve_group(reads, cards, force)
            world.update(got)
            total += t
        pinned = self.mend is not None and self.group_of[self.mend[0]] not in touched
        for g, (reads, _cards, got, t) in self.solved.items():
            if g not in touched:
                if pinned and g == self.group_of[self.mend[0]]:   # the count's mend stands (`_mend`)
                    got, t = self._solve_group(reads, _cards, self.mend)
                world.update(got)
                total += t
        return world, total

    # -- facts

    def _piles_of(self, world: dict[int, str]) -> dict[str, list[str]]:
        """The cards the world's reads put in each pile."""
        piles = {s: [] for s in SIDES}
        for i, c in world.items():
            if c != NOT_A_CARD:
                piles[self.reads[i].side].append(c)
        return piles

    def _facts(self, piles: Mapping[str, list[str]]):
        key = tuple(frozenset(piles[s]) for s in SIDES)
        if key not in self._fact_cache:
            facts = _Facts(self._count(piles))
            self._fact_cache[key] = self._interned.setdefault(facts, facts)
        return self._fact_cache[key]

    def _count(self, piles: Mapping[str, list[str]]):
        pts = tuple(self._points(piles[s]) for s in SIDES)
        spec = tuple(sorted((c, s) for s in SIDES for c in piles[s] if c in self.special))
        return pts, spec

    def _points(self, ids: list[str]):
        """Card Points of a pile of deck ids; the game's own check (its errors) only when one is foreign or
        repeated: checking every pile of every placement was most of the decoding time."""
        if len(set(ids)) == len(ids) and all(c in self.cards for c in ids):
            return self.game.counter(tuple(self.cards[c] for c in ids))
        return self.game.counter(self.game.check(ids))

    def _placements(self, world: dict[int, str]) -> list[dict[str, str]]:
        """Every way to put the cards no read shows into piles (each answer or 'the rest' fixes one)."""
        open_, fixed = self._loose(world)
        allowed = self._allowed_sizes()
        counted = (allowed is not None or any(self.least.values())) and len(open_) <= 6   # `_counted`, at once
        if len(open_) > 6:   # so many lost cards: the questions are asked anyway; try the likeliest few
            fixed.update({c: SIDES[b % 2] for b, c in enumerate(open_[6:])})
            open_ = open_[:6]
        out = []
        for bits in range(1 << len(open_)):
            p = dict(fixed)
            for b, c in enumerate(open_):
                p[c] = SIDES[(bits >> b) & 1]
            out.append(p)
        if counted and allowed is not None:
            # The Declarer's pile holds whole tricks plus the contract's Talon cards: the other counts cannot be.
            # A count the players gave narrows it to one.
            out = self._fitting(world, out, allowed) or out
        if counted and any(self.least.values()):
            # A pile showing slivers where no read is holds at least that many of the lost cards (not trusted
            # where no placement the count allows has them).
            need = self.least
            if self.st.count_cap and out:
                # More than are lost: a card counted twice (two covering reads), or a card counted whose read
                # stands elsewhere (`_elsewhere` weighs that read). Capped, unless the two piles' counts together
                # still want too many; a pile counting far more is dropped (`cover_over`).
                over = self.st.cover_over
                lost = len(out[0])
                noise = {side for side, n in need.items() if over is not None and n > over * lost + 1}
                if noise and self.st.over_both:   # the other pile counting more than are lost is no surer
                    noise |= {side for side, n in need.items() if n > lost}
                capped = {side: 0 if side in noise else min(n, lost - self._spare(side, n, lost))
                          for side, n in need.items()}
                need = capped if sum(capped.values()) <= lost else need
            out = [p for p in out if all(sum(1 for s in p.values() if s == side) >= n
                                         for side, n in need.items())] or out
        return out

    def _spare(self, side: str, n: int, lost: int) -> int:
        """One lost card a pile counting more than are lost leaves free, where the other pile is a fan that counts
        none (`fan_spare`); so too a spread counting just as many by its covers (a fan's open gap, not); else 0."""
        o = _other(side)
        over = n > lost or (n == lost and side not in self.fans)
        return int(self.st.fan_spare and over and o in self.fans and self.least[o] == 0)

    def _fitting(self, world: dict[int, str], placements: list[dict[str, str]], allowed: frozenset[int]
                 ) -> list[dict[str, str]]:
        """The placements that give the Declarer's pile a count in `allowed`."""
        seen = self._seen(world, "declarer")
        return [p for p in placements if seen + sum(1 for s in p.values() if s == "declarer") in allowed]

    def _before_placing(self, world: dict[int, str]) -> tuple[int, list[str]]:
        """The Declarer's count with the lost cards an answer or 'the rest' places, and the lost cards still open."""
        open_, fixed = self._loose(world)
        return self._seen(world, "declarer") + sum(1 for s in fixed.values() if s == "declarer"), open_

    def _fits(self, world: dict[int, str]) -> bool:
        """Whether some placement of the lost cards gives the Declarer's pile a count the tricks allow."""
        allowed = self._allowed_sizes()
        if allowed is None:
            return True
        seen, open_ = self._before_placing(world)
        return _some_count(allowed, seen, len(open_))

    def _count_fix(self, world: dict[int, str], keep: int | None = None) -> float:
        """What a world that no placement of its lost cards fits to the count of whole tricks must cost more at
        least: the cheapest change of one read (to no card, its card then lost, or from no card to a lost card)
        that mends it, or where none does, the cheapest change of one read (more must change); 0 when it fits.
        Read `keep` (the reading being weighed) is not changed."""
        allowed = self._allowed_sizes()
        if allowed is None:
            return 0.0
        seen, open_ = self._before_placing(world)
        n = len(open_)
        if _some_count(allowed, seen, n):
            return 0.0
        mends, least = _INF, _INF
        for i, c in world.items():
            if i == keep:
                continue
            r = self.reads[i]
            mine = r.cost.get(c, 0.0)
            decl = r.side == "declarer"
            if c != NOT_A_CARD:
                if NOT_A_CARD not in r.cost:
                    continue
                goes = self.placed.get(c, self.rest) if (self.rest or c in self.placed) else None
                changes = [(r.cost[NOT_A_CARD] - mine + self._unplaced_cost(c),
                            seen - decl + (goes == "declarer"), n + (goes is None))]
            else:
                changes = [(r.cost[c2] - mine - self._unplaced_cost(c2), seen + decl, n - 1)
                           for c2 in open_ if c2 in r.cost]
            for d, s2, k2 in changes:
                least = min(least, d)
                if d < mends and _some_count(allowed, s2, k2):
                    mends = d
        fix = mends if mends < _INF else least
        return max(fix, 0.0) if fix < _INF else 0.0

    def _mend(self, world: dict[int, str], total: float) -> tuple[int, str] | None:
        """Told how the tricks lie, where the likeliest reading leaves the Declarer's pile no count they allow: the
        cheapest change of one read (a card to no card, its card then lost; no card to a card) after which one
        does, within `count_mend` of the likeliest; None where none does. A read counted twice (a card's other
        index read as a lost card) is so mended rather than the count left unused. Not with "the rest is theirs",
        where a card read as none would pass to the other side without a word. The copies that weigh a question's
        answers mend as the decoder told the answer will: a doubt whose answers the mend makes alike is not asked
        (without the mend there, such a question was put and its answers then gave one score)."""
        best: tuple[float, tuple[int, str]] | None = None
        for i, r in enumerate(self.reads):
            here = world[i]
            mine = r.cost.get(here, _INF)
            options = [NOT_A_CARD] if here != NOT_A_CARD else [c for c in r.cost if c != NOT_A_CARD]
            for c in options:
                if c not in r.cost or r.cost[c] - mine > self.st.count_mend:
                    continue
                other, t2 = self._solve((i, c))
                if t2 - total <= self.st.count_mend and self._fits(other) and (best is None or t2 < best[0]):
                    best = (t2, (i, c))
        return None if best is None else best[1]

    def _allowed_sizes(self) -> frozenset[int] | None:
        """The Declarer's pile's possible counts: those the count of whole tricks allows, narrowed to the one the
        players gave (a pile_size answer, the newest); None when neither is known."""
        said = [a for a in self.answers if a.kind == "pile_size" and a.card.isdigit()]
        if not said:
            return self.sizes
        n = int(said[-1].card)
        one = frozenset({self._as_declarer(said[-1].side, n)})
        return one if self.sizes is None else self.sizes & one

    def _as_declarer(self, side: str, n: int) -> int:
        """The Declarer's pile's count where side's pile holds n cards."""
        return n if side == "declarer" else len(self.deck) - n

    def _seen(self, world: dict[int, str], side: str) -> int:
        """How many of side's reads are cards in this world."""
        return sum(1 for i, c in world.items() if c != NOT_A_CARD and self.reads[i].side == side)

    def _loose(self, world: dict[int, str]) -> tuple[list[str], dict[str, str]]:
        """The cards no read shows: those whose pile is open, and those an answer or 'the rest' places."""
        shown = set(world.values())
        loose = [c for c in self.deck if c not in shown]
        fixed = {c: self.placed.get(c, self.rest) for c in loose if self.rest or c in self.placed}
        return [c for c in loose if c not in fixed], fixed

    def _counted(self, world: dict[int, str]) -> bool:
        """Whether the count of whole tricks narrows where the lost cards lie: told, and few enough lost that
        every way to place them is tried."""
        return (self._allowed_sizes() is not None or any(self.least.values())) and len(self._loose(world)[0]) <= 6

    # -- the decision

    def run(self) -> HandRead:
        st = self.st
        self.mend = None
        world, total = self._solve()
        if st.count_mend is not None and self.rest is None and self._allowed_sizes() is not None \
                and not self._fits(world):
            self.mend = self._mend(world, total)
            if self.mend is not None:
                world, total = self._solve()
        placements = self._placements(world)
        base_set = self._fact_set(world, placements)
        # Every plausible other reading of each read, each with the facts it leads to.
        alternatives: dict[int, list[tuple[str, frozenset]]] = {}
        budget = self.budget or _Budget(st.budget_solves, st.budget_s)
        fits = st.count_fix and self._fits(world)
        shown = set(world.values())
        unseen = {c for c in self.placed if c not in shown}
        placed: list[tuple[float, int, str]] = []   # (cost more, read, a card placed unseen in its pile)
        for i, r in enumerate(self.reads):
            here = world[i]
            mine = r.cost.get(here, _INF)
            unsure = (_best_card(r.s) < 0.5 and r.s.p(NOT_A_CARD) >= st.none_doubt) or (st.twice_none and r.seen_again)
            for c, v in sorted(r.cost.items(), key=lambda t: t[1]):
                limit = st.plausible_none if unsure and NOT_A_CARD in (c, here) else st.plausible
                if c == here or v - mine > limit:
                    continue
                if budget.spent():
                    # no budget left to weigh it against the whole hand: a question if it scores otherwise
                    differs = frozenset({("not weighed", c)}) if self._class(c) != self._class(here) else base_set
                    alternatives.setdefault(i, []).append((c, differs))
                    continue
                if self._solve_key((i, c)) not in self._solved_with:
                    budget.take()       # a solve done already (shared with the copies told an answer) is free
                other, t2 = self._solve((i, c))
                if fits:    # a reading the tricks' count does not allow needs one more read changed
                    t2 += self._count_fix(other, i)
                if t2 - total <= limit:
                    alternatives.setdefault(i, []).append((c, self._fact_set(other, self._placements(other))))
                    if c in unseen and self.placed[c] == r.side:
                        placed.append((t2 - total, i, c))
        elsewhere = self._elsewhere(world, total, base_set, budget)
        every = set(base_set).union(*(f for alts in alternatives.values() for _, f in alts), *elsewhere.values(),
                                    self._no_cards(world, total, budget), self._placed_pairs(placed, total, budget))
        questions: list[Question] = []
        unchecked: list[Question] = []  # questions the check's budget did not reach (`_narrowing`)
        one_by_one = False      # questions put one at a time: each lost card may take a tap of its own
        counted = 0             # lost cards whose piles the Declarer's count places instead of a tap each
        alone = False           # ... and the one put is a doubt whose answers alone change nothing
        if len(every) > 1:
            # Cards no read shows whose pile changes the score.
            counted = self._counted(world)
            for c in self.deck:
                if c in shown or c in self.placed or self.rest:
                    continue
                if self._pile_matters(world, placements, c, counted):
                    questions.append(_which_pile(c))
            for i, alts in alternatives.items():
                differ = [c for c, f in alts if f != base_set]
                if differ:
                    questions.append(self._which_card(i, world[i], differ))
            # a card that may lie in the other pile, unless its read is asked whether it is a card at all
            # (answered "no card", the card is lost and its pile is asked then)
            asked = {(q.side, q.sighting) for q in questions if q.kind == "which_card" and NOT_A_CARD in q.choices}
            for i in elsewhere:
                if (self.reads[i].side, self.reads[i].k) not in asked:
                    questions.append(Question("which_pile", None, SIDES, f"Which pile is the {_name(world[i])} in?",
                                              card=world[i]))
            # Doubts that alone leave the score as it is, but may settle it together with another.
            quiet = [self._which_card(i, world[i], [c for c, _ in alts]) for i, alts in alternatives.items()
                     if all(f == base_set for _, f in alts)]
            questions, together = self._narrowing(questions, frozenset(every), quiet, unchecked)
            if not questions or together:
                # More than one score is possible but no doubt tells them apart on its own (two lost 0-pip cards
                # whose piles round the Card Points only together, or a count of whole tricks that allows two
                # numbers of lost cards): how many cards the Declarer's pile holds, when that tells the scores
                # apart, is one tap; a hand is never called settled so.
                size = self._size_question(world, placements, self._doubted(world, alternatives))
                if size is not None and not self._narrows(size):
                    size = None         # another doubt keeps the scores open whatever the size: not one tap
                one_by_one = size is None
                if size:
                    questions = [size]
                else:
                    questions = questions if together else self._open_question(world, placements, quiet)
                    # put alone, its answers leave the same scores possible (the doubts matter only together)
                    alone = together or bool(questions) and not self._narrows(questions[0])
            if st.one_count and not one_by_one and sum(q.kind in ("which_pile", "which_card") for q in questions) > 1:
                # Several taps where the Declarer's count alone settles the hand (lost cards that matter only
                # by how many lie in each pile): one tap instead.
                size = self._size_question(world, placements, self._doubted(world, alternatives))
                if size is not None and self._settles(size):
                    counted = sum(q.kind == "which_pile" for q in questions)
                    questions = [size]
                elif size is not None and self.check:
                    # Lost cards alike to the score (no bonus, the same pips) matter only by how many lie in each
                    # pile once the others are placed: their piles are one count, asked after the others.
                    alike: dict[int, list[Question]] = {}
                    for q in questions:
                        if q.kind == "which_pile" and self._class(q.card)[1] is None:
                            alike.setdefault(self._class(q.card)[0], []).append(q)
                    group = max(alike.values(), key=len, default=[])
                    if len(group) > 1 and self._narrows(size):
                        counted = len(group)
                        questions = [q for q in questions if q not in group] + [size]
        # the taps the lost cards will take: one per card asked about (or placed by the count instead), or, put
        # one at a time, up to one each
        lost = len(self._loose(world)[0]) if one_by_one else sum(q.kind == "which_pile" for q in questions) + counted
        spreads = self._respreads(questions, lost, together=questions if alone and st.together_respread else ())
        if alone and spreads:
            questions = []  # a new photo, not a tap that alone changes nothing (the request says why)
        if unchecked and st.checked_only:
            # Where the check's budget ran out (a hand of many taps; on a slow machine its time cap binds first),
            # the questions it did not reach may leave the score as it is: only those it found to matter are put.
            # The rest, still open once those are answered, come back with the hand read again.
            checked = [q for q in questions if q not in unchecked]
            if checked:
                questions = checked
        questions = spreads + questions
        questions += self._count_check(world, questions)
        outcomes = frozenset(every)
        if len(every) == 1 and self.answers and self.check:
            questions = self._unconfirmed(questions)
        elif len(every) == 1 and self.check and (least := self._doubted_counts(world, placements)) is not None:
            questions, outcomes = self._recounted(questions, outcomes, world, least)
        # a copy told one more answer is asked only which scores it leaves open: its cards are not listed
        sides = self._sides(world, placements[0], set(alternatives) | set(elsewhere)) if self.check else {}
        return HandRead(self.game.id, sides, questions, self.rest, outcomes)

    def _unconfirmed(self, questions: list[Question]) -> list[Question]:
        """A hand the covered count settles once the players have answered is read again without the count:
        when that leaves other scores, its questions are put. A count one too many, with the players' true
        answers, could leave one wrong placement alone; asked, their answer confirms the count or overrules it.
        (Kept through the answers, so that each question is weighed as its answer will be read.)"""
        if not any(self.least.values()):
            return questions
        free = copy.copy(self)
        free.least = dict.fromkeys(self.least, 0)
        h = free.run()
        return h.questions if len(h.outcomes) > 1 and h.questions else questions

    def _lone_counts(self, world: dict[int, str]) -> bool:
        """Whether a lone cover is checked (`_recounted`): where no count is told; told, where a lone pile's reads
        alone make a count the whole tricks allow (`lone_told`), so that the cover takes lost cards to make the next."""
        allowed = self._allowed_sizes()
        if allowed is None:
            return True
        return self.st.lone_told and any(self._as_declarer(side, self._seen(world, side)) in allowed
                                         for side in self.lone)

    def _doubted_counts(self, world: dict[int, str], placements: list[dict[str, str]]) -> dict[str, int] | None:
        """A settled hand's covered counts read again (`_recounted`), the first that applies: a lone cover dropped
        (`lone_cover`), one cover fewer (`cover_doubt`), a pile's covers dropped beside a covered fan
        (`beyond_covers`); None where none does."""
        if self.st.lone_cover and self.lone and self._lone_counts(world):
            return {side: 0 if side in self.lone else n for side, n in self.least.items()}
        fewer = self._one_cover_fewer(world)
        return fewer if fewer is not None else self._beyond_covers(placements)

    def _one_cover_fewer(self, world: dict[int, str]) -> dict[str, int] | None:
        """Told how the tricks lie, a pile whose reads and covered cards make a count the tricks do not allow, so
        that the lost cards must bring it to the next one, while one covered card fewer makes an allowed count:
        its counts with that one fewer (`cover_doubt`), else None. A false cover is common (a spread's one cover
        lacked nothing in a third of such piles); two more lost cards than the covers show are not."""
        allowed = self._allowed_sizes()
        if allowed is None or not self.st.cover_doubt:
            return None
        for side, n in self.least.items():
            seen = self._seen(world, side)
            if n >= 1 and side not in self.lone and self._as_declarer(side, seen + n) not in allowed \
                    and self._as_declarer(side, seen + n - 1) in allowed:
                return {**self.least, side: n - 1}
        return None

    def _beyond_covers(self, placements: list[dict[str, str]]) -> dict[str, int] | None:
        """Told how the tricks lie, a pile given `beyond_covers` more lost cards than its covers count (the count of
        whole tricks taking the rest there too) beside a fan that counts none, though the covered-card model sees
        cards under the fan's reads too (its covers are not trusted: stacked edges): the counts without that
        pile's covers, else None. Where the fan shows no covers at all, the count stands (doubted there too, it
        opened seven hands settled right of 1,240 with the contract said, and mended no wrong one)."""
        if self.st.beyond_covers is None or self._allowed_sizes() is None or not placements:
            return None
        for side, n in self.least.items():
            got = sum(1 for s in placements[0].values() if s == side)
            other = _other(side)
            if 1 <= n <= got - self.st.beyond_covers and other in self.fans and not self.least.get(other, 0) \
                    and self.piles[other].covers(self.st, fanned=False):
                return {**self.least, side: 0}
        return None

    def _recounted(self, questions: list[Question], outcomes: frozenset, world: dict[int, str],
                   least: dict[str, int]) -> tuple[list[Question], frozenset]:
        """A settled hand whose covered count may be one too many, read again with the counts `least`: a pile
        counting one covered card and nothing else, without it (`lone_cover`: the covered-card model's one cover
        in a spread lacked nothing in a third of such piles), a told pile with one cover fewer
        (`_one_cover_fewer`), or without its covers beside a covered fan (`_beyond_covers`). When that leaves
        other scores, its questions are put (or the count of a pile, where the first of them matters only together
        with another), and the scores still possible are those of both readings. Answered, the hand is read without the lone cover (`__init__`), or without any count
        (`_unconfirmed`), as its questions were chosen."""
        free = copy.copy(self)
        free.least = least
        free.lone = set()
        h = free.run()
        if h.outcomes == outcomes:
            return questions, outcomes
        first = next((q for q in h.questions if q.kind != "respread"), None)
        if h.questions and (first is None or free._narrows(first)):
            return h.questions, outcomes | h.outcomes
        # its first question matters only together with another (or it settles otherwise): the count instead
        size = free._size_question(world, free._placements(world), {})
        if size is not None and free._narrows(size):
            return [size], outcomes | h.outcomes
        # its questions, or where it settles otherwise and no count tells the two apart, where each lost card lies
        asked = h.questions or [_which_pile(c) for c in free._loose(world)[0]]
        return asked or questions, outcomes | h.outcomes

    def _elsewhere(self, world: dict[int, str], total: float, base_set: frozenset, budget: _Budget
                   ) -> dict[int, frozenset]:
        """Cards taken by a read unsure of every card, or by a read of another card that a read beside it is sure
        of (that card's index seen again, which took a lost card), or by a faint detector peak's read however
        sure (a sliver of a hidden card read as a card of the other pile), that may lie hidden in the other pile
        instead, with the read no card (a card's index seen again, a coin): read -> the facts then. No single
        read's other reading shows that world when another unsure read beside it would take the card up."""
        out: dict[int, frozenset] = {}
        if self.rest is not None:
            return out
        said = self._said_reads()
        allowed = self._allowed_sizes()
        sure = self.st.elsewhere_told if self.placed else 0.5
        for i, r in enumerate(self.reads):
            c = world[i]
            faint = r.s.heat < self.st.faint_read and not r.s.relook
            again = r.twice >= 0.5 and r.s.p(c) < 0.5      # a sure neighbour's card seen again took c
            if c == NOT_A_CARD or c in self.placed or (r.side, r.k) in said or (
                    _best_card(r.s) >= sure and not faint and not again):
                continue
            if budget.spent():
                break
            if self._solve_key((_LOST, c)) not in self._solved_with:
                budget.take()
            other, t2 = self._solve((_LOST, c))
            if t2 - total > self.st.plausible_none:
                continue
            there = _other(r.side)
            placements = [p for p in self._placements(other) if p.get(c) == there]
            if allowed is not None and self._counted(other):
                placements = self._fitting(other, placements, allowed)
            if placements:      # none: the count of whole tricks (or the players) rules it out
                facts = frozenset(self._placed_facts_of(other, placements))
                if facts != base_set:
                    out[i] = facts
        return out

    def _placed_pairs(self, placed: list[tuple[float, int, str]], total: float, budget: _Budget) -> frozenset:
        """The facts when two reads are at once cards the players placed in their piles that no read shows
        (`placed`: each such reading, what it costs more). Each alone may leave the count as it was (the pile's
        other lost cards make it up), both together not: told the XI and the 2 of Hearts lie in the Declarer's
        pile, two unsure reads there may be them rather than the XVIII and the 3 of Diamonds, each then lost."""
        out: set = set()
        pairs = sorted((a[0] + b[0], a[1:], b[1:]) for k, a in enumerate(placed) for b in placed[k + 1:]
                       if a[1] != b[1] and a[2] != b[2])
        for more, (i, c), (j, c2) in pairs[: self.st.placed_pairs]:
            if more > self.st.plausible or budget.spent():
                break
            budget.take()
            new = self._copy(budget)
            force = {i: c, j: c2}
            new.reads = [replace(r, cost={force[k]: r.cost[force[k]]}) if k in force else r
                         for k, r in enumerate(self.reads)]
            new._groups()
            other, t2 = new._solve()
            if t2 - total <= self.st.plausible:
                out |= new._fact_set(other, new._placements(other))
        return frozenset(out)

    def _no_cards(self, world: dict[int, str], total: float, budget: _Budget) -> frozenset:
        """The facts when every read of a pile whose likeliest reading is no card, yet that took a card, is no
        card at once (two or more): the count of whole tricks can rule out each alone, not all together."""
        out: set = set()
        if self.rest is not None:
            return frozenset(out)
        allowed = self._allowed_sizes()
        faint = self._faint(world)
        for side in SIDES:
            idx = faint[side]
            if len(idx) < 2 or budget.spent():
                continue
            budget.take()
            new = self._copy(budget)
            new.reads = [replace(r, cost={NOT_A_CARD: r.cost.get(NOT_A_CARD, 0.0)}) if i in idx else r
                         for i, r in enumerate(self.reads)]
            new._groups()
            other, t2 = new._solve()
            if t2 - total > self.st.plausible_no_cards:
                continue
            placements = new._placements(other)
            if allowed is not None and new._counted(other):
                placements = new._fitting(other, placements, allowed)
            out.update(new._placed_facts_of(other, placements))
        return frozenset(out)

    def _faint(self, world: dict[int, str]) -> dict[str, set[int]]:
        """Per side, the reads the players have not named whose likeliest reading is no card, yet that took one."""
        said = self._said_reads()
        out: dict[str, set[int]] = {s: set() for s in SIDES}
        for i, r in enumerate(self.reads):
            if world[i] != NOT_A_CARD and (r.side, r.k) not in said and r.s.likely[0][0] == NOT_A_CARD:
                out[r.side].add(i)
        return out

    def _doubted(self, world: dict[int, str], alternatives: Mapping[int, list[tuple[str, frozenset]]]
                 ) -> dict[str, set[int]]:
        """Per side, the reads that may be one card fewer or more than this world says: those whose likeliest
        reading is no card yet took one (`_faint`), and those whose plausible other readings include no card
        when they took one, or a card when they took none."""
        out = self._faint(world)
        for i, alts in alternatives.items():
            if any((c == NOT_A_CARD) != (world[i] == NOT_A_CARD) for c, _ in alts):
                out[self.reads[i].side].add(i)
        return out

    def _size_question(self, world: dict[int, str], placements: list[dict[str, str]],
                       doubted: Mapping[str, set[int]]) -> Question | None:
        """How many cards the Declarer's pile holds, when the lost cards' placements allow 2-7 counts (one tap
        each) and the counts leave different scores possible, or when reads that may be a card or none
        (`_doubted`) allow them. Not when the answer could not be used: more lost cards than every way to place
        them is tried for, or a size the players said already (one no placement makes is dropped; asked again,
        the same question would come back for ever). The caller checks that the answers narrow the scores.
        Asked of the smaller pile, the quicker to count: the Defenders' when the Declarer's holds more than half."""
        if len(self._loose(world)[0]) > 6 or any(a.kind == "pile_size" for a in self.answers):
            return None
        seen = self._seen(world, "declarer")
        by_count: dict[int, set] = {}
        for p, f in zip(placements, self._placed_facts_of(world, placements)):
            by_count.setdefault(seen + sum(1 for s in p.values() if s == "declarer"), set()).add(f)
        # a count the tricks told cannot make is no answer (a world no placement fits offers it)
        counts = sorted(k for k in by_count if self.sizes is None or k in self.sizes)
        placed_decide = 1 < len(counts) and any(by_count[n] != by_count[counts[0]] for n in counts)
        if len(counts) > 7 or not counts or not placed_decide and not any(doubted.values()):
            return None
        # A doubted read in the Declarer's photo may be one card fewer there or one more, and one in the
        # Defenders' photo may free a card for the Declarer's pile or take one from it: offered, so that the
        # players can always tap the true count.
        n = len(doubted["declarer"]) + len(doubted["defenders"])
        wider = range(max(0, counts[0] - n), min(len(self.deck), counts[-1] + n) + 1)
        wider = [k for k in wider if self.sizes is None or k in self.sizes]
        if len(wider) <= 7:
            counts = sorted(set(counts) | set(wider))
        elif not placed_decide:
            return None
        if len(counts) < 2:
            return None
        side = "declarer"
        if counts[0] + counts[-1] > len(self.deck):     # the Defenders' pile is the smaller one to count
            side, counts = "defenders", sorted(len(self.deck) - k for k in counts)
        return Question("pile_size", side, tuple(map(str, counts)),
                        f"How many cards does {SIDE_NAMES[side]} hold: " + ", ".join(map(str, counts[:-1]))
                        + f" or {counts[-1]}?")

    def _settles(self, q: Question) -> bool:
        """Whether every answer to q leaves one score (within the checker's budget; past it, no)."""
        if not self.check:
            return False
        budget = self._check_budget()
        for a in q.answers():
            if budget.spent() or len(self._told(a, budget).run().outcomes) != 1:
                return False
        return True

    def _narrows(self, q: Question) -> bool:
        """Whether the answers to q leave different scores possible (`_narrow` within its budget; past it, yes)."""
        return not self.check or bool(self._narrow([q], self._check_budget(), True, {}))

    def _open_question(self, world: dict[int, str], placements: list[dict[str, str]],
                       quiet: list[Question]) -> list[Question]:
        """One question when several scores stay possible and neither a doubt nor the count narrows them
        alone: where the first lost card lies, else the first doubt."""
        open_, _ = self._loose(world)
        if open_:
            return [_which_pile(open_[0])]
        return quiet[:1]

    def _pile_matters(self, world: dict[int, str], placements: list[dict[str, str]], c: str, counted: bool) -> bool:
        """Whether the pile of lost card c changes the score. With the count, the placements it allows are
        compared by c's side; without it, each placement against the same one with c moved over."""
        facts = self._placed_facts_of(world, placements)
        if counted:
            by_side = {s: {f for f, p in zip(facts, placements) if p[c] == s} for s in SIDES}
            return all(by_side.values()) and by_side["declarer"] != by_side["defenders"]
        # the first placement whose facts change with c moved over answers it (most do at once)
        for p, f in zip(placements, facts):
            if self._placed_facts_of(world, [{**p, c: _other(p[c])}])[0] != f:
                return True
        return False

    def _narrowing(self, questions: list[Question], every: frozenset, quiet: list[Question],
                   unchecked: list[Question]) -> tuple[list[Question], bool]:
        """Only the questions whose answers leave different scores possible: each is tried with every answer.
        A doubt seen card by card may not matter once the whole hand is weighed (another read takes up the
        slack). When none narrows while the score is still open, the quiet doubts (reads whose other readings
        alone score the same) are tried too; when none of those narrows either, the first is put alone.
        Returns the questions, and whether they are that one put alone (the doubts matter only together);
        unchecked: filled with those the check's budget did not reach (`run` drops them where others are put)."""
        if not self.check or not questions or len(questions) > self.st.check_questions:
            return questions, False
        budget = self._check_budget()
        after: dict = {}
        kept = self._narrow(questions, budget, True, after, unchecked)
        if not kept and len(every) > 1:
            kept = self._narrow(quiet[: self.st.check_questions], budget, False, after)
        # none narrows alone: the doubts matter only together, so one is put at a time (the hand is read again
        # with its answer, and the next then narrows or is put in turn)
        if kept or len(every) <= 1:
            return _not_implied(kept, after), False
        return questions[:1], True

    def _check_budget(self) -> _Budget:
        return _Budget(self.st.check_solves, self.st.check_s)

    def _narrow(self, questions: list[Question], budget: _Budget, unchecked_stay: bool,
                after: dict, unchecked: list | None = None) -> list[Question]:
        """The questions shown to narrow the score; past the budget the rest stay only if unchecked_stay (and
        are listed in unchecked, with the one whose check the budget ran out in). after: filled with each tried
        question's hands, one per answer."""
        kept = []
        for k, q in enumerate(questions):
            if budget.spent():
                rest = questions[k:] if unchecked_stay else []
                if unchecked is not None:
                    unchecked.extend(rest)
                return kept + rest
            after[_key(q)] = [self._told(a, budget).run() for a in q.answers()]
            if len({h.outcomes for h in after[_key(q)]}) > 1:
                kept.append(q)
                if budget.spent() and unchecked is not None:
                    unchecked.append(q)     # the budget ran out while its answers were weighed: checked in part
        return kept

    def _copy(self, budget: _Budget) -> _Decoder:
        """A copy to weigh another reading with (within the checker's budget): it is asked only which scores
        it leaves open, so it does not list its cards; set what differs, then `_groups()` when reads change."""
        new = copy.copy(self)
        new.check, new.budget = False, budget
        return new

    def _told(self, a: Answer, budget: _Budget) -> _Decoder:
        """This decoder with one more answer, reusing what the answer does not change, weighing other readings
        within the checker's budget (past it, a reading that scores otherwise keeps the question)."""
        new = self._copy(budget)
        new.answers = self.answers + [a]
        if a.kind == "which_pile":
            new.placed = {**self.placed, a.card: a.side}
        # an answer that changes a misread's options (`_misread`): the players' first (`misread_free`), or a card
        # placed in its pile (`placed_tail`)
        first = bool(self.st.misread_free) and not self.answers
        if any(r.misread and (first or (self.st.placed_tail and a.kind == "which_pile" and r.side == a.side))
               for r in self.reads):
            return self._reweighed(new)
        if a.kind == "pile_size":
            return new                  # only the placements of the lost cards change
        if a.kind == "which_pile":
            said = self._said_reads()
            if self.rest is None and not any(a.card in r.cost for r in self.reads if r.side != a.side
                                             and (r.side, r.k) not in said):
                return new              # no read of the other pile may be it: costs and groups stay
            new.reads = [r if r.side == a.side or (r.side, r.k) in said else
                         replace(r, cost=_without_placed(r.cost, r.side, new.placed)) for r in self.reads]
        else:
            new.reads = [replace(r, cost={a.card: 0.0}) if (r.side, r.k) == (a.side, a.sighting) else r
                         for r in self.reads]
        new._groups()
        return new

    def _reweighed(self, new: _Decoder) -> _Decoder:
        """`new` (a copy told an answer) with its reads' costs weighed again, a read's own kept where they stay
        (its group's solves are then reused)."""
        new.reads = [replace(r) for r in self.reads]
        new._costs()
        for r, old in zip(new.reads, self.reads):
            if r.cost == old.cost:
                r.cost = old.cost
        new._groups()
        return new

    def _class(self, card: str):
        """What a card is worth to the score on its own: its pips and, for a bonus card, which one."""
        return (None, None) if card == NOT_A_CARD else (self.pips[card], card if card in self.special else None)

    def _fact_set(self, world: dict[int, str], placements: list[dict[str, str]]) -> frozenset:
        return frozenset(self._placed_facts_of(world, placements))

    def _placed_facts_of(self, world: dict[int, str], placements: list[dict[str, str]]) -> list:
        """The facts of each placement of the lost cards with this world: the world's piles are keyed once,
        each placement by its few cards."""
        seen = self._piles_of(world)
        key = tuple(frozenset(seen[s]) for s in SIDES)
        out = []
        for p in placements:
            k = (key, frozenset(p.items()))
            if k not in self._placed_facts:
                self._placed_facts[k] = self._facts({s: seen[s] + [c for c, t in p.items() if t == s] for s in SIDES})
            out.append(self._placed_facts[k])
        return out

    def _which_card(self, i: int, here: str, alts: list[str]) -> Question:
        r = self.reads[i]
        choices = tuple(dict.fromkeys([here] + alts))[:4]
        shown = [c for c in choices if c != NOT_A_CARD]
        if NOT_A_CARD in choices:
            text = (f"Is this the {_name(shown[0])}, or no card?" if len(shown) == 1 else
                    "Which card is this, if any: " + ", ".join(f"the {_name(c)}" for c in shown) + "?")
        else:
            text = "Is this " + " or ".join(f"the {_name(c)}" for c in shown) + "?"
        return Question("which_card", r.side, choices, text, sighting=r.k, where=r.s.centre)

    def _count_check(self, world: dict[int, str], questions: list[Question]) -> list[Question]:
        """With "the rest is theirs" a card hidden under another in the photographed pile would count for the
        other side without a word, and no photo shows it: the players confirm the count once (one tap)."""
        if self.rest is None or any(q.kind == "respread" for q in questions):
            return []
        side = next(s for s in SIDES if s != self.rest)
        said = [a for a in self.answers if a.kind == "count" and a.side == side]
        n = self._seen(world, side)
        if said and said[-1].card == "yes":
            return []
        # The count of whole tricks the players gave already says that a card is hidden: no count to confirm.
        declarer = self._as_declarer(side, n)
        if said or (self.sizes is not None and declarer not in self.sizes):
            return [Question("respread", side, (), f"Spread {SIDE_NAMES[side]} so that every card's corner "
                             "shows and take the photo again, or photograph the other pile too.")]
        return [Question("count", side, ("yes", "no"),
                         f"Does {SIDE_NAMES[side]} hold {n} cards? A card hidden under another would count "
                         "for the other side.", card=str(n))]

    def _respreads(self, questions: list[Question], lost: int = 0,
                   together: Sequence[Question] = ()) -> list[Question]:
        """A better photo where that is quicker than the taps: a pile with `tight_questions` doubts, a hole in
        the photographed pile with the rest theirs, or `lost_respread` taps for lost cards (`lost`: the players
        must search their piles for each). Lost cards are put down to the piles whose spread shows short steps
        or holes, or to every pile when none does. Put first; the other questions stay below it for players who
        would rather answer them. `together`: the one question put alone whose answers alone change nothing
        (the doubts matter only together): a better photo of its pile (of the piles a lost card may lie in) is
        asked instead, the one request that narrows the score."""
        many = bool(questions) and lost >= self.st.lost_respread
        marked = [side for side, pile in self.piles.items() if pile.tight or pile.gaps]
        joint: set[str] = set()         # the piles a better photo is asked of in place of an idle tap
        if together:
            joint = {q.side for q in together if q.side in self.piles} or set(marked or self.piles)
        doubt = "cards there are unsure" if any(q.kind == "which_card" for q in together) else "cards were not found"
        out = []
        for side, pile in self.piles.items():
            mine = [q for q in questions if q.side == side and q.kind == "which_card"]
            holes = [g for g in pile.gaps if g.chance >= 0.5] if self.rest else []
            hidden = many and (side in marked or not marked)
            if len(mine) >= self.st.tight_questions or holes or hidden or side in joint:
                pts = [q.where for q in mine if q.where] + [g.centre for g in holes] + list(pile.tight)
                if hidden or side in joint and not pts:
                    pts += [g.centre for g in pile.gaps]
                where = tuple(np.mean(pts, 0)) if pts else None
                what = f"{_part(where, pile.size)} of {SIDE_NAMES[side]}" if where else SIDE_NAMES[side]
                few = len(mine) < self.st.tight_questions and not holes
                why = (f"{lost} cards were not found in either photo" if hidden and few else
                       f"{doubt}, and no one answer settles the score" if side in joint and few else
                       "some cards there are hidden")
                out.append(Question("respread", side, (), f"Spread {what} a little and take the photo "
                                    f"again: {why}.", where=where))
        return out

    def _sides(self, world: dict[int, str], placement: Mapping[str, str], unsure: set[int]) -> dict[str, SideCards]:
        out: dict[str, list[HandCard]] = {s: [] for s in SIDES}
        for i, c in world.items():
            if c == NOT_A_CARD:
                continue
            r = self.reads[i]
            p = r.s.p(c)
            out[r.side].append(HandCard(c, p, self.pips[c], r.s.quad, i in unsure or p < 0.9, r.k))
        for c, s in placement.items():
            out[s].append(HandCard(c, 0.0, self.pips[c], None, s != self.rest))
        res = {}
        for s in SIDES:
            cards = sorted(out[s], key=lambda h: self.deck.index(h.card_id))
            try:
                points = self.game.count([h.card_id for h in cards])
            except ValueError:
                points = None
            res[s] = SideCards(cards, points)
        return res


def _some_count(allowed: frozenset[int], seen: int, lost: int) -> bool:
    """Whether the Declarer's pile, `seen` cards and some of `lost` more, can hold a count the tricks allow."""
    return any(seen + k in allowed for k in range(lost + 1))


def _without_placed(cost: dict[str, float], side: str, placed: Mapping[str, str]) -> dict[str, float]:
    """A read's costs less the cards the players placed in the other pile."""
    gone = [c for c in cost if placed.get(c, side) != side]
    return {c: v for c, v in cost.items() if c not in gone} if gone else cost


def _key(q: Question) -> tuple:
    return q.kind, q.side, q.sighting, q.card


def _not_implied(questions: list[Question], after: Mapping[tuple, list[HandRead]]) -> list[Question]:
    """The questions less those that every answer to an earlier one settles: they are not put to the players
    yet (one still open after that answer comes back with the hand read again), so each tap counts."""
    kept: list[Question] = []
    for q in questions:
        if not any(_key(k) in after and all(_key(q) not in {_key(x) for x in h.questions} for h in after[_key(k)])
                   for k in kept):
            kept.append(q)
    return kept


def _other(side: str) -> str:
    return SIDES[1 - SIDES.index(side)]


def _which_pile(card_id: str) -> Question:
    """Where a lost card lies: one tap."""
    return Question("which_pile", None, SIDES, f"The {_name(card_id)} was not found: which pile is it in?",
                    card=card_id)


def _name(card_id: str) -> str:
    c = deck_card(card_id)
    if c.kind == "tarok" and c.roman:
        return c.roman if c.id not in ("T1", "T21") else c.name.split(" (")[0]
    return c.name


def _part(where: tuple[float, float], size: tuple[int, int]) -> str:
    x = where[0] / max(size[0], 1)
    return "the left part" if x < 0.38 else "the right part" if x > 0.62 else "the middle"
