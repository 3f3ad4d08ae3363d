"""Score the card recogniser on hold-out photos made by python -m models.holdout.

    python -m models.holdout.score DIR [--model models/cards/<release>] [--json out.json] [--limit N]

A read card is right (a true positive) when its id is that of a labelled card at least a third visible and the read
quad's centre lies inside one of that card's index boxes (until synth6: within half an index width of a box's
centre, which failed right reads placed a little along the index). A card under a third visible is
"don't care": reading it right counts neither way, reading it as another card is an error.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

MIN_VISIBLE = 1 / 3


def _inside(point: np.ndarray, quad) -> bool:
    """True when point lies inside the convex quad (corners in order, either way round) or on its edge."""
    q = np.asarray(quad, float)
    edges, to_point = np.roll(q, -1, 0) - q, point - q
    cross = edges[:, 0] * to_point[:, 1] - edges[:, 1] * to_point[:, 0]
    return bool((cross >= 0).all() or (cross <= 0).all())


def score_photo(found, label: dict) -> dict:
    """Compare recognitions (objects with card_id, quad, flagged, pips) with one photo's label dict."""
    cards = {c["id"]: c for c in label["cards"]}
    required = {cid for cid, c in cards.items() if c["visible"] >= MIN_VISIBLE}
    boxes = [(cid, i["quad"]) for cid, c in cards.items() for i in c.get("indices", [c])]
    tp: set[str] = set()
    fp: list[str] = []
    confusions: list[tuple[str, str]] = []
    dont_care = wrong_unflagged = pips_ok = 0
    for r in found:
        centre = np.mean(np.asarray(r.quad, float), 0)
        near = {cid for cid, quad in boxes if _inside(centre, quad)}
        if r.card_id in near and r.card_id not in tp and r.card_id in required:
            tp.add(r.card_id)
            pips_ok += r.pips == cards[r.card_id]["pips"]
        elif r.card_id in near and r.card_id not in required:
            dont_care += 1
        else:   # elsewhere, another card's index, or the same card read twice
            fp.append(r.card_id)
            wrong_unflagged += not r.flagged
            confusions += [(cid, r.card_id) for cid in sorted(near) if cid != r.card_id]
    return {"image": label["image"], "empty": not cards, "required": len(required), "tp": len(tp), "fp": fp,
            "fn": sorted(required - tp), "dont_care_read": dont_care, "confusions": confusions,
            "n_found": len(found), "flagged": sum(bool(r.flagged) for r in found), "pips_ok": pips_ok,
            "wrong_unflagged": wrong_unflagged,
            "card_px": round(label.get("camera", {}).get("px_per_mm", 0) * 60)}


def summarise(rows: list[dict]) -> dict:
    face = [r for r in rows if not r["empty"]]
    empty = [r for r in rows if r["empty"]]
    req, tp = sum(r["required"] for r in face), sum(r["tp"] for r in face)
    fp = sum(len(r["fp"]) for r in face)
    found = sum(r["n_found"] for r in rows)
    by_px = {}
    for lo, hi in ((0, 250), (250, 380), (380, 1000)):
        sub = [r for r in face if lo <= r["card_px"] < hi]
        if sub:
            by_px[f"card {lo}-{hi}px"] = {"photos": len(sub), "recall": round(
                sum(r["tp"] for r in sub) / max(1, sum(r["required"] for r in sub)), 4)}
    return {
        "photos": len(face), "cards_required": req,
        "recall": round(tp / max(req, 1), 4), "precision": round(tp / max(tp + fp, 1), 4),
        "photos_all_right": round(sum(not r["fn"] and not r["fp"] for r in face) / max(len(face), 1), 4),
        "flagged_rate": round(sum(r["flagged"] for r in rows) / max(found, 1), 4),
        "wrong_and_not_flagged": sum(r["wrong_unflagged"] for r in face),
        "pips_right": round(sum(r["pips_ok"] for r in face) / max(tp, 1), 4),
        "empty_photos": len(empty),
        "false_cards_on_empty_photos": sum(r["n_found"] for r in empty),
        "by_card_size": by_px,
        "worst_confusions": Counter(f"{a}->{b}" for r in face for a, b in r["confusions"]).most_common(10),
        "most_missed": Counter(c for r in face for c in r["fn"]).most_common(10),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.holdout.score", description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path, help="folder written by python -m models.holdout")
    ap.add_argument("--model", type=Path, default=None, help="release folder (default: the newest)")
    ap.add_argument("--no-switch", action="store_true",
                    help="without --model: stay on the newest bundled release (default: switch as the table does "
                         "to the release for other printings when it reads the cards unsure)")
    ap.add_argument("--json", type=Path, default=None, help="also write the per-photo rows here")
    ap.add_argument("--limit", type=int, default=0, help="score only the first N photos")
    args = ap.parse_args(argv)
    labels = sorted(args.dir.glob("*.json")) if args.dir.is_dir() else []
    labels = [p for p in labels if p.with_suffix(".jpg").is_file()][: args.limit or None]
    if not labels:
        print(f"error: {args.dir}: no photo + label pairs (python -m models.holdout --out {args.dir})",
              file=sys.stderr)
        return 2
    from vision import ModelError, Recogniser, read_image  # heavy: only once the input looks right
    from vision.printing import table_reader
    try:
        rec = Recogniser.load(args.model)
        if args.model is None and not args.no_switch:
            rec = table_reader(rec)     # as the table reads: another printing switches it (vision.printing)
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rows, ms = [], []
    for n, path in enumerate(labels, 1):
        label = json.loads(path.read_text())
        img = read_image(path.with_suffix(".jpg"))
        t = time.perf_counter()
        found = rec.recognise(img)
        ms.append((time.perf_counter() - t) * 1000)
        rows.append(score_photo(found, label))
        if n % 10 == 0 or n == len(labels):
            print(f"{n}/{len(labels)} photos scored", file=sys.stderr, flush=True)
    summary = summarise(rows)
    summary["model"] = rec.name
    if getattr(rec, "switched_at", None):
        summary["switched"] = {"at_photo": rec.switched_at, "why": rec.reason}
    summary["recognise_ms_median"] = round(float(np.median(ms)), 1)
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "photos": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
