"""`tarokcam enrol`: make a deck folder (like models/faces/) from one photo per card."""
from __future__ import annotations

import argparse
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp", ".webp")
REFERENCE_DECK = Path(__file__).resolve().parents[2] / "models" / "faces"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "enrol", help="make a deck folder from one photo per card",
        description="Read a folder of photos named by card id (T1.jpg, SKUS.png, HK.jpg, ... and back.jpg), find "
                    "the card in each by its edge, cut it out and rectify it to the card's real size at 10 px/mm, "
                    "and write a deck folder like models/faces/ (deck.json and one <ID>.png per card). Phone "
                    "photos and scans need a plain background; photos from the table camera use the mat's "
                    "calibration (--calibration) so the card is measured in mm. A photo that gives no usable "
                    "face is refused with the reason.")
    p.add_argument("--photos", type=Path, required=True, help="folder of photos named <card id>.<jpg|png|...>")
    p.add_argument("--out", type=Path, required=True, help="deck folder to write")
    p.add_argument("--calibration", type=Path, help="calibration file: the photos are of the mat, by this camera")
    p.add_argument("--pack", type=int, choices=(54, 42), default=54, help="54 cards, or the 42-card Hungarian pack")
    p.add_argument("--name", default="", help="name of the deck (default: the folder's name)")
    p.add_argument("--card-size", default="60x112", metavar="WxH", help="card size in mm (default 60x112)")
    p.add_argument("--corner-radius", type=float, default=3.5, help="corner radius in mm (default 3.5)")
    p.add_argument("--index-box", default=None, metavar="X0,Y0,X1,Y1",
                   help="the index strip in mm from the top-left of an upright face (default: found on the faces; "
                        "Alpine Tarok's 1.8,2.5,12.2,47.0 when they print it there)")
    p.set_defaults(func=run)


def read_photo(path: Path):
    """(H, W, 3) uint8 BGR with the EXIF orientation applied (OpenCV's IMREAD_COLOR does so), or None."""
    import cv2
    import numpy as np

    try:
        data = np.fromfile(str(path), np.uint8)
    except OSError:
        return None
    if data.size == 0:
        return None
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def _numbers(text: str, sep: str, n: int, name: str) -> tuple[float, ...]:
    try:
        values = tuple(float(v) for v in text.replace(" ", "").split(sep))
    except ValueError:
        values = ()
    if len(values) != n or any(v < 0 for v in values):
        raise ValueError(f"--{name} {text!r}: want {n} numbers separated by {sep!r}")
    return values


