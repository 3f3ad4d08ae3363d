"""Synthetic photos of one card for the enrolment tests: a face from models/faces laid on a background,
seen through a perspective, with blur, noise and JPEG. Not a test module (no test_ prefix)."""
from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

FACES = Path(__file__).resolve().parents[2] / "models" / "faces"


def load_face(card_id: str) -> np.ndarray:
    """(1120, 600, 4) uint8 BGRA reference face."""
    return cv2.imread(str(FACES / f"{card_id}.png"), cv2.IMREAD_UNCHANGED)


def card_photo(face: np.ndarray, *, size=(1600, 1200), card_px: float = 700, angle_deg: float = 0,
               tilt: tuple[float, float] = (0.0, 0.0), centre=(0.5, 0.5), background=(70, 110, 60),
               texture: float = 4.0, blur: float = 0.6, noise: float = 2.5, jpeg: int = 92, seed: int = 0,
               canvas: np.ndarray | None = None, face_px_per_mm: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """Photo of one card. card_px: length of the card's long side in px before the tilt. tilt: perspective
    (x, y) as the projective row of the homography, in 1 / card length. canvas: draw on this picture
    instead of a plain background. Returns ((H, W, 3) uint8 BGR, (4, 2) true corners TL TR BR BL of the
    upright face in photo px)."""
    rng = np.random.default_rng(seed)
    w, h = size
    fh, fw = face.shape[:2]
    s = card_px / fh
    a = math.radians(angle_deg)
    c, si = math.cos(a), math.sin(a)
    cx, cy = centre[0] * w, centre[1] * h
    # face px (pixel centres at integers, card edge at -0.5 .. fw - 0.5) -> photo px
    to_centre = np.array([[1, 0, -(fw - 1) / 2], [0, 1, -(fh - 1) / 2], [0, 0, 1]])
    proj = np.array([[1, 0, 0], [0, 1, 0], [tilt[0] / fh, tilt[1] / fh, 1]])
    rot = np.array([[c * s, -si * s, 0], [si * s, c * s, 0], [0, 0, 1]])
    m = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1]]) @ rot @ proj @ to_centre
    if canvas is None:
        bg = np.empty((h, w, 3), np.float32)
        bg[:] = background
        small = rng.normal(0, texture, (h // 16 + 1, w // 16 + 1)).astype(np.float32)
        bg += cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)[..., None]
    else:
        bg = canvas.astype(np.float32)
    img = _composite(bg, face, m)
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    img += rng.normal(0, noise, img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if jpeg:
        img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, jpeg])[1], cv2.IMREAD_COLOR)
    corners = np.array([[-0.5, -0.5], [fw - 0.5, -0.5], [fw - 0.5, fh - 0.5], [-0.5, fh - 0.5]], np.float64)
    quad = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), m).reshape(-1, 2)
    return img, quad


def _composite(canvas: np.ndarray, face: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Lay the BGRA face through the 3x3 homography m onto the float canvas. Colour is warped premultiplied
    by alpha, so the card's antialiased edge is not darkened by the transparent black around it."""
    h, w = canvas.shape[:2]
    premult = face[..., :3].astype(np.float32) * (face[..., 3:4].astype(np.float32) / 255)
    src = np.dstack([premult, face[..., 3].astype(np.float32)])
    warped = cv2.warpPerspective(src, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                 borderValue=(0, 0, 0, 0))
    alpha = warped[..., 3:4] / 255
    return canvas.astype(np.float32) * (1 - alpha) + warped[..., :3]


def with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """The JPEG with an APP1 Exif segment whose Orientation tag (0x0112) is `orientation` (1..8)."""
    tiff = b"MM\x00*\x00\x00\x00\x08" + b"\x00\x01" + b"\x01\x12\x00\x03\x00\x00\x00\x01" + \
        orientation.to_bytes(2, "big") + b"\x00\x00" + b"\x00\x00\x00\x00"
    payload = b"Exif\x00\x00" + tiff
    app1 = b"\xff\xe1" + (len(payload) + 2).to_bytes(2, "big") + payload
    return jpeg[:2] + app1 + jpeg[2:]


def face_difference(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute difference (0..255) of two faces' colour inside both alphas, the better way up."""
    inside = (a[..., 3] > 200) & (b[..., 3] > 200)
    d0 = np.abs(a[..., :3].astype(np.float32) - b[..., :3].astype(np.float32))[inside].mean()
    b180 = b[::-1, ::-1]
    inside2 = (a[..., 3] > 200) & (b180[..., 3] > 200)
    d1 = np.abs(a[..., :3].astype(np.float32) - b180[..., :3].astype(np.float32))[inside2].mean()
    return float(min(d0, d1))


def mat_photo_with_card(face: np.ndarray, *, at_mm=(210.0, 148.5), angle_deg: float = 0.0, tilt_deg: float = 8.0,
                        size=(2304, 1296), fill: float = 0.85, seed: int = 0,
                        blur: float = 0.7) -> tuple[np.ndarray, np.ndarray]:
    """Photo of the A3 mat from above (pinhole camera, no lens distortion) with one card lying on it.

    at_mm: the card's centre on the mat; angle_deg: its turn. Returns ((H, W, 3) uint8 BGR photo,
    (4, 2) true card corners in mat mm, TL TR BR BL of the upright face)."""
    from calibration import layout_for, render_mat

    rng = np.random.default_rng(seed)
    lay = layout_for("A3")
    w, h = size
    ppm = fill * min(w / lay.width, h / lay.height)
    d, f = 600.0, ppm * 600.0
    t = math.radians(tilt_deg)
    rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    centre = np.array([[1, 0, -lay.width / 2], [0, 1, -lay.height / 2], [0, 0, 1]])
    mm_to_px = k @ np.column_stack([rx[:, 0], rx[:, 1], [0, 0, d]]) @ centre
    mm_to_px /= mm_to_px[2, 2]
    dpi = 150
    mat = render_mat("A3", dpi).astype(np.float32) * np.array([0.82, 0.85, 0.88], np.float32)
    s = dpi / 25.4
    matpx_to_mm = np.linalg.inv(np.array([[s, 0, -0.5], [0, s, -0.5], [0, 0, 1]]))
    photo = cv2.warpPerspective(mat, mm_to_px @ matpx_to_mm, (w, h), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(40, 70, 110))
    fh, fw = face.shape[:2]
    a = math.radians(angle_deg)
    c, si = math.cos(a), math.sin(a)
    fppm = fw / 60.0
    # face px -> mat mm: centre the face, scale to mm, turn, place
    face_to_mm = np.array([[c, -si, at_mm[0]], [si, c, at_mm[1]], [0, 0, 1]]) @ \
        np.array([[1 / fppm, 0, -(fw - 1) / 2 / fppm], [0, 1 / fppm, -(fh - 1) / 2 / fppm], [0, 0, 1]])
    m = mm_to_px @ face_to_mm
    photo = _composite(photo, face, m)
    photo = cv2.GaussianBlur(photo, (0, 0), blur) + rng.normal(0, 2.5, photo.shape).astype(np.float32)
    photo = np.clip(photo, 0, 255).astype(np.uint8)
    corners = np.array([[-0.5, -0.5], [fw - 0.5, -0.5], [fw - 0.5, fh - 0.5], [-0.5, fh - 0.5]], np.float64)
    return photo, cv2.perspectiveTransform(corners.reshape(-1, 1, 2), face_to_mm).reshape(-1, 2)
