"""Other printings of the deck: the reference faces with the index redrawn in another typeface, weight, size and
ink, on white to cream stock, with other art behind the index strip, the art recoloured, and wear and fading.

Domain randomisation for the generator (models.synth renders whatever deck folder it is given), and held-out
printings to measure a printing the model never saw:

    python -m models.printings --seed 3 --out /tmp/printings/train-3             # a training printing
    python -m models.printings --seed 1 --holdout --out /tmp/printings/holdout-1  # styles never trained on
    python -m models.evaluate --faces /tmp/printings/holdout-1 --n 60 --seed 1000

Training printings draw their numerals with TRAIN_FONTS (Hershey, also slanted or with rounded strokes) or, half
of them, a TrueType face of TRAIN_TTF (DejaVu Sans, Sans Condensed, Sans Mono); from seed WIDE_FROM on three in
four draw a TrueType face, also of MORE_TTF (Roboto, Source Sans, Hanken Grotesk, Source Serif: font packages of
the train extra); from seed WIDER_FROM on four in five, half of them of WIDER_TTF (Lato, Manrope, Red Hat
Display, Fjalla One, Fredoka One, and matplotlib's STIX and Computer Modern), their digits also set wider or
tighter and their strokes thinned or thickened. Held-out printings draw only HOLDOUT_FONTS (Hershey Triplex,
Script Complex, italics), HOLDOUT_TTF (the DejaVu Serif family) or, from seed WIDE_FROM on, MORE_HOLDOUT_TTF (Caladea), with other pip
marks and strip art, so a held-out printing measures a typeface the model has not seen. A printing is a deck
folder like models/faces/ (deck.json, <ID>.png, back.png).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
from pathlib import Path

import cv2
import numpy as np

from models.synth import FACES_DIR

PX_PER_MM = 10.0
STRIP_MM = (1.2, 2.0, 12.8, 47.6)   # erased and redrawn: the reference index box with a margin, short of the art frame
TRAIN_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
               cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_COMPLEX_SMALL)
HOLDOUT_FONTS = (cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_TRIPLEX | cv2.FONT_ITALIC,
                 cv2.FONT_HERSHEY_COMPLEX | cv2.FONT_ITALIC, cv2.FONT_HERSHEY_SCRIPT_COMPLEX)
# TrueType faces (Pillow, the train extra; fonts-dejavu-core, on Raspberry Pi OS and Debian by default): the sans
# and mono families for training, the serif family held out. Where a file is missing the printing falls back to
# its Hershey font.
FONT_DIR = Path(os.environ.get("TAROKCAM_FONTS", "/usr/share/fonts/truetype/dejavu"))
TRAIN_TTF = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-ExtraLight.ttf", "DejaVuSans-Oblique.ttf",
             "DejaVuSans-BoldOblique.ttf", "DejaVuSansCondensed.ttf", "DejaVuSansCondensed-Bold.ttf",
             "DejaVuSansCondensed-Oblique.ttf", "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf",
             "DejaVuSansMono-Oblique.ttf", "DejaVuSansMono-BoldOblique.ttf")
HOLDOUT_TTF = ("DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif-Italic.ttf", "DejaVuSerifCondensed.ttf",
               "DejaVuSerifCondensed-Bold.ttf", "DejaVuSerifCondensed-BoldItalic.ttf")
# More families for training printings from seed WIDE_FROM on (older seeds draw as before): the font packages of
# the train extra (PyPI, SIL OFL / Apache), named "package:file". Roboto, Source Sans, Hanken Grotesk (sans),
# Source Serif (serif). Caladea (serif) is held out, drawn by held-out printings from seed WIDE_FROM on.
WIDE_FROM = 200


def _family(package: str, stem: str, styles: str, ext: str = "ttf") -> tuple[str, ...]:
    return tuple(f"{package}:{stem}-{w}.{ext}" for w in styles.split())


MORE_TTF = (_family("font_roboto", "Roboto", "Regular Bold Light Medium Black Italic BoldItalic Thin")
            + _family("font_source_sans_pro", "SourceSansPro", "Regular Bold Semibold Light It Black")
            + _family("font_hanken_grotesk", "HankenGrotesk", "Regular Bold SemiBold Light Italic", "otf")
            + _family("font_source_serif_pro", "SourceSerifPro",
                      "Regular Bold Semibold Light Black It BoldIt SemiboldIt"))
MORE_HOLDOUT_TTF = _family("font_caladea", "Caladea", "Regular Bold Italic BoldItalic")
# Still more from seed WIDER_FROM on (session 39): Lato (humanist sans), Manrope (geometric), Red Hat Display,
# Fjalla One (condensed), Fredoka One (rounded), and matplotlib's serifs (STIX, a Times-like face, and Computer
# Modern: roman, bold extended, sans, typewriter, italic); the numerals also tracked wider or tighter and their
# strokes thinned or thickened (`tracking`, `stroke_px`).
WIDER_TTF = (_family("font_lato", "Lato", "Regular Bold Light Black Thin Italic BoldItalic")
             + _family("font_manrope", "Manrope", "Regular Bold Light ExtraBold ExtraLight")
             + _family("font_rhd", "RedHatDisplay", "Regular Bold Light Black Italic MediumItalic")
             + ("font_fjallaone:FjallaOne-Regular.ttf", "font_fredoka_one:FredokaOne-Regular.ttf")
             + tuple(f"matplotlib:{f}.ttf" for f in ("STIXGeneral", "STIXGeneralBol", "STIXGeneralItalic",
                                                     "STIXGeneralBolIta", "cmr10", "cmb10", "cmss10", "cmtt10",
                                                     "cmti10")))
WIDER_FROM = 400
TRAIN_PIPS = ("star5", "dot", "diamond", "star6")
HOLDOUT_PIPS = ("star5", "ring", "square")
TRAIN_STRIPS = ("plain", "plain", "tint", "gradient", "dots")
HOLDOUT_STRIPS = ("plain", "hatch", "tint")
RED_SUITS = ("hearts", "diamonds")


def printing_style(seed: int, holdout: bool = False) -> dict:
    """The random choices of one printing (the same for every card of it)."""
    rng = np.random.default_rng(seed * 2 + (1 if holdout else 0))
    fonts, pips, strips = (HOLDOUT_FONTS, HOLDOUT_PIPS, HOLDOUT_STRIPS) if holdout else \
        (TRAIN_FONTS, TRAIN_PIPS, TRAIN_STRIPS)
    cream = rng.uniform(0, 1)                  # 0 white .. 1 deep cream
    stock = np.array([250 - 45 * cream, 250 - 18 * cream, 250 - 4 * cream]) + rng.uniform(-4, 4, 3)
    return {
        "seed": seed, "holdout": holdout,
        "font": int(fonts[rng.integers(len(fonts))]),
        "weight_mm": float(rng.uniform(0.35, 1.1)),
        "numeral_mm": float(rng.uniform(5.2, 7.8)),
        "numeral_top_mm": float(rng.uniform(2.7, 4.2)),
        "narrow": float(rng.uniform(0.75, 1.1)),     # horizontal squeeze of the numerals
        "align": str(rng.choice(["centre", "left"], p=[0.7, 0.3])),
        "stock": stock.clip(0, 255).tolist(),
        "ink": (np.array([20, 20, 25]) + rng.uniform(0, 60, 3) * rng.uniform(0, 1)).tolist(),
        "red": [float(rng.uniform(10, 70)), float(rng.uniform(10, 60)), float(rng.uniform(150, 225))],
        "sign_mm": float(rng.uniform(4.0, 6.5)),
        "sign_gap_mm": float(rng.uniform(1.0, 2.8)),
        "sun": str(rng.choice(["rays", "disc", "star"])),
        "pip": str(pips[rng.integers(len(pips))]),
        "pip_mm": float(rng.uniform(2.8, 4.6)),
        "pip_gap_mm": float(rng.uniform(4.3, 6.0)),
        "pip_ink": str(rng.choice(["gold", "ink", "red", "blue"], p=[0.5, 0.25, 0.1, 0.15])),
        "strip": str(strips[rng.integers(len(strips))]),
        "strip_colour": rng.uniform(150, 250, 3).tolist(),
        "hue_shift": float(rng.uniform(0, 180) if rng.random() < 0.6 else 0.0),
        "saturation": float(rng.uniform(0.6, 1.3)),
        "fade": float(rng.uniform(0, 0.3)),
        "wear": float(rng.uniform(0, 1)),
        "blur_px": float(rng.uniform(0, 0.9)),
        "jitter_mm": float(rng.uniform(0, 0.35)),
    } | _glyph_style(rng, holdout, seed)


def _glyph_style(rng: np.random.Generator, holdout: bool, seed: int) -> dict:
    """More typefaces for training printings: a TrueType face for half of them (three in four, from more
    families, from seed WIDE_FROM on; four in five from WIDER_FROM on, half of those of WIDER_TTF, the digits
    tracked and weighted), and the numerals slanted or with rounded, bolder strokes. Drawn after the
    other choices, so a seed's other choices stay as they were; held-out printings are neither slanted nor
    rounded (their italics are the font's)."""
    slant = float(rng.uniform(-0.12, 0.3)) if rng.random() < 0.4 else 0.0
    rounded = float(rng.uniform(0.6, 2.5)) if rng.random() < 0.35 else 0.0
    use_ttf, k = rng.random(), int(rng.integers(1 << 30))
    wide = seed >= WIDE_FROM      # three printings in four in a TrueType face, from every family
    wider = _wider(seed, holdout)
    faces = (HOLDOUT_TTF + MORE_HOLDOUT_TTF if wide else HOLDOUT_TTF) if holdout else (
        TRAIN_TTF + MORE_TTF + WIDER_TTF if wider else TRAIN_TTF + MORE_TTF if wide else TRAIN_TTF)
    if wider and use_ttf < 0.4:     # half the TrueType printings from the newest families
        faces = WIDER_TTF
    ttf = faces[k % len(faces)] if use_ttf < (0.8 if wider else 0.75 if wide else 0.5) else ""
    if holdout:   # held-out printings 1 and 2 predate the TrueType faces and stay Hershey (Triplex, Script)
        return {"slant": 0.0, "rounded_px": 0.0, "ttf": ttf if seed > 2 else ""}
    more = {}
    if wider:     # drawn last, so the choices above stay as an older seed's would be
        more = {"tracking": float(rng.uniform(-0.08, 0.2)) if rng.random() < 0.6 else 0.0,
                "stroke_px": float(rng.uniform(-5, 7)) if rng.random() < 0.6 else 0.0}
    return {"slant": slant, "rounded_px": rounded, "ttf": ttf} | more


def _wider(seed: int, holdout: bool) -> bool:
    """Whether a printing is a training one from seed WIDER_FROM on (tracked and weighted numerals)."""
    return seed >= WIDER_FROM and not holdout


def font_path(name: str) -> Path:
    """A TrueType face's file: "package:file" from that font package's files/ folder, else under FONT_DIR."""
    if ":" not in name:
        return FONT_DIR / name
    import importlib.util

    package, file = name.split(":", 1)
    folder = "mpl-data/fonts/ttf" if package == "matplotlib" else "files"     # matplotlib keeps its own
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return Path(package) / folder / file        # not installed: no such file, so the Hershey font is drawn
    return Path(spec.submodule_search_locations[0]) / folder / file


# ---------------------------------------------------------------- drawing

def _px(v_mm: float) -> float:
    return v_mm * PX_PER_MM


def _star(cx: float, cy: float, r: float, points: int) -> np.ndarray:
    ang = np.arange(2 * points) * math.pi / points - math.pi / 2
    rad = np.where(np.arange(2 * points) % 2 == 0, r, r * (0.42 if points == 5 else 0.55))
    return np.stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)], 1)


