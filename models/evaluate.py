"""Evaluate a release on held-out generated photos (a seed never used in training) with the ONNX runtime path.

    python -m models.evaluate --n 300 --seed 1000 [--model models/cards/<release>] [--json eval.json]
    python -m models.evaluate --faces /tmp/printings/holdout-1 --n 60     # a printing never trained on
    python -m models.evaluate --check-release models/cards/<date>-my-deck --faces my_deck/    # 60 photos, seed 3000
                                                   # and the enrolment photos my_deck/deck.json names

An index at least a third visible must be read; one less visible may be read or not (neither counted);
a read card must sit on one of that card's indices. Card Points use scoring.find_game(--game).count.
Diagnostics beside the targets: recall on the cards whose visible part tells them from every other card
(models.readability), and the photos where every card can be told apart or is at least a third visible.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

import scoring
from models.dataset import MIN_VISIBLE, progress
from models.synth import FACES_DIR, Deck, random_scene, render
from vision import Recogniser
from vision.errors import ImageError, ModelError
from vision.geometry import index_offset
from vision.image import read_image
from vision.printing import table_reader
from vision.recogniser import MODELS_DIR, NOT_A_CARD, latest_release, write_release_check

DONT_CARE = 0.05
TELL_MM2 = 1.0    # less than 1 mm² of telling difference in view: 6 px on the smallest cards, no one can name it


def score_photo(pred, labels, candidates=()) -> dict:
    """Compare recognitions with the labels of one photo (candidates: the recogniser's, to say why one was missed)."""
    best = _best_per_card(labels, "visible")
    required = {c for c, v in best.items() if v >= MIN_VISIBLE}
    optional = {c for c, v in best.items() if DONT_CARE <= v < MIN_VISIBLE}
    tp, fp, confusions, seen = set(), [], [], Counter()
    for r in pred:
        seen[r.card_id] += 1
        centre = np.mean(r.quad, 0)
        on_it = [lab for lab in labels if lab["card"] == r.card_id
                 and np.hypot(*(centre - lab["center"])) < 0.5 * lab["height"]]
        if on_it and seen[r.card_id] == 1 and r.card_id in required:
            tp.add(r.card_id)
        elif on_it and seen[r.card_id] == 1 and r.card_id in optional:
            pass
        else:
            fp.append(r.card_id)
            near = [lab for lab in labels if np.hypot(*(centre - lab["center"])) < 0.5 * lab["height"]]
            if near:
                confusions.append((near[0]["card"], r.card_id))
    fn = required - tp
    why = Counter(_why_missed(card, labels, candidates) for card in fn) if candidates else Counter()
    # Diagnostic: the required cards whose numeral and suit sign are at least half in view on some index.
    marks = _best_per_card(labels, "mark_visible", MIN_VISIBLE, default=1.0)
    readable = {c for c in required if marks.get(c, 0.0) >= 0.5}
    # Diagnostic: the required cards that some reader could name (models.readability): on some index at
    # least a third visible, at least TELL_MM2 of what shows differs from every other card's index.
    tell = _best_per_card(labels, "tell_mm2", MIN_VISIBLE)
    tellable = {c for c in required if tell.get(c, np.inf) >= TELL_MM2}
    return {"required": len(required), "tp": len(tp), "readable": len(readable), "tp_readable": len(tp & readable),
            "tellable": len(tellable), "tp_tellable": len(tp & tellable), "fn_untellable": sorted(fn - tellable),
            "fp": len(fp), "fn": sorted(fn), "fp_ids": fp,
            "missed_why": dict(why), "confusions": confusions, "flagged": sum(r.flagged for r in pred), "n_pred": len(pred),
            "truth": sorted(best), "pips_ok": sum(r.pips == DECK_PIPS[r.card_id] for r in {r.card_id: r for r in pred if r.card_id in tp}.values()),
            "unflagged_errors": sum(1 for r in pred if r.card_id in fp and not r.flagged)}


def _best_per_card(labels, key: str, min_visible: float = 0.0, default: float | None = None) -> dict[str, float]:
    """Each card's largest `key` over its indices at least min_visible (labels without it: default, or skipped)."""
    out: dict[str, float] = {}
    for lab in labels:
        value = lab.get(key, default)
        if value is not None and lab["visible"] >= min_visible:
            out[lab["card"]] = max(out.get(lab["card"], 0.0), value)
    return out


DECK_PIPS = {c.id: c.pips for c in scoring.DECK}


def _why_missed(card: str, labels, candidates) -> str:
    """Where a required card was lost: no candidate on any of its indices, read as another card or as not a
    card, or read right but dropped (under min_confidence, or lost to a surer read of the same index).
    A candidate is on an index when it sits inside its box (neighbours in a spread are an index width apart)."""
    reads = []
    for lab in labels:
        if lab["card"] != card or lab["visible"] < DONT_CARE:
            continue
        for centre, _, read in candidates:
            along, across = index_offset(centre, lab["center"], lab["up"], lab["height"])
            if along < 0.25 and across < 0.5:
                reads.append(read)
    if not reads:
        return "not_detected"
    if card in reads:
        return "read_but_dropped"
    return "read_as_not_a_card" if all(r == NOT_A_CARD for r in reads) else "read_as_another_card"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=None, help="photos (default 300; 60 with --check-release)")
    ap.add_argument("--seed", type=int, default=None, help="first seed (default 1000; 3000 with --check-release)")
    ap.add_argument("--model", type=Path, default=None,
                    help="release folder (default: the newest bundled one, switching as the table does to the "
                         "release for other printings when it reads the cards unsure; vision.printing)")
    ap.add_argument("--no-switch", action="store_true", help="without --model: stay on the bundled release")
    ap.add_argument("--game", default="slovenian")
    ap.add_argument("--empty", type=int, default=20, help="extra photos with no face-up card")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--faces", type=Path, default=FACES_DIR)
    ap.add_argument("--cache", type=Path, default=None, help="keep rendered photos here (JPEG q95) and reuse them")
    ap.add_argument("--render-only", action="store_true", help="fill --cache and stop")
    ap.add_argument("--heat", type=float, default=None, help="override the detector heat threshold")
    ap.add_argument("--det-long", type=int, default=None, help="override the detector input long side")
    ap.add_argument("--det-max-long", type=int, default=None)
    ap.add_argument("--min-confidence", type=float, default=None, help="override the floor for reporting a read")
    ap.add_argument("--check-release", type=Path, default=None, metavar="RELEASE",
                    help="compare this release with --against (default the newest bundled one) on photos of "
                         "--faces; exit 1, saying why, when it scores worse")
    ap.add_argument("--against", type=Path, default=None, help="the release to compare --check-release with")
    ap.add_argument("--enrol-photos", type=Path, default=None, metavar="DIR",
                    help="with --check-release: the photos the deck was enrolled from, named by card id (default: "
                         "the folder the deck's deck.json names, when it is there)")
    args = ap.parse_args(argv)
    checking = args.check_release is not None
    args.n = args.n if args.n is not None else (60 if checking else 300)
    args.seed = args.seed if args.seed is not None else (3000 if checking else 1000)
    if checking:
        ok, reason, _, _ = check_release(args.check_release, args.against, args.faces, n=args.n, seed=args.seed,
                                         cache=args.cache, game=args.game, enrol_photos=args.enrol_photos)
        # the verdict beside the release: the service switches to a club release only when it passed
        write_release_check(args.check_release, ok, reason, str(args.against or "the newest bundled release"))
        print(reason)
        return 0 if ok else 1
    deck, game = Deck.load(args.faces), scoring.find_game(args.game)
    rec = None if args.render_only else Recogniser.load(args.model)
    overrides = {"heat_threshold": args.heat, "det_long": args.det_long, "det_max_long": args.det_max_long,
                 "min_confidence": args.min_confidence}
    if rec is not None:
        rec.settings = replace(rec.settings, **{k: v for k, v in overrides.items() if v is not None})
        if args.model is None and not args.no_switch and not any(v is not None for v in overrides.values()):
            rec = table_reader(rec)
    rows, ms = run_photos(rec, deck, game, args.n, args.empty, args.seed, args.cache)
    if rec is None:
        return 0
    summary = summarise(rows, ms)
    summary["model"] = rec.name
    if getattr(rec, "switched_at", None):
        summary["switched"] = {"at_photo": rec.switched_at, "why": rec.reason}
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "photos": rows}, indent=1, default=str))
    return 0


