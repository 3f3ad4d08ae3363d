"""Model back ends behind one small Protocol; the registry maps a config key to a loader."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np


class ModelRunner(Protocol):
    def run(self, batch: np.ndarray) -> np.ndarray:
        """(N, 3, H, W) float32 BGR 0..255 -> the model's single output array."""
        ...


def _onnx(path: Path) -> ModelRunner:
    from vision.runners.onnx import OnnxRunner  # onnxruntime is imported only there
    return OnnxRunner(path)


def _fake(path: Path) -> ModelRunner:
    from vision.runners.fake import FakeRunner
    return FakeRunner.from_file(path)


RUNNERS: dict[str, Callable[[Path], ModelRunner]] = {"onnx": _onnx, "fake": _fake}
