"""Bad photos give a clear vision.ImageError; good ones decode to (H, W, 3) uint8 BGR."""
import struct
import zlib

import cv2
import numpy as np
import pytest

from vision import ImageError, check_array, read_image
from vision.image import MAX_PIXELS


def _jpeg(path, img, q=90):
    _, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    path.write_bytes(buf.tobytes())
    return path


def _photo(h=120, w=160):
    """A smooth colour gradient (JPEG keeps it close)."""
    yy, xx = np.mgrid[0:h, 0:w]
    return np.dstack([xx * 255 // w, yy * 255 // h, (xx + yy) * 127 // (h + w)]).astype(np.uint8)


def test_reads_colour_jpeg_and_png(tmp_path):
    img = _photo()
    got = read_image(_jpeg(tmp_path / "a.jpg", img, 100))
    assert got.shape == (120, 160, 3) and got.dtype == np.uint8
    assert np.abs(got.astype(int) - img).mean() < 4
    cv2.imwrite(str(tmp_path / "a.png"), img)
    assert np.array_equal(read_image(tmp_path / "a.png"), img)


@pytest.mark.parametrize("make, reason", [
    (lambda p: p, "no such file"),
    (lambda p: (p.write_bytes(b""), p)[1], "empty"),
    (lambda p: (p.write_text("hello, not a photo"), p)[1], "not a JPEG or PNG"),
])
def test_missing_empty_not_image(tmp_path, make, reason):
    with pytest.raises(ImageError, match=reason):
        read_image(make(tmp_path / "x.jpg"))


def test_directory_is_not_a_file(tmp_path):
    with pytest.raises(ImageError, match="not a file"):
        read_image(tmp_path)


def test_truncated_jpeg_and_png(tmp_path):
    data = _jpeg(tmp_path / "a.jpg", _photo()).read_bytes()
    (tmp_path / "t.jpg").write_bytes(data[: len(data) // 2])
    with pytest.raises(ImageError, match="truncated"):
        read_image(tmp_path / "t.jpg")
    cv2.imwrite(str(tmp_path / "a.png"), _photo())
    png = (tmp_path / "a.png").read_bytes()
    (tmp_path / "t.png").write_bytes(png[: len(png) // 2])
    with pytest.raises(ImageError, match="corrupt or truncated"):
        read_image(tmp_path / "t.png")


def test_grayscale_alpha_and_16_bit(tmp_path):
    gray = _photo()[..., 0]
    _jpeg(tmp_path / "g.jpg", gray)
    cv2.imwrite(str(tmp_path / "g.png"), gray)
    cv2.imwrite(str(tmp_path / "a.png"), np.dstack([_photo(), np.full((120, 160), 255, np.uint8)]))
    cv2.imwrite(str(tmp_path / "d.png"), _photo().astype(np.uint16) * 257)
    for name, reason in (("g.jpg", "grayscale"), ("g.png", "grayscale"), ("a.png", "alpha"), ("d.png", "16-bit")):
        with pytest.raises(ImageError, match=reason):
            read_image(tmp_path / name)


def _png_header_only(w, h):
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


def test_absurdly_large_refused_from_header(tmp_path):
    # 60000 x 60000 would need 10 GB decoded; the header alone must be enough to refuse it.
    (tmp_path / "big.png").write_bytes(_png_header_only(60000, 60000) + b"\0" * 100)
    with pytest.raises(ImageError, match="too large"):
        read_image(tmp_path / "big.png")
    data = bytearray(_jpeg(tmp_path / "a.jpg", _photo()).read_bytes())
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", 65000, 65000)
    (tmp_path / "big.jpg").write_bytes(bytes(data))
    with pytest.raises(ImageError, match="too large"):
        read_image(tmp_path / "big.jpg")


def test_check_array_reasons():
    ok = _photo()
    check_array(ok)
    for bad, reason in ((ok[..., 0], "grayscale"), (np.dstack([ok, ok[..., :1]]), "alpha"),
                        (ok.astype(np.uint16), "uint8"), (ok.astype(np.float32), "uint8"),
                        ([[1, 2, 3]], "numpy array"), (ok[:10, :10], "too small")):
        with pytest.raises(ImageError, match=reason):
            check_array(bad)
    assert MAX_PIXELS >= 4608 * 2592
