"""Recognise every card index in a photo: detector on a downscaled copy, classifier on full-resolution crops."""
from __future__ import annotations

import copy
import ctypes
import ctypes.util
import hashlib
import json
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from vision.errors import ModelError
from vision.geometry import OTHER_INDEX, crop_beside, crop_indices, index_offset, index_quad
from vision.image import check_array
from vision.runners import RUNNERS, ModelRunner

MODELS_DIR = Path(__file__).resolve().parents[1] / "models" / "cards"
NOT_A_CARD = "none"
# Two indices of one card (top-left and the turned bottom-right one) lie 77.6 mm apart = 1.74 index heights.
# Second looks at an unsure index: (shift along up, shift across, both in index heights; zoom).
SECOND_LOOKS = ((0.04, 0.0, 1.0), (-0.04, 0.0, 1.0), (0.0, 0.025, 1.06), (0.0, -0.025, 0.94))
SAME_CARD_SPAN = math.hypot(*OTHER_INDEX)
# The span in index heights a pair of turned indices may show and still be one card: the detector measures an
# index by what is printed, so a printing with a shorter index strip reads shorter heights and a longer span
# (reference rendering: 1.58-1.82; a held-out printing: 1.84-2.33).
SAME_CARD_SPANS = (SAME_CARD_SPAN - 0.35, SAME_CARD_SPAN + 0.75)
# Seen from the top-left index (up its numeral, right across it) the bottom-right one lies down and to the right,
# 143.6 degrees from up (46 mm across, 62.5 mm down); a printing whose ink fills less of the strip moves both
# centres to the corners (about 147). An index of a neighbouring card at the span lies off this line.
SAME_CARD_ANGLE = math.degrees(math.atan2(OTHER_INDEX[0], -OTHER_INDEX[1]))
SAME_CARD_ANGLE_TOLERANCE = 15.0


def one_card_span(centre_a, up_a, height_a, centre_b, up_b, height_b) -> bool:
    """True when two indices (centre, up, height px) are the top-left and the turned bottom-right one of a card."""
    # plain floats: the hand reader asks this of every pair of reads in a photo
    ux, uy = float(up_a[0]), float(up_a[1])
    if ux * float(up_b[0]) + uy * float(up_b[1]) >= -0.8:
        return False
    dx, dy = float(centre_b[0]) - float(centre_a[0]), float(centre_b[1]) - float(centre_a[1])
    dist = math.hypot(dx, dy) / ((float(height_a) + float(height_b)) / 2)
    if not SAME_CARD_SPANS[0] < dist < SAME_CARD_SPANS[1]:
        return False
    # the same angle seen from either index: from b, both its up and the way to a are turned round
    angle = math.degrees(math.atan2(dy * ux - dx * uy, dx * ux + dy * uy))
    return abs(angle - SAME_CARD_ANGLE) < SAME_CARD_ANGLE_TOLERANCE


