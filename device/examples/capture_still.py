#!/usr/bin/python3
# Take one full-resolution still with the Pi camera and save it as still.jpg.
# Run on the Pi with tarokcam installed: python3 device/examples/capture_still.py
# Shows: the camera keeps running in one still configuration; autofocus once; B, G, R order for OpenCV.
import cv2

from device.camera import open_camera

with open_camera("picamera2", autofocus=True) as camera:
    print("focus ok:", camera.focus_ok)
    print("settings:", camera.lock_exposure())
    still = camera.capture()
    cv2.imwrite("still.jpg", still)
    print("saved still.jpg", still.shape)
