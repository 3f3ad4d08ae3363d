"""What the hand reader reads and says: its settings, what one photo shows of a pile (`PileRead`), and the
hand it reads from them (`HandRead`: both sides' cards and the questions whose answers change the score).

`vision.hand` reads the photos, `vision.decoder` weighs the reads against the deck; both speak these types.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from scoring.game import Game
from vision.geometry import index_quad, other_index, turning
from vision.recogniser import NOT_A_CARD

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
    said_twice: bool = True         # a read the players named is sure of its card for `seen_twice`, and turned across
    #                                 the run it may be the other corner of a card another read lists (session 52: a
    #                                 fresh generator hand, seed 124000 hand 26, ended settled wrong after taps)
    claimed_none: float = 0.2       # a read giving no card less than `claimed_pn` (after the heat), whose likeliest
    claimed_pn: float = 0.05        # cards (half its mass) surer reads hold elsewhere, not beside it, is a card
    #                                 those reads do not show: its "no card" counts this share (session 38, three
    #                                 caches: such reads lay on no index 0 of 259 times, on a card read elsewhere 4;
    #                                 settled +2, none wrong)
    free_share: float = 0.1         # share of a read's doubt given to the cards no read claims
    free_pips: float = 0.1          # ... to a card whose pips are not those read under the index, this share of it
    free_pips_weak: float | None = 0.4   # ... but this share where a read likely a card saw no pips under a peak
    weak_heat: float = 0.5          # weaker than this and its likeliest card is held elsewhere (a partly covered
    #                                 index: such reads lay on a card with pips 48 of 256 times in twelve caches;
    #                                 session 54, a fresh independent hand settled wrong at 0.1)
    free_family: float = 0.1        # ... to a card of another family (the Taroks, a suit) than the read's free
    #                                 options this share of it at least, more as they lean to its family (1: alike)
    placed_tail: float = 0.5        # a read sure of a card another read is sure of elsewhere (a misread): a card the
    #                                 players placed in its pile that it does not list has this share of the most an
    #                                 unlisted card may have (the least it lists; no more than its list leaves;
    #                                 session 41: seed 102000 hand 19, the IX read as a Jack another read is sure of)
    placed_rest: float = 0.5        # ... and such a card it lists, however little, this share of what the read leaves
    #                                 beside its best card (shared among such cards): the players said it lies there
    #                                 (session 51: a fresh independent hand, seed 117000 hand 23, the King of
    #                                 Diamonds' index read as the Cavalier of Diamonds, which another read is sure of,
    #                                 the King 0.0018: told the King lies there, the read kept the Cavalier of
    #                                 Hearts, settled wrong after nine truthful taps)
    placed_rival: float | None = 0.9  # ... and this share at least of the likeliest lost card of its pips the players
    #                                 have not placed, however the read lists them (session 57: seed 132000 hand 71,
    #                                 the King of Clubs' index read as the Queen of Diamonds, which another read
    #                                 holds; told the King lies there, the read took the lost XXI it listed at 0.004:
    #                                 settled wrong after 12 truthful taps). 0.9 as measured in session 57, when 1
    #                                 tied two readings and the checker's copy broke the tie otherwise than a fresh
    #                                 decode; `_tie` now breaks ties alike (at 1 no idle question then; taps not run)
    misread_free: float = 0.5       # ... and, once the players have answered, any card no read claims this share
    #                                 of it (session 42: seed 105000 hand 75, answered last question first, settled
    #                                 a King in the wrong pile; the page shows every question, answered in any order)
    misread_first: bool = True      # ... and so before any answer (session 56: a classifier trained on whole trick
    #                                 piles read the King of Hearts' index, a quarter showing, as the 1 of Hearts
    #                                 another read holds and listed the lost XII at 0.01, the King not at all: the
    #                                 King went to the other pile, settled wrong; synth7c on seventeen sets:
    #                                 settled and right unchanged or one hand more a row, none wrong)
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
    end_card: float | None = 0.5    # one step beyond each end of a spread looked at again too, a read there kept
    #                                 when at least this sure it is a card (a plain read: "no card" counts in full);
    #                                 session 54, thirteen caches' reads (1,440 hands): settled and right +6 with two
    #                                 photos, +4 with the contract said, none wrong (0.3: as many, noisier)
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
    fan_spares: int = 2             # ... two of them (a fan that counts none, no gap, lacked one card in 22 of 273
    #                                 such fans of nine caches and two in 7: session 52, a fresh generator hand, seed
    #                                 124000 hand 67, a fan hiding two beside three false covers: settled wrong);
    #                                 one where the players said how the tricks lie (their count weighs the rest)
    weak_spare: float | None = 0.1  # ... and where the other pile is a spread that counts none but one of its reads
    #                                 is this sure a covered card lies beside it (below `cover_card`): of 789 such
    #                                 spreads in six caches, those whose reads all say less lacked a card in 25 of
    #                                 645, those with one read at 0.1-0.9 in 43 of 144 (session 52: a fresh
    #                                 independent hand, seed 118000 hand 48, the Defenders' six covers for five lost
    #                                 cards took the Declarer's XIV, hidden under a read 0.34 sure: settled wrong)
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


def _r(v, nd: int = 1) -> list[float]:
    return [round(float(x), nd) for x in v]


def _best_card(s: Sighting) -> float:
    return max((p for c, p in s.likely if c != NOT_A_CARD), default=0.0)
