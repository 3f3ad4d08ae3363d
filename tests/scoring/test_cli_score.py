"""`tarokcam score` and `tarokcam count` through device.cli.main."""

import json
from pathlib import Path

import pytest

from device.cli import main

EXAMPLE = Path(__file__).parents[2] / "scoring" / "examples" / "slovenian.json"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_json_worked_example(capsys):
    code, out, err = run(capsys, "score", str(EXAMPLE), "--json")
    data = json.loads(out)
    assert code == 0 and err == ""
    assert data["simplified"] == {"Anna": 8, "Ben": -4, "Clara": 8, "Dora": 0}
    assert data["traditional"] == {"Anna": 40, "Ben": -20, "Clara": 40, "Dora": 0}
    assert [s["step"] for s in data["ledger"]] == ["Two won", "Distance", "King Ultimo, silent", "Moon lost"]


def test_score_table(capsys):
    code, out, _ = run(capsys, "score", str(EXAMPLE))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["Traditional", "(VP)"] and lines[0].split()[2:] == [
        "Anna",
        "Ben",
        "Clara",
        "Dora",
    ]
    assert "Total                 +40  -20    +40     0" in lines
    assert "  Anna +25  Ben -35  Clara +25  Dora -15" in lines  # doc 000: distance from the average of 15


def test_score_with_group_options(capsys, tmp_path):
    options = tmp_path / "options.json"
    options.write_text(json.dumps({"tariff": {"simplified": {"contracts": {"two": 5}}}}))
    code, out, _ = run(capsys, "score", str(EXAMPLE), "--json", "--options", str(options))
    assert code == 0 and json.loads(out)["simplified"]["Anna"] == 9


@pytest.mark.parametrize(
    "change, words",
    [
        ({"contract": "fout"}, "contract: unknown contract 'fout' for slovenian; known: three, two,"),
        ({"declarer": "Eve"}, "declarer: 'Eve' is not a player"),
        ({"card_points": None, "piles": {"declarer": ["T1", "T1"]}}, "piles: card T1 appears twice"),
        ({"kontra": {"contract": 3}}, "kontra.contract"),
    ],
)
def test_malformed_hand_exit_2_names_field(capsys, tmp_path, change, words):
    hand = {**json.loads(EXAMPLE.read_text(encoding="utf-8")), **change}
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(hand))
    code, out, err = run(capsys, "score", str(path), "--json")
    assert code == 2 and out == "" and words in err


def test_unreadable_files_exit_2(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "score", str(bad))
    assert code == 2 and "not JSON" in err
    code, _, err = run(capsys, "score", str(tmp_path / "missing.json"))
    assert code == 2 and "missing.json" in err


@pytest.mark.parametrize(
    "argv, expected",
    [
        (
            ["--game", "slovenian", "T1", "T21", "SKUS", "HK", "DK", "HJ"] + [f"T{i}" for i in range(2, 21)],
            {"game": "slovenian", "cards": 25, "pips": 21, "card_points": "29", "total": 70},
        ),
        (
            ["--game", "Königrufen", "T1", "HK", "HC", "HJ"],
            {"game": "koenigrufen", "cards": 4, "pips": 11, "card_points": "12 1/3", "total": 70},
        ),
        (
            ["--game", "hungarian"]
            + [f"T{i}" for i in range(1, 22)]
            + ["SKUS", "HK", "DK", "CK", "SK", "H1", "D1", "C10", "S10"],
            {"game": "hungarian", "cards": 30, "pips": 28, "card_points": "58", "total": 94},
        ),
    ],
)
def test_count(capsys, argv, expected):
    code, out, _ = run(capsys, "count", *argv)
    assert code == 0 and json.loads(out) == expected


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--game", "slovenian", "T1", "XX", "T22"], "XX T22"),
        (["--game", "slovenian", "T1", "HK", "T1"], "T1"),
        (["--game", "hungarian", "T1", "H2", "D3"], "H2 D3"),
        (["--game", "skat", "T1"], "unknown game 'skat'"),
    ],
)
def test_count_rejects_illegal_cards(capsys, argv, words):
    code, out, err = run(capsys, "count", *argv)
    assert code == 2 and out == "" and words in err
