"""Still-scene trigger on synthetic preview sequences, and the GPIO button with a fake gpiozero."""
from __future__ import annotations

import sys
import types

import cv2
import numpy as np
import pytest

from device.trigger import GpioButton, StillSceneTrigger

FPS = 8.0
W, H = 160, 120


def table(cards=(), light=1.0, gradient=0.0, seed=0):
    """(H, W, 3) uint8 BGR preview: green felt, white cards at (x, y), sensor noise, lighting."""
    rng = np.random.default_rng(seed)
    img = np.empty((H, W, 3), np.float32)
    img[:] = (60, 110, 50)
    for x, y in cards:
        cv2.rectangle(img, (x, y), (x + 18, y + 30), (230, 230, 230), -1)
        cv2.rectangle(img, (x + 3, y + 3), (x + 8, y + 9), (20, 20, 200), -1)
    ramp = 1 + gradient * np.linspace(-1, 1, W, dtype=np.float32)[None, :, None]
    img = img * light * ramp + rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def hand(frame, x):
    out = frame.copy()
    cv2.ellipse(out, (int(x), 70), (22, 35), 0, 0, 360, (120, 150, 200), -1)
    return out


def run(trigger, frames, t0=0.0):
    shots = []
    for k, f in enumerate(frames):
        t = t0 + k / FPS
        if trigger.feed(f, t):
            shots.append(round(t, 3))
    return shots


def still(cards, seconds, **kw):
    return [table(cards, seed=k, **kw) for k in range(int(seconds * FPS))]


def test_piles_laid_give_one_shot_after_a_second():
    trig = StillSceneTrigger()
    pile = [(20, 40), (26, 42), (32, 44)]
    frames = still([], 2) + [hand(table(pile[:k // 4]), 20 + 6 * k) for k in range(12)] + still(pile, 4)
    shots = run(trig, frames)
    assert len(shots) == 1
    settle = (16 + 12) / FPS
    assert settle + 0.9 <= shots[0] <= settle + 1.5


def test_hand_passing_over_gives_none():
    trig = StillSceneTrigger()
    pile = [(30, 40), (100, 40)]
    frames = still(pile, 2) + [hand(table(pile, seed=k), -20 + 15 * k) for k in range(14)] + still(pile, 4)
    assert run(trig, frames) == []


def test_same_still_scene_twice_gives_one_shot():
    trig = StillSceneTrigger()
    pile = [(40, 30), (90, 60)]
    frames = still([], 2) + still(pile, 3) + [hand(table(pile), 60)] * 4 + still(pile, 3)
    assert len(run(trig, frames)) == 1


def test_slow_light_change_gives_none():
    trig = StillSceneTrigger()
    pile = [(40, 30), (90, 60)]
    n = int(120 * FPS)  # two minutes of dusk: brightness falls by half and one side gets much darker
    frames = [table(pile, light=1 - 0.5 * k / n, gradient=0.5 * k / n, seed=k) for k in range(n)]
    assert run(trig, frames) == []


def test_lamp_switched_off_gives_none():
    trig = StillSceneTrigger()  # a uniform jump of brightness (lamp, auto exposure) is no new scene
    pile = [(40, 30), (90, 60)]
    assert run(trig, still(pile, 2) + still(pile, 3, light=0.65)) == []


def test_a_second_pile_gives_a_second_shot():
    trig = StillSceneTrigger()
    first, second = [(20, 40)], [(20, 40), (110, 40)]
    frames = (still([], 2) + [hand(table(), 40)] * 3 + still(first, 2)
              + [hand(table(first), 120)] * 3 + still(second, 2))
    assert len(run(trig, frames)) == 2


def test_note_capture_suppresses_the_auto_shot():
    trig = StillSceneTrigger()
    pile = [(50, 50)]
    run(trig, still([], 2))
    trig.note_capture(table(pile))  # the web view's button took this scene already
    assert run(trig, [hand(table(), 50)] * 3 + still(pile, 3), t0=2.0) == []


def test_note_capture_takes_the_full_still():
    trig = StillSceneTrigger()
    pile = [(50, 50)]
    run(trig, still([], 2))
    full = cv2.resize(table(pile), (W * 10, H * 10 + 3), interpolation=cv2.INTER_NEAREST)  # odd rounding
    trig.note_capture(full)
    assert run(trig, [hand(table(), 50)] * 3 + still(pile, 3), t0=2.0) == []


def test_timestamps_are_the_only_clock():
    trig = StillSceneTrigger(still_s=5.0)
    frames = still([], 1) + [hand(table(), 40)] + still([(10, 10)], 3)
    assert run(trig, frames) == []  # at 8 fps the scene held 3 s < 5 s
    assert StillSceneTrigger(still_s=0.5).feed(table(), 0.0) is False


def test_gpio_button_with_fake_gpiozero(monkeypatch):
    made = []

    class Button:
        def __init__(self, pin, pull_up=True, bounce_time=None):
            self.pin, self.pull_up, self.bounce_time, self.when_pressed, self.closed = pin, pull_up, bounce_time, None, False
            made.append(self)

        def close(self):
            self.closed = True

    monkeypatch.setitem(sys.modules, "gpiozero", types.SimpleNamespace(Button=Button))
    pressed = []
    with GpioButton(17, lambda: pressed.append(1)) as button:
        assert made[0].pin == 17 and made[0].pull_up
        made[0].when_pressed()
        made[0].when_pressed()
        assert button.pin == 17
    assert pressed == [1, 1] and made[0].closed


def test_gpio_button_without_gpiozero(monkeypatch):
    monkeypatch.setitem(sys.modules, "gpiozero", None)
    with pytest.raises(RuntimeError, match="gpiozero is not installed"):
        GpioButton(17, lambda: None)
