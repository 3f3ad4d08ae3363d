"""Other printings of the deck (models/printings.py): the index redrawn in another typeface, ink and stock, the
BR index the TL one turned, held-out styles kept apart from training styles, and a folder the generator loads;
the fine-tune path (`models.train --finetune --faces`) and the release check (`models.evaluate`)."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from models import printings
from models.synth import FACES_DIR, Deck

CARDS = {c["id"]: c for c in json.loads((FACES_DIR / "deck.json").read_text())["cards"]}


def _strip_px():
    x0, y0, x1, y1 = (round(v * 10) for v in printings.STRIP_MM)
    return x0, y0, x1, y1


def test_held_out_styles_are_never_drawn_for_training():
    assert not set(printings.HOLDOUT_FONTS) & set(printings.TRAIN_FONTS)
    train = {printings.printing_style(s)["font"] for s in range(60)}
    held = {printings.printing_style(s, holdout=True)["font"] for s in range(60)}
    assert train <= set(printings.TRAIN_FONTS) and held <= set(printings.HOLDOUT_FONTS)
    assert len(train) >= 4 and len(held) >= 3                  # the seeds do spread over the families
    assert {printings.printing_style(s, True)["pip"] for s in range(60)} <= set(printings.HOLDOUT_PIPS)
    assert printings.printing_style(4) == printings.printing_style(4)      # a seed is one printing


def test_a_reprinted_face_has_a_new_index_and_keeps_the_rest():
    face = cv2.imread(str(FACES_DIR / "HK.png"), cv2.IMREAD_UNCHANGED)
    style = printings.printing_style(3) | {"hue_shift": 0.0, "saturation": 1.0, "fade": 0.0, "wear": 0.0,
                                           "blur_px": 0.0, "stock": [227.0, 241.0, 247.0]}
    out = printings.render_face(face, CARDS["HK"], style, np.random.default_rng(0))
    assert out.shape == face.shape and out.dtype == np.uint8
    assert np.array_equal(out[..., 3], face[..., 3])            # same card outline
    x0, y0, x1, y1 = _strip_px()
    tl = out[y0:y1, x0:x1, :3].astype(int)
    assert np.abs(tl - face[y0:y1, x0:x1, :3]).mean() > 5       # the index strip is redrawn
    art = (slice(300, 800), slice(200, 400))
    assert np.abs(out[art][..., :3].astype(int) - face[art][..., :3]).max() <= 1   # the art is untouched here
    br = out[1120 - y1:1120 - y0, 600 - x1:600 - x0, :3].astype(int)
    assert np.array_equal(br, tl[::-1, ::-1])                   # the second index is the first turned round
    red = (tl[..., 2] > tl[..., 1] + 60).sum()
    assert red > 500                                            # a Heart's numeral and sign are in red ink


def test_strips_differ_between_typefaces_and_name_their_card():
    stock = np.array([240.0, 240.0, 240.0])
    a, b = (printings.printing_style(s) for s in (1, 2))
    b["font"] = next(f for f in printings.TRAIN_FONTS if f != a["font"])
    sa = printings.draw_strip(CARDS["T17"], a, stock, np.random.default_rng(0))
    sb = printings.draw_strip(CARDS["T17"], b, stock, np.random.default_rng(0))
    assert np.abs(sa.astype(int) - sb).mean() > 3
    t1 = printings.draw_strip(CARDS["T1"], a, stock, np.random.default_rng(0))
    assert np.abs(sa.astype(int) - t1).mean() > 1               # 17 and 1 are told apart in the same printing
    # pips: a King's strip carries four marks, a 1 of Diamonds none: more ink below the sign
    lower = slice(200, None)
    ink = lambda s: (np.abs(s[lower].astype(int) - stock).sum(axis=2) > 60).sum()
    assert ink(printings.draw_strip(CARDS["CK"], a, stock, np.random.default_rng(0))) > \
        ink(printings.draw_strip(CARDS["D1"], a, stock, np.random.default_rng(0))) + 200


def test_training_printings_also_slant_and_round_their_numerals_and_held_out_ones_do_not():
    train = [printings.printing_style(s) for s in range(60)]
    assert sum(t["slant"] != 0 for t in train) >= 10 and sum(t["rounded_px"] > 0 for t in train) >= 10
    assert all(printings.printing_style(s, True)["slant"] == 0 == printings.printing_style(s, True)["rounded_px"]
               for s in range(60))
    stock = np.array([240.0, 240.0, 240.0])
    base = printings.printing_style(3) | {"slant": 0.0, "rounded_px": 0.0, "jitter_mm": 0.0, "align": "centre",
                                          "numeral_mm": 7.0, "narrow": 1.0}

    def numeral_ink(style):
        strip = printings.draw_strip(CARDS["T11"], style, stock, np.random.default_rng(0))
        top = round((style["numeral_top_mm"] - printings.STRIP_MM[1]) * 10)
        ink = np.abs(strip[:top + 60].astype(int) - stock).sum(axis=2) > 150
        return np.nonzero(ink)

    ys, xs = numeral_ink(base)
    ys2, xs2 = numeral_ink(base | {"slant": 0.3})
    lean = lambda y, x: x[y < np.median(y)].mean() - x[y > np.median(y)].mean()    # top half right of bottom half
    assert lean(ys2, xs2) > lean(ys, xs) + 5
    ys3, _ = numeral_ink(base | {"rounded_px": 2.0})
    assert len(ys3) != len(ys) and abs(len(ys3) - len(ys)) < 0.6 * len(ys)        # another stroke, same numeral


def test_later_training_printings_draw_from_every_family_and_keep_caladea_out():
    assert not set(printings.MORE_TTF) & set(printings.MORE_HOLDOUT_TTF)
    assert not {n.split(":")[0] for n in printings.MORE_TTF} & {n.split(":")[0] for n in printings.MORE_HOLDOUT_TTF}
    wide = [printings.printing_style(s)["ttf"] for s in range(printings.WIDE_FROM, printings.WIDE_FROM + 80)]
    assert set(wide) - {""} <= set(printings.TRAIN_TTF + printings.MORE_TTF) and 8 <= wide.count("") <= 35
    assert {n.split(":")[0] for n in wide if ":" in n} == {n.split(":")[0] for n in printings.MORE_TTF}
    held = [printings.printing_style(s, True)["ttf"] for s in range(printings.WIDE_FROM, printings.WIDE_FROM + 40)]
    assert set(held) - {""} <= set(printings.HOLDOUT_TTF + printings.MORE_HOLDOUT_TTF)
    assert set(held) & set(printings.MORE_HOLDOUT_TTF)
    # older seeds draw as before (the releases' recipes stay reproducible)
    assert [printings.printing_style(s)["ttf"] for s in (21, 41, 61, 121)] == [
        "DejaVuSansMono-Bold.ttf", "DejaVuSansMono-Bold.ttf", "", "DejaVuSansMono-BoldOblique.ttf"]
    assert printings.font_path("DejaVuSans.ttf") == printings.FONT_DIR / "DejaVuSans.ttf"
    assert printings.font_path("no_such_font_package:X.ttf").parent.name == "files"


def test_the_widest_printings_draw_more_families_tracked_and_weighted_and_keep_the_held_out_faces_out():
    held = set(printings.HOLDOUT_TTF + printings.MORE_HOLDOUT_TTF)
    assert not set(printings.WIDER_TTF) & held and not any("Caladea" in n or "DejaVuSerif" in n
                                                          for n in printings.WIDER_TTF)
    styles = [printings.printing_style(s) for s in range(printings.WIDER_FROM, printings.WIDER_FROM + 120)]
    faces = [st["ttf"] for st in styles]
    assert set(faces) - {""} <= set(printings.TRAIN_TTF + printings.MORE_TTF + printings.WIDER_TTF)
    newest = [n for n in faces if n in printings.WIDER_TTF]
    assert 50 <= len(newest) <= 90 and len({n.split(":")[0] for n in newest}) >= 6
    assert {n for n in newest if n.startswith("matplotlib:STIX")} and {n for n in newest if ":cm" in n}
    assert 10 <= faces.count("") <= 40
    tracked = [st["tracking"] for st in styles if st["tracking"]]
    weighted = [st["stroke_px"] for st in styles if st["stroke_px"]]
    assert 40 <= len(tracked) <= 100 and min(tracked) < 0 < max(tracked)
    assert 40 <= len(weighted) <= 100 and min(weighted) < 0 < max(weighted)
    # seeds below WIDER_FROM and held-out printings neither track nor weigh their numerals
    assert all("tracking" not in printings.printing_style(s) for s in (21, 208, 212, printings.WIDER_FROM - 1))
    assert "tracking" not in printings.printing_style(printings.WIDER_FROM, holdout=True)
    assert printings.font_path("matplotlib:cmr10.ttf").parts[-4:] == ("mpl-data", "fonts", "ttf", "cmr10.ttf")


def test_a_numeral_tracked_wider_or_drawn_lighter_changes_and_stays_a_numeral():
    pytest.importorskip("PIL", reason="TrueType printings need Pillow (the train extra)")
    if not printings.font_path("font_roboto:Roboto-Regular.ttf").is_file():
        pytest.skip("font packages of the train extra not installed")
    base = printings.printing_style(21) | {"ttf": "font_roboto:Roboto-Regular.ttf", "slant": 0.0,
                                           "rounded_px": 0.0, "narrow": 1.1}
    plain = printings._ttf_glyph("13", base)
    wide = printings._ttf_glyph("13", base | {"tracking": 0.2})
    light = printings._ttf_glyph("13", base | {"stroke_px": -4.0})
    heavy = printings._ttf_glyph("13", base | {"stroke_px": 5.0})
    assert wide.shape[0] == plain.shape[0] and wide.shape[1] > plain.shape[1] + 5     # same height, wider set
    ink = lambda g: int((g > 128).sum())
    assert 0.4 * ink(plain) < ink(light) < 0.9 * ink(plain) < ink(plain) < ink(heavy)
    # a hairline face is not thinned or rounded away
    thin = base | {"ttf": "font_roboto:Roboto-Thin.ttf", "stroke_px": -5.0, "rounded_px": 2.4}
    assert ink(printings._ttf_glyph("11", thin)) > 0


def test_the_font_packages_faces_print_a_numeral():
    pytest.importorskip("PIL", reason="TrueType printings need Pillow (the train extra)")
    missing = [n for n in printings.MORE_TTF + printings.MORE_HOLDOUT_TTF + printings.WIDER_TTF
               if not printings.font_path(n).is_file()]
    if missing:
        pytest.skip(f"font packages of the train extra not installed: {sorted({n.split(':')[0] for n in missing})}")
    stock = np.array([240.0, 240.0, 240.0])
    base = printings.printing_style(21) | {"slant": 0.0, "rounded_px": 0.0, "jitter_mm": 0.0}
    drawn = {}
    for name in ("font_roboto:Roboto-Bold.ttf", "font_source_serif_pro:SourceSerifPro-Regular.ttf",
                 "font_hanken_grotesk:HankenGrotesk-Regular.otf", "font_caladea:Caladea-Regular.ttf",
                 "font_lato:Lato-Regular.ttf", "font_fjallaone:FjallaOne-Regular.ttf", "matplotlib:STIXGeneral.ttf",
                 "matplotlib:cmr10.ttf"):
        drawn[name] = printings.draw_strip(CARDS["T18"], base | {"ttf": name}, stock, np.random.default_rng(0))
        assert np.abs(drawn[name].astype(int) - stock).sum(axis=2).max() > 150
    faces = list(drawn.values())
    assert all(np.abs(a.astype(int) - b).mean() > 1 for i, a in enumerate(faces) for b in faces[i + 1:])


def test_truetype_printings_draw_their_face_and_keep_the_serif_family_out_of_training(monkeypatch, tmp_path):
    assert not set(printings.TRAIN_TTF) & set(printings.HOLDOUT_TTF)
    train = [printings.printing_style(s)["ttf"] for s in range(60)]
    assert set(train) - {""} <= set(printings.TRAIN_TTF) and 15 <= train.count("") <= 45
    held = [printings.printing_style(s, True)["ttf"] for s in range(60)]
    assert set(held) - {""} <= set(printings.HOLDOUT_TTF) and "" in held and len(set(held)) > 3
    assert held[1] == held[2] == ""                             # held-out printings 1 and 2 stay Hershey
    stock = np.array([240.0, 240.0, 240.0])
    style = printings.printing_style(21) | {"ttf": "DejaVuSans-Bold.ttf", "slant": 0.0, "rounded_px": 0.0,
                                            "jitter_mm": 0.0}
    hershey = printings.draw_strip(CARDS["T18"], style | {"ttf": ""}, stock, np.random.default_rng(0))
    if (printings.FONT_DIR / style["ttf"]).exists():
        pytest.importorskip("PIL", reason="TrueType printings need Pillow (the train extra)")
        ttf = printings.draw_strip(CARDS["T18"], style, stock, np.random.default_rng(0))
        assert ttf.shape == hershey.shape and np.abs(ttf.astype(int) - hershey).mean() > 2
        assert np.abs(ttf.astype(int) - stock).sum(axis=2).max() > 150          # it does print a numeral
    # A machine without the font file draws the printing's Hershey font, and says so
    monkeypatch.setattr(printings, "FONT_DIR", tmp_path)
    fallback = printings.draw_strip(CARDS["T18"], style, stock, np.random.default_rng(0))
    assert np.array_equal(fallback, hershey)


@pytest.mark.slow   # 54 faces: ~15 s alone
def test_a_printing_is_a_deck_folder_the_generator_loads(tmp_path):
    out = tmp_path / "p"
    style = printings.write_printing(out, 5, holdout=True)
    deck = Deck.load(out)
    assert len(deck.ids) == 54 and deck.faces[0][0].shape == (1120, 600, 4)
    assert json.loads((out / "deck.json").read_text())["printing"]["font"] == style["font"]
    assert printings.main(["--seed", "5", "--out", str(out)]) == 2    # never overwrites without --force


@pytest.mark.slow   # generates, trains a step, and exports: over a minute on a busy 2-core machine
def test_finetune_on_a_deck_folder_resumes_and_exports(tmp_path):
    pytest.importorskip("torch", reason="training needs torch (the train extra)")
    import torch

    from models import export, train

    deck = tmp_path / "deck"
    printings.write_printing(deck, 7)
    work = tmp_path / "work"
    args = ["--faces", str(deck), "--finetune", "--work", str(work), "--det-photos", "4", "--cls-photos", "4",
            "--det-steps", "2", "--cls-epochs", "1", "--det-batch", "2", "--det-size", "128", "--threads", "1"]
    assert train.main(args) == 0
    names = sorted(p.name for p in work.iterdir())
    assert names == ["cls-deck.npz", "cls-ref.npz", "cls.pt", "cover.pt", "det-deck.npz", "det-ref.npz",
                     "det.pt", "progress.json"]
    # the covered-card model goes with the fine-tune, as committed (the hand reader's count of covered cards)
    assert (work / "cover.pt").read_bytes() == (train.CHECKPOINTS / "cover.pt").read_bytes()
    assert json.loads((work / "progress.json").read_text())["finished"]     # the Training page's "Finished"
    det = torch.load(work / "det.pt", weights_only=False)
    assert det["step"] == 2                                    # the fine-tune's own schedule, from step 0
    release = torch.load(train.CHECKPOINTS / "det.pt", weights_only=False)["model"]
    assert any(not torch.equal(det["model"][k], release[k]) for k in release)   # trained from the release
    stamp = (work / "det-deck.npz").stat().st_mtime
    assert train.main(args[:-8] + ["--det-steps", "3", "--cls-epochs", "1", "--det-batch", "2", "--det-size",
                                   "128", "--threads", "1"]) == 0   # a rerun resumes, sets are kept
    assert torch.load(work / "det.pt", weights_only=False)["step"] == 3
    assert (work / "det-deck.npz").stat().st_mtime == stamp
    out = tmp_path / "release"
    assert export.main(["--work", str(work), "--out", str(out), "--deck", str(deck / "deck.json")]) == 0
    assert (out / "model.json").exists()
    assert json.loads((out / "model.json").read_text())["covered"] == "covered.onnx"
    assert (out / "covered.onnx.sha256").exists()     # checked with the same manifest as the rest


def test_release_check_refuses_a_worse_release(monkeypatch, tmp_path):
    from models import evaluate

    scores = {"good": (0.98, 0.997), "bad": (0.95, 0.999), "bundled": (0.97, 0.996)}

    class Rec:
        def __init__(self, name):
            self.name = name

    monkeypatch.setattr(evaluate.Recogniser, "load", classmethod(lambda cls, p: Rec(p.name)))
    monkeypatch.setattr(evaluate, "run_photos", lambda rec, *a: ([rec.name], []))
    monkeypatch.setattr(evaluate, "summarise", lambda rows, ms: dict(zip(("recall", "precision"),
                                                                        scores[rows[0]])))
    ok, reason, _, _ = evaluate.check_release(tmp_path / "good", tmp_path / "bundled", FACES_DIR, n=3)
    assert ok and reason.startswith("accepted")
    ok, reason, _, _ = evaluate.check_release(tmp_path / "bad", tmp_path / "bundled", FACES_DIR, n=3)
    assert not ok and "refused" in reason and "(recall)" in reason and "0.9500" in reason and "0.9700" in reason


def test_release_check_reads_the_enrolment_photos(monkeypatch, tmp_path):
    """The check also reads the photos the deck was enrolled from (the folder deck.json names): a release
    that reads fewer of them right than the bundled one is refused, with the cards it got wrong."""
    import shutil

    from models import evaluate

    deck = tmp_path / "deck"
    shutil.copytree(FACES_DIR, deck)
    data = json.loads((deck / "deck.json").read_text())
    data["enrolment"] = {"photos": "photos"}
    (deck / "deck.json").write_text(json.dumps(data))
    photos = deck / "photos"
    photos.mkdir()
    for cid in ("T1", "HK", "SKUS"):
        cv2.imwrite(str(photos / f"{cid}.jpg"), np.full((40, 60, 3), 200, np.uint8))
    (photos / "notes.txt").write_text("not a photo")
    (photos / "X9.jpg").write_bytes(b"not a card of the deck")
    reads = {"good": {"T1": ["T1"], "HK": ["HK", "HK"], "SKUS": ["SKUS"]},
             "bad": {"T1": ["T1"], "HK": ["HK", "T4"], "SKUS": []},
             "bundled": {"T1": ["T1"], "HK": ["HK"], "SKUS": ["T21"]}}

    class Rec:
        photo = ""      # the photo last opened (imread below)

        def __init__(self, name):
            self.name = name

        def recognise(self, img):
            return [type("R", (), {"card_id": c})() for c in reads[self.name][self.photo]]

    monkeypatch.setattr(evaluate.Recogniser, "load", classmethod(lambda cls, p: Rec(p.name)))
    monkeypatch.setattr(evaluate, "run_photos", lambda rec, *a: ([rec.name], []))
    monkeypatch.setattr(evaluate, "summarise", lambda rows, ms: {"recall": 0.97, "precision": 0.996})
    real_read = evaluate.read_image

    def read_image(path):       # which photo the fake recogniser is shown
        Rec.photo = Path(path).stem
        return real_read(path)

    monkeypatch.setattr(evaluate, "read_image", read_image)
    ok, reason, c, b = evaluate.check_release(tmp_path / "good", tmp_path / "bundled", deck, n=3)
    assert ok and "3 enrolment photos" in reason and "candidate reads 3 right, bundled 2" in reason
    assert b["enrolment_photos"]["wrong"] == {"SKUS": ["T21"]}
    ok, reason, c, _ = evaluate.check_release(tmp_path / "bad", tmp_path / "bundled", deck, n=3)
    assert not ok and "(enrolment photos)" in reason and "candidate wrong on HK, SKUS" in reason
    assert c["enrolment_photos"] == {"photos": 3, "right": 1, "wrong": {"HK": ["HK", "T4"], "SKUS": []}}
    # without the photos (moved away, or never kept) only the generated photos decide
    shutil.rmtree(photos)
    ok, reason, c, _ = evaluate.check_release(tmp_path / "bad", tmp_path / "bundled", deck, n=3)
    assert ok and "enrolment" not in reason and "enrolment_photos" not in c


def test_data_sets_draw_a_printing_per_photo(monkeypatch):
    """models.dataset with several decks renders each photo with one of them, and a single deck draws nothing
    (so the seeds of the earlier sets still give the same photos)."""
    from models import dataset

    used = []

    def fake_render(scene, deck, scale, crop_to_cards=False):
        used.append(deck)
        return np.zeros((64, 64, 3), np.uint8), []

    monkeypatch.setattr(dataset, "render", fake_render)
    monkeypatch.setattr(dataset, "crop_indices", lambda img, cs, us, hs: np.zeros((len(cs), 128, 32, 3), np.uint8))
    ref = Deck.load()
    other = Deck(ref.ids, ref.pips, ref.index_box, ref.px_per_mm, ref.faces[::-1], ref.back)
    dataset.make_cls(12, 3, [ref, other])
    assert {id(d) for d in used} == {id(ref), id(other)}
    used.clear()
    dataset.make_det(3, 4, ref)
    assert all(d is ref for d in used)


def test_finetune_photos_can_be_cut_as_the_hand_reader_sees_them(monkeypatch, tmp_path):
    """By default the deck's and the reference's photo sets are cut as the hand reader sees cards: half the
    photos whole trick piles, and crops where the release's detector puts its frames; both can be turned off."""
    pytest.importorskip("torch", reason="training needs torch (the train extra)")
    from models import train
    from vision.recogniser import latest_release

    calls = []

    def fake_cls(n, seed, deck, per_index=3, negatives=16, detector=None, trick_piles=0.0):
        calls.append(("cls", n, detector, trick_piles))
        return {"x": np.zeros(1)}

    monkeypatch.setattr(train, "make_cls", fake_cls)
    deck = tmp_path / "deck"
    printings.write_printing(deck, 7)
    for extra, want in (([], (latest_release(), 0.5)), (["--trick-piles", "0", "--no-mine"], (None, 0.0))):
        calls.clear()
        work = tmp_path / f"work{len(extra)}"
        work.mkdir()
        args = train.build_parser().parse_args(["--faces", str(deck), "--finetune", "--work", str(work),
                                                "--stage", "cls", "--cls-photos", "8", *extra])
        train.prepare_finetune(args)
        assert sorted(c[1] for c in calls) == [2, 6]                 # a quarter from the reference deck
        assert {c[2:] for c in calls} == {want}
        assert (work / "cls-deck.npz").exists() and (work / "cls-ref.npz").exists()
        # the covered-card model goes with the fine-tune (models.export puts WORK/cover.pt in the release)
        assert (work / "cover.pt").read_bytes() == (train.CHECKPOINTS / "cover.pt").read_bytes()
