"""`tarokcam score HAND.json [--json]`: Victory Points of one hand under both systems, with the ledger."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="score one hand record (JSON) under both scoring systems",
        description="Score a hand record (see scoring/schema/hand.schema.json). Prints a ledger "
        "table, or with --json "
        '{"simplified": {...}, "traditional": {...}, "ledger": [...]}.',
    )
    p.add_argument("hand", metavar="HAND.json", help="the hand record; '-' reads standard input")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument(
        "--options",
        metavar="OPTIONS.json",
        help='group options, e.g. {"tariff": {"rules": {"radli": false}}}',
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from scoring import score_hand
    from scoring.result import HandFormatError

    try:
        hand = _load(args.hand, "hand")
        options = _load(args.options, "options") if args.options else None
        result = score_hand(hand, options)
    except (OSError, ValueError) as exc:
        # HandFormatError is a ValueError; its message starts with the field's name.
        kind = "malformed hand" if isinstance(exc, HandFormatError) else "cannot read"
        print(f"tarokcam score: {kind}: {exc}", file=sys.stderr)
        return 2
    data = result.to_json()
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(ledger_table(data))
    return 0


def _load(path: str, what: str):
    text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{what} {path}: not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None


def ledger_table(data: dict) -> str:
    """The ledger as two plain-text tables, one per scoring system, with a total row each."""
    players = list(data["simplified"])
    out = []
    for system, unit in (("traditional", data.get("traditional_unit", "VP")), ("simplified", "VP")):
        rows = [
            [s["step"]] + [_signed(s[system].get(p, 0)) for p in players]
            for s in data["ledger"]
            if any(s[system].get(p, 0) not in (0, "0") for p in players)
        ]
        rows.append(["Total"] + [_signed(data[system][p]) for p in players])
        head = [f"{system.capitalize()} ({unit})"] + players
        widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
        out += (
            [_line(head, widths), "  ".join("-" * w for w in widths)]
            + [_line(r, widths) for r in rows]
            + [""]
        )
    settlement = data.get("facts", {}).get("settlement_if_ended_now")
    if settlement:
        out += [
            "Settlement by the average, if the evening ended after this hand:",
            "  " + "  ".join(f"{p} {_signed(v)}" for p, v in settlement.items()),
            "",
        ]
    out.append("Steps:")
    out += [f"  {s['step']}: {s['detail']}" for s in data["ledger"]]
    return "\n".join(out)


def _line(cells: list, widths: list[int]) -> str:
    """The step's name left-aligned, the players' points right-aligned."""
    return "  ".join(
        str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
    )


def _signed(value) -> str:
    text = str(value)
    return text if text.startswith("-") or text in ("0",) else f"+{text}"
