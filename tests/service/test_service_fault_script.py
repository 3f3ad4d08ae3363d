"""`python -m device.faults`: probes only loopback, and reports per probe what it did and what came back."""
from __future__ import annotations

import pytest

from device import faults


@pytest.mark.parametrize("url", ["http://192.168.1.20:8000", "http://example.org", "https://127.0.0.1:8000"])
def test_only_loopback_is_probed(url):
    with pytest.raises(SystemExit, match="only http://127.0.0.1"):
        faults.Table(url, "246813")


def test_the_pin_gate_hour_is_bounded_whatever_the_number_of_addresses():
    from device.web.security import FREE_FAILURES, GLOBAL_BURST, GLOBAL_PER_HOUR
    one = faults.simulate_pin_hour(1)
    many = faults.simulate_pin_hour(20)
    assert one <= FREE_FAILURES + 20  # the pause doubles to a quarter of an hour
    assert many <= GLOBAL_BURST + GLOBAL_PER_HOUR + 20  # each address's first guess, then the ceiling


@pytest.mark.slow
def test_the_fault_script_against_its_own_service(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))     # its work folder (logs, states) here, not in /tmp
    assert faults.main(["--spawn", "--probes", "inputs", "--kill-rounds", "2"]) == 0
    text = capsys.readouterr().out
    assert "[bad-input] POST /api/hands (hand with a player not in the evening)\n    -> 422" in text
    assert "hand id 10^23)\n    -> 404" in text and "-> 413" in text
    assert "rebind.evil.example (DNS rebinding)\n    -> 400" in text
    assert " 0 confirmed hands lost" in text
    assert "[model-missing]" in text and "not loaded" in text and "hand 201; sheet 200" in text
