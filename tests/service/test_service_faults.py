"""Faults at the table: SIGKILL while hands are being saved; the database survives with every confirmed hand."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

from device.storage import Store

REPO = Path(__file__).resolve().parents[2]

# Saves hands as fast as it can and prints each id once save_hand has returned (= confirmed to the players).
WRITER = """
import json, sys
from device.storage import Store
store = Store(sys.argv[1])
session = store.current_session() or {"id": store.add_session(game="slovenian", players=["A", "B", "C", "D"],
                                                              system="simplified")}
hand = {"game": "slovenian", "players": ["A", "B", "C", "D"], "declarer": "A", "contract": "three",
        "card_points": "36", "notes": "x" * 2000}
print("session", session["id"], flush=True)
for i in range(100000):
    hand_id = store.save_hand(session["id"], dict(hand, n=i), {"simplified": {"A": 11}})
    print(hand_id, flush=True)
"""


def kill_during_saves(db: Path, confirmed: int, rng: random.Random) -> tuple[int, list[int]]:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db)], cwd=REPO, stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        session = int(proc.stdout.readline().split()[1])
        ids = [int(proc.stdout.readline()) for _ in range(confirmed + rng.randrange(20))]
        os.kill(proc.pid, signal.SIGKILL)  # the writer is in the middle of the next save_hand
        proc.wait(timeout=30)
        ids += [int(line) for line in proc.stdout.read().split()]  # printed before the kill, still in the pipe
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    return session, ids


def test_sigkill_during_hand_saves_loses_no_confirmed_hand(tmp_path):
    db = tmp_path / "tarokcam.sqlite3"
    rng = random.Random(7)
    confirmed: list[int] = []
    for kills in range(1, 4):  # killed three times, restarted on the same file each time
        session, ids = kill_during_saves(db, 30, rng)
        confirmed += ids
        store = Store(db)
        try:
            assert store.integrity_ok()
            stored = {h["id"] for h in store.hands(session)}
            assert set(confirmed) <= stored
            # at most the save that was under way at each kill, committed whole but not yet confirmed
            assert len(stored) - len(confirmed) <= kills
        finally:
            store.close()
