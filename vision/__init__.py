"""Card recognition: find every card index in a photo of fanned trick piles and read it (ONNX, no torch).

    rec = Recogniser.load()                  # newest release under models/cards/, sha256-checked
    cards = rec.recognise(read_image("pile.jpg"))
"""
from vision.errors import ImageError, ModelError
from vision.image import check_array, decode_image, read_image
from vision.recogniser import Recogniser, Recognition, Settings

__all__ = ["ImageError", "ModelError", "Recogniser", "Recognition", "Settings", "check_array", "decode_image",
           "read_image"]