def run_photos(rec, deck: Deck, game, n: int, empty_n: int, seed: int, cache: Path | None):
    """Recognise n generated photos of `deck` (plus empty_n with no face-up card) from `seed`; rec None only
    renders (into the cache). Returns the scored rows and the recognise times (ms)."""
    rng = np.random.default_rng(seed)
    rows, t0, ms = [], time.time(), []
    total = n + empty_n
    for i in range(total):
        empty = i >= n
        scene = random_scene(rng, face_up=not empty)   # drawn even when cached, so photo i is always the same
        img, labels = photo(cache, f"{i:04d}-empty" if empty else f"{i:04d}", scene, deck)
        if rec is None:
            progress(i, total, t0, "rendering")
            continue
        t = time.perf_counter()
        pred = rec.recognise(img)
        ms.append((time.perf_counter() - t) * 1000)
        row = score_photo(pred, labels, rec.candidates)
        row.update(size=list(scene.size), card_px=round(scene.ppm * 60), empty=empty)
        try:
            truth_pts = game.count(row["truth"])
            row["points_ok"] = game.count([r.card_id for r in pred]) == truth_pts
        except ValueError:
            row["points_ok"] = False
        rows.append(row)
        progress(i, total, t0, f"eval fn {sum(len(r['fn']) for r in rows)} fp {sum(r['fp'] for r in rows)}")
    return rows, ms


PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")     # what vision.image.read_image reads


def enrolment_photos(faces: Path) -> Path | None:
    """The folder of the photos a deck was enrolled from, as its deck.json records it (`enrolment.photos`,
    relative to the deck folder or absolute), when it is still there."""
    try:
        where = json.loads((Path(faces) / "deck.json").read_text()).get("enrolment", {}).get("photos")
    except (OSError, ValueError, AttributeError):
        return None
    if not where:
        return None
    folder = Path(where) if Path(where).is_absolute() else Path(faces) / where
    return folder if folder.is_dir() else None


def read_enrolment_photos(rec, folder: Path, ids: set[str]) -> dict:
    """Each enrolment photo (one card face up, named by its id) read by `rec`: right when its card is read
    and no other. Returns {"photos": n, "right": k, "wrong": {card: [what was read]}}."""
    photos = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in PHOTO_SUFFIXES and p.stem in ids)
    wrong = {}
    for p in photos:
        try:
            read = [r.card_id for r in rec.recognise(read_image(p))]
        except ImageError as exc:
            read = [f"(unreadable: {exc})"]
        if set(read) != {p.stem}:
            wrong[p.stem] = read
    return {"photos": len(photos), "right": len(photos) - len(wrong), "wrong": wrong}


def compared_with(candidate: Path, root: Path = MODELS_DIR) -> Path:
    """The release a candidate is checked against: the newest one for the reference deck other than itself (never
    a club deck's, nor the one for printings not yet enrolled)."""
    try:
        return latest_release(root, other_than=candidate)
    except ModelError:
        raise SystemExit(f"no bundled release under {root} to compare {candidate} with") from None


def check_release(candidate: Path, bundled: Path | None, faces: Path, *, n: int = 40, seed: int = 3000,
                  cache: Path | None = None, game: str = "slovenian",
                  enrol_photos: Path | None = None) -> tuple[bool, str, dict, dict]:
    """Item 5 of issue 14: may the table switch to `candidate`? Both releases read the same generated photos
    of the candidate's own deck (`faces`), and the photos the deck was enrolled from (`enrol_photos`, default
    the folder its deck.json names); the candidate is refused when its recall or its precision on the
    generated photos, or the enrolment photos it reads right, fall below the bundled release's (bundled None:
    the newest under models/cards/). Returns (ok, the reason in words, the candidate's summary, the bundled
    one's), each summary with "enrolment_photos" when there were any."""
    deck, g = Deck.load(faces), scoring.find_game(game)
    enrol_photos = enrol_photos if enrol_photos is not None else enrolment_photos(faces)
    bundled = bundled if bundled is not None else compared_with(candidate)
    summaries = {}
    for name, model in (("candidate", candidate), ("bundled", bundled)):
        rec = Recogniser.load(model)
        rows, ms = run_photos(rec, deck, g, n, 0, seed, cache)
        summaries[name] = summarise(rows, ms)
        if enrol_photos is not None:
            summaries[name]["enrolment_photos"] = read_enrolment_photos(rec, enrol_photos, set(deck.ids))
    c, b = summaries["candidate"], summaries["bundled"]
    figures = (f"on {n} generated photos of {faces}: candidate recall {c['recall']:.4f} precision "
               f"{c['precision']:.4f}, bundled recall {b['recall']:.4f} precision {b['precision']:.4f}")
    worse = [k for k in ("recall", "precision") if c[k] < b[k]]
    if enrol_photos is not None:
        ce, be = c["enrolment_photos"], b["enrolment_photos"]
        figures += (f"; on the {ce['photos']} enrolment photos in {enrol_photos}: candidate reads {ce['right']} "
                    f"right, bundled {be['right']}")
        if ce["wrong"]:
            figures += " (candidate wrong on " + ", ".join(sorted(ce["wrong"])[:8]) + ")"
        if ce["right"] < be["right"]:
            worse.append("enrolment photos")
    if worse:
        return False, (f"refused: {Path(candidate).name} scores worse than the bundled release on its own "
                       f"deck ({' and '.join(worse)}) {figures}"), c, b
    return True, f"accepted: {Path(candidate).name} {figures}", c, b


