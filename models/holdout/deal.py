"""Deals and pile layouts for the hold-out renderer, in table millimetres (x right, y down, card centre poses).

Written apart from models/synth.py on purpose: the hold-out photos must not share the training generator's choices.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CARD_W, CARD_H = 60.0, 112.0
# Index box of an upright face, card-centred mm (u right, v down); the turned copy is its point mirror.
INDEX_TL = np.array([[1.8, 2.5], [12.2, 2.5], [12.2, 47.0], [1.8, 47.0]]) - [CARD_W / 2, CARD_H / 2]
INDEX_BR = -INDEX_TL
STYLES = ("straight", "fan", "sloppy", "two_rows")


@dataclass(frozen=True, slots=True)
class DeckCard:
    id: str
    pips: int
    in_42: bool


@dataclass(frozen=True, slots=True)
class Deal:
    """The two complementary trick piles of one game."""
    deck_size: int
    declarer: tuple[str, ...]
    defenders: tuple[str, ...]
    players: int = 4          # cards in each trick
    talon: int = 0            # cards in the Declarer's pile that no trick brought (discards, Talon cards)


@dataclass(frozen=True, slots=True)
class Pose:
    """A card on the table: centre (x, y) mm, turn in degrees (clockwise on the table), layer (draw order)."""
    x: float
    y: float
    angle: float
    layer: int

    def corners(self, local: np.ndarray) -> np.ndarray:
        """Card-centred mm points (N, 2) -> table mm (N, 2)."""
        a = math.radians(self.angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return local @ rot.T + [self.x, self.y]


def load_deck(path: Path) -> list[DeckCard]:
    try:
        cards = json.loads(Path(path).read_text())["cards"]
        return [DeckCard(c["id"], int(c["pips"]), bool(c["in_42_card_deck"])) for c in cards]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a readable deck.json ({exc})") from exc


def random_deal(rng: np.random.Generator, deck: list[DeckCard]) -> Deal:
    """Shuffle, then give the Declarer whole tricks plus what the Talon added, both sides 6-40 cards."""
    ids = [c.id for c in deck if c.in_42] if rng.random() < 0.25 else [c.id for c in deck]
    n = len(ids)
    for _ in range(200):
        players = 4 if rng.random() < 0.7 else 3
        tricks = (n - 6) // players
        kept = int(rng.choice([0, 3, 6, 6]))      # Talon cards the Declarer put down (or took in Solo games)
        k = int(rng.integers(0, tricks + 1)) * players + kept
        if 6 <= k <= 40 and 6 <= n - k <= 40:
            break
    else:   # a deck too small to split is a programming error, not bad luck
        raise ValueError(f"cannot split a {n}-card deck into two piles of 6-40")
    order = [ids[i] for i in rng.permutation(n)]
    return Deal(n, tuple(order[:k]), tuple(order[k:]), players, kept)


def _turned(rng, n) -> np.ndarray:
    """0 or 180 per card: some players are tidy, some throw cards down any way up."""
    p = float(rng.choice([0.0, 0.15, 0.35, 0.5]))
    return np.where(rng.random(n) < p, 180.0, 0.0)


def lay_out(rng: np.random.Generator, n: int, style: str) -> list[Pose]:
    """Poses of n cards of one pile in the pile's own frame (first card drawn first, later ones on top)."""
    turn = _turned(rng, n)
    if style == "straight":
        step = rng.uniform(8, 16)
        return [Pose(i * step, rng.normal(0, 0.3), rng.normal(0, 0.5) + turn[i], i) for i in range(n)]
    if style == "sloppy":
        step = rng.uniform(7, 15)
        xs = np.cumsum(np.clip(rng.normal(step, 2.5, n), 3.5, 22))
        ys = np.cumsum(rng.normal(0, 1.2, n)) + rng.normal(0, 1.5, n)
        return [Pose(xs[i], ys[i], rng.normal(0, 3.5) + turn[i], i) for i in range(n)]
    if style == "fan":
        return _fan(rng, n, turn)
    if style == "two_rows":
        top = math.ceil(n / 2)
        gap = rng.uniform(52, 75)      # the lower row hides the bottom of the upper one, not its indices
        first = lay_out(rng, top, "straight" if rng.random() < 0.5 else "sloppy")
        second = lay_out(rng, n - top, "straight" if rng.random() < 0.5 else "sloppy")
        dx = rng.uniform(-10, 10)
        return first + [Pose(p.x + dx, p.y + gap, p.angle, p.layer + top) for p in second]
    raise ValueError(f"unknown pile style {style!r}; known: {', '.join(STYLES)}")


def _fan(rng, n, turn) -> list[Pose]:
    """A hand-style arc: every card turned about one pivot below the pile, spaced 7-14 mm at the index."""
    spacing = rng.uniform(7, 14)
    pivot_u = rng.uniform(-12, 5)
    index_centre = INDEX_TL.mean(0)
    # A longer radius for a big pile keeps the whole fan under ~170 degrees, as players do.
    radius = max(rng.uniform(70, 130), n * spacing / math.radians(rng.uniform(110, 170)))
    pivot_v = math.sqrt(max(radius ** 2 - (pivot_u - index_centre[0]) ** 2, 1.0)) + index_centre[1]
    step = spacing / radius
    start = -0.5 * step * (n - 1) + rng.normal(0, 0.1)
    poses = []
    for i in range(n):
        a = start + i * step + rng.normal(0, 0.01)
        c, s = math.cos(a), math.sin(a)
        # the card centre is (-pivot_u, -pivot_v) from the pivot before turning
        x, y = c * -pivot_u - s * -pivot_v, s * -pivot_u + c * -pivot_v
        poses.append(Pose(x, y, math.degrees(a) + turn[i], i))
    return poses


def place(poses: list[Pose], angle: float, x: float, y: float) -> list[Pose]:
    """Turn a pile about its own centre by angle degrees, then put that centre at (x, y)."""
    cx = float(np.mean([p.x for p in poses]))
    cy = float(np.mean([p.y for p in poses]))
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    return [Pose(x + c * (p.x - cx) - s * (p.y - cy), y + s * (p.x - cx) + c * (p.y - cy), p.angle + angle, p.layer)
            for p in poses]


def outline(corner_mm: float = 3.5, per_corner: int = 4) -> np.ndarray:
    """Rounded-rectangle outline of a card, card-centred mm, (4 * per_corner, 2)."""
    pts = []
    hw, hh, r = CARD_W / 2 - corner_mm, CARD_H / 2 - corner_mm, corner_mm
    for (cx, cy), a0 in (((hw, -hh), -90), ((hw, hh), 0), ((-hw, hh), 90), ((-hw, -hh), 180)):
        for t in np.linspace(0, 90, per_corner):
            a = math.radians(a0 + t)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts)
