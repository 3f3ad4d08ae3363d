"""The hand's decoder: every card of the game's deck given one place (a read, or no read at all), the likeliest
way first, then every plausible other way weighed against the whole hand; the questions put are the doubts whose
answers change the score (`vision.hand.decode` is its entry point).
"""
from __future__ import annotations

import copy
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from scoring.deck import card as deck_card
from scoring.game import Game
from vision.reads import (
    SIDE_NAMES,
    SIDES,
    Answer,
    HandCard,
    HandRead,
    HandSettings,
    PileRead,
    Question,
    SideCards,
    Sighting,
    _best_card,
)
from vision.recogniser import NOT_A_CARD

# ---------------------------------------------------------------- assignment

_INF = 1e9
_LOST = -1      # a force whose card no read shows: (_LOST, card)


def _tie(read, card):
    """What a read's cost for a card (-1: none; a card's row when no read shows it: read -1) is raised by, less than a
    billionth, the same in every copy of the hand: two readings never cost exactly the same, so a solve from
    scratch and one warm-started from the hand before an answer pick the same one. Mixed, not a read's term plus
    a card's: every full reading has the same sum of those."""
    return 1e-9 * ((((np.asarray(read, np.int64) + 2) * 73856093) ^ ((np.asarray(card, np.int64) + 2) * 19349663))
                   % 65521) / 65521


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
        self._at = {c: j for j, c in enumerate(self.deck)}
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
        said = forced if st.said_twice else {}
        for (side, k), c in said.items():   # a read the players named is sure of its card: seen again elsewhere?
            if k not in sure.get((side, c), ()):
                sure.setdefault((side, c), []).append(k)
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
                        and any(k != r.k and (self._again(r, k) or (r.side, k) in said and self._turned(r.side, k))
                                for k in sure.get((r.side, c), ())))
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
            # no pips seen on a partly covered index (a weak peak) whose likeliest card is held elsewhere says
            # less: the pips may lie under the card above
            other = st.free_pips
            if (st.free_pips_weak is not None and r.s.pips == 0 and r.s.heat < st.weak_heat and cardness >= 0.5
                    and len(probs) > 1):
                lead = max((c for c in probs if c != NOT_A_CARD), key=probs.__getitem__)
                if any(k != (r.side, r.k) for k in holders.get(lead, ())):
                    other = st.free_pips_weak
            for c in free:
                same = 1.0 if self.pips[c] == r.s.pips else other
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
        say little: a card the players placed in its pile that it lists has a share of what it leaves beside its
        best card (`placed_rest`), one it does not list may be it too (`placed_tail`), and once they have answered,
        any card no read claims (`misread_free`; before they answer too with `misread_first`)."""
        listed = [(c, p) for c, p in r.s.likely if c != NOT_A_CARD]
        if not listed:
            return
        best, p = max(listed, key=lambda t: t[1])
        r.misread = p >= 0.5 and any(h != (r.side, r.k) and not (h[0] == r.side and self._again(r, h[1]))
                                     for h in holders.get(best, ()))
        if not r.misread:
            return
        names = {c for c, _ in listed}
        here = [c for c, side in self.placed.items() if side == r.side and c in free]
        listed_here = [c for c in here if c in names]
        if self.st.placed_rest:
            for c in listed_here:
                probs[c] = max(probs.get(c, 0.0), self.st.placed_rest * (1 - p) / len(listed_here))
        tail = min([q for _, q in listed] + [1 - sum(q for _, q in r.s.likely)])
        if tail <= 0:
            return
        # a card known to lie here is nearly as likely as a lost card of its pips that may lie in either pile
        rival: dict[int, float] = {}
        if self.st.placed_rival and any(c not in names for c in here):
            for c in free:
                if c not in self.placed:
                    rival[self.pips[c]] = max(rival.get(self.pips[c], 0.0), probs.get(c, 0.0))
        for c in here:
            if c not in names:
                probs[c] = max(probs.get(c, 0.0), self.st.placed_tail * tail,
                               (self.st.placed_rival or 0.0) * rival.get(self.pips[c], 0.0))
        if self.st.misread_free and (self.answers or self.st.misread_first):
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
        if self._turned(r.side, r.k):
            return True
        return math.dist(r.s.centre, pile[k].centre) < near * max(r.s.height, pile[k].height)

    def _turned(self, side: str, k: int) -> bool:
        """Whether read k of a photo is turned against its pile's run (a card's other corner)."""
        return float(np.dot(self.piles[side].sightings[k].up, self._runs[side])) <= 0

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
        rows, cols, read, card, value = [], [], [], [], []     # each set cost, and whose it is for `_tie`
        for a, i in enumerate(reads):
            for c, v in self.reads[i].cost.items():
                if c == NOT_A_CARD or c in col:
                    rows.append(a)
                    cols.append(k + a if c == NOT_A_CARD else col[c])
                    read.append(i)
                    card.append(-1 if c == NOT_A_CARD else self._at[c])
                    value.append(v)
        for j, c in enumerate(cards):
            rows.append(m + j)
            cols.append(j)
            read.append(-1)
            card.append(self._at[c])
            value.append(self._unplaced_cost(c))
            cost[m + j, k:] = 0.0
        cost[rows, cols] = np.asarray(value) + _tie(read, card)
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
                capped = {side: 0 if side in noise else min(n, max(lost - self._spare(side, n, lost), 0))
                          for side, n in need.items()}
                need = capped if sum(capped.values()) <= lost else need
            out = [p for p in out if all(sum(1 for s in p.values() if s == side) >= n
                                         for side, n in need.items())] or out
        return out

    def _spare(self, side: str, n: int, lost: int) -> int:
        """The lost cards a pile counting more than are lost leaves free: `fan_spares` where the other pile is a
        fan that counts none (`fan_spare`; one where the players said how the tricks lie), one where it is a
        spread that counts none with a read `weak_spare` sure of a covered card beside it; so too beside a spread
        counting just as many by its covers (a fan's open gap, not); else 0."""
        o = _other(side)
        over = n > lost or (n == lost and side not in self.fans)
        if not (self.st.fan_spare and over and o in self.piles and self.least.get(o, 0) == 0):
            return 0
        if o in self.fans:      # one where the tricks are said: their count weighs where the lost cards go
            return self.st.fan_spares if self._allowed_sizes() is None else 1
        weak = self.st.weak_spare
        return int(weak is not None and any(s.covered >= weak for s in self.piles[o].sightings))

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
        # an answer that changes a misread's options (`_misread`): the players' first (`misread_free`, unless
        # `misread_first` gave them before any answer), a card placed in its pile (`placed_tail`), or, where a
        # card lies placed in its pile, one placed anywhere (it leaves the lost cards `placed_rival` weighs)
        first = bool(self.st.misread_free) and not self.answers and not self.st.misread_first
        rival = self.st.placed_rival and a.kind == "which_pile"
        if any(r.misread and (first or (self.st.placed_tail and a.kind == "which_pile" and r.side == a.side)
                              or (rival and r.side in new.placed.values())) for r in self.reads):
            return self._reweighed(new)
        # a read the players named is sure of its card (`said_twice`): another read there listing it may be it
        # seen again
        if self.st.said_twice and a.kind == "which_card" and any(
                r.side == a.side and r.k != a.sighting and any(c == a.card for c, _ in r.s.likely)
                and (self._again(r, a.sighting) or self._turned(a.side, a.sighting)) for r in self.reads):
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
