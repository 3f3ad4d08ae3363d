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

import itertools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from scoring.deck import card as deck_card
from scoring.game import Game
from vision.decoder import _Decoder
from vision.geometry import INDEX_ASPECT, spread_slots
from vision.image import check_array
from vision.reads import (
    SIDE_NAMES,
    SIDES,
    SURE,
    Answer,
    Gap,
    HandCard,
    HandRead,
    HandSettings,
    PileRead,
    Question,
    SideCards,
    Sighting,
    _best_card,
)
from vision.recogniser import NOT_A_CARD, Recogniser, one_card_span

__all__ = ["SIDES", "SIDE_NAMES", "SURE", "Answer", "Gap", "HandCard", "HandRead", "HandReader", "HandSettings",
           "PileRead", "Question", "SideCards", "Sighting", "decode", "photo_cards"]


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
        # the weaker peaks of the same looks: faint reads (`faint_heat`), and a spread's ends looked at again
        low = st.faint_heat if st.faint_heat is not None else (st.relook_heat if st.end_card is not None else None)
        (centres, ups, heights, heat), weaker = self.pile_rec.peaks(image, st.pile_heat, low, slivers)
        deck = [c.id for c in game.deck]
        probs, pips = self._probabilities(image, game, centres, ups, heights)
        reads = [_sighting(centres[i], ups[i], heights[i], probs[i], heat[i], st, pips[i], deck)
                 for i in range(len(centres))]
        # An index the classifier is sure is no card is left out (coins, pencils, the score pad, card backs);
        # one it doubts stays, with its doubt, for the decoder to weigh against the deck.
        reads = _drop_same_index([s for s in reads if _best_card(s) >= st.min_card])
        faint = self._faint(image, game, weaker, reads) if st.faint_heat is not None else []
        reads = _merge_same_card(reads + faint)
        spreads = _spreads(reads)
        gaps, tight = _gaps(reads, self.settings, spreads)
        found: list[Sighting] = []
        open_gaps = []
        for g in gaps:
            s = self._look_again(image, game, g, reads + found)
            if s is None:
                open_gaps.append(g)
            else:
                found.append(s)
        if st.end_card is not None:
            reads, found = self._ends_looked(image, game, reads, found, weaker, _ends(reads, spreads))
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
            _not_seen_again(cardlike, probs, cen, deck, known)
        best = int(np.argmax(cardlike))
        if cardlike[best] < st.relook_card:
            return None
        # The gap may hold no card at all (a sloppy spread): the read is only as sure as the spread's step.
        probs = probs[best] * gap.chance
        probs[-1] += 1 - gap.chance
        return replace(_sighting(cen[best], ups[best], hts[best], probs, 0.0, st, int(pips[best]), deck),
                       relook=True)

    def _ends_looked(self, image, game: Game, reads: list[Sighting], found: list[Sighting], weaker,
                     ends: list[Gap]) -> tuple[list[Sighting], list[Sighting]]:
        """Cards one step beyond a spread's ends that read as a card (`end_card`) no read beside them shows:
        the detector's weaker peaks there (its first looks, down to `relook_heat`), or else the place itself,
        all read in one batch. A read on that very index that doubted it was a card gives way to the new one.
        Returns (reads, found) with them."""
        st = self.settings
        known = reads + found
        again = [k for k in known if k.relook]
        poses, slot_of = [], []
        H, W = image.shape[:2]
        for n, g in enumerate(ends):
            c, u, h = np.array(g.centre), np.array(g.up), g.height
            if _near_known(c, h, again) or not (0 <= c[0] < W and 0 <= c[1] < H):
                continue            # looked at already, or off the photo
            peaks = [(weaker[0][k], weaker[1][k], float(weaker[2][k])) for k in range(len(weaker[0]))
                     if math.dist(weaker[0][k], c) < 0.45 * h and not _near_known(weaker[0][k], weaker[2][k], known)]
            # where the detector peaked its peaks frame the index best; else the place itself, upright as the
            # spread's index beside it
            poses += peaks or [(c, u, h)]
            slot_of += [n] * max(1, len(peaks))
        if not poses:
            return reads, found
        cen = np.array([p[0] for p in poses])
        probs, pips = self._probabilities(image, game, cen, np.array([p[1] for p in poses]),
                                          np.array([p[2] for p in poses]))
        deck = [card.id for card in game.deck]
        cardlike = 1 - probs[:, -1]
        _not_seen_again(cardlike, probs, cen, deck, known)     # no pose reading as a read beside it
        slot_of = np.array(slot_of)
        for n in dict.fromkeys(slot_of.tolist()):
            at = np.nonzero(slot_of == n)[0]
            best = int(at[np.argmax(cardlike[at])])
            if cardlike[best] < max(st.relook_card, st.end_card):
                continue
            s = _sighting(cen[best], poses[best][1], poses[best][2], probs[best], 0.0, st, int(pips[best]), deck)
            known = reads + found
            # the top card's other index (turned, at its far corner) lies beyond a spread's end too (a read
            # `_merge_same_card` joined its twin to already), and any card read plainly elsewhere is seen again
            if any(_twin(s, r) and _agree(s, r) >= 0.02 for r in known) or any(
                    r.likely[0][0] == s.likely[0][0] and r.likely[0][1] >= 0.9 for r in known):
                continue
            same = [r for r in known if math.dist(r.centre, s.centre) < 0.12 * max(r.height, s.height)]
            if any(_cardlike(r) for r in same):
                continue
            reads = [r for r in reads if r not in same]
            found = [r for r in found if r not in same] + [s]
        return reads, found

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
        for j in range(i + 1, len(reads)):
            b = reads[j]
            if not _twin(a, b):
                continue
            same = _agree(a, b)
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


