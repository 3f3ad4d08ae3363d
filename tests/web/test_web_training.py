"""The Training page: the fine-tune's progress file (models.train writes it in --work) shown on the table."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from models.dataset import write_progress

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def work(table):
    where = table[3].parent / "training"
    where.mkdir()
    return where


def test_no_run_yet_says_how_to_start_one(player, work):
    assert player.get("/api/training").json()["state"] == "none"
    page = player.get("/training").text
    assert 'data-state="none"' in page and "--finetune --work" in page
    assert 'href="/training"' in player.get("/settings").text
    # the command shown is the overnight unit's (the measured recipe), and the release it names for the
    # meantime is the bundled one for printings not yet enrolled
    from vision.recogniser import MODELS_DIR, any_printing

    unit = (REPO / "systemd" / "tarokcam-finetune.service").read_text()
    recipe = unit.split("/var/lib/tarokcam/training ", 1)[1].split(" --threads")[0]
    assert recipe in page
    named = page.split('id="training-meanwhile"', 1)[1].split("models/cards/", 1)[1].split("<", 1)[0]
    assert any_printing(MODELS_DIR / named)


def test_a_running_fine_tune_shows_its_step_and_time_left(player, work):
    write_progress(work / "progress.json", {"step": "cls ep 2/4 loss 0.51", "done": 120, "of": 544,
                                            "eta_s": 600, "running": True, "faces": "/decks/club"})
    run = player.get("/api/training").json()
    assert run["state"] == "running" and run["done"] == 120 and run["of"] == 544
    page = player.get("/training").text
    assert "cls ep 2/4" in page and "about 10 min" in page and 'id="training-running"' in page


def test_a_run_silent_for_long_is_stopped_and_resumes(player, work):
    (work / "progress.json").write_text(json.dumps({"step": "det photos", "done": 3, "of": 300, "running": True,
                                                    "updated": time.time() - 3600}))
    assert player.get("/api/training").json()["state"] == "stopped"
    assert "resumes from its last checkpoint" in player.get("/training").text


def test_finished_and_failed_runs(player, work):
    write_progress(work / "progress.json", {"step": "finished", "running": False, "finished": True})
    assert player.get("/api/training").json()["state"] == "finished"
    write_progress(work / "progress.json", {"step": "stopped", "running": False, "error": "MemoryError: "})
    run = player.get("/api/training").json()
    assert run["state"] == "stopped" and "MemoryError" in run["error"]


@pytest.mark.parametrize("junk", [b"{not json", b"[1, 2]", b"\xff\xfe"])
def test_a_damaged_progress_file_is_said_not_fatal(player, work, junk):
    (work / "progress.json").write_bytes(junk)
    assert player.get("/api/training").json()["state"] == "unreadable"
    assert player.get("/training").status_code == 200