@dataclass(frozen=True, slots=True)
class Recognition:
    """One card read from the photo. quad: its index, image px, top-left, top-right, bottom-right, bottom-left."""
    card_id: str
    confidence: float
    pips: int
    quad: tuple[tuple[float, float], ...]
    flagged: bool

    def to_json(self) -> dict:
        return {"id": self.card_id, "confidence": round(self.confidence, 4), "pips": self.pips,
                "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad], "flagged": self.flagged}


@dataclass(frozen=True, slots=True)
class Settings:
    det_long: int = 1024            # detector input long side, px, at least ...
    det_max_long: int = 1280        # ... and at most (1536 reads 0.7 % more cards but peaks at ~340 MB RSS);
    det_fraction: float = 0.5       # in between half the photo's long side, so small cards in big photos
    #                                 stay near the sizes the detector was trained on
    heat_threshold: float = 0.25    # low on purpose: the classifier rejects what is not an index
    sliver_heat: float = 0.3        # the sliver channel's peaks kept (a detector with that channel only)
    confident: float = 0.90         # below this a card is flagged for the players to confirm
    min_confidence: float = 0.3     # below this a read is dropped as "not a card"; between this and `confident`
    #                                 it is shown flagged (synth5, 0.4 -> 0.3: recall +0.3, precision -0.2 points)
    max_cards: int = 160
    small_index_px: float = 52.0    # indices shorter than this on the detector input are looked at again ...
    target_index_px: float = 72.0   # ... at a scale that makes them about this tall,
    large_index_px: float = 120.0   # indices taller than this are looked at again from further away,
    far_index_px: float = 96.0      # so that they are about this tall
    zoom_max_pixels: int = 1_500_000  # on at most this many detector pixels (time and memory)
    trim_growth_mb: float = 32.0    # give freed memory back to the OS after the process grew this much
    second_looks: int = 4           # extra crops of an unsure index, averaged (0: off)
    zoom_cards: bool = True         # a closer look held back by `zoom_max_pixels` is taken around the strong peaks
    #                                 that read as a card (a patterned cloth peaks strongly too; session 53)


@dataclass(slots=True)
class _Read:
    """One index read, before the reads of a photo are reconciled."""
    card_id: str
    confidence: float
    pips: int
    centre: np.ndarray
    up: np.ndarray
    height: float
    doubtful: bool                  # pips disagree with the card, or the card was reassigned
    options: list = field(default_factory=list)   # next likeliest (card id, confidence, pips disagree)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def latest_release(root: Path = MODELS_DIR, other_than: Path | None = None) -> Path:
    """The newest release for the reference deck (a club deck's release is used only when configured; one for
    printings not yet enrolled also when the table switches to it); other_than: a release left out (one being
    checked against the others)."""
    skip = Path(other_than).resolve() if other_than is not None else None
    releases = sorted(p for p in root.glob("*") if reference_release(p) and p.resolve() != skip
                      ) if root.is_dir() else []
    if not releases:
        raise ModelError(f"no model release (folder with model.json) under {root}")
    return releases[-1]


def printing_release(root: Path = MODELS_DIR) -> Path | None:
    """The newest release for printings not yet enrolled (`any_printing`), or None."""
    found = sorted(p for p in root.glob("*") if (m := _manifest(p)).get("any_printing") and not m.get("club_deck")
                   ) if root.is_dir() else []
    return found[-1] if found else None


CHECK_FILE = "check.json"       # the verdict of `python -m models.evaluate --check-release` on a club release
_CHECKED = ("model.json", "detector.onnx", "classifier.onnx", "labels.txt", "covered.onnx")


def _manifest(folder: Path) -> dict:
    try:
        data = json.loads((Path(folder) / "model.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def club_deck(folder: Path) -> str | None:
    """The name of the club deck a release was fine-tuned for, or None (the reference deck, or unreadable)."""
    return _manifest(folder).get("club_deck")


def any_printing(folder: Path) -> bool:
    """Whether a release was trained for printings of the deck it has never seen (a club's cards before they are
    enrolled): it reads those better and the reference rendering a little worse, so it is used only when
    configured or when the table finds the default reads its cards unsure (`vision.printing`)."""
    return bool(_manifest(folder).get("any_printing"))


def reference_release(folder: Path) -> bool:
    """A release for the reference deck: one `latest_release` may pick and `--check-release` compares with."""
    manifest = _manifest(folder)     # read once; {} also for a model.json that cannot be read
    return (Path(folder) / "model.json").exists() and not manifest.get("club_deck") and not manifest.get("any_printing")


def write_release_check(folder: Path, ok: bool, reason: str, against: str) -> None:
    """Record the check's verdict beside the release, with the sha256 of the files it was made on."""
    folder = Path(folder)
    data = {"ok": ok, "reason": reason, "against": against, "files": _release_files(folder)}
    tmp = folder / f".{CHECK_FILE}.tmp"
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(folder / CHECK_FILE)


def _release_files(folder: Path) -> dict[str, str]:
    return {n: sha256_file(folder / n) for n in _CHECKED if (folder / n).exists()}


def release_check(folder: Path) -> tuple[bool, str]:
    """(passed, why): whether these very files passed the check against the bundled release."""
    folder = Path(folder)
    how = f"python -m models.evaluate --check-release {folder} --faces DECKDIR"
    try:
        data = json.loads((folder / CHECK_FILE).read_text())
    except FileNotFoundError:
        return False, f"{folder.name} has not been checked against the bundled release (run {how})"
    except (OSError, ValueError) as exc:
        return False, f"{folder / CHECK_FILE}: unreadable ({exc}); run {how} again"
    if not isinstance(data, dict) or data.get("files") != _release_files(folder):
        return False, f"{folder.name} changed since its check; run {how} again"
    return bool(data.get("ok")), str(data.get("reason", ""))


class Recogniser:
    def __init__(self, detector: ModelRunner, classifier: ModelRunner, labels: list[str], pips: dict[str, int],
                 settings: Settings = Settings(), name: str = "", cover: ModelRunner | None = None,
                 cover_slots: bool = False):
        self.detector, self.classifier, self.cover = detector, classifier, cover
        # the covered-card model's kind: False, one crop beside each read; True, one per slot of a spread
        # (`vision.geometry.spread_slots`: before, between and after its reads)
        self.cover_slots = cover_slots
        self.labels, self.deck_pips, self.settings, self.name = labels, pips, settings, name
        self.timings: dict[str, float] = {}
        self.candidates: list[tuple[np.ndarray, float, str]] = []   # last photo: (centre, height, likeliest read)

    def with_settings(self, **changes) -> Recogniser:
        """The same models (their runners shared) with some settings changed."""
        out = copy.copy(self)
        out.settings = replace(self.settings, **changes)
        return out

    @classmethod
    def load(cls, model_dir: Path | None = None, runner: str = "onnx", settings: Settings | None = None) -> Recogniser:
        """Load a release folder (default: the newest under models/cards/), checking files, sha256 and labels."""
        folder = Path(model_dir) if model_dir else latest_release()
        manifest_path = folder / "model.json"
        if not manifest_path.is_file():
            raise ModelError(f"{folder}: no model.json (not a model release folder)")
        try:
            manifest = json.loads(manifest_path.read_text())
            roles = ("detector", "classifier", "labels") + (("covered",) if "covered" in manifest else ())
            files = {k: folder / manifest[k] for k in roles}
        except (ValueError, KeyError) as exc:
            raise ModelError(f"{manifest_path}: damaged manifest ({exc})") from exc
        for role, path in files.items():
            if not path.is_file():
                raise ModelError(f"{path}: missing {role} file")
            want = manifest.get("sha256", {}).get(path.name)
            if want is None:
                raise ModelError(f"{path}: no sha256 recorded in {manifest_path}")
            got = sha256_file(path)
            if got != want:
                raise ModelError(f"{path}: damaged (sha256 {got[:12]}... but {want[:12]}... recorded)")
        labels = [ln.strip() for ln in files["labels"].read_text().splitlines() if ln.strip()]
        make = RUNNERS[runner]
        detector, classifier = make(files["detector"]), make(files["classifier"])
        cover = make(files["covered"]) if "covered" in files else None
        width = (classifier.output_shape or [None, None])[-1]
        n_pips = int(manifest.get("pips_classes", 5))
        if isinstance(width, int) and width != len(labels) + n_pips:
            raise ModelError(f"{files['labels']}: {len(labels)} labels + {n_pips} pips classes = "
                             f"{len(labels) + n_pips}, but the classifier outputs {width}")
        pips = {c["id"]: int(c["pips"]) for c in manifest.get("deck", [])}
        s = settings or Settings(det_long=int(manifest.get("det_long", 1024)))
        return cls(detector, classifier, labels, pips, s, folder.name, cover,
                   bool(manifest.get("covered_slots", False)))

    # ------------------------------------------------------------ pipeline

    def detect(self, image: np.ndarray, threshold: float | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Index candidates in a (H, W, 3) uint8 BGR photo.

        Returns centres (N, 2), up vectors (N, 2), heights (N,) in full-resolution px, and heat scores (N,).
        When the indices come out small on the shrunk photo, the part of the photo holding them is looked at
        again closer, so small cards in big photos get as many detector pixels as big ones."""
        return self.peaks(image, threshold)[0]

    def peaks(self, image: np.ndarray, threshold: float | None = None, low: float | None = None,
              slivers: list | None = None):
        """`detect`'s candidates, and the weaker ones: every other peak of the same looks down to heat `low`,
        unsuppressed (a partly covered index next to a found one often peaks only faintly, or inside the found
        one's box). Returns (found, weaker), each (centres, ups, heights, heat); weaker is empty without low.
        slivers: a list that gets the sliver channel's peaks of the same looks, (centres (N, 2), heat (N,)),
        where the detector has that channel (every index that shows at all, readable or not)."""
        empty = (np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0), np.zeros(0))
        h, w = image.shape[:2]
        st = self.settings
        floor = st.heat_threshold if threshold is None else threshold
        look_floor = floor if low is None else min(floor, low)
        long_side = min(st.det_max_long, max(st.det_long, round(max(h, w) * st.det_fraction)))
        scale = min(1.0, long_side / max(h, w))
        looks: list = []
        found = self.look(image, scale, (0, 0, w, h), look_floor, looks)
        strong = found[3] >= 0.5
        if strong.sum() >= 2:
            typical = float(np.median(found[2][strong]))
            closer = min(1.0, st.target_index_px / typical)
            if typical * scale < st.small_index_px and closer > 1.15 * scale:
                roi, zoom = _zoom(found, strong, floor, st, w, h)
                if st.zoom_cards and NOT_A_CARD in self.labels and zoom < closer:
                    # held back by the pixel cap: strong peaks on a patterned cloth or a score pad? the region
                    # from the strong peaks that read as a card, where that comes much closer (a little closer
                    # moves the reads for nothing)
                    cards = strong.copy()
                    probs = self._read(image, found[0][strong], found[1][strong], found[2][strong])[0]
                    cards[strong] = probs.argmax(1) != self.labels.index(NOT_A_CARD)
                    if 2 <= cards.sum() < strong.sum():
                        on_cards = _zoom(found, cards, floor, st, w, h)
                        if on_cards[1] > 1.15 * zoom:
                            roi, zoom = on_cards
                if zoom > 1.15 * scale:
                    near = self.look(image, zoom, roi, look_floor, looks)
                    found = tuple(np.concatenate([a[_outside(found[0], roi)], b]) for a, b in zip(found, near))
                    if looks:
                        looks[0] = tuple(a[_outside(looks[0][0], roi)] for a in looks[0])
            elif typical * scale > st.large_index_px:   # big cards: step back and look at the whole photo
                looks.clear()
                found = self.look(image, st.far_index_px / typical, (0, 0, w, h), look_floor, looks)
        if slivers is not None and looks:
            slivers.append(tuple(np.concatenate(a) for a in zip(*looks)))
        order = np.argsort(-found[3], kind="stable")
        centres, ups, heights, score = (a[order] for a in found)
        above = np.nonzero(score >= floor)[0]
        keep = above[_suppress(centres[above], ups[above], heights[above])]
        rest = np.setdiff1d(np.arange(len(score)), keep)
        weaker = (centres[rest], ups[rest], heights[rest], score[rest]) if low is not None else empty
        return (centres[keep], ups[keep], heights[keep], score[keep]), weaker

    def look(self, image: np.ndarray, scale: float, roi: tuple[int, int, int, int],
             threshold: float | None = None, slivers: list | None = None):
        """Run the detector on image[roi] shrunk by scale; candidates in full-resolution px, unsuppressed.
        threshold: the heat a peak needs (default: the settings'). slivers: gets the sliver channel's peaks
        (centres, heat) down to the settings' `sliver_heat`, where the detector has that channel."""
        x0, y0, x1, y1 = roi
        part = image[y0:y1, x0:x1]
        h, w = part.shape[:2]
        dw, dh = max(1, round(w * scale)), max(1, round(h * scale))
        small = cv2.resize(part, (dw, dh), interpolation=cv2.INTER_AREA) if scale < 1 else part
        pw, ph = -(-dw // 32) * 32, -(-dh // 32) * 32
        batch = np.zeros((1, 3, ph, pw), np.float32)
        batch[0, :, :dh, :dw] = small.transpose(2, 0, 1)
        out = self.detector.run(batch)[0]
        heat = 1 / (1 + np.exp(-out[0]))
        floor = self.settings.heat_threshold if threshold is None else threshold
        peaks = (heat >= floor) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
        ys, xs = np.nonzero(peaks)
        score = heat[ys, xs]
        keep = np.argsort(-score)[: self.settings.max_cards]
        ys, xs, score = ys[keep], xs[keep], score[keep]
        dx, dy, c, s, logh = (out[k, ys, xs] for k in range(1, 6))
        sx, sy = w / dw if scale < 1 else 1.0, h / dh if scale < 1 else 1.0
        if slivers is not None and out.shape[0] > 6:
            sheat = 1 / (1 + np.exp(-out[6, :-(-dh // 4), :-(-dw // 4)]))
            sy_, sx_ = np.nonzero((sheat >= self.settings.sliver_heat)
                                  & (sheat >= cv2.dilate(sheat, np.ones((3, 3), np.uint8))))
            slivers.append((np.stack([(sx_ + 0.5) * 4 * sx + x0, (sy_ + 0.5) * 4 * sy + y0], 1).reshape(-1, 2),
                            sheat[sy_, sx_]))
        centres = np.stack([(xs + 0.5 + dx) * 4 * sx + x0, (ys + 0.5 + dy) * 4 * sy + y0], 1)
        norm = np.maximum(np.hypot(c, s), 1e-6)
        ups = np.stack([c / norm, s / norm], 1)
        heights = 32 * np.exp(np.clip(logh, -3, 4)) * (sx + sy) / 2
        return centres, ups, heights, score

    def classify(self, image: np.ndarray, centres, ups, heights) -> tuple[np.ndarray, np.ndarray]:
        """Card probabilities (N, len(labels)) and pips probabilities (N, 5) of index crops from the full photo.

        An unsure read is looked at again in a few slightly moved and scaled crops, and the reads averaged."""
        n = len(self.labels)
        if len(centres) == 0:
            return np.zeros((0, n), np.float32), np.zeros((0, 5), np.float32)
        cards, pips = self._read(image, centres, ups, heights)
        unsure = np.nonzero(cards.max(1) < self.settings.confident)[0]
        if len(unsure) and self.settings.second_looks:
            c, u, h = centres[unsure], ups[unsure], heights[unsure]
            right = np.stack([-u[:, 1], u[:, 0]], 1)
            sum_c, sum_p = cards[unsure].copy(), pips[unsure].copy()
            for along, across, zoom in SECOND_LOOKS[: self.settings.second_looks]:
                moved = c + u * (along * h)[:, None] + right * (across * h)[:, None]
                more_c, more_p = self._read(image, moved, u, h * zoom)
                sum_c += more_c
                sum_p += more_p
            k = 1 + min(self.settings.second_looks, len(SECOND_LOOKS))
            cards[unsure], pips[unsure] = sum_c / k, sum_p / k
        return cards, pips

    def covered(self, image: np.ndarray, centres, ups, heights) -> np.ndarray | None:
        """(N,) chance that a card lies under each index's card with its own index showing too little to be
        read, peeking out beside it (the release's covered-card model); None when the release has none."""
        if self.cover is None:
            return None
        if len(centres) == 0:
            return np.zeros(0, np.float32)
        crops = crop_beside(image, centres, ups, heights)
        logit = self.cover.run(crops.transpose(0, 3, 1, 2).astype(np.float32)).reshape(-1)
        return 1.0 / (1.0 + np.exp(-np.clip(logit, -30, 30)))

    def _read(self, image, centres, ups, heights) -> tuple[np.ndarray, np.ndarray]:
        crops = crop_indices(image, centres, ups, heights)
        out = self.classifier.run(crops.transpose(0, 3, 1, 2).astype(np.float32))
        n = len(self.labels)
        return _softmax(out[:, :n]), _softmax(out[:, n:])

    def recognise(self, image: np.ndarray) -> list[Recognition]:
        """Every readable card in a (H, W, 3) uint8 BGR photo, sorted left to right; unsure ones flagged."""
        import time
        check_array(image)
        t0 = time.perf_counter()
        centres, ups, heights, _ = self.detect(image)
        t1 = time.perf_counter()
        cards, pips = self.classify(image, centres, ups, heights)
        t2 = time.perf_counter()
        self.timings = {"detect_ms": (t1 - t0) * 1000, "classify_ms": (t2 - t1) * 1000, "candidates": len(centres)}
        likeliest = [self.labels[k] for k in cards.argmax(1)]
        self.candidates = list(zip(centres, heights.tolist(), likeliest))
        found = []
        for i in range(len(centres)):
            read_pips = int(pips[i].argmax())
            options = []   # (card id, confidence, stars disagree), best first, "not a card" left out
            for k in np.argsort(-cards[i])[:4]:
                card_id = self.labels[k]
                if card_id == NOT_A_CARD:
                    continue
                conf = float(cards[i, k] * pips[i, read_pips])
                mismatch = card_id in self.deck_pips and self.deck_pips[card_id] != read_pips
                options.append((card_id, conf * (0.5 if mismatch else 1.0), mismatch))
            if options and likeliest[i] != NOT_A_CARD:
                card_id, conf, mismatch = options[0]
                found.append(_Read(card_id, conf, read_pips, centres[i], ups[i], float(heights[i]), mismatch,
                                   options[1:]))
        reads = _resolve(found, self.settings.confident)
        _give_back_memory(self.settings.trim_growth_mb)
        return [r for r in reads if r.confidence >= self.settings.min_confidence]


def _suppress(centres: np.ndarray, ups: np.ndarray, heights: np.ndarray) -> list[int]:
    """Greedy NMS in each index's own frame (candidates sorted by score): a weaker peak inside a stronger
    index's box is the same index; neighbours in a spread sit at least ~0.6 index widths to the side."""
    keep: list[int] = []
    for i in range(len(centres)):
        inside = (index_offset(centres[i], centres[k], ups[k], heights[k]) for k in keep)
        if not any(along < 0.4 and across < 0.45 for along, across in inside):
            keep.append(i)
    return keep


def _libc_trim():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):   # not glibc: nothing to do
        return None


_MALLOC_TRIM = _libc_trim()
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096   # 16 kB on a Pi 5 kernel


def _resident_mb() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * _PAGE / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


class _HeapTrim:
    """Hand freed heap back to the OS (glibc, all arenas) once the process has grown by growth_mb since the last
    time. A safety net: onnxruntime's buffers live in its own arena, but decoded photos of changing sizes, read
    on changing web-server threads, can still fragment the heap over an evening. Trimming after every photo
    would page-fault the next one's buffers in again, so only after growth."""

    def __init__(self) -> None:
        self.trimmed_at = 0.0   # resident MB right after the last trim

    def __call__(self, growth_mb: float) -> None:
        if _MALLOC_TRIM is not None and _resident_mb() > self.trimmed_at + growth_mb:
            _MALLOC_TRIM(0)
            self.trimmed_at = _resident_mb()


_give_back_memory = _HeapTrim()


def _outside(centres: np.ndarray, roi: tuple[int, int, int, int]) -> np.ndarray:
    x0, y0, x1, y1 = roi
    return (centres[:, 0] < x0) | (centres[:, 0] >= x1) | (centres[:, 1] < y0) | (centres[:, 1] >= y1)


def _zoom(found, anchors: np.ndarray, floor: float, st: Settings, w: int, h: int
          ) -> tuple[tuple[int, int, int, int], float]:
    """The region and scale of a closer look around the anchor peaks (found's mask) and the weak ones beside them:
    weak ones far from every anchor (the photo's edges, the cloth) would stretch the region over the whole photo
    and the look would come no closer (session 53). The scale makes the anchors' indices `target_index_px` tall,
    within `zoom_max_pixels`."""
    typical = float(np.median(found[2][anchors]))
    roi = _region(found[0][(found[3] >= floor) & _beside(found[0], found[0][anchors], 3 * typical)],
                  1.5 * typical, w, h)
    area = (roi[2] - roi[0]) * (roi[3] - roi[1])
    return roi, min(1.0, st.target_index_px / typical, math.sqrt(st.zoom_max_pixels / area))


def _beside(centres: np.ndarray, anchors: np.ndarray, reach: float) -> np.ndarray:
    """(N,) whether each centre lies within `reach` of one of the anchors."""
    d = np.hypot(*(centres[:, None, :] - anchors[None, :, :]).transpose(2, 0, 1))
    return d.min(1) <= reach


def _region(centres: np.ndarray, pad: float, w: int, h: int) -> tuple[int, int, int, int]:
    """Bounding box of the centres, padded, inside the photo."""
    lo, hi = centres.min(0) - pad, centres.max(0) + pad
    return int(max(lo[0], 0)), int(max(lo[1], 0)), int(min(hi[0], w)), int(min(hi[1], h))


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _resolve(found: list[_Read], confident: float, min_alternative: float = 0.2) -> list[Recognition]:
    """Drop overlapping reads of one index, merge the two indices of one card, flag what stays doubtful."""
    found.sort(key=lambda f: -f.confidence)
    kept: list[_Read] = []
    for f in found:
        if any(np.hypot(*(f.centre - k.centre)) < 0.12 * max(f.height, k.height) for k in kept):
            continue   # the same index read twice (neighbouring heat peaks)
        kept.append(f)
    # One deck has each card once: a read whose card is already taken elsewhere by a surer read takes its
    # next likeliest free card, flagged; with none left it stays a flagged duplicate.
    taken: dict[str, _Read] = {}
    for n, f in enumerate(kept):
        holder = taken.get(f.card_id)
        if holder is not None and not _same_card(holder, f):
            alt = next((o for o in f.options if o[0] not in taken), None)
            if alt is not None and alt[1] >= min_alternative:
                f = kept[n] = replace(f, card_id=alt[0], confidence=alt[1], doubtful=True, options=[])
        taken.setdefault(f.card_id, f)
    by_id: dict[str, list[_Read]] = {}
    for f in sorted(kept, key=lambda f: -f.confidence):
        by_id.setdefault(f.card_id, []).append(f)
    out = []
    for card_id, reads in by_id.items():
        best = reads[0]
        others = [r for r in reads[1:] if not _same_card(best, r)]
        duplicated = bool(others)   # one deck has each card once: two places with it means a misread
        for r in [best] + others:
            conf = r.confidence * (0.5 if duplicated else 1.0)
            quad = index_quad(r.centre[None], r.up[None], np.array([r.height]))[0]
            out.append(Recognition(card_id, float(np.clip(conf, 0, 1)), r.pips,
                                   tuple((float(x), float(y)) for x, y in quad),
                                   flagged=bool(conf < confident or r.doubtful or duplicated)))
    out.sort(key=lambda r: (r.quad[0][0] + r.quad[2][0], r.quad[0][1]))
    return out


def _same_card(a: _Read, b: _Read) -> bool:
    """True when b is the other (turned) index of the card whose index is a."""
    return one_card_span(a.centre, a.up, a.height, b.centre, b.up, b.height)
