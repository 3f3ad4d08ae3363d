"""The printable calibration mat: layout in millimetres, raster rendering, PNG and PDF writers.

Coordinates on the mat are millimetres from the paper's top-left corner, x to the right, y down, with the
paper in landscape. Eight ArUco markers ring the play area; the play area is split down the middle into
the Declarer's side (left) and the Defenders' side (right).
"""
from __future__ import annotations

import enum
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

# 4x4 bits with a wide quiet zone: the largest bits per mm of paper, so markers still decode from a
# 12 MP photo of the whole table and when partly shaded by a hand.
ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50


class Paper(enum.StrEnum):
    A4 = "A4"
    A3 = "A3"


class Side(enum.StrEnum):
    DECLARER = "declarer"
    DEFENDERS = "defenders"


Point = tuple[float, float]
Polygon = tuple[Point, ...]


@dataclass(frozen=True, slots=True)
class MatLayout:
    """Geometry of one paper size; all lengths in mm."""

    paper: Paper
    width: float  # landscape
    height: float
    margin: float  # unprinted border most printers need
    marker: float  # side of one ArUco marker, black border included
    gap: float  # white space between the marker ring and the play area
    first_id: int  # marker ids first_id .. first_id + 7, distinct per paper so a photo names its paper

    @property
    def marker_ids(self) -> tuple[int, ...]:
        return tuple(range(self.first_id, self.first_id + 8))

    def marker_origins(self) -> dict[int, Point]:
        """Top-left corner (mm) of each marker: four corners, then mid-top, mid-bottom, mid-left, mid-right."""
        m, a, w, h = self.margin, self.marker, self.width, self.height
        xs = (m, (w - a) / 2, w - m - a)
        ys = (m, (h - a) / 2, h - m - a)
        spots = [(xs[0], ys[0]), (xs[2], ys[0]), (xs[2], ys[2]), (xs[0], ys[2]),
                 (xs[1], ys[0]), (xs[1], ys[2]), (xs[0], ys[1]), (xs[2], ys[1])]
        return dict(zip(self.marker_ids, spots))

    def marker_corners(self) -> dict[int, np.ndarray]:
        """(4, 2) float64 mm corners per marker id, in ArUco's order: top-left, top-right, bottom-right, bottom-left."""
        a = self.marker
        return {i: np.array([(x, y), (x + a, y), (x + a, y + a), (x, y + a)], dtype=np.float64)
                for i, (x, y) in self.marker_origins().items()}

    @property
    def play_area(self) -> Polygon:
        inset = self.margin + self.marker + self.gap
        x0, y0, x1, y1 = inset, inset, self.width - inset, self.height - inset
        return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))

    @property
    def sides(self) -> dict[str, Polygon]:
        (x0, y0), _, (x1, y1), _ = self.play_area
        xm = (x0 + x1) / 2
        return {Side.DECLARER.value: ((x0, y0), (xm, y0), (xm, y1), (x0, y1)),
                Side.DEFENDERS.value: ((xm, y0), (x1, y0), (x1, y1), (xm, y1))}


LAYOUTS: dict[Paper, MatLayout] = {
    Paper.A4: MatLayout(Paper.A4, 297.0, 210.0, margin=8.0, marker=24.0, gap=4.0, first_id=0),
    Paper.A3: MatLayout(Paper.A3, 420.0, 297.0, margin=10.0, marker=34.0, gap=5.0, first_id=8),
}


def layout_for(paper: Paper | str) -> MatLayout:
    try:
        return LAYOUTS[Paper(str(paper).upper())]
    except ValueError:
        raise ValueError(f"unknown paper {paper!r}; known: {', '.join(p.value for p in Paper)}") from None


