"""Errors of the vision package: each says what is wrong with which file, so the web page can show it."""
from __future__ import annotations


class ImageError(ValueError):
    """A photo that cannot be recognised: missing, empty, truncated, not an image, wrong channels or depth, too big."""


class ModelError(RuntimeError):
    """A model folder that cannot be used: missing file, sha256 mismatch, labels that disagree with the model."""
