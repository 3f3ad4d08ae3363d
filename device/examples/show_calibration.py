#!/usr/bin/python3
# Photograph the mat, calibrate, and save what was found (found.jpg) and the top-down view (table.jpg).
# Lay the printed mat (`tarokcam mat`) under the camera first.
import cv2

from calibration import calibrate_from_image, draw_calibration, warp_to_table
from device.camera import open_camera

with open_camera("picamera2", autofocus=True) as camera:
    settings = camera.lock_exposure()
    photo = camera.capture()

calib, report = calibrate_from_image(photo, camera_settings=settings)
print(report.text())
cv2.imwrite("found.jpg", draw_calibration(photo, calib, report))
cv2.imwrite("table.jpg", warp_to_table(photo, calib))
print("saved found.jpg and table.jpg")
