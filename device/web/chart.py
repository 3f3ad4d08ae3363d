"""The evening's totals as an inline SVG line chart, drawn on the server (no script, no library)."""

from __future__ import annotations

from fractions import Fraction

from scoring import format_points

WIDTH, HEIGHT, PAD, LEGEND = 600, 240, 32, 80  # LEGEND: room for names on the right
COLOURS = ("#c0392b", "#2471a3", "#229954", "#b9770e", "#7d3c98", "#566573")


def totals_chart(players: list[str], rows: list[dict]) -> dict:
    """Polylines of each player's running total after each hand (hand 0 = the start, all at 0).

    Returns {"width", "height", "zero_y", "lines": [{"player", "colour", "points": "x,y x,y ..."}],
    "min", "max"} in SVG user units; y grows downwards as SVG does.
    """
    series = {p: [Fraction(0)] + [value(r["totals"].get(p, 0)) for r in rows] for p in players}
    values = [v for s in series.values() for v in s]
    low, high = min(values + [Fraction(0)]), max(values + [Fraction(0)])
    span = (high - low) or Fraction(1)
    steps = max(len(rows), 1)

    def xy(i: int, v: Fraction) -> str:
        x = PAD + (WIDTH - PAD - LEGEND) * i / steps
        y = PAD + (HEIGHT - 2 * PAD) * float((high - v) / span)
        return f"{x:.1f},{y:.1f}"

    lines = [
        {
            "player": p,
            "colour": COLOURS[i % len(COLOURS)],
            "points": " ".join(xy(j, v) for j, v in enumerate(series[p])),
        }
        for i, p in enumerate(players)
    ]
    zero_y = PAD + (HEIGHT - 2 * PAD) * float(high / span)
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "pad": PAD,
        "right": WIDTH - LEGEND,
        "zero_y": f"{zero_y:.1f}",
        "lines": lines,
        "min": format_points(low),
        "max": format_points(high),
    }


def value(v) -> Fraction:
    """A score as the sheet gives it (int, or text such as '35 1/3' or '-2 1/2') as a Fraction."""
    if " " not in str(v):
        return Fraction(str(v))
    whole, frac = str(v).split(" ", 1)
    value = abs(Fraction(whole)) + Fraction(frac)
    return -value if whole.startswith("-") else value
