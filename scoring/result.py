"""What scoring a hand gives back: Victory Points per player under both systems, and the ledger."""
from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from scoring.counters import format_points


class ScoringSystem(enum.Enum):
    SIMPLIFIED = "simplified"
    TRADITIONAL = "traditional"


class HandFormatError(ValueError):
    """A hand record that cannot be read; `field` names the offending field (dotted path)."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field


Points = int | Fraction


def points_json(value: Points) -> int | float | str:
    """Whole numbers stay numbers; thirds and halves keep their exact notation."""
    value = Fraction(value)
    return int(value) if value.denominator == 1 else format_points(value)


@dataclass(frozen=True, slots=True)
class LedgerStep:
    """One line of the worked example's table: what happened and who scores what under each system."""

    step: str
    detail: str
    simplified: Mapping[str, Points] = field(default_factory=dict)
    traditional: Mapping[str, Points] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "step": self.step, "detail": self.detail,
            "simplified": {p: points_json(v) for p, v in self.simplified.items()},
            "traditional": {p: points_json(v) for p, v in self.traditional.items()},
        }


@dataclass(frozen=True, slots=True)
class HandResult:
    """Victory Points of one hand; `traditional_unit` is "VP" or, in Dappen, "cents"."""

    game: str
    simplified: Mapping[str, Points]
    traditional: Mapping[str, Points]
    ledger: tuple[LedgerStep, ...] = ()
    traditional_unit: str = "VP"
    facts: Mapping[str, object] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "game": self.game,
            "simplified": {p: points_json(v) for p, v in self.simplified.items()},
            "traditional": {p: points_json(v) for p, v in self.traditional.items()},
            "traditional_unit": self.traditional_unit,
            "ledger": [s.to_json() for s in self.ledger],
            **({"facts": dict(self.facts)} if self.facts else {}),
        }
