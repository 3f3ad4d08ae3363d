"""`tarokcam mat`: write the printable calibration mat as PDF and PNG."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mat", help="write the printable calibration mat (PDF and PNG)",
                       description="Write the calibration mat for printing at 100 %% scale: ArUco markers "
                                   "around the play area, split into the Declarer's and the Defenders' side.")
    p.add_argument("--paper", choices=("A4", "A3"), default="A3", type=str.upper,
                   help="paper size, landscape (default A3: room for two fanned piles)")
    p.add_argument("--dpi", type=int, default=150, help="print resolution (default 150)")
    p.add_argument("--out", type=Path, default=Path("."), help="folder to write into (default: current)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from calibration import render_mat, write_mat_pdf, write_mat_png

    if not 50 <= args.dpi <= 1200:
        print(f"tarokcam mat: --dpi must be between 50 and 1200, got {args.dpi}")
        return 2
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"tarokcam mat: cannot create folder {args.out}: {exc}")
        return 1
    image = render_mat(args.paper, args.dpi)
    stem = args.out / f"tarokcam-mat-{args.paper}-{args.dpi}dpi"
    try:
        pdf = write_mat_pdf(image, stem.with_suffix(".pdf"), args.paper, args.dpi)
        png = write_mat_png(image, stem.with_suffix(".png"), args.dpi)
    except OSError as exc:
        print(f"tarokcam mat: cannot write into {args.out}: {exc}")
        return 1
    print(f"wrote {pdf} and {png} ({image.shape[1]}x{image.shape[0]} px at {args.dpi} dpi).")
    print("Print at 100 % (actual size, no 'fit to page'); the bar on the mat must measure 50 mm.")
    return 0
