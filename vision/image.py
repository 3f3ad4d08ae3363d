"""Reading photos safely: the header is checked (format, size, channels, depth) before anything is decoded."""
from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np

from vision.errors import ImageError

MAX_PIXELS = 40_000_000     # 4608 x 2592 is 12 Mpx; refuse absurd sizes before decoding them
MAX_SIDE = 12_000


def png_header(data: bytes) -> tuple[int, int, int, int]:
    """(width, height, bit depth, colour type) from a PNG's IHDR chunk."""
    if len(data) < 29 or data[12:16] != b"IHDR":
        raise ImageError("truncated PNG header")
    w, h, depth, colour = struct.unpack(">IIBB", data[16:26])
    return w, h, depth, colour


def jpeg_header(data: bytes) -> tuple[int, int, int, int]:
    """(width, height, bits per sample, components) from a JPEG's first SOFn segment."""
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            raise ImageError("damaged JPEG: bad marker")
        marker = data[i + 1]
        if marker == 0xFF:          # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if i + 10 > len(data):
                break
            bits, h, w, comps = struct.unpack(">BHHB", data[i + 4:i + 10])
            return w, h, bits, comps
        i += 2 + length
    raise ImageError("truncated JPEG: no frame header")


def check_header(data: bytes, name: str) -> tuple[int, int]:
    """Validate a JPEG or PNG byte string without decoding its pixels; returns (width, height)."""
    if len(data) == 0:
        raise ImageError(f"{name}: empty file")
    if data[:3] == b"\xff\xd8\xff":
        w, h, bits, comps = jpeg_header(data)
        if comps == 1:
            raise ImageError(f"{name}: grayscale JPEG; need a colour photo")
        if comps != 3 or bits != 8:
            raise ImageError(f"{name}: JPEG with {comps} components of {bits} bits; need 8-bit colour")
        if b"\xff\xd9" not in data[-64:]:
            raise ImageError(f"{name}: truncated JPEG (no end-of-image marker)")
    elif data[:8] == b"\x89PNG\r\n\x1a\n":
        w, h, depth, colour = png_header(data)
        if colour in (0, 4):
            raise ImageError(f"{name}: grayscale PNG; need a colour photo")
        if colour == 6:
            raise ImageError(f"{name}: PNG with an alpha channel; need a plain colour photo")
        if depth != 8:
            raise ImageError(f"{name}: {depth}-bit PNG; need 8 bits per channel")
    else:
        raise ImageError(f"{name}: not a JPEG or PNG image")
    if w <= 0 or h <= 0:
        raise ImageError(f"{name}: image has no pixels ({w}x{h})")
    if w * h > MAX_PIXELS or max(w, h) > MAX_SIDE:
        raise ImageError(f"{name}: {w}x{h} is too large (at most {MAX_PIXELS // 1_000_000} Mpx, {MAX_SIDE} px a side)")
    return w, h


def decode_image(data: bytes, name: str = "image") -> np.ndarray:
    """Decode JPEG/PNG bytes. Returns (H, W, 3) uint8 BGR; raises ImageError with the reason."""
    w, h = check_header(data, name)
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise ImageError(f"{name}: corrupt or truncated image data")
    if img.shape[:2] != (h, w):
        raise ImageError(f"{name}: decoded size {img.shape[1]}x{img.shape[0]} does not match its header {w}x{h}")
    return img


def read_image(path: str | Path) -> np.ndarray:
    """Read a photo file. Returns (H, W, 3) uint8 BGR; raises ImageError (missing, empty, damaged, wrong kind)."""
    path = Path(path)
    if not path.exists():
        raise ImageError(f"{path}: no such file")
    if not path.is_file():
        raise ImageError(f"{path}: not a file")
    with open(path, "rb") as f:
        head = f.read(64 * 1024)
        check_header(head if len(head) < 64 * 1024 else head + b"\xff\xd9", str(path))   # dims before reading it all
        data = head + f.read()
    return decode_image(data, str(path))


def check_array(image: np.ndarray) -> None:
    """Accept only (H, W, 3) uint8 BGR arrays of a sane size; raise ImageError saying what is wrong."""
    if not isinstance(image, np.ndarray):
        raise ImageError(f"expected a numpy array, got {type(image).__name__}")
    if image.ndim == 2 or (image.ndim == 3 and image.shape[2] == 1):
        raise ImageError(f"grayscale image {image.shape}; need (H, W, 3) colour")
    if image.ndim != 3 or image.shape[2] not in (3,):
        if image.ndim == 3 and image.shape[2] == 4:
            raise ImageError("image has an alpha channel (H, W, 4); need (H, W, 3) BGR")
        raise ImageError(f"image shape {image.shape}; need (H, W, 3) BGR")
    if image.dtype != np.uint8:
        raise ImageError(f"image dtype {image.dtype}; need uint8 (8 bits per channel)")
    h, w = image.shape[:2]
    if h < 32 or w < 32:
        raise ImageError(f"image {w}x{h} is too small")
    if h * w > MAX_PIXELS:
        raise ImageError(f"image {w}x{h} is too large")
