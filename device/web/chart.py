"""The evening's totals as an inline SVG line chart, drawn on the server (no script, no library).

Sized for a phone: 360 user units wide, drawn at about that many CSS pixels on a 360-390 px screen, so the
14-unit text is about 13-14 px there. Each line is named at its end, next to its total; names whose totals
are equal or close are moved apart, and lines with equal totals are drawn a little apart so both show.
"""

from __future__ import annotations

import math
from fractions import Fraction

from scoring import format_points

WIDTH, HEIGHT = 360, 240
LEFT, TOP, BOTTOM = 40, 14, 30  # room for the totals axis, the top label and the hand numbers
LEGEND = 96  # room on the right for "name total" at each line's end
FONT = 14
LABEL_GAP = 19  # the least distance between two end labels: a 14-unit line of text is about 17 units tall
SPREAD = 2.0  # lines with equal totals are drawn this far apart
COLOURS = ("#c0392b", "#2471a3", "#229954", "#b9770e", "#7d3c98", "#566573")
DASHES = ("", "8 4", "2 3", "10 3 2 3", "4 4", "1 2")  # equal lines stay told apart without colour


def totals_chart(players: list[str], rows: list[dict]) -> dict:
    """Polylines of each player's running total after each hand (hand 0 = the start, all at 0).

    Returns {"width", "height", "left", "right", "top", "bottom", "zero_y", "font",
    "lines": [{"player", "colour", "dash", "points", "label_x", "label_y", "total"}],
    "ticks": [{"x", "hand"}], "min", "max", "min_y", "max_y"} in SVG user units; y grows downwards.
    """
    series = {p: [Fraction(0)] + [value(r["totals"].get(p, 0)) for r in rows] for p in players}
    values = [v for s in series.values() for v in s]
    low, high = min(values + [Fraction(0)]), max(values + [Fraction(0)])
    span = (high - low) or Fraction(1)
    steps = max(len(rows), 1)
    right = WIDTH - LEGEND
    bottom = HEIGHT - BOTTOM

    def x_of(i: int) -> float:
        return LEFT + (right - LEFT) * i / steps

    def y_of(v: Fraction) -> float:
        return TOP + (bottom - TOP) * float((high - v) / span)

    n = len(players)
    lines = []
    for i, p in enumerate(players):
        shift = (i - (n - 1) / 2) * SPREAD
        points = " ".join(f"{x_of(j):.1f},{y_of(v) + shift:.1f}" for j, v in enumerate(series[p]))
        lines.append({
            "player": p,
            "colour": COLOURS[i % len(COLOURS)],
            "dash": DASHES[i % len(DASHES)],
            "points": points,
            "end_y": y_of(series[p][-1]),
            "total": format_points(series[p][-1]),
        })
    for line, y in zip(lines, spread_labels([line["end_y"] for line in lines], TOP, bottom)):
        line["label_x"], line["label_y"] = right + 6, round(y + FONT * 0.35, 1)
        line["end_y"] = round(line["end_y"], 1)
    every = max(1, math.ceil(steps / 8))  # at most about nine numbers fit under the lines
    ticks = [{"x": round(x_of(i), 1), "hand": i} for i in range(0, len(rows) + 1, every)]
    if ticks[-1]["hand"] != len(rows):
        ticks.append({"x": round(x_of(len(rows)), 1), "hand": len(rows)})
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": right,
        "top": TOP,
        "bottom": bottom,
        "font": FONT,
        "zero_y": f"{y_of(Fraction(0)):.1f}",
        "lines": lines,
        "ticks": ticks,
        "min": format_points(low),
        "max": format_points(high),
        "min_y": round(y_of(low), 1),
        "max_y": round(y_of(high), 1),
    }


def spread_labels(ys: list[float], top: float, bottom: float, gap: float = LABEL_GAP) -> list[float]:
    """The label positions nearest to `ys` (in the same order) that lie at least `gap` apart.

    >>> spread_labels([100.0, 100.0, 50.0], 0, 200, gap=16)
    [92.0, 108.0, 50.0]
    """
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    placed = [ys[i] for i in order]
    # Push apart in runs: each label sits at least `gap` below the one above, then a crowded run is
    # centred on where its labels want to be.
    groups: list[list[int]] = []
    for k in range(len(placed)):
        groups.append([k])
        while len(groups) > 1:
            a, b = groups[-2], groups[-1]
            start_a = _run_start(placed, a, gap)
            start_b = _run_start(placed, b, gap)
            if start_a + gap * len(a) > start_b:
                groups[-2:] = [a + b]
            else:
                break
    out = [0.0] * len(placed)
    for g in groups:
        start = _run_start(placed, g, gap)
        start = min(max(start, top), bottom - gap * (len(g) - 1))
        for j, k in enumerate(g):
            out[k] = start + gap * j
    result = [0.0] * len(ys)
    for k, i in enumerate(order):
        result[i] = round(out[k], 1)
    return result


def _run_start(placed: list[float], run: list[int], gap: float) -> float:
    """Where a run of labels spaced `gap` apart starts when centred on the labels' own positions."""
    return sum(placed[k] - gap * j for j, k in enumerate(run)) / len(run)


def value(v) -> Fraction:
    """A score as the sheet gives it (int, or text such as '35 1/3' or '-2 1/2') as a Fraction."""
    if " " not in str(v):
        return Fraction(str(v))
    whole, frac = str(v).split(" ", 1)
    value = abs(Fraction(whole)) + Fraction(frac)
    return -value if whole.startswith("-") else value
