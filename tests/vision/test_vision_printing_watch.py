"""vision.printing.TableReader: photos read as the table reads them, switching once to the release for other
printings when the default reads the cards unsure (what `models.evaluate` and `models.holdout.score` measure)."""
from __future__ import annotations

from dataclasses import dataclass

from vision.printing import TableReader, WatchSettings


@dataclass
class Read:
    card_id: str
    flagged: bool


class Release:
    def __init__(self, name: str, unsure: int, n: int = 20):
        self.name, self.unsure, self.n, self.photos = name, unsure, n, []
        self.candidates = [name]

    def recognise(self, image):
        self.photos.append(image)
        return [Read(f"T{k + 1}", k < self.unsure) for k in range(self.n)]


def test_the_photo_that_decides_is_read_again_with_the_other_release_and_the_rest_too():
    default, other = Release("synth", unsure=12), Release("printings", unsure=1)
    loads = []
    reader = TableReader(default, lambda: loads.append(1) or other, WatchSettings(photos=6, min_cards=50))
    assert sum(r.flagged for r in reader.recognise("p1")) == 12 and reader.name == "synth"
    assert sum(r.flagged for r in reader.recognise("p2")) == 12          # 40 cards read: too few to say
    assert reader.switched_at is None
    assert sum(r.flagged for r in reader.recognise("p3")) == 1, "the deciding photo is read again"
    assert reader.switched_at == 3 and reader.name == "printings" and reader.candidates == ["printings"]
    assert reader.reason.startswith("36 of the last 60 cards read were unsure")
    reader.recognise("p4")
    assert default.photos == ["p1", "p2", "p3"] and other.photos == ["p3", "p4"] and loads == [1]


def test_the_reference_printing_and_a_missing_other_release_stay_on_the_default():
    default = Release("synth", unsure=1)
    reader = TableReader(default, lambda: Release("printings", 0))
    for k in range(20):
        reader.recognise(k)
    assert reader.switched_at is None and reader.name == "synth"
    lost = TableReader(Release("synth", unsure=15), lambda: None)
    for k in range(5):
        assert sum(r.flagged for r in lost.recognise(k)) == 15
    assert lost.switched_at is None and lost.name == "synth"
