"""The training pipeline runs end to end on a tiny set: generate, train one step each, export, load with vision."""
import json

import numpy as np
import pytest


@pytest.mark.slow   # ~20 s alone, over a minute on a busy 2-core machine
def test_generate_train_export_load(tmp_path):
    # Only this test needs torch: the generator tests below run (and fail) without it.
    pytest.importorskip("torch", reason="training needs torch (the train extra)")
    from models import export, train
    from vision import Recogniser

    work = tmp_path / "work"
    assert train.main(["--work", str(work), "--det-photos", "1", "--cls-photos", "1", "--det-steps", "1",
                       "--cls-epochs", "1", "--det-batch", "2", "--det-size", "128", "--threads", "1"]) == 0
    assert (work / "det.pt").exists() and (work / "cls.pt").exists()
    state = json.loads((work / "progress.json").read_text())      # what the table's Training page shows
    assert state["finished"] and not state["running"] and state["stage"] == "all"
    before = (work / "cls.pt").read_bytes()
    assert train.main(["--work", str(work), "--stage", "cls", "--cls-epochs", "1", "--restart", "--lr", "1e-3",
                       "--threads", "1"]) == 0          # fine-tuning: new schedule from the same weights
    assert (work / "cls.pt").read_bytes() != before
    out = tmp_path / "release"
    assert export.main(["--work", str(work), "--out", str(out)]) == 0
    manifest = json.loads((out / "model.json").read_text())
    assert set(manifest["sha256"]) == {"detector.onnx", "classifier.onnx", "labels.txt"}
    rec = Recogniser.load(out)
    assert len(rec.labels) == 55
    rec.recognise(np.full((300, 400, 3), 90, np.uint8))      # an untrained model runs, whatever it reads
    assert "sliver_channel" not in manifest and "covered" not in manifest and "any_printing" not in manifest
    # a release for printings not yet enrolled: marked so, never the newest one
    from vision.recogniser import any_printing, latest_release
    assert export.main(["--work", str(work), "--out", str(tmp_path / "cards" / "2099-01-01-printings"),
                        "--any-printing"]) == 0
    assert any_printing(tmp_path / "cards" / "2099-01-01-printings")
    (tmp_path / "cards" / "2000-01-01-plain").symlink_to(out)
    assert latest_release(tmp_path / "cards").name == "2000-01-01-plain"
    # the covered-card model: crops from one generated hand, a few seconds of training, exported beside them
    from models import covered
    assert covered.main(["make", "--work", str(work), "--hands", "1", "--seed", "5", "--tight"]) == 0
    assert covered.main(["train", "--work", str(work), "--minutes", "0.02", "--threads", "1",
                         "--layers", "8/2,12/2,16/2"]) == 0      # a net of its own shape, recorded for the export
    assert export.main(["--work", str(work), "--out", str(tmp_path / "covered")]) == 0
    with_cover = json.loads((tmp_path / "covered" / "model.json").read_text())
    assert with_cover["covered"] == "covered.onnx" and "covered.onnx" in with_cover["sha256"]
    p = Recogniser.load(tmp_path / "covered").covered(np.full((300, 400, 3), 90, np.uint8), [[200.0, 150.0]],
                                                      [[0.0, -1.0]], [60.0])
    assert p.shape == (1,) and 0.0 <= p[0] <= 1.0
    (work / "cover.pt").unlink()
    # the sliver branch alone, on the frozen detector: its six channels stay as they were
    assert train.main(["--work", str(work), "--stage", "sliver", "--det-steps", "1", "--det-batch", "2",
                       "--det-size", "128", "--threads", "1"]) == 0
    assert export.main(["--work", str(work), "--out", str(tmp_path / "sliver")]) == 0
    assert json.loads((tmp_path / "sliver" / "model.json").read_text())["sliver_channel"] == 6
    photo = np.full((256, 384, 3), 90, np.uint8)
    a = rec.detector.run(photo.transpose(2, 0, 1)[None].astype(np.float32))[0]
    b = Recogniser.load(tmp_path / "sliver").detector.run(photo.transpose(2, 0, 1)[None].astype(np.float32))[0]
    assert a.shape[0] == 6 and b.shape[0] == 7
    np.testing.assert_allclose(a, b[:6], atol=1e-5)


