"""onnxruntime back end (the only module that imports onnxruntime)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort

from vision.errors import ModelError


class OnnxRunner:
    """One ONNX model with one input and one output, on the CPU execution provider."""

    def __init__(self, path: Path, threads: int = 2):
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Arena growth keeps freed blocks; the Pi has little RAM and photos vary in size.
        opts.enable_cpu_mem_arena = False
        opts.enable_mem_pattern = False
        try:
            self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:   # onnxruntime raises its own exception types for bad files
            raise ModelError(f"{path}: cannot load ONNX model ({exc})") from exc
        self.input = self.session.get_inputs()[0].name
        self.output_shape = self.session.get_outputs()[0].shape

    def run(self, batch: np.ndarray) -> np.ndarray:
        """(N, 3, H, W) float32 -> first output as float32."""
        try:
            return self.session.run(None, {self.input: np.ascontiguousarray(batch, np.float32)})[0]
        except Exception as exc:   # a model that loads but cannot run this input must not take the service down
            raise ModelError(f"model run failed on input {batch.shape}: {exc}") from exc