def photo(cache: Path | None, name: str, scene, deck: Deck):
    """Render a photo, or load it from the cache folder (photos are slow to render on 2 cores). The name says
    whether the photo is an empty one, so a cache filled with another --n is not read the wrong way."""
    if cache is not None and (cache / f"{name}.json").exists():
        img = cv2.imread(str(cache / f"{name}.jpg"), cv2.IMREAD_COLOR)
        labels = json.loads((cache / f"{name}.json").read_text())
        if all("tell_mm2" in lab for lab in labels):
            return img, labels
        labels = render(scene, deck, 1.0, tell=True)[1]   # a cache from before the readability labels
        (cache / f"{name}.json").write_text(json.dumps(labels))
        return img, labels
    img, labels = render(scene, deck, 1.0, tell=True)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(cache / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
        (cache / f"{name}.json").write_text(json.dumps(labels))
    return img, labels


def _all_right(rows: list[dict]) -> float:
    """Share of the photos with every card right (no miss, no wrong read)."""
    return round(sum(not r["fn"] and not r["fp"] for r in rows) / max(len(rows), 1), 4)


def summarise(rows: list[dict], ms: list[float]) -> dict:
    face = [r for r in rows if not r["empty"]]
    req, tp = sum(r["required"] for r in face), sum(r["tp"] for r in face)
    fp = sum(r["fp"] for r in face)
    readable = [r for r in face if r.get("readable") == r["required"]]
    tellable = [r for r in face if r.get("tellable") == r["required"]]
    whole = [r for r in face if len(r["truth"]) == r["required"]]
    by_px = {}
    for lo, hi in ((0, 250), (250, 380), (380, 600)):
        sub = [r for r in face if lo <= r["card_px"] < hi]
        if sub:
            by_px[f"card {lo}-{hi}px"] = {"photos": len(sub), "recall": round(sum(r["tp"] for r in sub) /
                                          max(1, sum(r["required"] for r in sub)), 4)}
    return {
        "photos": len(face), "cards_required": req,
        "recall": round(tp / max(req, 1), 5), "precision": round(tp / max(tp + fp, 1), 5),
        "recall_mark_half_visible": round(sum(r.get("tp_readable", 0) for r in face) /
                                          max(sum(r.get("readable", 0) for r in face), 1), 5),
        "cards_mark_hidden": req - sum(r.get("readable", 0) for r in face),
        "photos_all_right": _all_right(face),
        # Diagnostic: recall on the cards some reader could tell apart (TELL_MM2), and how many could not be.
        "recall_tellable": round(sum(r.get("tp_tellable", 0) for r in face) /
                                 max(sum(r.get("tellable", 0) for r in face), 1), 5),
        "cards_untellable": req - sum(r.get("tellable", 0) for r in face),
        "missed_untellable": sum(len(r.get("fn_untellable", ())) for r in face),
        "photos_all_right_of_all_tellable": [_all_right(tellable), len(tellable)],
        # Diagnostic: [share, photos] over the photos where no required card has its numeral hidden.
        "photos_all_right_of_all_readable": [_all_right(readable), len(readable)],
        "card_points_wrong": round(sum(not r["points_ok"] for r in face) / max(len(face), 1), 4),
        # Diagnostic: [share, photos] over the photos with no card under a third visible (no index to read).
        "card_points_wrong_of_all_required": [round(sum(not r["points_ok"] for r in whole) / max(len(whole), 1), 4),
                                              len(whole)],
        "pips_right": round(sum(r["pips_ok"] for r in face) / max(tp, 1), 5),
        "flagged_per_photo": round(sum(r["flagged"] for r in face) / max(len(face), 1), 3),
        "wrong_and_not_flagged": sum(r["unflagged_errors"] for r in face),
        "empty_photos": len(rows) - len(face),
        "cards_counted_on_empty_photos": sum(r["n_pred"] for r in rows if r["empty"]),
        "by_card_size": by_px,
        "missed_why": dict(sum((Counter(r.get("missed_why", {})) for r in face), Counter())),
        "worst_confusions": Counter(f"{a}->{b}" for r in face for a, b in r["confusions"]).most_common(10),
        "most_missed": Counter(c for r in face for c in r["fn"]).most_common(10),
        "recognise_ms_median": round(float(np.median(ms)), 1) if ms else None,
    }


if __name__ == "__main__":
    sys.exit(main())