def test_sliver_targets_peak_where_the_index_shows():
    from models.train import SLIVER_BOOST, SLIVER_HARD, SLIVER_VISIBLE, det_targets

    # cx, cy, ux, uy, height, visible, seen cx, seen cy: a read index, a sliver, one covered whole
    labels = np.array([[42, 42, 0, -1, 60, 1.0, 42, 42], [102, 42, 0, -1, 60, 0.1, 102, 22],
                       [42, 102, 0, -1, 60, 0.0, 42, 102]], np.float32)
    heat, weight, _, _ = det_targets(labels, 0, 0, 128, hard=SLIVER_HARD, least=SLIVER_VISIBLE, seen=True)
    peaks = sorted(zip(*np.nonzero(heat >= 1.0)))
    assert peaks == [(5, 25), (10, 10)]          # (row, col) cells: the sliver's seen centre, and the read one
    plain, _, _, _ = det_targets(labels, 0, 0, 128)
    assert sorted(zip(*np.nonzero(plain >= 1.0))) == [(10, 10)]   # the index heat: read indices only
    assert weight.min() == 1.0 and weight[5, 25] == SLIVER_BOOST and weight[10, 10] == 1.0   # the rare peak counts more


def test_generator_labels_the_index_of_each_face_up_card():
    from models.synth import Deck, random_scene, render

    deck = Deck.load()
    scene = random_scene(np.random.default_rng(5), n_cards=8, size=(1640, 1232))
    img, labels = render(scene, deck, 0.5)
    assert img.shape == (616, 820, 3) and img.dtype == np.uint8
    assert {lab["card"] for lab in labels} == {deck.ids[c.index] for c in scene.cards if c.index >= 0}
    assert len(labels) == 2 * 8                      # both printed indices of every card, with visibility
    assert all(0 <= lab["visible"] <= 1 for lab in labels)
    assert max(lab["visible"] for lab in labels) > 0.9   # the top card is fully visible
    for lab in labels:   # index height: 44.5 mm at the scene's scale, within the camera tilt
        assert lab["height"] == pytest.approx(44.5 * scene.ppm * 0.5, rel=0.3)
    assert all(0 <= lab["mark_visible"] <= 1 for lab in labels)
    top = max(labels, key=lambda lab: lab["visible"])
    assert top["mark_visible"] == 1.0


def test_detector_crops_are_labelled_from_the_scene():
    from models.dataset import BACKGROUND, detector_frames

    labs = [{"center": [100.0, 100.0], "up": [0.0, -1.0], "height": 80.0, "visible": 0.9, "class": 7, "pips": 0},
            {"center": [300.0, 100.0], "up": [0.0, -1.0], "height": 80.0, "visible": 0.2, "class": 9, "pips": 4}]

    class Detector:
        def peaks(self, img, threshold, low):
            cs = np.array([[102.0, 104.0], [500.0, 400.0], [300.0, 100.0], [100.0, 100.0]])
            us = np.array([[0.0, -1.0], [1.0, 0.0], [0.0, -1.0], [0.0, 1.0]])
            found = (cs, us, np.full(4, 80.0), np.ones(4))
            weaker = (np.array([[98.0, 99.0]]), np.array([[0.0, -1.0]]), np.array([78.0]), np.array([0.1]))
            empty = (np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0), np.zeros(0))
            return found, (weaker if low is not None else empty)

    cs, _, _, ys, ps = detector_frames(Detector(), None, labs)
    # on the index -> its card; on nothing -> not a card; barely visible -> left out; turned -> not a card
    assert ys == [7, BACKGROUND, BACKGROUND] and ps == [0, 0, 0]
    # a trick pile's faint peaks are cut too
    assert detector_frames(Detector(), None, labs, faint=0.08)[3] == [7, BACKGROUND, BACKGROUND, 7]
    np.testing.assert_allclose(cs, [[102, 104], [500, 400], [100, 100]])