def _poly(img: np.ndarray, pts: np.ndarray, colour, outline=None, thick: int = 2) -> None:
    p = np.round(pts * 16).astype(np.int32)
    cv2.fillPoly(img, [p], colour, cv2.LINE_AA, 4)
    if outline is not None:
        cv2.polylines(img, [p], True, outline, thick, cv2.LINE_AA, 4)


def _circle(img: np.ndarray, cx: float, cy: float, r: float, colour, thick: int = -1) -> None:
    cv2.circle(img, (round(cx * 16), round(cy * 16)), round(r * 16), colour, thick, cv2.LINE_AA, 4)


def _suit_sign(img: np.ndarray, kind: str, cx: float, cy: float, size: float, colour, style: dict) -> None:
    """A suit sign of height `size` px centred at (cx, cy) on the strip image."""
    s = size / 2
    if kind == "hearts":
        _circle(img, cx - 0.48 * s, cy - 0.35 * s, 0.52 * s, colour)
        _circle(img, cx + 0.48 * s, cy - 0.35 * s, 0.52 * s, colour)
        _poly(img, np.array([[cx - s, cy - 0.25 * s], [cx + s, cy - 0.25 * s], [cx, cy + s]]), colour)
    elif kind == "diamonds":
        _poly(img, np.array([[cx, cy - s], [cx + 0.68 * s, cy], [cx, cy + s], [cx - 0.68 * s, cy]]), colour)
    elif kind == "spades":
        _circle(img, cx - 0.45 * s, cy + 0.2 * s, 0.48 * s, colour)
        _circle(img, cx + 0.45 * s, cy + 0.2 * s, 0.48 * s, colour)
        _poly(img, np.array([[cx - 0.92 * s, cy + 0.1 * s], [cx + 0.92 * s, cy + 0.1 * s], [cx, cy - s]]), colour)
        _poly(img, np.array([[cx, cy + 0.2 * s], [cx + 0.3 * s, cy + s], [cx - 0.3 * s, cy + s]]), colour)
    elif kind == "clubs":
        for dx, dy in ((0, -0.45), (-0.5, 0.15), (0.5, 0.15)):
            _circle(img, cx + dx * s, cy + dy * s, 0.42 * s, colour)
        _poly(img, np.array([[cx, cy], [cx + 0.3 * s, cy + s], [cx - 0.3 * s, cy + s]]), colour)
    elif kind == "skus":                                       # a crown
        base = np.array([[cx - s, cy + 0.6 * s], [cx + s, cy + 0.6 * s], [cx + s, cy - 0.5 * s],
                         [cx + 0.5 * s, cy + 0.05 * s], [cx, cy - 0.8 * s], [cx - 0.5 * s, cy + 0.05 * s],
                         [cx - s, cy - 0.5 * s]])
        _poly(img, base, colour)
        for dx, dy in ((-1, -0.6), (0, -0.9), (1, -0.6)):
            _circle(img, cx + dx * s, cy + dy * s, 0.14 * s, colour)
    else:                                                      # tarok: a sun
        if style["sun"] == "star":
            _poly(img, _star(cx, cy, s, 8), colour)
        else:
            _circle(img, cx, cy, 0.45 * s, colour)
            if style["sun"] == "rays":
                for k in range(12):
                    a = k * math.pi / 6
                    p0 = (cx + 0.6 * s * math.cos(a), cy + 0.6 * s * math.sin(a))
                    p1 = (cx + s * math.cos(a), cy + s * math.sin(a))
                    cv2.line(img, (round(p0[0] * 16), round(p0[1] * 16)), (round(p1[0] * 16), round(p1[1] * 16)),
                             colour, max(1, round(0.08 * s)), cv2.LINE_AA, 4)


