"""The photo header's limits, EXIF before the frame, and half-decodable JPEGs (issue 16)."""
from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np
import pytest

from vision import ImageError, decode_image, read_image
from vision.image import MAX_PIXELS, MAX_SIDE, check_header


def png_header(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))


def jpeg_header(w: int, h: int) -> bytes:
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, h, w, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    return b"\xff\xd8" + sof + b"\xff\xd9"


def photo(h: int = 480, w: int = 640) -> np.ndarray:
    rng = np.random.default_rng(7)
    return cv2.GaussianBlur((rng.random((h, w, 3)) * 255).astype(np.uint8), (15, 15), 5)


def jpeg(img: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()


# Each limit on its own: a check with `and` between them, or with either one dropped, lets one of these in.
side = MAX_SIDE + 1
TOO_MANY_PIXELS = (MAX_PIXELS // (MAX_SIDE // 2) + 1, MAX_SIDE // 2)  # both sides fine, pixels over
TOO_LONG_A_SIDE = [(side, 64), (64, side)]  # pixels fine, one side over
AT_THE_LIMITS = [(MAX_SIDE, MAX_PIXELS // MAX_SIDE), (MAX_PIXELS // MAX_SIDE, MAX_SIDE)]


@pytest.mark.parametrize("make", [png_header, jpeg_header], ids=["png", "jpeg"])
@pytest.mark.parametrize("w, h", [TOO_MANY_PIXELS, TOO_MANY_PIXELS[::-1], *TOO_LONG_A_SIDE])
def test_either_limit_alone_refuses_the_header(make, w, h):
    assert max(w, h) <= MAX_SIDE or w * h <= MAX_PIXELS  # only one limit is broken
    with pytest.raises(ImageError, match="too large"):
        check_header(make(w, h), "x")


@pytest.mark.parametrize("make", [png_header, jpeg_header], ids=["png", "jpeg"])
@pytest.mark.parametrize("w, h", [*AT_THE_LIMITS, (4608, 2592)])
def test_sizes_within_both_limits_pass_the_header(make, w, h):
    assert check_header(make(w, h), "x") == (w, h)


def test_a_jpeg_with_more_than_64_kb_of_metadata_before_the_frame_reads(tmp_path):
    data = jpeg(photo())
    app1 = b"Exif\x00\x00" + bytes(65000)  # one APPn segment is at most 64 KB; a phone writes two or more
    segment = b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1
    big = data[:2] + segment + segment + data[2:]
    assert big.index(b"\xff\xc0") > 64 * 1024
    (tmp_path / "phone.jpg").write_bytes(big)
    img = read_image(tmp_path / "phone.jpg")
    assert img.shape == (480, 640, 3)


def damaged_ways(data: bytes) -> dict[str, bytes]:
    n = len(data)
    zeros = bytearray(data)
    zeros[n // 2:n // 2 + 2000] = bytes(2000)
    flips = bytearray(data)
    for k in range(20):
        flips[n // 3 + 97 * k] ^= 0x55
    return {"cut, end marker added": data[: n // 2] + b"\xff\xd9", "zeros in the middle": bytes(zeros),
            "bit flips": bytes(flips)}


@pytest.mark.parametrize("how", ["cut, end marker added", "zeros in the middle", "bit flips"])
def test_a_half_decodable_jpeg_is_reported_as_damaged(tmp_path, how):
    bad = damaged_ways(jpeg(photo()))[how]
    assert cv2.imdecode(np.frombuffer(bad, np.uint8), cv2.IMREAD_COLOR) is not None  # libjpeg decodes part
    with pytest.raises(ImageError, match="damaged JPEG"):
        decode_image(bad, "pile.jpg")
    (tmp_path / "pile.jpg").write_bytes(bad)
    with pytest.raises(ImageError, match="damaged JPEG"):
        read_image(tmp_path / "pile.jpg")


def test_a_good_jpeg_decodes_and_other_stderr_output_is_kept(capfd):
    img = decode_image(jpeg(photo()), "good.jpg")
    assert img.shape == (480, 640, 3)
    assert capfd.readouterr().err == ""
