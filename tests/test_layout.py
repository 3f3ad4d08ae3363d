"""The rooms' import rules (STYLE.md rule 1), checked on every module with `ast`."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("scoring", "vision", "models", "calibration", "device")
STDLIB = set(sys.stdlib_module_names)

# package -> (allowed third-party/top-level modules, forbidden project packages)
RULES = {
    "scoring": (set(), {"vision", "models", "calibration", "device"}),
    "calibration": ({"numpy", "cv2"}, {"vision", "models", "device", "scoring"}),
    "vision": ({"numpy", "cv2", "onnxruntime", "scoring"}, {"device", "models", "calibration", "torch"}),
    "models": ({"numpy", "cv2", "torch", "onnx", "onnxruntime", "scoring", "vision", "tqdm", "PIL"}, {"device"}),
}


def _modules():
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            yield pkg, path


def _imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0], node.lineno


@pytest.mark.parametrize("pkg,path", list(_modules()), ids=lambda v: str(v.relative_to(ROOT)) if isinstance(v, Path) else v)
def test_imports_point_inward(pkg, path):
    problems = []
    for name, line in _imports(path):
        if pkg != "device" and name == "device":
            problems.append(f"{line}: imports device (nothing imports device)")
        if pkg not in RULES or name in STDLIB or name == pkg:
            continue
        allowed, forbidden = RULES[pkg]
        if name in forbidden or name not in allowed:
            problems.append(f"{line}: {pkg} may not import {name}")
    rel = path.relative_to(ROOT).as_posix()
    for name, line in _imports(path):
        if name == "onnxruntime" and pkg == "vision" and rel != "vision/runners/onnx.py":
            problems.append(f"{line}: onnxruntime only in vision/runners/onnx.py")
        if name == "picamera2" and rel != "device/camera/picamera.py":
            problems.append(f"{line}: picamera2 only in device/camera/picamera.py")
    assert not problems, f"{rel}:\n" + "\n".join(problems)


def test_every_package_has_modules():
    for pkg in ("scoring", "device"):
        assert (ROOT / pkg / "__init__.py").exists()