def test_detector_batches_made_ahead_train_the_same_however_many_threads_make_them(tmp_path):
    """--loader-threads (a GPU run's batches made in threads): each step's batch comes from a generator of its
    own, so one thread and two give the same weights; --device cuda on a machine without one is refused at once."""
    torch = pytest.importorskip("torch", reason="training needs torch (the train extra)")
    from models import train
    from models.dataset import make_det
    from models.synth import FACES_DIR, Deck

    data = make_det(2, 7, Deck.load(FACES_DIR))
    weights = []
    for threads in (1, 2):
        work = tmp_path / f"t{threads}"
        work.mkdir()
        np.savez(work / "det.npz", **data)
        assert train.main(["--work", str(work), "--stage", "det", "--det-steps", "3", "--det-batch", "2",
                           "--det-size", "128", "--threads", "1", "--loader-threads", str(threads),
                           "--device", "cpu"]) == 0
        weights.append(train.load_state(work / "det.pt"))
    assert weights[0]["step"] == weights[1]["step"] == 3
    for k, v in weights[0]["model"].items():
        assert torch.equal(v, weights[1]["model"][k]), k
        assert v.device.type == "cpu"
    if not torch.cuda.is_available():
        with pytest.raises(SystemExit, match="sees no CUDA device"):
            train.main(["--work", str(tmp_path / "none"), "--stage", "det", "--device", "cuda"])
        assert not (tmp_path / "none" / "det.npz").exists()      # refused before any set is made


@pytest.mark.slow   # ~30 s: sets made by two processes, a few steps of each net
def test_the_prepared_gpu_run_goes_end_to_end_on_the_cpu_at_tiny_sizes(tmp_path):
    """models/device_train.sh is what a session lent a GPU runs at once (one lease, no time to debug there): here
    at tiny sizes on the CPU, its checkpoints come back where $OUT says and export as a release that loads."""
    torch = pytest.importorskip("torch", reason="training needs torch (the train extra)")
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from models import export
    from vision import Recogniser

    root = Path(__file__).resolve().parents[2]
    out, work = tmp_path / "out", tmp_path / "work"
    env = {**os.environ, "PYTHON": sys.executable, "DEVICE": "cpu", "JOBS": "2", "N_DET": "2", "N_PILE": "1",
           "N_MIX": "1", "MIN_CLS": "0.02", "MIN_DET": "0.02", "CLS_BATCH": "16", "DET_BATCH": "2",
           "OUT": str(out), "WORK": str(work)}
    script = ["bash", str(root / "models" / "device_train.sh")]
    run = subprocess.run(script, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert {p.name for p in out.iterdir()} >= {"det.pt", "cls.pt", "run.log"}
    assert "sets made" in (out / "run.log").read_text()
    assert len(list(work.glob("det-*.npz"))) == 2 and len(list(work.glob("cls-*.npz"))) == 4
    # what the session then does here: the checkpoints and the release's covered-card model, exported
    back = tmp_path / "back"
    back.mkdir()
    for name in ("det.pt", "cls.pt"):
        shutil.copy(out / name, back / name)
    shutil.copy(root / "models" / "checkpoints" / "cover.pt", back / "cover.pt")
    assert export.main(["--work", str(back), "--out", str(tmp_path / "release")]) == 0
    rec = Recogniser.load(tmp_path / "release")
    assert rec.covered(np.full((300, 400, 3), 90, np.uint8), [[200.0, 150.0]], [[0.0, -1.0]], [60.0]) is not None
    # no GPU asked for where none is: stopped before any set is made
    if not torch.cuda.is_available():
        env.update(DEVICE="cuda", WORK=str(tmp_path / "w2"), OUT=str(tmp_path / "o2"))
        again = subprocess.run(script, env=env, capture_output=True, text=True, timeout=120, check=False)
        assert again.returncode != 0 and "sees no CUDA device" in again.stderr
        assert not list((tmp_path / "w2").glob("*.npz"))
