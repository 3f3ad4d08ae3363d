"""Export the trained checkpoints to a release folder and check onnxruntime against torch.

    python -m models.export --work /tmp/tarokcam-train --tag synth1
    -> models/cards/<date>-<tag>/{detector.onnx, classifier.onnx, labels.txt, model.json, *.sha256, MODEL_CARD.md}

With a covered-card checkpoint (<work>/cover.pt, else models/checkpoints/cover.pt when the detector and the
classifier are the committed ones too; `models.covered`) the release also gets covered.onnx.
"""
from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch

from models.dataset import DET_LONG
from models.nets import COVER_LAYERS, N_PIPS, CoverNet, IndexClassifier, IndexDetector
from models.synth import FACES_DIR
from models.train import CHECKPOINTS, load_state
from vision.geometry import BESIDE_H, BESIDE_W

CARDS_DIR = Path(__file__).with_name("cards")


def _export(net: torch.nn.Module, example: torch.Tensor, path: Path, dynamic: dict) -> None:
    net.eval()
    # The TorchScript exporter needs no onnxscript; opset 17 runs on every onnxruntime >= 1.14.
    torch.onnx.export(net, (example,), str(path), input_names=["image"], output_names=["out"],
                      dynamic_axes={"image": dynamic, "out": {0: "n"}}, opset_version=17, dynamo=False)