def _not_seen_again(cardlike: np.ndarray, probs: np.ndarray, centres: np.ndarray, deck: list[str],
                    known: list[Sighting]) -> None:
    """Zero the card-likeness of each look that reads as the card of a read beside it (that index seen again)."""
    for k in range(len(centres)):
        card = deck[int(np.argmax(probs[k, :-1]))]
        if any(r.likely[0][0] == card and math.dist(r.centre, centres[k]) < 1.2 * r.height for r in known):
            cardlike[k] = 0.0


def _agree(a: Sighting, b: Sighting) -> float:
    """The chance that two reads show the same card."""
    return sum(p * b.p(c) for c, p in a.likely if c != NOT_A_CARD)


def _twin(a: Sighting, b: Sighting) -> bool:
    return one_card_span(a.centre, a.up, a.height, b.centre, b.up, b.height)


def _near_known(c, h, known: list[Sighting]) -> bool:
    return any(math.dist(c, k.centre) < 0.3 * max(h, k.height) for k in known)




def _cardlike(s: Sighting) -> bool:
    return s.p(NOT_A_CARD) < 0.5


def _chains(pts: list[Sighting]) -> list[list[int]]:
    """Chains of indices side by side (a spread's run), three or more, as positions in `pts`, in order."""
    n = len(pts)
    if n < 3:
        return []
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
    seen, chains = set(), []
    for start in range(n):
        if start in seen or len(links[start]) > 1:
            continue
        chain, prev, cur = [], None, start
        while cur is not None and cur not in seen:
            seen.add(cur)
            chain.append(cur)
            nxt = [j for j in links[cur] if j != prev and j not in seen]
            prev, cur = cur, (nxt[0] if nxt else None)
        if len(chain) >= 3:
            chains.append(chain)
    return chains


Spreads = tuple[list[Sighting], list[list[int]]]    # the reads likely cards, and their chains


def _spreads(reads: list[Sighting]) -> Spreads:
    """The reads that are likely cards, and their chains (`_chains`)."""
    pts = [s for s in reads if _cardlike(s)]
    return pts, _chains(pts)


def _gaps(reads: list[Sighting], st: HandSettings, spreads: Spreads | None = None
          ) -> tuple[list[Gap], list[tuple[float, float]]]:
    """Gaps in the spreads: chains of indices side by side with a steady step, and a step too long for it.

    Also the stretches where the step is so short that the numerals are covered (for a respread)."""
    pts, chains = spreads or _spreads(reads)
    c = np.array([s.centre for s in pts]).reshape(-1, 2)
    u = np.array([s.up for s in pts]).reshape(-1, 2)
    h = np.array([s.height for s in pts])
    gaps, tight = [], []
    for chain in chains:
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


def _ends(reads: list[Sighting], spreads: Spreads | None = None) -> list[Gap]:
    """One step beyond each end of each spread's chain: where a card the detector missed may lie (its index
    under glare, beside a pencil). Chance 1: the step says nothing of whether a card lies there."""
    pts, chains = spreads or _spreads(reads)
    out = []
    for chain in chains:
        c = np.array([pts[k].centre for k in chain])
        usual = float(np.median(np.hypot(*np.diff(c, axis=0).T)))
        for a, b in ((chain[-2], chain[-1]), (chain[1], chain[0])):
            d = np.subtract(pts[b].centre, pts[a].centre)
            at = np.add(pts[b].centre, d / max(float(np.hypot(*d)), 1e-9) * usual)
            out.append(Gap((float(at[0]), float(at[1])), pts[b].up, pts[b].height, 1.0))
    return out