def run(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision.enrol import INDEX_BOX_MM, EnrolmentRefused, choose_index_box, enrol_face

    try:
        card_mm = _numbers(args.card_size.lower(), "x", 2, "card-size")
        given = _numbers(args.index_box, ",", 4, "index-box") if args.index_box else None
    except ValueError as exc:
        print(f"tarokcam enrol: {exc}")
        return 2
    if not args.photos.is_dir():
        print(f"tarokcam enrol: {args.photos}: no such folder")
        return 2
    box = given or INDEX_BOX_MM      # where the blur is measured until the faces say where the index is
    reference = json.loads((REFERENCE_DECK / "deck.json").read_text())
    cards = [c for c in reference["cards"] if args.pack == 54 or c["in_42_card_deck"]]
    ids = {c["id"].upper(): c["id"] for c in cards}
    all_ids = {c["id"].upper() for c in reference["cards"]}

    calib = None
    if args.calibration is not None:
        from calibration import CalibrationError, load_calibration

        try:
            calib = load_calibration(args.calibration)
        except CalibrationError as exc:
            print(f"tarokcam enrol: {exc}")
            return 2

    photos: dict[str, Path] = {}
    back_photo = None
    for path in sorted(args.photos.iterdir()):
        if path.suffix.lower() not in PHOTO_SUFFIXES or not path.is_file():
            continue
        stem = path.stem.upper()
        if stem == "BACK":
            back_photo = path
        elif stem in ids:
            if ids[stem] in photos:
                print(f"{ids[stem]}: two photos ({photos[ids[stem]].name}, {path.name}); using the first")
                continue
            photos[ids[stem]] = path
        elif stem in all_ids:
            print(f"{path.name}: skipped, not in the {args.pack}-card pack")
        else:
            print(f"{path.name}: skipped, not named by a card id (T1..T21, SKUS, HK, C10, ...)")

    def enrol(path: Path, back=None, index=True):
        image = read_photo(path)
        if image is None:
            raise EnrolmentRefused("not an image, or damaged")
        if calib is None:
            return enrol_face(image, back=back, card_mm=card_mm, corner_radius_mm=args.corner_radius,
                              index_box_mm=box if index else None)
        from calibration import warp_to_table

        if (image.shape[1], image.shape[0]) != tuple(calib.image_size):
            raise EnrolmentRefused(f"photo is {image.shape[1]}x{image.shape[0]} but the calibration was made at "
                                   f"{calib.image_size[0]}x{calib.image_size[1]}")
        # The top-down view at the face's own 10 px/mm: the card is then cut without a second resampling.
        ppm = 10.0
        view = warp_to_table(image, _with_scale(calib, ppm))
        area = np.array(calib.play_area, np.float64) * ppm - 0.5
        return enrol_face(view, table_px_per_mm=ppm, play_area=area, back=back, card_mm=card_mm,
                          corner_radius_mm=args.corner_radius, index_box_mm=box if index else None)

    args.out.mkdir(parents=True, exist_ok=True)
    back_face, back_source = None, "reference (not enrolled)"
    if back_photo is not None:
        try:
            # The back has no index: only the outline, size, place (and sharpness of the edge) are checked.
            back_face = enrol(back_photo, index=False).face
            back_source = back_photo.name
            print(f"back: ok ({back_photo.name})")
        except EnrolmentRefused as exc:
            print(f"back: refused: {exc}")
    if back_face is not None:
        cv2.imwrite(str(args.out / "back.png"), back_face)
    else:
        shutil.copyfile(REFERENCE_DECK / "back.png", args.out / "back.png")

    done, refused, missing, faces = [], {}, [], []
    for card in cards:
        cid = card["id"]
        if cid not in photos:
            missing.append(cid)
            print(f"{cid}: missing (no photo named {cid}.jpg or .png)")
            continue
        try:
            result = enrol(photos[cid], back_face)
        except EnrolmentRefused as exc:
            refused[cid] = str(exc)
            print(f"{cid}: refused: {exc}")
            continue
        if not cv2.imwrite(str(args.out / f"{cid}.png"), result.face):
            print(f"tarokcam enrol: cannot write {args.out / f'{cid}.png'}")
            return 1
        size = f", {result.size_mm[0]:.1f} x {result.size_mm[1]:.1f} mm" if result.size_mm else ""
        print(f"{cid}: ok ({photos[cid].name}, {result.px_per_mm_in:.1f} px/mm, blur {result.blur_mm:.2f} mm{size})")
        done.append(cid)
        faces.append(result.face)
    if given is not None:
        how = "given (--index-box)"
    else:
        box, how = choose_index_box(faces, INDEX_BOX_MM, card_mm=card_mm)
    print(f"index box: {', '.join(f'{v:g}' for v in box)} mm, {how}")

    deck = {k: v for k, v in reference.items() if k != "cards"}
    deck.update({
        "name": args.name or args.out.resolve().name,
        "card_size_mm": list(card_mm),
        "corner_radius_mm": args.corner_radius,
        "face_px_per_mm": 10,
        "index_box_mm": {"x0": box[0], "y0": box[1], "x1": box[2], "y1": box[3],
                         "note": reference["index_box_mm"].get("note", ""), "how": how},
        "enrolment": {"photos": str(args.photos.resolve()), "on_mat": calib is not None, "back": back_source,
                      "created": datetime.now(UTC).isoformat(timespec="seconds"),
                      "enrolled": len(done), "refused": refused, "missing": missing},
        "cards": cards,
    })
    (args.out / "deck.json").write_text(json.dumps(deck, indent=1) + "\n")
    print(f"wrote {len(done)} of {len(cards)} faces and deck.json to {args.out}")
    if refused or missing:
        print(f"{len(refused)} refused, {len(missing)} missing: take those photos again and rerun")
        return 1
    return 0


def _with_scale(calib, ppm: float):
    import dataclasses

    return dataclasses.replace(calib, px_per_mm=ppm)
