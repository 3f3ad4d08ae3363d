"""onnxruntime back end (the only module that imports onnxruntime)."""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import onnxruntime as ort

from vision.errors import ModelError


@functools.cache   # registered once per process
def _shared_arena() -> bool:
    """One onnxruntime arena for every session of the process (detector and classifier take turns, so they
    can share it). Its chunks are reused from photo to photo rather than freed and faulted in again, and it
    stops growing once it holds the largest input's working set (inputs are bounded by the Settings)."""
    try:
        info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, ort.OrtMemType.DEFAULT)
        ort.create_and_register_allocator(info, ort.OrtArenaCfg(0, -1, -1, -1))
    except (RuntimeError, AttributeError):   # an onnxruntime without shared allocators: one arena each
        return False
    return True


class OnnxRunner:
    """One ONNX model with one input and one output, on the CPU execution provider."""

    def __init__(self, path: Path, threads: int = 2):
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Worker threads sleep after a run instead of spinning for the next: the detector's, the classifier's and
        # the covered model's threads take turns on the same cores, and a spinning pool starves the next model's
        # (2-core VM, 2028x1520 photos: recognition -35 % wall and -45 % CPU time; see the README)
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # Shared arena, no per-shape memory patterns (input sizes change from photo to photo). Without an
        # arena every run mallocs and frees its buffers: the heap fragments or, trimmed, faults them in again.
        opts.enable_cpu_mem_arena = True
        opts.enable_mem_pattern = False
        if _shared_arena():
            opts.add_session_config_entry("session.use_env_allocators", "1")
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
