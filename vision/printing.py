"""Whether the club's cards are the reference printing: the table's cue to switch to the release for printings.

The reference release flags few of its reads on the printing it was trained on (about 3-7 % of the cards on
generated and on independently rendered photos) and most of them on a printing it has never seen (about
40-80 %), so the share of unsure reads over the last few photos tells the two apart long before a score is
wrong. Pure: fed each photo's flags, it says when the share is past the line and why.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class WatchSettings:
    photos: int = 6             # the last photos weighed
    min_cards: int = 40         # reads needed before anything is said (two pile photos hold 54)
    unsure_share: float = 0.25  # flagged share past which the cards are not the reference printing


class PrintingWatch:
    """The flagged share of a release's reads over the last photos."""

    def __init__(self, settings: WatchSettings = WatchSettings()):
        self.settings = settings
        self._recent: deque[tuple[int, int]] = deque(maxlen=settings.photos)

    def observe(self, flags: Iterable[bool]) -> None:
        """One photo's reads, each flagged (unsure) or not. A photo with no reads says nothing."""
        flags = [bool(f) for f in flags]
        if flags:
            self._recent.append((len(flags), sum(flags)))

    @property
    def cards(self) -> int:
        return sum(n for n, _ in self._recent)

    @property
    def unsure(self) -> int:
        return sum(u for _, u in self._recent)

    def unlike_reference(self) -> bool:
        """Enough reads seen, and a larger share of them unsure than the reference printing gives."""
        n = self.cards
        return n >= self.settings.min_cards and self.unsure >= self.settings.unsure_share * n

    def reason(self) -> str:
        n = self.cards
        return (f"{self.unsure} of the last {n} cards read were unsure "
                f"({self.unsure / max(n, 1):.0%}; the reference printing gives well under "
                f"{self.settings.unsure_share:.0%})")


class TableReader:
    """Reads photos one after another as the table does: with `first` until the watch says the cards are another
    printing, then with `load_other()` (None: no such release; stay), the deciding photo read again. The same
    `recognise` as a Recogniser, for the evaluations that measure what the table reads."""

    def __init__(self, first, load_other, settings: WatchSettings = WatchSettings()):
        self.rec, self._load_other = first, load_other
        self._watch: PrintingWatch | None = PrintingWatch(settings)
        self.photos = 0
        self.switched_at: int | None = None   # the photo (1-based) whose reads made it switch
        self.reason: str | None = None

    @property
    def name(self) -> str:
        return self.rec.name

    @property
    def candidates(self):
        return self.rec.candidates

    def recognise(self, image):
        self.photos += 1
        found = self.rec.recognise(image)
        if self._watch is None:
            return found
        self._watch.observe(r.flagged for r in found)
        if not self._watch.unlike_reference():
            return found
        watch, self._watch = self._watch, None
        other = self._load_other()
        if other is None:
            return found
        self.rec, self.switched_at, self.reason = other, self.photos, watch.reason()
        return other.recognise(image)


def table_reader(first) -> TableReader:
    """`first` (the bundled default release) with the switch to the newest release for other printings."""
    from vision.recogniser import Recogniser, printing_release

    def other():
        path = printing_release()
        return Recogniser.load(path) if path is not None else None

    return TableReader(first, other)