def render_mat(paper: Paper | str, dpi: int = 150) -> np.ndarray:
    """Draw the mat for printing at `dpi`.

    Returns (H, W, 3) uint8 BGR, landscape, H = round(height_mm / 25.4 * dpi). A pixel (i, j) covers
    mm [j/s, (j+1)/s) x [i/s, (i+1)/s) with s = dpi / 25.4.
    """
    if not 50 <= dpi <= 1200:
        raise ValueError(f"dpi must be between 50 and 1200, got {dpi}")
    lay = layout_for(paper)
    s = dpi / 25.4

    def px(v: float) -> int:
        return round(v * s)

    img = np.full((px(lay.height), px(lay.width), 3), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    for marker_id, (x, y) in lay.marker_origins().items():
        x0, y0, x1, y1 = px(x), px(y), px(x + lay.marker), px(y + lay.marker)
        tile = cv2.aruco.generateImageMarker(dictionary, marker_id, 600)
        img[y0:y1, x0:x1] = cv2.resize(tile, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST)[..., None]
    grey, thick = (150, 150, 150), max(1, px(0.5))
    play = np.array([(px(x), px(y)) for x, y in lay.play_area], np.int32)
    cv2.polylines(img, [play], True, grey, thick, cv2.LINE_AA)
    (x0, y0), _, (x1, y1), _ = lay.play_area
    xm = px((x0 + x1) / 2)
    cv2.line(img, (xm, px(y0)), (xm, px(y1)), grey, thick, cv2.LINE_AA)
    font_scale = 6.0 * s / 22.0  # about 6 mm tall capitals
    for label, cx in (("DECLARER", (x0 + (x0 + x1) / 2) / 2), ("DEFENDERS", ((x0 + x1) / 2 + x1) / 2)):
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font_scale, max(1, px(0.6)))
        cv2.putText(img, label, (px(cx) - tw // 2, px(y0 + 4) + th), cv2.FONT_HERSHEY_SIMPLEX, font_scale,
                    (190, 190, 190), max(1, px(0.6)), cv2.LINE_AA)
    # A 50 mm bar in the ring between two markers lets players check the printer kept 100 % scale.
    bx, by = lay.margin + lay.marker + 6, lay.margin + 3
    cv2.rectangle(img, (px(bx), px(by)), (px(bx + 50), px(by + 1.5)), (0, 0, 0), -1)
    room = lay.marker_origins()[lay.first_id + 4][0] - 6 - bx  # up to the mid-top marker
    caption = f"tarokcam {lay.paper.value} mat - bar is 50 mm when printed at 100 %"
    small = 2.5 * s / 22.0
    (tw, _), _ = cv2.getTextSize(caption, cv2.FONT_HERSHEY_SIMPLEX, small, max(1, px(0.25)))
    small *= min(1.0, px(room) / tw)
    cv2.putText(img, caption, (px(bx), px(by + 7)), cv2.FONT_HERSHEY_SIMPLEX, small, (0, 0, 0),
                max(1, px(0.25)), cv2.LINE_AA)
    return img


def encode_png(image: np.ndarray, dpi: int) -> bytes:
    """PNG bytes of a (H, W, 3) uint8 BGR image with a pHYs chunk so viewers print it at `dpi`."""
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("could not encode PNG")
    data = buf.tobytes()
    ppm = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return data[:ihdr_end] + chunk + data[ihdr_end:]


def encode_pdf(image: np.ndarray, paper: Paper | str, dpi: int) -> bytes:
    """One-page PDF whose page is the paper (landscape) filled by the image (H, W, 3) uint8 BGR.

    Minimal PDF 1.4: catalog, pages, page, content stream and one FlateDecode DeviceRGB image.
    """
    lay = layout_for(paper)
    h, w = image.shape[:2]
    pw, ph = lay.width / 25.4 * 72, lay.height / 25.4 * 72  # points
    rgb = np.ascontiguousarray(image[..., ::-1]).tobytes()
    content = f"q {pw:.3f} 0 0 {ph:.3f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.3f} {ph:.3f}] "
         f"/Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>").encode(),
        _stream(b"", content),
        _stream(f"/Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceRGB "
                f"/BitsPerComponent 8 /Filter /FlateDecode".encode(), zlib.compress(rgb, 6)),
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def _stream(dictionary: bytes, data: bytes) -> bytes:
    return b"<< " + dictionary + f" /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream"


def write_mat_pdf(image: np.ndarray, path: str | os.PathLike, paper: Paper | str, dpi: int) -> Path:
    """Write `image` ((H, W, 3) uint8 BGR, from `render_mat`) as a one-page PDF, atomically."""
    return write_atomic(Path(path), encode_pdf(image, paper, dpi))


def write_mat_png(image: np.ndarray, path: str | os.PathLike, dpi: int) -> Path:
    """Write `image` ((H, W, 3) uint8 BGR) as a PNG tagged with `dpi`, atomically."""
    return write_atomic(Path(path), encode_png(image, dpi))


def write_atomic(path: Path, data: bytes) -> Path:
    """Write tmp + fsync + os.replace, so a crash leaves the old file or the new one, never half."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path