def _check(net: torch.nn.Module, path: Path, batch: np.ndarray, tol: float = 1e-3) -> float:
    """Largest |onnxruntime - torch| on the batch; raises if above tol."""
    with torch.no_grad():
        want = net(torch.from_numpy(batch)).numpy()
    got = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"image": batch})[0]
    err = float(np.abs(got - want).max())
    if err > tol * max(1.0, float(np.abs(want).max())):
        raise SystemExit(f"{path.name}: onnxruntime differs from torch by {err}")
    return err


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/tarokcam-train"))
    ap.add_argument("--tag", default="synth")
    ap.add_argument("--out", type=Path, default=None, help="release folder (default models/cards/<date>-<tag>)")
    ap.add_argument("--deck", type=Path, default=FACES_DIR / "deck.json")
    ap.add_argument("--any-printing", action="store_true",
                    help="a release trained for printings it has never seen (a club's cards before enrolment): "
                         "loaded only when the configuration names it, never picked as the newest")
    args = ap.parse_args(argv)
    out = args.out or CARDS_DIR / f"{dt.date.today():%Y-%m-%d}-{args.tag}"
    out.mkdir(parents=True, exist_ok=True)
    deck = json.loads(args.deck.read_text())
    ids = [c["id"] for c in deck["cards"]]

    # A checkpoint the work folder lacks is the release's own (a run that trained the sliver branch alone, or the
    # classifier alone); a sliver branch goes only with the detector it was trained on.
    ck = {n: args.work / n if (args.work / n).exists() else CHECKPOINTS / n for n in ("det.pt", "cls.pt")}
    sliver = args.work / "sliver.pt"
    if not sliver.exists() and ck["det.pt"] == CHECKPOINTS / "det.pt":
        sliver = CHECKPOINTS / "sliver.pt"
    det, cls = IndexDetector(sliver=sliver.exists()), IndexClassifier()
    det_state = load_state(ck["det.pt"])
    cls_state = load_state(ck["cls.pt"])
    det.load_state_dict(det_state["model"], strict=not sliver.exists()); cls.load_state_dict(cls_state["model"])
    sliver_state = load_state(sliver) if sliver.exists() else None
    if sliver_state:    # the branch alone, or the whole detector trained with it
        (det if sliver_state.get("whole") else det.sliver).load_state_dict(sliver_state["model"])
    det.eval(); cls.eval()
    rng = np.random.default_rng(0)
    det_in = rng.uniform(0, 255, (1, 3, 256, 384)).astype(np.float32)
    cls_in = rng.uniform(0, 255, (7, 3, 128, 32)).astype(np.float32)
    _export(det, torch.from_numpy(det_in), out / "detector.onnx", {0: "n", 2: "h", 3: "w"})
    _export(cls, torch.from_numpy(cls_in), out / "classifier.onnx", {0: "n"})
    # A second shape proves the dynamic axes work.
    errs = [_check(det, out / "detector.onnx", det_in), _check(det, out / "detector.onnx", det_in[:, :, :192, :320].copy()),
            _check(cls, out / "classifier.onnx", cls_in)]
    # The committed covered-card model goes only with the release's own detector and classifier (it was
    # measured on their reads, on the reference deck).
    own = ck["det.pt"] == CHECKPOINTS / "det.pt" and ck["cls.pt"] == CHECKPOINTS / "cls.pt"
    cover_ck = next((p for p in (args.work / "cover.pt", *((CHECKPOINTS / "cover.pt",) if own else ()))
                     if p.exists()), None)
    cover_state = load_state(cover_ck) if cover_ck else None
    if cover_state:
        cover = CoverNet(cover_state.get("layers", COVER_LAYERS))
        cover.load_state_dict(cover_state["model"])
        cover_in = rng.uniform(0, 255, (5, 3, BESIDE_H, BESIDE_W)).astype(np.float32)
        _export(cover, torch.from_numpy(cover_in), out / "covered.onnx", {0: "n"})
        errs.append(_check(cover, out / "covered.onnx", cover_in))
    (out / "labels.txt").write_text("\n".join(ids + ["none"]) + "\n")
    sums = {}
    for name in ("detector.onnx", "classifier.onnx", "labels.txt") + (("covered.onnx",) if cover_state else ()):
        digest = hashlib.sha256((out / name).read_bytes()).hexdigest()
        sums[name] = digest
        (out / f"{name}.sha256").write_text(f"{digest}  {name}\n")
    manifest = {
        "detector": "detector.onnx", "classifier": "classifier.onnx", "labels": "labels.txt",
        "pips_classes": N_PIPS, "det_long": DET_LONG, "det_stride": 4,
        "classifier_input": "(N, 3, 128, 32) float32 BGR 0..255, upright index crop, 1.1 x index height",
        "detector_input": "(1, 3, H, W) float32 BGR 0..255, H and W multiples of 32",
        "deck": [{"id": c["id"], "pips": c["pips"]} for c in deck["cards"]],
        "sha256": sums,
        # a club's own deck: loaded only when the configuration names it, and only once it passed its check
        **({"club_deck": deck.get("name") or args.deck.parent.name}
           if args.deck.resolve() != (FACES_DIR / "deck.json").resolve() else {}),
        **({"any_printing": True} if args.any_printing else {}),
        **({"sliver_channel": 6} if sliver_state else {}),
        **({"covered": "covered.onnx",
            "covered_input": f"(N, 3, {BESIDE_H}, {BESIDE_W}) float32 BGR 0..255, upright crop around an index "
                             "(vision.geometry.crop_beside)"} if cover_state else {}),
        # the slot kind: one crop per slot of a spread (vision.geometry.spread_slots), not one beside each read
        **({"covered_slots": True} if cover_state and cover_state.get("slots") else {}),
        "training": {"det_steps": det_state.get("step"), "det_minutes": det_state.get("minutes"),
                     **({"sliver_steps": sliver_state.get("step"), "sliver_minutes": sliver_state.get("minutes")}
                        if sliver_state else {}),
                     **({"cover_steps": cover_state.get("step"), "cover_minutes": cover_state.get("minutes"),
                         "cover_val": cover_state.get("val")} if cover_state else {}),
                     "cls_epochs": cls_state.get("epoch"), "cls_val_acc": cls_state.get("val_acc"),
                     "cls_val_pips_acc": cls_state.get("val_pips_acc"), "cls_minutes": cls_state.get("minutes")},
    }
    (out / "model.json").write_text(json.dumps(manifest, indent=1) + "\n")
    card = out / "MODEL_CARD.md"
    if not card.exists() and (Path(__file__).with_name("MODEL_CARD.md")).exists():
        shutil.copy(Path(__file__).with_name("MODEL_CARD.md"), card)
    size = sum((out / n).stat().st_size for n in ("detector.onnx", "classifier.onnx")) / 1e6
    print(f"wrote {out} ({size:.2f} MB of ONNX); max |ort - torch| = {max(errs):.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
