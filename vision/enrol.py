"""Enrolment: cut one card's face out of a photo along the card's edge and rectify it to the card's real size.

Two kinds of picture come in:
- a photo of one card on a plain background (phone, flatbed scanner): the card is found by its edge against
  the background colour, and its four sides give the perspective; its size is taken to be the deck's;
- a top-down view of the calibration mat (`calibration.warp_to_table`, so 1 px is a known fraction of a
  mm): the card is found against the mat's paper, and its size, its place on the play area and its
  sharpness are measured in mm.

The result is a face like `models/faces/<ID>.png`: (round(112 * 10), round(60 * 10), 4) uint8 BGRA at
10 px/mm, upright (long side vertical), transparent outside the rounded corners. Pure numpy + cv2; the
caller reads the files, warps the mat and writes the deck folder.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

CARD_MM = (60.0, 112.0)            # Alpine Tarok (the reference deck's deck.json)
CORNER_RADIUS_MM = 3.5
FACE_PX_PER_MM = 10.0
INDEX_BOX_MM = (1.8, 2.5, 12.2, 47.0)
MAX_BLUR_MM = 0.35                 # as calibration: index strokes are ~0.7 mm; blur beyond half smears them
MIN_PX_PER_MM = 3.0                # below this a 7 mm index glyph is under ~20 px: too little to learn from
SIZE_TOLERANCE_MM = 3.0            # measured on the mat; a card half under another is far outside
INDEX_PAD_MM = 0.8                 # margin around the ink of the index strip found on the faces
BACK_LIKENESS = 0.6                # normalised correlation with the deck's back above which the card is face down


class EnrolmentRefused(ValueError):
    """A photo that gives no usable face; the message is the reason, worded for the player."""


@dataclass(frozen=True, slots=True)
class EnrolledFace:
    """One rectified face.

    face: (H, W, 4) uint8 BGRA at px_per_mm, upright. quad: (4, 2) float64 corners of the card in the input
    picture's px, top-left, top-right, bottom-right, bottom-left of the upright face. size_mm: the
    card's measured (width, height) in mm on the mat, None for a photo without a scale. blur_mm:
    Gaussian sigma of the index's edges in mm. px_per_mm_in: the input's resolution on the card.
    """

    face: np.ndarray
    quad: np.ndarray
    size_mm: tuple[float, float] | None
    blur_mm: float
    px_per_mm_in: float


# ---------------------------------------------------------------- finding the card

def _lab(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image.astype(np.float32) / 255, cv2.COLOR_BGR2LAB)


def _background(lab: np.ndarray, region: np.ndarray | None) -> tuple[np.ndarray, float]:
    """Background colour (3,) and the spread of its distances: the border ring, or the given region mask."""
    h, w = lab.shape[:2]
    if region is None:
        ring = max(2, round(0.015 * min(h, w)))
        mask = np.zeros((h, w), bool)
        mask[:ring], mask[-ring:], mask[:, :ring], mask[:, -ring:] = True, True, True, True
    else:
        mask = region
    samples = lab[mask]
    colour = np.median(samples, axis=0)
    dist = np.linalg.norm(samples - colour, axis=1)
    # The median: on the mat the card itself, the side lines and their names are up to a fifth of the samples.
    spread = float(np.median(dist))
    return colour, spread


def _order_quad(quad: np.ndarray) -> np.ndarray:
    """Corners clockwise (as seen, y down), starting at the top-left of the upright card: the first side
    is a short side, and of the two short sides the one higher in the picture."""
    c = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]                       # increasing angle with y down = clockwise on screen
    sides = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    start = 0 if sides[0] + sides[2] < sides[1] + sides[3] else 1
    q = np.roll(q, -start, axis=0)                  # q[0] -> q[1] is now a short side
    if (q[0, 1] + q[1, 1]) > (q[2, 1] + q[3, 1]):   # that short side is the lower one: turn half round
        q = np.roll(q, 2, axis=0)
    return q


def _line_fit(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    vx, vy, x0, y0 = cv2.fitLine(points.astype(np.float32).reshape(-1, 1, 2), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)


def _intersect(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    (p, u), (q, v) = a, b
    m = np.array([u, -v]).T
    if abs(np.linalg.det(m)) < 1e-9:
        raise EnrolmentRefused("the card's sides are not straight: is it bent, or are two cards touching?")
    t = np.linalg.solve(m, q - p)
    return p + t[0] * u


def _sides_from_edges(dist: np.ndarray, quad: np.ndarray, corner_px: float, reach: float,
                      thresh: float) -> np.ndarray:
    """Refine a rough quad: along each side, find the strongest step of the background distance on short
    profiles across the side (sub-pixel), fit a line to those points, and intersect the four lines.

    dist: (H, W) float32 distance from the background colour. quad: (4, 2) ordered corners. corner_px:
    how far from each corner to stay (rounded corners are not on the side lines). reach: how far across
    the side to look, as a share of the side's length. thresh: distance above which a pixel is not
    background."""
    h, w = dist.shape
    gy, gx = (np.ascontiguousarray(v, dtype=np.float32) for v in np.gradient(cv2.GaussianBlur(dist, (0, 0), 1.0)))
    lines = []
    centre = quad.mean(axis=0)
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        length = float(np.linalg.norm(b - a))
        u = (b - a) / max(length, 1e-9)
        n = np.array([-u[1], u[0]])
        if np.dot((a + b) / 2 - centre, n) < 0:
            n = -n                                   # outward normal
        span = max(4.0, reach * length)
        ts = np.linspace(corner_px + 2, length - corner_px - 2, 40)
        offsets = np.linspace(-span, span, int(8 * span) + 1)
        samples = a + u * ts[:, None, None] + offsets[None, :, None] * n          # (40, M, 2) px
        inside = ((samples[..., 0] >= 1) & (samples[..., 1] >= 1) & (samples[..., 0] <= w - 2)
                  & (samples[..., 1] <= h - 2)).all(axis=1)
        mx, my = samples[..., 0].astype(np.float32), samples[..., 1].astype(np.float32)
        gxs = cv2.remap(gx, mx, my, cv2.INTER_LINEAR)
        gys = cv2.remap(gy, mx, my, cv2.INTER_LINEAR)
        ds = cv2.remap(dist, mx, my, cv2.INTER_LINEAR)
        # Going outward the distance falls from card to background. Printed lines inside the card can fall
        # more steeply than a cream card on white paper does, and the mat's own lines lie just outside it:
        # the edge is the innermost strong fall with background (below the threshold) just beyond it.
        g = -(gxs * n[0] + gys * n[1])                                              # (40, M)
        per_px = len(offsets) / (2 * span)
        near, far = round(3.0 * per_px), round(6.0 * per_px)  # past JPEG's half-size colour and its ringing
        pts = []
        for row, drow, ok, base_t in zip(g, ds, inside, ts):
            peak = float(row.max())
            if not ok or peak <= 0:
                continue
            strong = np.flatnonzero((row[1:-1] >= 0.3 * peak) & (row[1:-1] > row[:-2]) & (row[1:-1] >= row[2:])) + 1
            beyond = [j for j in strong if j + far < len(drow) and drow[j + near:j + far].mean() < thresh]
            if not beyond:
                continue
            j = int(beyond[0])
            den = row[j - 1] - 2 * row[j] + row[j + 1]                              # parabola through the peak
            frac = 0.5 * (row[j - 1] - row[j + 1]) / den if den < 0 else 0.0
            pts.append(a + u * base_t + (offsets[j] + frac * (offsets[1] - offsets[0])) * n)
        if len(pts) < 8:
            lines.append((a, u))
            continue
        lines.append(_line_fit(np.array(pts)))
    return np.array([_intersect(lines[k - 1], lines[k]) for k in range(4)])


def find_card(image: np.ndarray, region: np.ndarray | None = None, px_per_mm: float | None = None) -> np.ndarray:
    """Where the one card lies in a picture.

    image: (H, W, 3) uint8 BGR. region: optional (H, W) bool mask of where the background is (the mat's
    play area); without it the background is the colour of the picture's border. px_per_mm: the picture's
    scale when known (the mat's top-down view), so the mat's printed lines can be told from a card by size.
    Returns (4, 2) float64
    corners in image px, ordered as `EnrolledFace.quad`. Raises EnrolmentRefused when no single card is
    found, or when the card runs off the picture.
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise EnrolmentRefused(f"expected a (H, W, 3) uint8 BGR picture, got {image.shape} {image.dtype}")
    h, w = image.shape[:2]
    # Search at <= 1000 px: the card is then still hundreds of px long, and the full-size edges refine it.
    factor = max(1.0, max(h, w) / 1000)
    small = cv2.resize(image, (round(w / factor), round(h / factor)), interpolation=cv2.INTER_AREA) \
        if factor > 1 else image
    lab = _lab(cv2.GaussianBlur(small, (0, 0), 1.2))
    small_region = None if region is None else cv2.resize(region.astype(np.uint8), (small.shape[1], small.shape[0]),
                                                           interpolation=cv2.INTER_NEAREST) > 0
    colour, spread = _background(lab, small_region)
    dist = np.linalg.norm(lab - colour, axis=2).astype(np.float32)
    thresh = max(3.0, 4.0 * spread)
    mask = (dist > thresh).astype(np.uint8)
    # Open first, so thin print on the background (the mat's side lines and names) does not join the card,
    # then close and fill, so the card's art and index are one blob with its plain border.
    k = max(3, round(0.005 * max(small.shape[:2])) | 1)
    if px_per_mm is not None:  # the mat's 0.5 mm lines and 4 mm names, blurred, stay under 4 mm wide
        k = max(k, round(4.0 * px_per_mm / factor) | 1)
    # Padded with background: OpenCV's default border would glue a card near the edge to the edge.
    pad = 4 * k + 2
    mask = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (4 * k + 1, 4 * k + 1)))
    mask = np.ascontiguousarray(mask[pad:-pad, pad:-pad])
    if small_region is not None:
        mask &= cv2.dilate(small_region.astype(np.uint8), np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        raise EnrolmentRefused("no card found: lay one card face up on a plain background (or on the mat)")
    contour = max(contours, key=cv2.contourArea)
    area = cv2.contourArea(contour)
    if area < 0.01 * small.shape[0] * small.shape[1]:
        raise EnrolmentRefused("no card found: lay one card face up on a plain background (or on the mat)")
    x, y, cw, ch = cv2.boundingRect(contour)
    if x <= 1 or y <= 1 or x + cw >= small.shape[1] - 1 or y + ch >= small.shape[0] - 1:
        raise EnrolmentRefused("the card runs off the picture: keep the whole card in view")
    if small_region is not None:
        inner = cv2.erode(small_region.astype(np.uint8), np.ones((5, 5), np.uint8))
        pts = contour.reshape(-1, 2)
        if np.mean(inner[pts[:, 1], pts[:, 0]] == 0) > 0.02:
            raise EnrolmentRefused("the card lies off the mat's play area: move it inside the marked frame")
    hull = cv2.convexHull(contour)
    if area < 0.85 * cv2.contourArea(hull):
        raise EnrolmentRefused("the outline is not one card (two cards, or something lying on it)")
    rough = None
    peri = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            rough = approx.reshape(4, 2).astype(np.float64)
            break
    if rough is None:
        rough = cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float64)
    rough = _order_quad(rough)
    sides = np.linalg.norm(np.roll(rough, -1, axis=0) - rough, axis=1)
    aspect = (sides[1] + sides[3]) / max(sides[0] + sides[2], 1e-9)
    if not 1.35 <= aspect <= 2.5:  # 112 / 60 = 1.87 seen straight; perspective and a scanner's skew stay inside
        raise EnrolmentRefused(f"the outline is {aspect:.2f} times as long as wide, not one card (1.87): "
                               "is the card folded, covered, or lying against another?")
    # Refine on the full picture: corners from straight sides, not from the rounded outline.
    full_lab = _lab(cv2.GaussianBlur(image, (0, 0), 0.8))
    full_dist = np.linalg.norm(full_lab - colour, axis=2).astype(np.float32)
    # The background's spread at full size (less smoothed than the search copy) sets what counts as background.
    _, full_spread = _background(full_lab, region)
    edge_thresh = max(thresh, 4.0 * full_spread)
    quad = (rough + 0.5) * factor - 0.5
    short = float(min(sides[0], sides[2])) * factor
    # The rough corners cut the rounded ones short by up to ~5 % of the card: look wide first, then close.
    quad = _sides_from_edges(full_dist, quad, corner_px=0.15 * short, reach=0.05, thresh=edge_thresh)
    quad = _sides_from_edges(full_dist, quad, corner_px=0.1 * short, reach=0.015, thresh=edge_thresh)
    return _order_quad(quad)


