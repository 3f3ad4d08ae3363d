"""Reading photos safely: the header is checked (format, size, channels, depth) before anything is decoded,
and a JPEG that libjpeg can only half decode (it fills the rest with grey and says so on stderr) is refused as
damaged instead of being read with cards missing."""
from __future__ import annotations

import os
import re
import struct
import sys
import tempfile
import threading
from pathlib import Path

import cv2
import numpy as np

from vision.errors import ImageError

MAX_PIXELS = 40_000_000     # 4608 x 2592 is 12 Mpx; refuse absurd sizes before decoding them
MAX_SIDE = 12_000
MAX_FILE_BYTES = 256 * 2**20   # a 40 Mpx PNG is at most ~120 MB; anything bigger is not a photo
HEAD_BYTES = 64 * 1024        # read first; a phone photo's EXIF thumbnail can push the frame header past it
# libjpeg's warnings that mean the picture is not all there (it decodes what it can and greys the rest).
# "extraneous bytes before marker 0xd9" is left out: junk after the last scan, which some cameras write.
_DAMAGE = re.compile(r"Premature end of JPEG file|Corrupt JPEG data: (?!\d+ extraneous bytes before marker 0xd9)"
                     r".*|Bogus|Huffman|Invalid JPEG file structure")
_LIBJPEG_LINE = re.compile(r"^(Corrupt JPEG data|Premature end of JPEG file|Invalid SOS|Bogus|Warning:|"
                           r"Unsupported marker|Invalid JPEG file structure)")
_STDERR_LOCK = threading.Lock()


class _NeedMore(ImageError):
    """The bytes read so far end before the frame header."""


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
    raise _NeedMore("truncated JPEG: no frame header")


def check_header(data: bytes, name: str, *, complete: bool = True) -> tuple[int, int]:
    """Validate a JPEG or PNG byte string without decoding its pixels; returns (width, height).

    complete=False: `data` is only the start of the file, so the end-of-image marker is not looked for, and a
    JPEG whose frame header lies beyond it raises _NeedMore (an ImageError) so the caller reads on."""
    if len(data) == 0:
        raise ImageError(f"{name}: empty file")
    if data[:3] == b"\xff\xd8\xff":
        try:
            w, h, bits, comps = jpeg_header(data)
        except _NeedMore:
            if not complete:
                raise
            raise ImageError(f"{name}: truncated JPEG: no frame header") from None
        if comps == 1:
            raise ImageError(f"{name}: grayscale JPEG; need a colour photo")
        if comps != 3 or bits != 8:
            raise ImageError(f"{name}: JPEG with {comps} components of {bits} bits; need 8-bit colour")
        if complete and b"\xff\xd9" not in data[-64:]:
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
    """Decode JPEG/PNG bytes. Returns (H, W, 3) uint8 BGR; raises ImageError with the reason, also for a JPEG
    that decodes only in part ("damaged JPEG: Corrupt JPEG data: premature end of data segment")."""
    w, h = check_header(data, name)
    if data[:3] == b"\xff\xd8\xff":
        img, warnings = _decode_noting_libjpeg(np.frombuffer(data, np.uint8))
        damage = [line for line in warnings if _DAMAGE.search(line)]
        if damage:
            raise ImageError(f"{name}: damaged JPEG, only part of it decodes ({damage[0].strip()})")
    else:
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
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ImageError(f"{path}: {size / 2**20:.0f} MB is too large for a photo (at most "
                         f"{MAX_FILE_BYTES // 2**20} MB)")
    with open(path, "rb") as f:
        head = f.read(HEAD_BYTES)
        data = head + f.read() if len(head) == HEAD_BYTES else head
    if len(data) > len(head):
        try:
            check_header(head, str(path), complete=False)   # dims before decoding anything
        except _NeedMore:
            pass  # metadata (an EXIF thumbnail) before the frame header: decode_image checks the whole file
    return decode_image(data, str(path))


def _decode_noting_libjpeg(buf: np.ndarray) -> tuple[np.ndarray | None, list[str]]:
    """cv2.imdecode, with the warnings libjpeg writes to file descriptor 2 collected instead of printed.

    Other lines that reach descriptor 2 meanwhile (another thread's log) are passed on afterwards."""
    with _STDERR_LOCK:
        try:
            sys.stderr.flush()
            saved = os.dup(2)
        except (OSError, ValueError, AttributeError):
            return cv2.imdecode(buf, cv2.IMREAD_COLOR), []
        try:
            with tempfile.TemporaryFile() as tmp:
                os.dup2(tmp.fileno(), 2)
                try:
                    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
                finally:
                    os.dup2(saved, 2)
                tmp.seek(0)
                text = tmp.read().decode("utf-8", "replace")
        finally:
            os.close(saved)
    lines = text.splitlines()
    ours = [line for line in lines if _LIBJPEG_LINE.match(line)]
    others = [line for line in lines if not _LIBJPEG_LINE.match(line)]
    if others:
        os.write(2, ("\n".join(others) + "\n").encode())
    return img, ours


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
