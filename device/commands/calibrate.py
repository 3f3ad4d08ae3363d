"""`tarokcam calibrate`: find the mat in a photo and write the calibration file."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calibrate", help="find the calibration mat and write the calibration file",
                       description="Photograph the mat (or read a photo of it), find its markers, fit the "
                                   "top-down view, check focus, exposure and glare, and write the calibration.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--image", type=Path, help="photo of the mat")
    src.add_argument("--camera", metavar="KIND", help="take the photo with this camera: picamera2, opencv, replay")
    p.add_argument("--camera-option", action="append", default=[], metavar="KEY=VALUE",
                   help="camera option, repeatable (e.g. folder=photos/ for replay, device=0 for opencv)")
    p.add_argument("--out", type=Path, required=True, help="calibration file to write (JSON)")
    p.add_argument("--picture", type=Path, help="where to draw what was found (default: next to --out, .jpg)")
    p.add_argument("--px-per-mm", type=float, help="scale of the top-down view (default: the photo's own)")
    p.set_defaults(func=run)


def _option(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError(f"camera option {text!r} is not KEY=VALUE")
    for conv in (int, float):
        try:
            return key.replace("-", "_"), conv(value)
        except ValueError:
            pass
    if value.lower() in ("true", "false"):
        return key.replace("-", "_"), value.lower() == "true"
    return key.replace("-", "_"), value


def _photo_from_camera(kind: str, options: dict) -> tuple[object, dict]:
    from device.camera import open_camera

    with open_camera(kind, **options) as camera:
        if hasattr(camera, "autofocus"):
            camera.autofocus()
        settings = camera.lock_exposure() if hasattr(camera, "lock_exposure") else camera.settings()
        return camera.capture(), settings


def run(args: argparse.Namespace) -> int:
    import cv2

    from calibration import (
        CalibrationError,
        calibrate_from_image,
        detect_markers,
        draw_calibration,
        draw_markers,
        save_calibration,
    )
    from device.camera import CameraError

    settings: dict = {}
    image = None
    try:
        if args.image is not None:
            if not args.image.is_file():
                print(f"tarokcam calibrate: {args.image}: no such file")
                return 2
            image = cv2.imread(str(args.image), cv2.IMREAD_COLOR)
            if image is None:
                print(f"tarokcam calibrate: {args.image}: not an image, or damaged")
                return 2
        else:
            image, settings = _photo_from_camera(args.camera, dict(_option(o) for o in args.camera_option))
        calib, report = calibrate_from_image(image, camera_settings=settings, px_per_mm=args.px_per_mm)
    except (CameraError, CalibrationError, ValueError) as exc:
        print(f"tarokcam calibrate: {exc}")
        if image is not None:
            # The picture of what was found is most useful exactly when calibration fails.
            picture = args.picture or args.out.with_suffix(".found.jpg")
            try:
                picture.parent.mkdir(parents=True, exist_ok=True)
                if cv2.imwrite(str(picture), draw_markers(image, detect_markers(image), "calibration failed")):
                    print(f"wrote {picture} (the markers that were found)")
            except (OSError, cv2.error):
                pass
        return 1
    picture = args.picture or args.out.with_suffix(".found.jpg")
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        save_calibration(calib, args.out)
        if not cv2.imwrite(str(picture), draw_calibration(image, calib, report)):
            print(f"tarokcam calibrate: could not write the picture {picture}")
    except OSError as exc:
        print(f"tarokcam calibrate: cannot write {args.out}: {exc}")
        return 1
    print(report.text())
    if settings:
        print("camera: " + ", ".join(f"{k}={v}" for k, v in settings.items()))
    print(f"wrote {args.out} and {picture}")
    return 0
