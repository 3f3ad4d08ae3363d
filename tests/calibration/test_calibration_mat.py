"""The printable mat: geometry, markers, and the PNG/PDF files."""
from __future__ import annotations

import re
import struct
import zlib

import numpy as np
import pytest

from calibration import (
    calibrate_from_image,
    detect_markers,
    layout_for,
    render_mat,
    write_mat_pdf,
    write_mat_png,
)


@pytest.mark.parametrize("paper,dpi,shape", [("A4", 150, (1240, 1754, 3)), ("A3", 100, (1169, 1654, 3))])
def test_render_size_and_markers(paper, dpi, shape):
    image = render_mat(paper, dpi)
    assert image.shape == shape and image.dtype == np.uint8
    found = detect_markers(image)
    lay = layout_for(paper)
    assert sorted(found) == list(lay.marker_ids)
    s = dpi / 25.4
    for marker_id, corners_mm in lay.marker_corners().items():
        assert np.abs(found[marker_id] - (corners_mm * s - 0.5)).max() < 1.0


def test_side_areas_split_the_play_area():
    lay = layout_for("A3")
    (x0, y0), _, (x1, y1), _ = lay.play_area
    dec, dfn = lay.sides["declarer"], lay.sides["defenders"]
    assert dec[0] == (x0, y0) and dfn[2] == (x1, y1) and dec[1] == dfn[0]
    m = lay.margin + lay.marker
    assert m < x0 < x1 < lay.width - m and m < y0 < y1 < lay.height - m  # markers stay off the play area


def test_rendered_mat_calibrates_to_itself():
    image = render_mat("A4", 120)
    _, report = calibrate_from_image(image)
    assert report.fit_rms_mm < 0.2
    assert report.photo_px_per_mm == pytest.approx(120 / 25.4, rel=0.01)


def test_png_carries_dpi(tmp_path):
    path = write_mat_png(render_mat("A4", 100), tmp_path / "mat.png", 100)
    data = path.read_bytes()
    at = data.index(b"pHYs")
    ppm_x, ppm_y, unit = struct.unpack(">IIB", data[at + 4:at + 13])
    assert (ppm_x, ppm_y, unit) == (3937, 3937, 1)
    assert zlib.crc32(data[at:at + 13]) == struct.unpack(">I", data[at + 13:at + 17])[0]


def test_pdf_structure_and_image(tmp_path):
    image = render_mat("A4", 60)
    data = write_mat_pdf(image, tmp_path / "mat.pdf", "A4", 60).read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    xref_at = int(re.search(rb"startxref\n(\d+)", data).group(1))
    assert data[xref_at:xref_at + 4] == b"xref"
    offsets = [int(m) for m in re.findall(rb"(\d{10}) 00000 n", data)]
    for number, offset in enumerate(offsets, start=1):
        assert data[offset:].startswith(f"{number} 0 obj".encode())
    media = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
    assert float(media.group(1)) == pytest.approx(297 / 25.4 * 72, abs=0.01)
    assert float(media.group(2)) == pytest.approx(210 / 25.4 * 72, abs=0.01)
    m = re.search(rb"/Width (\d+) /Height (\d+) .*?/Length (\d+) >>\nstream\n", data)
    w, h, length = (int(g) for g in m.groups())
    pixels = zlib.decompress(data[m.end():m.end() + length])
    rgb = np.frombuffer(pixels, np.uint8).reshape(h, w, 3)
    assert (w, h) == (image.shape[1], image.shape[0])
    assert np.array_equal(rgb, image[..., ::-1])


def test_bad_paper_and_dpi():
    with pytest.raises(ValueError, match="unknown paper 'A5'"):
        render_mat("A5", 150)
    with pytest.raises(ValueError, match="dpi"):
        render_mat("A4", 10)
