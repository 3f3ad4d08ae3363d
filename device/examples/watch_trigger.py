#!/usr/bin/python3
# Watch the low-resolution preview and save a full-resolution still each time the table changed
# and then lay still for a second. Lay a card, take your hand away, and wait. Ctrl-C stops.
import time

import cv2

from device.camera import open_camera
from device.trigger import StillSceneTrigger

trigger = StillSceneTrigger()
shots = 0
with open_camera("picamera2", autofocus=True) as camera:
    camera.lock_exposure()
    while True:
        if trigger.feed(camera.preview(), time.monotonic()):
            shots += 1
            cv2.imwrite(f"shot-{shots:03d}.jpg", camera.capture())
            print("saved", f"shot-{shots:03d}.jpg")
        time.sleep(0.1)
