"""Hold-out photos for honest evaluation: a scene renderer written apart from the training generator (models/synth.py).

    renderer = HoldoutRenderer()                      # faces from models/faces (or the shared deck)
    photo = renderer.render(seed=[7, 0], size=(2028, 1520))
    photo.jpeg, photo.label                           # JPEG bytes, label dict (see README.md)

Never used for training.
"""
from models.holdout.render import PI_SIZES, HoldoutRenderer, Photo

__all__ = ["PI_SIZES", "HoldoutRenderer", "Photo"]