# ---------------------------------------------------------------- the face

def _rounded_alpha(size: tuple[int, int], radius_px: float) -> np.ndarray:
    """(h, w) uint8 alpha: 255 inside a rounded rectangle filling the image, antialiased at the corners."""
    w, h = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32) + 0.5
    dx = np.maximum(0, np.maximum(radius_px - xs, xs - (w - radius_px)))
    dy = np.maximum(0, np.maximum(radius_px - ys, ys - (h - radius_px)))
    outside = np.hypot(dx, dy) - radius_px
    return (np.clip(0.5 - outside, 0, 1) * 255).astype(np.uint8)


def edge_blur_mm(face: np.ndarray, box_mm: tuple[float, float, float, float], px_per_mm: float) -> float:
    """Blur of the printed index as a Gaussian sigma in mm: a step of contrast C blurred by sigma has peak
    gradient C / (sqrt(2 pi) sigma). face: (H, W, 3 or 4) uint8 BGR(A) at px_per_mm."""
    x0, y0, x1, y1 = (round(v * px_per_mm) for v in box_mm)
    patch = cv2.cvtColor(np.ascontiguousarray(face[y0:y1, x0:x1, :3]), cv2.COLOR_BGR2GRAY).astype(np.float32)
    if patch.size < 100:
        return float("inf")
    gx = cv2.Scharr(patch, cv2.CV_32F, 1, 0) / 32   # Scharr kernels sum to 32 per unit step
    gy = cv2.Scharr(patch, cv2.CV_32F, 0, 1) / 32
    peak = float(np.percentile(np.hypot(gx, gy), 99.5))
    contrast = float(np.percentile(patch, 99) - np.percentile(patch, 1))
    if contrast < 25 or peak <= 0:
        return float("inf")                       # no ink where the index should be
    return contrast / (math.sqrt(2 * math.pi) * peak) / px_per_mm


