"""The web's one door into `scoring`: game views for the forms, counting, hand scoring and the sheet.

`FORMS` says which of the hand fields each game's schema documents (scoring/schema/<game id>.schema.json)
the Hand page shows for that game, and `OPTIONS` which evening options its scorer reads from `options`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import scoring

HAND_ERRORS: tuple[type[Exception], ...] = (
    scoring.HandFormatError,
    scoring.IllegalHandError,
    scoring.UnknownCardError,
    ValueError,
)
SYSTEMS = ("simplified", "traditional")
SIDES = ("declarer", "defenders")


@dataclass(frozen=True, slots=True)
class HandForm:
    """The game-specific part of the Hand form.

    kontra: levels the game takes (empty: no kontra). last_trick: facts the game reads ("pagat",
    "called_king"). fields: extra hand fields shown, named as in the schema ("partner", "won",
    "moon_lost_by", "dodge_round", "compulsory", "dealer", "skus_dealt_to", "trial_three_failed",
    "tarok_declarations", "dodge_round_loser", "dodge_round_winner", "challenger", "march", "instant_win").
    bonus_sides: the sides a bonus may belong to.
    """

    kontra: tuple[int, ...]
    last_trick: tuple[str, ...]
    fields: frozenset[str]
    bonus_sides: tuple[str, ...] = SIDES


FORMS: dict[str, HandForm] = {
    "slovenian": HandForm(
        (1, 2, 4, 8, 16),
        ("pagat", "called_king"),
        frozenset({"partner", "won", "moon_lost_by", "dodge_round", "compulsory", "dealer", "skus_dealt_to"}),
    ),
    "hungarian": HandForm(
        (1, 2, 4, 8),
        ("pagat",),
        frozenset({"partner", "dealer", "trial_three_failed", "tarok_declarations"}),
    ),
    "koenigrufen": HandForm(
        (1, 2, 4, 8, 16), ("pagat", "called_king"), frozenset({"partner", "won", "dodge_round_loser"})
    ),
    "zwanzigerrufen": HandForm((1, 2, 4, 8), ("pagat",), frozenset({"partner", "won", "dodge_round_loser"})),
    "strawman": HandForm((), ("pagat",), frozenset({"dodge_round_winner"})),
    "dappen": HandForm((), (), frozenset({"challenger", "march", "instant_win"}), ("declarer",)),
}

# Evening options each game's scorer (or session end) reads from `options`: (key, what the box means).
OPTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "slovenian": (("quick", "Quick session (lower target)"),),
    "hungarian": (("notice_given", "Notice given: the evening ends after this round"),),
    "koenigrufen": (("styrian", "Styrian count: 35 1/3 Card Points win"),),
    "zwanzigerrufen": (("final_round_called", "Final round called"),),
    "strawman": (("pay_less", "Pay less: the Dodge Round pays 1"),),
    "dappen": (
        ("half_game", "Half game: every payment in cents halved"),
        ("short_evening", "Short evening: to 150"),
    ),
}


@dataclass(frozen=True, slots=True)
class GameView:
    """What a form needs of a game: ids and display names, and which hand fields it takes."""

    id: str
    name: str
    players: tuple[int, ...]
    deck: tuple[tuple[str, str], ...]  # (card id, name) in deck order
    contracts: tuple[tuple[str, str], ...]
    bonuses: tuple[tuple[str, str], ...]
    total: str
    form: HandForm
    options: tuple[tuple[str, str], ...]

    def has(self, field: str) -> bool:
        return field in self.form.fields

    @property
    def has_dodge_round(self) -> bool:
        return any(c == "dodge_round" for c, _ in self.contracts)


def games() -> list[tuple[str, str]]:
    return [(g.id, g.name) for g in scoring.GAMES.values()]


def game(game_id: str) -> GameView:
    g = scoring.find_game(game_id)
    return GameView(
        id=g.id,
        name=g.name,
        players=tuple(g.players),
        deck=tuple((c.id, c.name) for c in g.deck),
        contracts=tuple(g.contracts),
        bonuses=tuple(g.bonuses),
        total=g.format(g.total),
        form=FORMS[g.id],
        options=OPTIONS.get(g.id, ()),
    )


def card_name(card_id: str) -> str:
    try:
        return scoring.card(card_id).name
    except ValueError:
        return card_id


def card_pips(card_id: str) -> int | None:
    try:
        return scoring.card(card_id).pips
    except ValueError:
        return None


def count(game_id: str, card_ids: list[str]) -> tuple[str | None, str | None]:
    """(Card Points in the game's notation, None) or (None, why the pile cannot be counted)."""
    g = scoring.find_game(game_id)
    try:
        return g.format(g.count(card_ids)), None
    except HAND_ERRORS as exc:
        return None, str(exc)


def rest_of_deck(game_id: str, card_ids: list[str]) -> list[str]:
    """'The rest is theirs': every card of the game's deck not in `card_ids`."""
    taken = set(card_ids)
    return [c.id for c in scoring.find_game(game_id).deck if c.id not in taken]


def pile_check(game_id: str, declarer: list[str], defenders: list[str]) -> dict:
    """Missing, duplicated and foreign cards over both piles, for the players to put right."""
    g = scoring.find_game(game_id)
    deck_ids = {c.id for c in g.deck}
    seen = Counter(declarer) + Counter(defenders)
    return {
        "missing": [c.id for c in g.deck if c.id not in seen],
        "duplicated": [c for c, n in seen.items() if n > 1 and c in deck_ids],
        "foreign": sorted(c for c in seen if c not in deck_ids),
    }


def suggestions(game_id: str, piles: dict[str, list[str]]) -> list[dict]:
    """Bonuses the piles show were taken (Trull, all four Kings, Valat), as silent made entries."""
    return scoring.suggest_bonuses(game_id, piles)


def score_hand(hand: dict, options: dict | None = None) -> dict:
    return scoring.score_hand(hand, options).to_json()


def score_sheet(
    game_id: str, players: list[str], hands: list[dict], system: str, options: dict | None = None
) -> dict:
    return scoring.score_sheet(game_id, players, hands, system, options)


# Evening options a game reads besides its option boxes: Slovenian Tarok's session target (doc 002).
EXTRA_OPTIONS: dict[str, tuple[str, ...]] = {"slovenian": ("target",)}


def known_options(game_id: str) -> tuple[str, ...]:
    """The top-level evening settings a game reads: its option boxes, extra options and `tariff.*`."""
    g = scoring.find_game(game_id)
    return (*(k for k, _ in OPTIONS.get(g.id, ())), *EXTRA_OPTIONS.get(g.id, ()), "tariff")


def check_options(game_id: str, options: dict) -> None:
    """Raise HandFormatError(field, message) for a setting the game does not read; the message names the
    known ones. `tariff.*` entries must name entries of the game's tariff table."""
    from scoring.hand import merged_tariff

    g = scoring.find_game(game_id)
    known = known_options(g.id)
    for key in options:
        if key not in known:
            raise scoring.HandFormatError(
                key, f"{g.name} has no setting {key!r}; known: {', '.join(known[:-1])}, or tariff.<entry>"
            )
    if "tariff" in options:
        if not isinstance(options["tariff"], dict):
            raise scoring.HandFormatError(
                "tariff", f"expected tariff.<entry> = value; entries: {', '.join(map(str, g.tariff))}"
            )
        merged_tariff(dict(g.tariff), {"tariff": options["tariff"]})


def tariff_entries(game_id: str) -> list[str]:
    """Every `tariff.a.b` line a group may set for this game, for the Settings page's hint."""
    def walk(table: dict, prefix: str):
        for key, value in table.items():
            if isinstance(value, dict):
                yield from walk(value, f"{prefix}{key}.")
            else:
                yield f"{prefix}{key}"

    return list(walk(dict(scoring.find_game(game_id).tariff), "tariff."))


# The hand's fields as the Hand form names them (the schema's names are for the JSON API).
FIELD_WORDS = {
    "declarer": "Declarer",
    "partner": "Partner",
    "contract": "Contract",
    "card_points": "Card Points",
    "piles": "Photographed piles",
    "won": "Won or lost",
    "kontra": "Kontra",
    "last_trick": "Last trick",
    "pagat": "Pagat",
    "called_king": "called King",
    "moon_lost_by": "Moon lost by",
    "dealer": "Dealer",
    "skus_dealt_to": "Skus dealt to",
    "dodge_round": "Dodge Round",
    "dodge_round_loser": "Dodge Round lost by",
    "dodge_round_winner": "Dodge Round won by",
    "radli": "Radli",
    "bonuses": "Bonuses",
    "side": "side",
    "made": "made or lost",
    "announced": "announced",
    "players": "Players",
    "challenger": "Challenge called by",
    "march": "March",
    "tarok_declarations": "Tarok declarations",
    "options": "Settings",
    "tariff": "tariff",
}
_SAID = (
    (re.compile(r"leave partner (null|empty)"), "choose “none (alone)” as the Partner"),
    (re.compile(r"^missing$"), "please choose one"),
    (re.compile(r"\bnull\b"), "empty"),
)


def player_words(message: str, field: str | None = None) -> str:
    """A scorer's or checker's error message as the Hand form says it: the field by its label on the form
    ("bonuses[0].side: missing" -> "Bonus 1, side: please choose one"), internal words replaced."""
    text = str(message)
    label = None
    if field and text.startswith(f"{field}: "):
        text = text[len(field) + 2:]
        label = field_label(field)
    for pattern, said in _SAID:
        text = pattern.sub(said, text)
    return f"{label}: {text}" if label else text


def field_label(field: str) -> str:
    parts = []
    for part in field.split("."):
        name, _, index = part.partition("[")
        word = FIELD_WORDS.get(name, name.replace("_", " "))
        if index.rstrip("]").isdigit():
            word = f"{'Bonus' if name == 'bonuses' else word} {int(index.rstrip(']')) + 1}"
        parts.append(word)
    return ", ".join(parts)


_NATIVE = re.compile(r"\(native (-?[\d /]+)\)|\((-?[\d /]+) native\)")


def detail_words(text: str) -> str:
    """A ledger step's detail with the scorer's shorthand spelled out: "(native 20)" is the value under
    Traditional Scoring."""
    return _NATIVE.sub(lambda m: f"(Traditional Scoring: {(m.group(1) or m.group(2)).strip()})", str(text))
