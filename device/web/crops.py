"""Cut a corrected card's index out of its photo, so that each correction can become training data."""

from __future__ import annotations

import functools
import time
from importlib.resources import files
from pathlib import Path

import cv2
import numpy as np

CROP_DIR = "crops"
MAX_SIDE = 512  # an index is ~10 x 45 mm; more pixels than this only come from a bad quad


def cut_quad(image: np.ndarray, quad) -> np.ndarray | None:
    """Warp the quad's region to an upright rectangle.

    image: (H, W, 3) uint8 BGR photo.  quad: four (x, y) image px, in the order the recogniser gives
    (top-left, top-right, bottom-right, bottom-left of the index).  Returns (h, w, 3) uint8 BGR,
    or None for a degenerate quad.
    """
    src = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    w = max(np.linalg.norm(src[1] - src[0]), np.linalg.norm(src[2] - src[3]))
    h = max(np.linalg.norm(src[3] - src[0]), np.linalg.norm(src[2] - src[1]))
    if not (np.isfinite(src).all() and w >= 2 and h >= 2):
        return None
    scale = min(1.0, MAX_SIDE / max(w, h))
    w, h = max(2, round(w * scale)), max(2, round(h * scale))
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(image, matrix, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def save_crop(photos_dir: Path, photo: str, quad, capture_id: int, label: str) -> str | None:
    """Cut `quad` from the photo and save it as PNG under photos_dir/crops; returns the path relative to
    photos_dir, or None when there is nothing to cut (no quad, unreadable photo, degenerate quad)."""
    if not quad:
        return None
    image = cv2.imread(str(photos_dir / photo), cv2.IMREAD_COLOR)
    if image is None:
        return None
    crop = cut_quad(image, quad)
    if crop is None:
        return None
    # The label goes in the name: crops/<capture>_<ms>_<card id>.png sorts by time and greps by card.
    rel = Path(CROP_DIR) / f"{capture_id:06d}_{int(time.time() * 1000)}_{label}.png"
    (photos_dir / CROP_DIR).mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(photos_dir / rel), crop):
        return None
    return rel.as_posix()


FACE_WIDTH = 72  # px: shown 36 px wide at twice the density of a phone screen


@functools.lru_cache(maxsize=64)
def face_thumbnail(card_id: str, width: int = FACE_WIDTH) -> bytes | None:
    """The deck face of `card_id` (models/faces/<id>.png, the faces the model was trained on), shrunk to
    `width` px and encoded as PNG with its transparency; None for an id with no face. Cached: the picker
    asks for every card."""
    if not card_id.isalnum():
        return None
    path = files("models").joinpath("faces", f"{card_id}.png")
    if not path.is_file():
        return None
    image = cv2.imdecode(np.frombuffer(path.read_bytes(), np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None:
        return None
    h, w = image.shape[:2]
    small = cv2.resize(image, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".png", small)
    return data.tobytes() if ok else None
