"""Where the table is: the printable mat, finding it in a photo, and the stored calibration.

Imports numpy, cv2 and the standard library only.
"""
from calibration.detect import (
                                Report,
                                assign_side,
                                calibrate_from_image,
                                check_alignment,
                                detect_markers,
                                draw_calibration,
                                draw_markers,
                                to_mat,
                                to_photo,
                                warp_to_table,
)
from calibration.lens import Lens
from calibration.mat import (
                                LAYOUTS,
                                MatLayout,
                                Paper,
                                Side,
                                layout_for,
                                render_mat,
                                write_mat_pdf,
                                write_mat_png,
)
from calibration.model import VERSION, Calibration, CalibrationError, load_calibration, save_calibration

__all__ = [
    "LAYOUTS", "VERSION", "Calibration", "CalibrationError", "Lens", "MatLayout", "Paper", "Report", "Side",
    "assign_side", "calibrate_from_image", "check_alignment", "detect_markers", "draw_calibration", "draw_markers",
    "layout_for", "load_calibration", "render_mat", "save_calibration", "to_mat", "to_photo",
    "warp_to_table", "write_mat_pdf", "write_mat_png",
]