def _pip(img: np.ndarray, kind: str, cx: float, cy: float, r: float, colour, outline) -> None:
    if kind == "star5":
        _poly(img, _star(cx, cy, r, 5), colour, outline, 1)
    elif kind == "star6":
        _poly(img, _star(cx, cy, r, 6), colour, outline, 1)
    elif kind == "dot":
        _circle(img, cx, cy, 0.75 * r, colour)
    elif kind == "diamond":
        _poly(img, np.array([[cx, cy - r], [cx + 0.7 * r, cy], [cx, cy + r], [cx - 0.7 * r, cy]]), colour, outline, 1)
    elif kind == "ring":
        _circle(img, cx, cy, 0.75 * r, colour, max(2, round(0.25 * r)))
    else:                                                      # square
        _poly(img, np.array([[cx - 0.65 * r, cy - 0.65 * r], [cx + 0.65 * r, cy - 0.65 * r],
                             [cx + 0.65 * r, cy + 0.65 * r], [cx - 0.65 * r, cy + 0.65 * r]]), colour, outline, 1)


_FONTS: dict = {}     # font path -> ImageFont, or None where it cannot be loaded


def _ttf_glyph(text: str, style: dict) -> np.ndarray | None:
    """The numeral in the printing's TrueType face, white on black, cut to its ink and scaled to the printing's
    numeral height; None where Pillow or the font file is missing (the caller draws the Hershey font)."""
    path = font_path(style["ttf"])
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        Image = None
    if path not in _FONTS:
        _FONTS[path] = None
        if Image is None or not path.is_file():     # (Pillow would look a bare name up in the system's fonts)
            print(f"printings: {path} cannot be drawn (no Pillow or no file); drawing the Hershey font instead",
                  file=sys.stderr)
        else:
            _FONTS[path] = ImageFont.truetype(str(path), 160)
    font = _FONTS[path]
    if font is None:
        return None
    img = Image.new("L", (200 * (len(text) + 1), 260), 0)
    draw, x, track = ImageDraw.Draw(img), 40.0, style.get("tracking", 0.0) * 160
    if track:       # each digit set by itself, the gap between them wider or tighter than the face's
        for ch in text:
            draw.text((x, 30), ch, fill=255, font=font)
            x += font.getlength(ch) + track
    else:
        draw.text((x, 30), text, fill=255, font=font)
    glyph = np.asarray(img)
    if style.get("stroke_px"):      # a lighter or heavier weight of the face (at 160 px a stroke is 15-25 px)
        r = abs(style["stroke_px"])
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(r) + 1, 2 * round(r) + 1))
        changed = (cv2.dilate if style["stroke_px"] > 0 else cv2.erode)(glyph, kernel)
        if (changed > 40).sum() >= 0.4 * (glyph > 40).sum():     # a light face is not thinned away
            glyph = changed
    ys, xs = np.nonzero(glyph > 40)
    glyph = glyph[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h = max(4, round(_px(style["numeral_mm"])))
    pad = max(2, round(_px(style["weight_mm"]) / 2)) + 4
    glyph = cv2.resize(glyph, (max(1, round(glyph.shape[1] * h / glyph.shape[0])), h), interpolation=cv2.INTER_AREA)
    return cv2.copyMakeBorder(glyph, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)


def _numeral(card: dict) -> str:
    if card["id"] == "SKUS":
        return "S"
    return str(card["rank"])


def draw_strip(card: dict, style: dict, stock: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The index strip of one card, upright: (h, w, 3) uint8 BGR covering STRIP_MM at 10 px/mm."""
    x0, y0, x1, y1 = STRIP_MM
    w, h = round(_px(x1 - x0)), round(_px(y1 - y0))
    img = np.empty((h, w, 3), np.uint8)
    img[:] = np.round(stock).astype(np.uint8)
    strip, colour = style["strip"], np.array(style["strip_colour"])
    tint = tuple(float(v) for v in (0.75 * stock + 0.25 * colour))
    if strip == "tint":
        img[:] = np.round(tint).astype(np.uint8)
    elif strip == "gradient":
        t = np.linspace(0, 1, h)[:, None, None]
        img[:] = np.round(stock * (1 - 0.35 * t) + colour * 0.35 * t).astype(np.uint8)
    elif strip == "dots":
        for yy in range(6, h, 14):
            for xx in range(6 + (yy // 14 % 2) * 7, w, 14):
                _circle(img, xx, yy, 2.2, tint)
    elif strip == "hatch":
        for k in range(-h, w + h, 12):
            cv2.line(img, (k, 0), (k + h, h), tint, 3, cv2.LINE_AA)
    jx, jy = rng.normal(0, style["jitter_mm"], 2) * PX_PER_MM
    suit = card["suit"] or ("skus" if card["id"] == "SKUS" else "tarok")
    ink = tuple(float(v) for v in (style["red"] if suit in RED_SUITS else style["ink"]))
    # the numeral: scale the Hershey glyphs to the printing's height, squeeze to fit the strip's width
    text = _numeral(card)
    glyph = _ttf_glyph(text, style) if style.get("ttf") else None
    if glyph is None:
        font, thick = style["font"], max(1, round(_px(style["weight_mm"])))
        (tw, th), _ = cv2.getTextSize(text, font, 1.0, thick)
        scale = _px(style["numeral_mm"]) / max(th, 1)
        glyph = np.zeros((round(th * scale * 1.6) + 2 * thick + 8, round(tw * scale) + 2 * thick + 8), np.uint8)
        base_y = round(th * scale) + thick + 4
        cv2.putText(glyph, text, (thick + 4, base_y), font, scale, 255, thick, cv2.LINE_AA)
    if style.get("slant"):                                    # an oblique cut: x moves right as y rises
        sl, gh0 = style["slant"], glyph.shape[0]
        pad = math.ceil(abs(sl) * gh0)
        m = np.float32([[1, -sl, pad if sl > 0 else 0], [0, 1, 0]])
        glyph = cv2.warpAffine(glyph, m, (glyph.shape[1] + pad, gh0), flags=cv2.INTER_LINEAR)
    if style.get("rounded_px"):                               # soft, rounded stroke ends and joins
        soft = cv2.GaussianBlur(glyph.astype(np.float32), (0, 0), style["rounded_px"])
        soft = np.clip((soft - 70) * 2.5, 0, 255).astype(np.uint8)
        # a thin face is not rounded away (older seeds' printings are drawn as they were: kept if anything shows)
        keep = 0.4 if _wider(style.get("seed", 0), style.get("holdout", False)) else 0.0
        if (soft > 0).sum() >= max(1, keep * (glyph > 0).sum()):
            glyph = soft
    ys, xs = np.nonzero(glyph)
    glyph = glyph[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    gh, gw = glyph.shape
    fit = min(style["narrow"], (w - 6) / gw)
    glyph = cv2.resize(glyph, (max(1, round(gw * fit)), gh), interpolation=cv2.INTER_AREA)
    gh, gw = glyph.shape
    top = round(_px(style["numeral_top_mm"] - y0) + jy)
    left = round((w - gw) / 2 + jx) if style["align"] == "centre" else round(3 + abs(jx))
    top, left = int(np.clip(top, 0, h - gh)), int(np.clip(left, 0, w - gw))
    a = glyph.astype(np.float32)[..., None] / 255
    region = img[top:top + gh, left:left + gw].astype(np.float32)
    img[top:top + gh, left:left + gw] = np.round(region * (1 - a) + np.array(ink) * a).astype(np.uint8)
    # the suit sign below it
    size = _px(style["sign_mm"])
    cy = top + gh + _px(style["sign_gap_mm"]) + size / 2
    cx = w / 2 + jx if style["align"] == "centre" else 3 + size / 2 + abs(jx)
    _suit_sign(img, suit, cx, cy, size, ink, style)
    # the pip marks (Card Point value) in a column below
    if card["pips"]:
        pip_ink = {"gold": (40.0, 165.0, 215.0), "ink": ink, "red": tuple(style["red"]),
                   "blue": (150.0, 70.0, 30.0)}[style["pip_ink"]]
        r = _px(style["pip_mm"]) / 2
        y = cy + size / 2 + _px(2.0) + r
        for _ in range(int(card["pips"])):
            if y + r > h - 2:
                break
            _pip(img, style["pip"], w / 2 + jx * 0.5, y, r, pip_ink, tuple(float(v) * 0.5 for v in ink))
            y += _px(style["pip_gap_mm"])
    return img


def _recolour(face: np.ndarray, style: dict) -> np.ndarray:
    """Whole face: stock colour, art hue and saturation, fading. (H, W, 4) uint8 BGRA in and out."""
    bgr = face[..., :3].astype(np.float32)
    if style["hue_shift"] or style["saturation"] != 1.0:
        hsv = cv2.cvtColor(bgr / 255, cv2.COLOR_BGR2HSV)
        # Only coloured art turns: the near-grey stock would go pink or green under a hue turn.
        coloured = np.clip((hsv[..., 1:2] - 0.15) / 0.2, 0, 1)
        hsv[..., 0] = (hsv[..., 0] + style["hue_shift"] * 2) % 360
        hsv[..., 1] = np.clip(hsv[..., 1] * style["saturation"], 0, 1)
        bgr = bgr * (1 - coloured) + cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR) * 255 * coloured
    ref_stock = np.array([227.0, 241.0, 247.0])               # models/faces' card stock
    bgr = bgr * (np.array(style["stock"]) / ref_stock)
    bgr = bgr * (1 - style["fade"]) + np.array(style["stock"]) * style["fade"]
    return np.dstack([np.clip(bgr, 0, 255).astype(np.uint8), face[..., 3]])


def _wear(face: np.ndarray, style: dict, rng: np.random.Generator) -> np.ndarray:
    """Scuffs (ink rubbed off in small specks), grime near the edges, and print softness."""
    bgr = face[..., :3].astype(np.float32)
    h, w = bgr.shape[:2]
    stock = np.array(style["stock"], np.float32)
    if style["wear"] > 0.3:
        n = int(style["wear"] * 400)
        specks = np.zeros((h, w), np.float32)
        for _ in range(n):
            cv2.circle(specks, (int(rng.integers(w)), int(rng.integers(h))), int(rng.integers(1, 4)), 1.0, -1)
        specks = cv2.GaussianBlur(specks, (0, 0), 1.0)[..., None] * 0.7
        bgr = bgr * (1 - specks) + stock * specks
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        edge = np.minimum(np.minimum(xs, w - 1 - xs), np.minimum(ys, h - 1 - ys))
        grime = np.exp(-edge / 25.0)[..., None] * 0.25 * style["wear"]
        bgr = bgr * (1 - grime) + np.array([90, 100, 110], np.float32) * grime
    if style["blur_px"] > 0.2:
        bgr = cv2.GaussianBlur(bgr, (0, 0), style["blur_px"])
    return np.dstack([np.clip(bgr, 0, 255).astype(np.uint8), face[..., 3]])


def render_face(face: np.ndarray, card: dict, style: dict, rng: np.random.Generator) -> np.ndarray:
    """One card of the printing. face: (1120, 600, 4) uint8 BGRA reference face; returns the same shape."""
    out = _recolour(face, style)
    strip = draw_strip(card, style, np.array(style["stock"]) * (1 - style["fade"]) +
                       np.array(style["stock"]) * style["fade"], rng)
    x0, y0 = round(_px(STRIP_MM[0])), round(_px(STRIP_MM[1]))
    sh, sw = strip.shape[:2]
    out[y0:y0 + sh, x0:x0 + sw, :3] = strip
    # the same index turned 180 degrees at the bottom-right
    h, w = out.shape[:2]
    out[h - y0 - sh:h - y0, w - x0 - sw:w - x0, :3] = strip[::-1, ::-1]
    return _wear(out, style, rng)


def write_printing(out: Path, seed: int, holdout: bool = False, faces_dir: Path = FACES_DIR) -> dict:
    """Write a whole printing (deck.json, 54 faces, back.png) to `out`; returns its style."""
    style = printing_style(seed, holdout)
    rng = np.random.default_rng(seed + 7919)
    deck = json.loads((faces_dir / "deck.json").read_text())
    out.mkdir(parents=True, exist_ok=True)
    for card in deck["cards"]:
        face = cv2.imread(str(faces_dir / f"{card['id']}.png"), cv2.IMREAD_UNCHANGED)
        cv2.imwrite(str(out / f"{card['id']}.png"), render_face(face, card, style, rng))
    back = cv2.imread(str(faces_dir / "back.png"), cv2.IMREAD_UNCHANGED)
    cv2.imwrite(str(out / "back.png"), _recolour(back, {**style, "stock": [227.0, 241.0, 247.0]}))
    deck["name"] = f"printing {seed}{' (held out)' if holdout else ''} of {deck.get('name', 'the deck')}"
    deck["printing"] = style
    (out / "deck.json").write_text(json.dumps(deck, indent=1) + "\n")
    return style


def contact_sheet(folder: Path, ids=("T1", "T21", "SKUS", "HK", "DQ", "CJ", "S10", "C7")) -> np.ndarray:
    """(560, 300 * len(ids), 3) uint8 BGR: some faces of a printing side by side, half size."""
    faces = [cv2.imread(str(folder / f"{i}.png"), cv2.IMREAD_COLOR) for i in ids]
    return cv2.resize(np.concatenate(faces, 1), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--holdout", action="store_true", help="use only the held-out typefaces, pips and strip art")
    ap.add_argument("--faces", type=Path, default=FACES_DIR, help="the reference faces to reprint")
    ap.add_argument("--sheet", type=Path, default=None, help="also write a contact sheet (PNG)")
    ap.add_argument("--force", action="store_true", help="replace an existing folder")
    args = ap.parse_args(argv)
    if args.out.exists() and any(args.out.iterdir()):
        if not args.force:
            print(f"{args.out} exists; --force to replace it")
            return 2
        shutil.rmtree(args.out)
    style = write_printing(args.out, args.seed, args.holdout, args.faces)
    if args.sheet:
        cv2.imwrite(str(args.sheet), contact_sheet(args.out))
    print(f"wrote {args.out}: font {style['font']}, pips {style['pip']}, strip {style['strip']}, "
          f"stock {[round(v) for v in style['stock']]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
