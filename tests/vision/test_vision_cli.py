"""`tarokcam recognize`: one JSON line per image, errors on their own line, non-zero exit after bad ones."""
import json
import shutil
from pathlib import Path

from device.cli import main

DATA = Path(__file__).with_name("data")


def _lines(capsys):
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


def test_recognize_json_lines_with_card_points(capsys):
    img = str(DATA / "sample1.jpg")
    assert main(["recognize", img, "--json", "--game", "slovenian"]) == 0
    (line,) = _lines(capsys)
    assert line["image"] == img and line["ms"] > 0 and line["cards"]
    truth = json.loads((DATA / "sample1.json").read_text())
    assert sorted(c["id"] for c in line["cards"]) == truth["cards"]
    assert {"id", "confidence", "pips", "quad", "flagged"} <= set(line["cards"][0])
    assert isinstance(line["card_points"], str)


def test_bad_image_gets_an_error_line_and_the_rest_still_run(tmp_path, capsys):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 not really")
    good = tmp_path / "good.jpg"
    shutil.copy(DATA / "sample1.jpg", good)
    rc = main(["recognize", str(bad), str(tmp_path / "missing.png"), str(good), "--json", "--game", "slovenian"])
    assert rc != 0
    lines = _lines(capsys)
    assert [ln.get("image") for ln in lines[:3]] == [str(bad), str(tmp_path / "missing.png"), str(good)]
    assert "error" in lines[0] and "no such file" in lines[1]["error"] and "cards" in lines[2]
    summary = lines[3]["summary"]          # one good photo, so nearly every card is missing
    assert summary["game"] == "slovenian" and len(summary["missing"]) >= 54 - len(lines[2]["cards"])


def test_unknown_game_and_missing_model(tmp_path, capsys):
    assert main(["recognize", str(DATA / "sample1.jpg"), "--game", "bridge"]) != 0
    assert "error" in _lines(capsys)[0]
    assert main(["recognize", str(DATA / "sample1.jpg"), "--model", str(tmp_path)]) != 0
    assert "model.json" in _lines(capsys)[0]["error"]