def rectify(image: np.ndarray, quad: np.ndarray, *, card_mm: tuple[float, float] = CARD_MM,
            corner_radius_mm: float = CORNER_RADIUS_MM, px_per_mm: float = FACE_PX_PER_MM) -> np.ndarray:
    """Cut the card along `quad` ((4, 2) image px, ordered as `EnrolledFace.quad`) and warp it to its real
    size. image: (H, W, 3) uint8 BGR. Returns (round(h_mm * px_per_mm), round(w_mm * px_per_mm), 4) uint8
    BGRA, transparent outside the rounded corners."""
    w, h = round(card_mm[0] * px_per_mm), round(card_mm[1] * px_per_mm)
    # Face pixel (i, j) covers [j, j + 1) x [i, i + 1); the card's edge is the face's outer border.
    dst = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    # Shrinking a 12 MP photo to 10 px/mm: area-average first, so fine art does not alias.
    scale = math.sqrt(abs(np.linalg.det(m[:2, :2]))) if abs(m[2, 0]) + abs(m[2, 1]) < 1e-3 else 1.0
    src = image
    if scale < 0.5:
        f = 1 / (2 * scale)
        src = cv2.resize(image, (round(image.shape[1] / f), round(image.shape[0] / f)), interpolation=cv2.INTER_AREA)
        m = m @ np.array([[f, 0, (f - 1) / 2], [0, f, (f - 1) / 2], [0, 0, 1]])
    face = cv2.warpPerspective(src, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    alpha = _rounded_alpha((w, h), corner_radius_mm * px_per_mm)
    return np.dstack([face, alpha])


def back_likeness(face: np.ndarray, back: np.ndarray) -> float:
    """Normalised correlation (-1..1) of a rectified face with the deck's back, the better of the two ways
    up. face, back: (H, W, 3 or 4) uint8 BGR(A), any equal-aspect sizes."""
    def small(img: np.ndarray) -> np.ndarray:
        g = cv2.cvtColor(np.ascontiguousarray(img[..., :3]), cv2.COLOR_BGR2GRAY)
        g = cv2.resize(g, (30, 56), interpolation=cv2.INTER_AREA).astype(np.float32)[3:-3, 3:-3]
        return (g - g.mean()) / (g.std() + 1e-6)
    f, b = small(face), small(back)
    return float(max(np.mean(f * b), np.mean(f * b[::-1, ::-1])))


def enrol_face(image: np.ndarray, *, table_px_per_mm: float | None = None, play_area: np.ndarray | None = None,
               back: np.ndarray | None = None, card_mm: tuple[float, float] = CARD_MM,
               corner_radius_mm: float = CORNER_RADIUS_MM,
               index_box_mm: tuple[float, float, float, float] | None = INDEX_BOX_MM,
               px_per_mm: float = FACE_PX_PER_MM) -> EnrolledFace:
    """Find, check and rectify the one card in a picture.

    image: (H, W, 3) uint8 BGR, a photo on a plain background, or (with table_px_per_mm) a top-down view of
    the mat at that many px per mm. play_area: (N, 2) polygon in the view's px where the card must lie
    (mat only). back: the deck's back, (H, W, 3 or 4) uint8, to refuse a card lying face down.
    index_box_mm: where the index must be printed (its edges also measure the blur); None for the back,
    which is then judged sharp by the whole face's edges. Raises
    EnrolmentRefused with the reason: no card, off the picture or the mat, not one card, wrong size, too
    small, blurred, face down.
    """
    region = None
    if table_px_per_mm is not None and play_area is not None:
        region = np.zeros(image.shape[:2], np.uint8)
        cv2.fillPoly(region, [np.round(np.asarray(play_area)).astype(np.int32)], 1)
        region = region > 0
    quad = find_card(image, region, table_px_per_mm)
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    px_w, px_h = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    size_mm = None
    if table_px_per_mm is not None:
        size_mm = (float(px_w / table_px_per_mm), float(px_h / table_px_per_mm))
        if abs(size_mm[0] - card_mm[0]) > SIZE_TOLERANCE_MM or abs(size_mm[1] - card_mm[1]) > SIZE_TOLERANCE_MM:
            raise EnrolmentRefused(
                f"the card measures {size_mm[0]:.0f} x {size_mm[1]:.0f} mm, not {card_mm[0]:g} x {card_mm[1]:g}: "
                "is it partly covered, lying on another card, or from another deck?")
        ppm_in = table_px_per_mm
    else:
        ppm_in = float(min(px_w / card_mm[0], px_h / card_mm[1]))
    if ppm_in < MIN_PX_PER_MM:
        raise EnrolmentRefused(f"the card is too small in the photo ({ppm_in:.1f} px/mm, want >= {MIN_PX_PER_MM:g}): "
                               "move closer or use a higher resolution")
    face = rectify(image, quad, card_mm=card_mm, corner_radius_mm=corner_radius_mm, px_per_mm=px_per_mm)
    if back is not None and back_likeness(face, back) > BACK_LIKENESS:
        raise EnrolmentRefused("the card lies face down (its back is up): turn it over")
    whole = (0.0, 0.0, card_mm[0], card_mm[1])
    blur = edge_blur_mm(face, index_box_mm or whole, px_per_mm)
    # The view itself limits sharpness: at p px/mm a perfect edge still spreads over ~0.5 px.
    allowed = max(MAX_BLUR_MM, 0.9 / ppm_in)
    if not math.isfinite(blur) and index_box_mm is None:
        blur = 0.0                                  # a plain back: nothing to judge sharpness by
    if not math.isfinite(blur):
        raise EnrolmentRefused("no printed index where the deck has it: is the card face down, or the wrong "
                               "way round?")
    if blur > allowed:
        raise EnrolmentRefused(f"the photo is blurred (edges spread {blur:.2f} mm, want <= {allowed:.2f} mm): "
                               "hold still and refocus")
    return EnrolledFace(face=face, quad=quad, size_mm=size_mm, blur_mm=blur, px_per_mm_in=ppm_in)


# ---------------------------------------------------------------- the index box

def find_index_box(faces: list[np.ndarray], px_per_mm: float = FACE_PX_PER_MM,
                   card_mm: tuple[float, float] = CARD_MM) -> tuple[float, float, float, float] | None:
    """Where the deck prints its index, from its enrolled faces: (x0, y0, x1, y1) mm from the top-left of an
    upright face, or None when the faces do not show one clearly.

    On each face the ink (what differs from the card's stock, taken along its left edge) in the top-left
    quarter is the index strip: the columns of ink from the left up to the first clear gap (the art, if any,
    lies beyond it), and the rows of ink in those columns. The box spans the faces' strips (robustly: the
    5th to 95th percentile), plus a margin of INDEX_PAD_MM."""
    boxes = []
    for face in faces:
        box = _index_of(face, px_per_mm, card_mm)
        if box is not None:
            boxes.append(box)
    if len(boxes) < max(3, len(faces) // 2):
        return None
    b = np.array(boxes)
    pad = INDEX_PAD_MM
    x0, y0 = np.percentile(b[:, 0], 5) - pad, np.percentile(b[:, 1], 5) - pad
    x1, y1 = np.percentile(b[:, 2], 95) + pad, np.percentile(b[:, 3], 95) + pad
    x0, y0 = max(0.3, float(x0)), max(0.3, float(y0))
    x1, y1 = min(card_mm[0] / 2, float(x1)), min(card_mm[1] / 2, float(y1))
    if x1 - x0 < 3.0 or y1 - y0 < 6.0:
        return None
    return round(x0, 1), round(y0, 1), round(x1, 1), round(y1, 1)


def choose_index_box(faces: list[np.ndarray], given: tuple[float, float, float, float] = INDEX_BOX_MM,
                     px_per_mm: float = FACE_PX_PER_MM, card_mm: tuple[float, float] = CARD_MM,
                     tolerance_mm: float = 1.5) -> tuple[tuple[float, float, float, float], str]:
    """The index box to write in the deck's file, and why: the given one (Alpine Tarok's) when the faces'
    index strip lies within it (give or take tolerance_mm), so a fine-tune keeps the release's idea of where
    an index is; the found one when the deck prints its index elsewhere."""
    found = find_index_box(faces, px_per_mm, card_mm)
    if found is None:
        return given, "given (no index strip found on the faces to check it by)"
    t = tolerance_mm + INDEX_PAD_MM     # the found box's own margin does not count against it
    inside = (found[0] >= given[0] - t and found[1] >= given[1] - t and found[2] <= given[2] + t
              and found[3] <= given[3] + t)
    where = ", ".join(f"{v:g}" for v in found)
    if inside:
        return given, f"given; the faces print their index within it (found at {where} mm)"
    return found, f"found on the faces at {where} mm (outside the given box: this deck prints its index elsewhere)"


def _index_of(face: np.ndarray, ppm: float, card_mm: tuple[float, float]) -> tuple[float, float, float, float] | None:
    """One face's index strip in mm (see find_index_box), or None."""
    h, w = face.shape[:2]
    lab = _lab(face[..., :3]).astype(np.float32)
    edge = lab[int(5 * ppm):int(h - 5 * ppm), int(0.4 * ppm):int(1.2 * ppm)].reshape(-1, 3)
    if len(edge) == 0:
        return None
    stock = np.median(edge, axis=0)
    spread = float(np.percentile(np.linalg.norm(edge - stock, axis=1), 90))
    ink = np.linalg.norm(lab - stock, axis=2) > max(18.0, 3 * spread)
    if face.shape[2] == 4:
        ink &= face[..., 3] > 200
    m = int(0.4 * ppm)      # the card's own edge and rounded corner are no ink
    ink[:, :m] = ink[:m, :] = False
    top = ink[: h // 2, : w // 2]
    cols = top.sum(0) >= max(3, int(0.3 * ppm))
    xs = np.nonzero(cols)[0]
    if len(xs) == 0:
        return None
    x0 = int(xs[0])
    gap = int(0.8 * ppm)    # a clear stretch this wide ends the strip
    x1, clear = x0, 0
    for x in range(x0, top.shape[1]):
        if cols[x]:
            x1, clear = x, 0
        else:
            clear += 1
            if clear >= gap:
                break
    if (x1 - x0) / ppm > card_mm[0] / 3:      # no gap: the art runs into the edge
        return None
    rows = np.nonzero(top[:, x0:x1 + 1].sum(1) > 0)[0]
    if len(rows) == 0:
        return None
    return x0 / ppm, rows[0] / ppm, (x1 + 1) / ppm, (rows[-1] + 1) / ppm
