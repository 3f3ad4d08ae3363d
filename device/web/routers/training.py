"""The fine-tune's progress on the table's page: `python -m models.train --finetune --work DIR ...` writes
DIR/progress.json as it goes (models.dataset.write_progress); this page and `GET /api/training` show it. The
directory is the `training_dir` setting (default `training` next to the photos folder). A run stopped by a
power cut resumes from its last checkpoint when started again with the same command (or by the
tarokcam-finetune unit, which systemd starts again)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from fastapi import APIRouter, Request

from device.web.deps import Ctx, WebContext, render

router = APIRouter(tags=["training"])
PROGRESS = "progress.json"
STALE_S = 180.0      # a running fine-tune writes at least every few seconds; silence this long: it stopped


def _dir(c: WebContext) -> Path:
    return Path(c.settings.get("training_dir") or c.photos_dir.parent / "training")


def training_state(c: WebContext) -> dict:
    """{"state": "none" | "running" | "stopped" | "finished" | "unreadable", "dir", and the run's fields}."""
    where = _dir(c)
    path = where / PROGRESS
    out = {"dir": str(where)}
    if not path.is_file():
        return {**out, "state": "none"}
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            raise TypeError("not an object")
    except (OSError, ValueError, TypeError) as exc:
        return {**out, "state": "unreadable", "error": f"{path}: {exc}"[:200]}
    age = time.time() - float(data.get("updated") or 0)
    if data.get("finished"):
        state = "finished"
    elif data.get("running") and age < STALE_S:
        state = "running"
    else:
        state = "stopped"
    keep = ("step", "done", "of", "eta_s", "faces", "stage", "error", "started", "updated")
    return {**out, "state": state, "age_s": round(age), **{k: data[k] for k in keep if k in data}}


@router.get("/api/training")
def training_json(c: Ctx) -> dict:
    return training_state(c)


@router.get("/training")
def training_page(request: Request, c: Ctx):
    return render(request, "training.html", nav="settings", run=training_state(c))
