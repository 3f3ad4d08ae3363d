"""Hand benchmark: whole hands (both sides' trick piles of one deal) through the hand reader.

    python -m models.handbench --hands 200 --seed 70000 --cache /tmp/hands [--json rows.json]
    python -m models.handbench --render-only --hands 200 --seed 70000 --cache /tmp/hands --workers 2

With --renderer holdout the hands are drawn by the independent renderer (models/holdout) instead.

A hand is a shuffled 54-card deck (every third hand the 42-card Hungarian one) split into the Declarer's
tricks and the Defenders', each side's pile rendered as its own photo by the training generator
(models/synth.py) with a seed range that training never uses (training: 0-99, evaluation photos: 1000+;
hands: 70000+ here). Hand i depends only on (seed, i). The hand reader (vision.hand) reads both photos as
one hand; again with the players saying how the tricks lie ("told": cards per trick and the Talon cards in the
Declarer's pile, so the count of whole tricks places a card no photo shows); and the Declarer's photo alone
with "the rest is theirs".

Per deck it prints: hands settled (no question) with both sides' Card Points right and every Trull card and
King on the right side; hands settled but wrong; questions per hand; questions whose answers all give the
same score (must be 0); the time for a hand against recognising its two photos one by one; and, where the
truth says where the indices lie, each pile's count of cards no read shows against the cards truly hidden there
(`count_table`: spreads and fans, the covered-card count's errors). With --bound,
also what the photos allow: the hands decoded as a reader that reads every card showing a third of an index
right, and nothing else, would see them (the cards showing less lie only by elimination), and the same with each
pile's hidden cards counted too (a covered-card model never wrong, its lone count trusted). With --layers, what
each part of reading costs: the hands decoded again with the reader's own reads mended layer on layer (misread
cards, cards not found, hidden cards seen as cards; `mended_piles`).
"""
from __future__ import annotations

import argparse
import functools
import json
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

import scoring
from models.dataset import progress
from models.synth import FACES_DIR, PHOTO_SIZES, Deck, random_scene, render

GAME_FOR_DECK = {54: "slovenian", 42: "hungarian"}
SIDES = ("declarer", "defenders")


def deal(rng: np.random.Generator, deck_size: int) -> dict[str, list[str]]:
    """Both sides' piles: whole tricks (3 or 4 players) plus 0, 3 or 6 Talon cards for the Declarer, 6-48 each."""
    return deal_terms(rng, deck_size)[0]


def deal_terms(rng: np.random.Generator, deck_size: int) -> tuple[dict[str, list[str]], dict[str, int]]:
    """`deal`, and how its tricks lie: {"players": cards per trick, "talon": the Declarer's cards no trick
    brought} (what the players at the table know of their hand)."""
    game = scoring.find_game(GAME_FOR_DECK[deck_size])
    ids = [c.id for c in game.deck]
    n = len(ids)
    while True:
        players = 4 if deck_size == 54 and rng.random() < 0.7 else 3
        tricks = (n - 6) // players
        won = int(rng.integers(1, tricks))
        kept = int(rng.choice([0, 3, 6, 6]))
        k = won * players + kept
        if 6 <= k <= n - 6:
            break
    order = [ids[i] for i in rng.permutation(n)]
    return {"declarer": order[:k], "defenders": order[k:]}, {"players": players, "talon": kept}


def hand_scenes(seed: int, i: int, deck: Deck, size: tuple[int, int] | None = None, tight: bool = False
                ) -> tuple[dict, dict]:
    """Hand i drawn: its truth (deck size, both piles, photo sizes, how the tricks lie) and one scene per side
    (of `size`, where given, instead of a drawn one; with `tight`, most spreads pushed together, for training)."""
    rng = np.random.default_rng([seed, i])
    deck_size = 42 if i % 3 == 2 else 54
    piles, terms = deal_terms(rng, deck_size)
    truth = {"deck": deck_size, "game": GAME_FOR_DECK[deck_size], "piles": piles, "sizes": {}, "tricks": terms}
    scenes = {}
    for side in SIDES:
        drawn = PHOTO_SIZES[rng.integers(len(PHOTO_SIZES))]
        scenes[side] = random_scene(rng, size=size or drawn, cards=[deck.ids.index(c) for c in piles[side]],
                                    n_piles=1, tight=tight)
        truth["sizes"][side] = list(size or drawn)
    return truth, scenes


def hand_photos(seed: int, i: int, deck: Deck, size: tuple[int, int] | None = None
                ) -> tuple[dict, dict[str, np.ndarray]]:
    """Hand i: its truth (`hand_scenes`, and how much of each card's index shows) and one rendered photo per
    side."""
    truth, scenes = hand_scenes(seed, i, deck, size)
    photos = {}
    for side, scene in scenes.items():
        photos[side], labels = render(scene, deck, 1.0)
        truth.setdefault("visible", {})[side] = {
            c: round(max(lab["visible"] for lab in labels if lab["card"] == c), 3) for c in truth["piles"][side]}
        # labels come in drawing order (two per card), the topmost last
        truth.setdefault("index", {})[side] = _label_places(labels)
    return truth, photos


def _place(card: str, visible: float, quad) -> list:
    """One printed index in a hand's truth: [card, share showing, its box's four corners in photo px]."""
    return [card, round(float(visible), 3), [[round(float(x), 1), round(float(y), 1)] for x, y in quad]]


def _label_places(labels: list[dict]) -> list:
    """The training generator's labels (`models.synth.render`, drawing order) as a truth's index places."""
    return [_place(lab["card"], lab["visible"], lab["quad"]) for lab in labels]


def shown_cards(places: list, pile) -> set[str | None]:
    """The cards whose index some read of the pile lies on (`card_at`; None for a read on no index)."""
    return {card_at(places, s.centre) for s in pile.sightings}


def card_at(places: list, centre) -> str | None:
    """The card whose index a read at `centre` (photo px) shows, from a hand's truth (`index`, drawing order):
    the topmost index showing at all whose box, grown a tenth, holds the point; None where no index is."""
    for card, visible, quad in reversed(places):
        q = np.asarray(quad, np.float32)
        mid = q.mean(0)
        grown = mid + 1.1 * (q - mid)
        if visible > 0.0 and cv2.pointPolygonTest(grown, (float(centre[0]), float(centre[1])), False) >= 0:
            return card
    return None


def holdout_hand_photos(seed: int, i: int, faces: Path | None = None) -> tuple[dict, dict[str, np.ndarray]]:
    """Hand i drawn by the independent hold-out renderer (models/holdout, written apart from models/synth.py):
    its own deal, pile styles, camera, light and sensor, one photo per side."""
    from models.holdout import scene as hs

    renderer = _holdout_renderer(faces)
    rng = np.random.default_rng([seed, i])
    deal = hs.random_deal(rng, renderer.deck)
    photos, truth = {}, {"deck": deal.deck_size, "game": GAME_FOR_DECK[deal.deck_size],
                         "piles": {"declarer": list(deal.declarer), "defenders": list(deal.defenders)},
                         "sizes": {}, "renderer": "holdout", "tricks": {"players": deal.players, "talon": deal.talon}}
    truth["visible"], truth["index"] = {}, {}
    for side in SIDES:
        size = HOLDOUT_SIZES[int(rng.integers(len(HOLDOUT_SIZES)))]
        photos[side], truth["visible"][side], truth["index"][side] = _holdout_pile_photo(
            rng, renderer, deal, side, tuple(getattr(deal, side)), size, i)
        truth["sizes"][side] = list(size)
    return truth, photos


def _holdout_pile_photo(rng, renderer, deal, side: str, cards: tuple[str, ...], size, i: int
                        ) -> tuple[np.ndarray, dict[str, float], list]:
    """One side's pile laid out, photographed and developed by the hold-out renderer, drawing from rng; with
    the share of each card's better index left uncovered (the renderer's own table-plane `visibility`) and
    where each index lies in the photo (`_place`s, drawing order)."""
    from models.holdout import render as hr
    from models.holdout import scene as hs

    for attempt in range(40):
        laid, styles = hs._lay_piles(rng, [(side, cards)], compact=attempt >= 15)
        pts = np.concatenate([c.pose.corners(hs.CARD_RECT) for c in laid])
        cam = hs._fit_camera(rng, pts, size, False)
        if cam is not None:
            break
    else:
        raise RuntimeError(f"hand {i}: no camera pose fits {side}'s {len(cards)} cards")
    scene = hs.Scene(deal, (side,), tuple(styles), laid, cam)
    scene.clutter = hs._clutter(rng, scene, False)
    chroma = rng.uniform(0, 0.0015)
    margin = cam.lens_margin(chroma)
    canvas, _light = hr._Drawing(renderer, scene, rng, cam.padded(margin)).draw()
    shares = hs.visibility(scene)
    visible = {c.id: round(max(v), 4) for c, v in zip(scene.cards, shares)}
    places = []
    for k in sorted(range(len(scene.cards)), key=lambda k: scene.cards[k].pose.layer):
        card = scene.cards[k]
        for box, share in zip((hs.INDEX_TL, hs.INDEX_BR), shares[k]):
            pts = card.pose.corners(box)
            places.append(_place(card.id, share, cam.distort(cam.project(
                np.column_stack([pts, np.full(len(pts), card.z)])))))
    return hr._camera_pipeline(rng, canvas, cam, margin, chroma), visible, places


HOLDOUT_SIZES = ((1640, 1232), (2028, 1520), (2304, 1296), (4056, 3040), (4608, 2592))
_HOLDOUT: dict = {}


@functools.cache
def _deck(faces: Path) -> Deck:
    return Deck.load(faces)


def _holdout_renderer(faces):
    from models.holdout.render import HoldoutRenderer

    if faces not in _HOLDOUT:
        _HOLDOUT[faces] = HoldoutRenderer(faces)
    return _HOLDOUT[faces]


def _render_job(job) -> int:
    seed, i, cache, faces, renderer = job
    if renderer == "holdout":
        truth, photos = holdout_hand_photos(seed, i)
    else:
        truth, photos = hand_photos(seed, i, Deck.load(Path(faces)))
    for side, img in photos.items():
        cv2.imwrite(str(cache / f"{i:04d}-{side}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
    (cache / f"{i:04d}.json").write_text(json.dumps(truth))
    return i


def render_all(seed: int, n: int, cache: Path, faces: Path, workers: int, renderer: str = "synth") -> None:
    cache.mkdir(parents=True, exist_ok=True)
    jobs = [(seed, i, cache, str(faces), renderer) for i in range(n) if not (cache / f"{i:04d}.json").exists()]
    t0 = time.time()
    if workers <= 1:
        for k, job in enumerate(jobs):
            _render_job(job)
            progress(k, len(jobs), t0, "rendering hands")
        return
    cv2.setNumThreads(1)
    with ProcessPoolExecutor(workers) as pool:
        for k, _ in enumerate(pool.map(_render_job, jobs, chunksize=2)):
            progress(k, len(jobs), t0, "rendering hands")


def pile_path(cache: Path, i: int, side: str, release: str) -> Path:
    """Where a cache keeps hand i's pile read of `side` ("declarer", or "declarer-retake" for a new photo) made by
    `release` (`--reuse-reads`); the photo is `<i>-<side>.jpg` beside it."""
    return cache / f"{i:04d}-{side}.{release}.pile.json"


def load_hand(cache: Path, i: int) -> tuple[dict, dict[str, np.ndarray]]:
    truth = json.loads((cache / f"{i:04d}.json").read_text())
    photos = {s: cv2.imread(str(cache / f"{i:04d}-{s}.jpg"), cv2.IMREAD_COLOR) for s in SIDES}
    return truth, photos


def tricks_of(truth: dict, seed: int, i: int) -> dict[str, int]:
    """How hand i's tricks lie (`deal_terms`): from its truth, or for a hand cached before it was written
    there, from the deal drawn again (the deal is the first thing drawn from the hand's seed)."""
    if "tricks" in truth:
        return truth["tricks"]
    rng = np.random.default_rng([seed, i])
    if truth.get("renderer") == "holdout":
        from models.holdout import scene as hs

        d = hs.random_deal(rng, _holdout_renderer(None).deck)
        piles, terms = {"declarer": list(d.declarer), "defenders": list(d.defenders)}, \
            {"players": d.players, "talon": d.talon}
    else:
        piles, terms = deal_terms(rng, truth["deck"])
    if piles != truth["piles"]:
        raise ValueError(f"hand {i}: the cache was not drawn from seed {seed}")
    return terms


def score_facts(game, piles: dict[str, list[str]]) -> dict:
    """What the players' score depends on: both sides' Card Points and the side of every Trull card and King."""
    special = {c.id for c in game.deck if c.trull or (c.kind == "suit" and c.is_king)}
    return {"points": {s: str(game.count(piles[s])) for s in SIDES},
            "special": {c: s for s in SIDES for c in piles[s] if c in special}}


def judge(game, truth_piles: dict[str, list[str]], result) -> dict:
    """One decoded hand against the truth."""
    settled = not result.questions
    got = {s: [c.card_id for c in result.sides[s].cards] for s in SIDES}
    try:
        right = score_facts(game, got) == score_facts(game, truth_piles)
    except ValueError:
        right = False
    exact = all(sorted(got[s]) == sorted(truth_piles[s]) for s in SIDES)
    return {"settled": settled, "right": right, "exact": exact, "questions": len(result.questions),
            "kinds": [q.kind for q in result.questions],
            "instead": len(result.instead),   # taps behind a better photo, for players who would rather tap
            "idle_questions": None,     # filled by idle_questions() when the reader is at hand
            "unsure": sum(c.unsure for s in SIDES for c in result.sides[s].cards),
            "wrong_cards": sum(len(set(truth_piles[s]) - set(got[s])) for s in SIDES)}


def idle_questions(reader, game, piles, result, rest: str | None = None, sizes=None) -> int:
    """Questions whose every answer leaves the same scores possible (there must be none): each which_card and
    which_pile question answered each way in turn, the hand decoded again, and the scores it still allows
    (HandRead.outcomes: Card Points of both sides and the bonus cards' sides) compared. A question that only
    matters together with another open one still narrows what is possible, so it is not idle."""
    idle = 0
    for q in result.questions + result.instead:
        if q.answers():
            idle += len({reader.decode(game, piles, rest=rest, answers=[a], sizes=sizes).outcomes
                         for a in q.answers()}) == 1
    return idle


def taps(reader, game, piles, truth_piles: dict[str, list[str]], rest: str | None = None, most: int = 12,
         sizes=None, retake=None, places: dict[str, list] | None = None, last: bool = False) -> dict:
    """Players answering the first open question each time, truthfully, until none is open: how many taps,
    and whether the hand is then right. A respread ends it (it needs a new photo) when nothing else is asked;
    with other questions below it the players answer those instead (`respread`: whether one was offered).

    places: side -> where each index lies in its photo (the truth's `index`): a "which card" question is then
    answered with the card the read truly shows, "no card" where it shows none or shows a card the players
    named for another read already, or that another read takes rightly for its likeliest (its index seen twice,
    or its other index); a card not offered is named from the whole deck
    ("None of these: it is ...", two taps; `named` counts them). Without them (hands cached before the truth
    said), the players answer with the first choice lying in that pile.

    last: the players answer the last open question each time instead (the page shows them all, in no order
    they must keep): truthful answers in any order must not settle a hand wrong.

    retake(side) -> (PileRead, places or None): the players do spread a pile again when asked, once per pile, and
    the new photo replaces the old one (answers about the old photo's reads go with it; where a card lies stays
    said)."""
    from vision.hand import NOT_A_CARD, Answer

    answers, n, respread, retaken, named = [], 0, False, [], 0
    places = dict(places or {})
    result = reader.decode(game, piles, rest=rest, sizes=sizes)
    while result.questions and n < most:
        respread |= any(q.kind == "respread" for q in result.questions)
        again = list(dict.fromkeys(q.side for q in result.questions if q.kind == "respread"
                                   and q.side in piles and q.side not in retaken))
        if retake is not None and again:
            piles = dict(piles)
            for side in again:
                piles[side], places[side] = retake(side)
            retaken += again
            answers = [a for a in answers if a.kind != "which_card" or a.side not in again]
            result = reader.decode(game, piles, rest=rest, answers=answers, sizes=sizes)
            continue
        asked = [q for q in result.questions + result.instead if q.kind != "respread"] or result.questions[:1]
        q = asked[-1] if last else asked[0]
        if q.kind == "respread":
            break
        if q.kind == "count":
            truly = len(truth_piles[q.side]) == int(q.card)
            answers.append(Answer("count", q.side, "yes" if truly else "no"))
        elif q.kind == "which_pile":
            side = next(s for s in SIDES if q.card in truth_piles[s])
            answers.append(Answer("which_pile", side, q.card))
        elif q.kind == "pile_size":
            size = str(len(truth_piles[q.side]))
            if size not in q.choices:   # the true count is not offered: the players cannot answer truly
                break
            answers.append(Answer("pile_size", q.side, size))
        elif places.get(q.side) is not None and q.where is not None:
            card = card_at(places[q.side], q.where) or NOT_A_CARD
            if card != NOT_A_CARD and (
                    any(a.kind == "which_card" and a.side == q.side and a.card == card for a in answers)
                    or any(k != q.sighting and s.likely[0][0] == card and card_at(places[q.side], s.centre) == card
                           for k, s in enumerate(piles[q.side].sightings if q.side in piles else ()))):
                card = NOT_A_CARD       # a card the players named, or another read shows rightly, seen again
            if card not in q.choices:   # not offered: picked from the whole deck
                named += 1
                n += 1
            answers.append(Answer("which_card", q.side, card, q.sighting))
        else:
            card = next((c for c in q.choices if c in truth_piles[q.side]), NOT_A_CARD)
            answers.append(Answer("which_card", q.side, card, q.sighting))
        n += 1
        result = reader.decode(game, piles, rest=rest, answers=answers, sizes=sizes)
    verdict = judge(game, truth_piles, result)
    return {"taps": n, "settled": verdict["settled"], "right": verdict["right"], "respread": respread,
            "retakes": len(retaken), "named": named}


def retake_photo(seed: int, i: int, side: str, truth: dict, faces: Path | None = None) -> tuple[np.ndarray, list]:
    """The photo of hand i's `side` pile taken again after the players spread it anew: the same cards laid out
    and photographed afresh (pile style, camera, light and clutter drawn again, from a stream of its own); with
    where each index lies in it (`_place`s, drawing order)."""
    rng = np.random.default_rng([seed, i, 1 + SIDES.index(side), 12])
    cards = truth["piles"][side]
    if truth.get("renderer") == "holdout":
        from models.holdout import scene as hs

        renderer = _holdout_renderer(faces)
        deal = hs.random_deal(np.random.default_rng([seed, i]), renderer.deck)
        size = HOLDOUT_SIZES[int(rng.integers(len(HOLDOUT_SIZES)))]
        image, _visible, places = _holdout_pile_photo(rng, renderer, deal, side, tuple(cards), size, i)
        return image, places
    deck = _deck(Path(faces or FACES_DIR))
    drawn = PHOTO_SIZES[rng.integers(len(PHOTO_SIZES))]
    scene = random_scene(rng, size=drawn, cards=[deck.ids.index(c) for c in cards], n_piles=1)
    image, labels = render(scene, deck, 1.0)
    return image, _label_places(labels)


def pile_counts(piles, truth: dict, settings) -> dict[str, list[int]]:
    """Per photographed side: [cards the reader counts there that no read shows (`PileRead.hidden`: covers,
    slivers, a fan's gap), cards of that pile no read truly shows (the truth's index places), those of them
    truly hidden (less than a third of an index showing: what the count is for; the rest the detector missed),
    1 for a fan (`PileRead.fanned`) else 0]. A pile counting more than it lacks can settle a hand wrong; one
    counting fewer leaves a question."""
    from models.dataset import MIN_VISIBLE

    out = {}
    for side, pile in piles.items():
        places = truth["index"][side]
        shown = shown_cards(places, pile)
        unseen = [c for c in truth["piles"][side] if c not in shown]
        showing = {c: max((v for card, v, _ in places if card == c), default=0.0) for c in unseen}
        out[side] = [len(pile.hidden(settings)), len(unseen), sum(v < MIN_VISIBLE for v in showing.values()),
                     int(pile.fanned(settings))]
    return out


def count_table(counts: list[list[int]]) -> dict[str, dict[str, list[int]]]:
    """Piles by kind (spread, fan) and by the cards truly hidden there (0, 1, 2, 3 or more): how many count 0, 1,
    2, 3 or more cards no read shows (`pile_counts`). The diagonal is right; above it the count says too many."""
    out: dict[str, dict[str, list[int]]] = {}
    for counted, _, hidden, fan, *_ in (c for c in counts if len(c) >= 4):
        row = out.setdefault("fan" if fan else "spread", {}).setdefault(f"hiding {min(hidden, 3)}", [0] * 4)
        row[min(counted, 3)] += 1
    return {kind: dict(sorted(rows.items())) for kind, rows in sorted(out.items())}


def hidden_cards(truth: dict) -> int | None:
    """Cards showing less than a third of either index (no reader can name them; placed only by elimination),
    or None where the hand's truth does not say (hands cached before the independent renderer said)."""
    from models.dataset import MIN_VISIBLE

    vis = truth.get("visible")
    return None if vis is None else sum(v < MIN_VISIBLE for side in vis.values() for v in side.values())


def readable_piles(truth: dict, counted: bool = False):
    """Both photos as a reader would see them that names, sure and right, every card showing a third of an index
    or more and nothing else: what the photos allow (the rest can lie only by elimination). counted: each pile
    also knows how many of its cards hide, as a covered-card model never wrong would say (that many of its reads,
    at most all, sure a covered card lies beside them; decode it with `lone_cover` off, as `main` does: such a
    count needs no doubt). None where the truth does not say what shows (hands cached before the independent
    renderer said)."""
    from models.dataset import MIN_VISIBLE
    from vision.hand import PileRead, Sighting

    vis = truth.get("visible")
    if vis is None:
        return None
    out = {}
    for side in SIDES:
        shown = [c for c in truth["piles"][side] if vis[side][c] >= MIN_VISIBLE]
        hide = len(truth["piles"][side]) - len(shown) if counted else 0
        out[side] = PileRead(tuple(truth["sizes"][side]), [
            replace(Sighting.named(c, scoring.card(c).pips, (40.0 * k, 100.0)), covered=float(k < hide))
            for k, c in enumerate(shown)])
    return out


LAYERS = ("reads", "found", "hidden")    # what `mended_piles` mends, each layer on top of the ones before


def best_index(places: list, card: str) -> np.ndarray:
    """The quad (photo px) of the card's index showing most, from a hand's truth (`index`)."""
    return np.asarray(max((t for t in places if t[0] == card), key=lambda t: t[1])[2])


def mended_piles(game, piles: dict, truth: dict, layer: str) -> dict | None:
    """The reader's own pile reads with one part of reading made perfect, to say what each part costs (`--layers`):
    "reads", every read on an index showing a third or more names its card, sure (the first read of each card);
    "found", also every such card no read found is read so at its best index; "hidden", also every card showing
    less is seen there as a card, sure it is one but not which (any card no read names; elimination says which).
    None where the truth does not say where each index lies."""
    from models.dataset import MIN_VISIBLE
    from vision.geometry import quad_frame
    from vision.hand import NOT_A_CARD, Sighting

    places, vis = truth.get("index"), truth.get("visible")
    if places is None or vis is None:
        return None
    step = LAYERS.index(layer)
    read, unseen = {}, {}
    for side, pile in piles.items():
        named, read[side] = set(), []
        for s in pile.sightings:
            card = card_at(places[side], s.centre)
            if card is not None and vis[side][card] >= MIN_VISIBLE and card not in named:
                named.add(card)
                s = replace(s, likely=Sighting.named(card, s.pips).likely)
            read[side].append(s)
        unseen[side] = [c for c in truth["piles"][side] if c not in named and (
            vis[side][c] >= MIN_VISIBLE and step >= 1 or vis[side][c] < MIN_VISIBLE and step >= 2)]
    claimed = {s.likely[0][0] for side in read for s in read[side]} | {
        c for side in read for c in unseen[side] if vis[side][c] >= MIN_VISIBLE}
    free = [c.id for c in game.deck if c.id not in claimed]
    for side in piles:
        for card in unseen[side]:
            centre, up, h = quad_frame(best_index(places[side], card))
            if vis[side][card] >= MIN_VISIBLE:
                read[side].append(Sighting.named(card, scoring.card(card).pips, centre, up, h))
                continue
            # seen as a card, not which; its pips are not seen either (-1: no card's), so no free card is favoured
            likely = tuple((c, (1 - 1e-3) / len(free)) for c in free) + ((NOT_A_CARD, 1e-3),)
            read[side].append(Sighting(tuple(map(float, centre)), tuple(map(float, up)), h, likely, -1, 1.0))
    return {side: replace(piles[side], sightings=read[side]) for side in piles}


def unfound_at_index(reader, game, piles: dict, truth: dict, photos: dict) -> dict[str, int] | None:
    """The cards showing a third of an index or more that no read found (`--layers`), each read by the reader's
    classifier at its own index as the truth places it (`HandReader._probabilities`): whether a closer look could
    name it. Counts: unfound; named (the best card the right one); sure (named at 0.5 or more); card (no card under 0.5).
    None where the truth does not say where each index lies."""
    from models.dataset import MIN_VISIBLE
    from vision.geometry import quad_frame

    places, vis = truth.get("index"), truth.get("visible")
    if places is None or vis is None:
        return None
    deck = [c.id for c in game.deck]
    out = {"unfound": 0, "named": 0, "sure": 0, "card": 0}
    for side, pile in piles.items():
        shown = shown_cards(places[side], pile)
        lost = [c for c in truth["piles"][side] if c not in shown and vis[side][c] >= MIN_VISIBLE]
        if not lost:
            continue
        centres, ups, heights = (np.array(v, float) for v in zip(*(quad_frame(best_index(places[side], c))
                                                                     for c in lost)))
        probs = reader._probabilities(photos[side], game, centres, ups, heights)[0]
        for card, p in zip(lost, probs):
            best = int(np.argmax(p[:-1]))
            out["unfound"] += 1
            out["named"] += int(deck[best] == card)
            out["sure"] += int(deck[best] == card and p[best] >= 0.5)
            out["card"] += int(p[-1] < 0.5)
    return out


def summarise(rows: list[dict]) -> dict:
    out = {}
    for deck_size in (54, 42):
        # The reader's count of cards no read shows, per pile, against the cards no read truly shows there
        counts = [v for r in rows if r["deck"] == deck_size for v in r.get("counts", {}).values()]
        if counts:
            out[f"{deck_size}-card pile counts"] = {
                "piles": len(counts), "counting_a_card": sum(n > 0 for n, *_ in counts),
                "counting_more_than_lost": sum(n > lost for n, lost, *_ in counts),
                "counting_a_card_none_lost": sum(n > 0 and lost == 0 for n, lost, *_ in counts),
                "counting_fewer_than_lost": sum(n < lost for n, lost, *_ in counts)}
            table = count_table(counts)
            if table:
                out[f"{deck_size}-card pile counts by cards hidden"] = table
        unfound = [r["unfound"] for r in rows if r["deck"] == deck_size and r.get("unfound")]
        if unfound:     # could a closer look name the cards no read found? (the classifier at their own index)
            out[f"{deck_size}-card unfound cards at their index"] = {
                k: sum(u[k] for u in unfound) for k in ("unfound", "named", "sure", "card")}
        for mode in ("both", "told", "rest"):
            sub = [r[mode] for r in rows if r["deck"] == deck_size and mode in r]
            if not sub:
                continue
            n = len(sub)
            out[f"{deck_size}-card {mode}"] = {
                "hands": n,
                "settled_and_right": round(sum(r["settled"] and r["right"] for r in sub) / n, 4),
                "settled_but_wrong": sum(r["settled"] and not r["right"] for r in sub),
                "questions_per_hand": round(sum(r["questions"] for r in sub) / n, 3),
                # taps a better photo makes needless, waiting behind the request (HandSettings.photo_first)
                "taps_behind_a_new_photo_per_hand": round(sum(r.get("instead", 0) for r in sub) / n, 3),
                "questions_not_changing_score": sum(r["idle_questions"] for r in sub),
                "exact_hands": round(sum(r["exact"] for r in sub) / n, 4),
                "unsure_cards_per_hand": round(sum(r["unsure"] for r in sub) / n, 3),
                "question_kinds": _kinds(sub),
            }
            # Split by how many cards hide (almost) all of their index: the reader's part and the photo's; the
            # issue's own hands hide at most two cards each.
            hiding = [(r.get("hidden"), r[mode]) for r in rows if r["deck"] == deck_size and mode in r]
            seen_all = [h for k, h in hiding if k == 0]
            if seen_all:
                out[f"{deck_size}-card {mode}"].update({
                    "hands_with_a_hidden_card": sum(1 for k, _ in hiding if (k or 0) > 0),
                    "settled_and_right_when_every_card_shows_a_third": _right(seen_all)})
            few = [h for k, h in hiding if k is not None and k <= 2]
            if few:
                out[f"{deck_size}-card {mode}"].update({
                    "hands_hiding_at_most_two_cards": len(few),
                    "settled_and_right_when_at_most_two_cards_hide": _right(few),
                    "settled_but_wrong_when_at_most_two_cards_hide": sum(h["settled"] and not h["right"] for h in few),
                    "questions_per_hand_when_at_most_two_cards_hide": round(
                        sum(h["questions"] for h in few) / len(few), 3),
                    "taps_behind_a_new_photo_per_hand_when_at_most_two_cards_hide": round(
                        sum(h.get("instead", 0) for h in few) / len(few), 3)})
            for key, name in (("bound", "settled_and_right_if_every_card_showing_a_third_were_read"),
                              ("counted", "settled_and_right_if_also_each_pile_s_hidden_cards_were_counted")):
                bound = [r[f"{key}_{mode}"] for r in rows if r["deck"] == deck_size and f"{key}_{mode}" in r]
                if bound:
                    out[f"{deck_size}-card {mode}"][name] = round(
                        sum(b["settled"] and b["right"] for b in bound) / len(bound), 4)
            for k in LAYERS:     # what each part of reading costs: the share were it (and those before) perfect
                layer = [r[f"{k}_{mode}"] for r in rows if r["deck"] == deck_size and f"{k}_{mode}" in r]
                if layer:
                    out[f"{deck_size}-card {mode}"][f"settled_and_right_mended_to_{k}"] = _right(layer)
            tapped = [r[f"taps_{mode}"] for r in rows if r["deck"] == deck_size and f"taps_{mode}" in r]
            if tapped:
                out[f"{deck_size}-card {mode}"].update({
                    "taps_per_hand": round(sum(t["taps"] for t in tapped) / len(tapped), 3),
                    "right_after_taps": round(sum(t["settled"] and t["right"] for t in tapped) / len(tapped), 4),
                    "settled_wrong_after_taps": sum(t["settled"] and not t["right"] for t in tapped),
                    # the same players answering the last question shown first
                    "right_after_taps_last_first": _share(rows, deck_size, f"taps_last_{mode}"),
                    "settled_wrong_after_taps_last_first": sum(
                        t["settled"] and not t["right"] for t in _runs(rows, deck_size, f"taps_last_{mode}")),
                    "respread_offered": sum(t.get("respread", False) for t in tapped),
                    # answers naming a card the question did not offer (picked from the whole deck)
                    "answers_not_offered": sum(t.get("named", 0) for t in tapped),
                    "right_after_retakes_and_taps": _share(rows, deck_size, f"retake_{mode}"),
                    "retakes_per_hand": round(float(np.mean([r[f"retake_{mode}"]["retakes"] for r in rows
                                                             if r["deck"] == deck_size and f"retake_{mode}" in r]
                                                            or [0])), 3),
                    "taps_per_hand_offered_a_respread": round(
                        float(np.mean([t["taps"] for t in tapped if t.get("respread")] or [0])), 2)})
    ms = [r["ms"] for r in rows if "ms" in r]
    base = [r["photo_ms"] for r in rows if "photo_ms" in r]
    if ms and base:
        out["hand_ms_median"] = round(float(np.median(ms)), 1)
        out["two_photos_recognise_ms_median"] = round(float(np.median(base)), 1)
        out["time_ratio_median"] = round(float(np.median([r["ms"] / r["photo_ms"] for r in rows])), 3)
    return out


def _runs(rows: list[dict], deck_size: int, key: str) -> list[dict]:
    """The deck's hands' `key` runs (taps, retakes), where played."""
    return [r[key] for r in rows if r["deck"] == deck_size and key in r]


def _share(rows: list[dict], deck_size: int, key: str) -> float | None:
    """Share of the deck's hands whose `key` run ended settled and right."""
    got = _runs(rows, deck_size, key)
    return _right(got) if got else None


def _right(runs: list[dict]) -> float:
    """Share of the runs settled and right."""
    return round(sum(t["settled"] and t["right"] for t in runs) / len(runs), 4)


def _kinds(sub: list[dict]) -> dict[str, int]:
    kinds: dict[str, int] = {}
    for r in sub:
        for k in r["kinds"]:
            kinds[k] = kinds.get(k, 0) + 1
    return kinds


def _retaken(reader, args, i: int, side: str, truth: dict, game):
    """The pile read of hand i's `side` photographed again and where its indices lie (kept in the cache beside
    the first photo; None for a photo cached before the truth said where)."""
    path = args.cache / f"{i:04d}-{side}-retake.jpg"
    where = path.with_suffix(".json")
    if path.exists():
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    else:
        faces = None if truth.get("renderer") == "holdout" else args.faces
        image, places = retake_photo(args.seed, i, side, truth, faces)
        cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        where.write_text(json.dumps(places))
    reads = pile_path(args.cache, i, f"{side}-retake", reader.rec.name) if args.reuse_reads else None
    return _pile(reader, image, game, reads), json.loads(where.read_text()) if where.exists() else None


def _pile(reader, image, game, path: Path | None):
    from vision.hand import PileRead

    if path is not None and path.exists():
        return PileRead.from_json(json.loads(path.read_text()))
    pile = reader.read_pile(image, game)
    if path is not None:
        path.write_text(json.dumps(pile.to_json()))
    return pile


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--seed", type=int, default=70000)
    ap.add_argument("--start", type=int, default=0, help="first hand index (to run a part of a cache)")
    ap.add_argument("--cache", type=Path, required=True, help="rendered hands are kept here and reused")
    ap.add_argument("--faces", type=Path, default=FACES_DIR)
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--workers", type=int, default=1, help="rendering processes")
    ap.add_argument("--renderer", choices=("synth", "holdout"), default="synth",
                    help="synth: the training generator (other seeds); holdout: the independent renderer")
    ap.add_argument("--render-only", action="store_true")
    ap.add_argument("--no-baseline", action="store_true", help="skip timing plain recognition of the photos")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--modes", default="both,told,rest",
                    help="which of both (two photos), told (two photos, how the tricks lie said), rest (one photo)")
    ap.add_argument("--layers", action="store_true",
                    help="also decode each hand with the reads mended layer by layer (`mended_piles`): what "
                         "misread, unfound and hidden cards each cost (hands whose truth says where indices lie); and the "
                         "unfound ones read at their own index (`unfound_at_index`): could a closer look name them")
    ap.add_argument("--bound", action="store_true",
                    help="also decode each hand as a reader that reads every card showing a third of an index right "
                         "would see it (hands whose truth says what shows): what the photos allow; and the same "
                         "with each pile's hidden cards counted (what a covered-card model never wrong would add)")
    ap.add_argument("--no-taps", action="store_true",
                    help="skip playing the players' taps and new photos (the settled figures only, much faster)")
    ap.add_argument("--reuse-reads", action="store_true",
                    help="keep each photo's pile read beside it and reuse it (to try decoder settings; no timing)")
    args = ap.parse_args(argv)
    modes = set(args.modes.split(","))
    if not modes or not modes <= {"both", "told", "rest"}:
        ap.error(f"--modes: a comma-separated choice of both, told, rest; not {args.modes!r}")
    render_all(args.seed, args.start + args.hands, args.cache, args.faces, args.workers, args.renderer)
    if args.render_only:
        return 0
    from vision import Recogniser
    from vision.hand import HandReader, decode

    rec = Recogniser.load(args.model)
    reader = HandReader(rec)
    # the counted bound's count is never wrong: its lone count is trusted too (`HandSettings.lone_cover` doubts
    # the covered-card model's, a quarter of whose lone covers lack nothing)
    trusting = replace(reader.settings, lone_cover=False)
    rows, t0 = [], time.time()
    for i in range(args.start, args.start + args.hands):
        truth, photos = load_hand(args.cache, i)
        game = scoring.find_game(truth["game"])
        row = {"hand": i, "deck": truth["deck"], "hidden": hidden_cards(truth)}
        if not args.no_baseline:
            t = time.perf_counter()
            for s in SIDES:
                rec.recognise(photos[s])
            row["photo_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        piles = {s: _pile(reader, photos[s], game, pile_path(args.cache, i, s, rec.name) if args.reuse_reads else None)
                 for s in SIDES}
        both = reader.decode(game, piles)
        row["ms"] = (time.perf_counter() - t) * 1000
        if truth.get("index"):
            row["counts"] = pile_counts(piles, truth, reader.settings)
        # the same hand as a perfect reader would see it (--bound), and its own reads mended (--layers)
        other = {"bound": readable_piles(truth), "counted": readable_piles(truth, counted=True)} if args.bound else {}
        other.update({k: mended_piles(game, piles, truth, k) for k in LAYERS} if args.layers else {})
        if args.layers:
            row["unfound"] = unfound_at_index(reader, game, piles, truth, photos)
        # Two photos; the same with the players saying how the tricks and the Talon lie (the count then places
        # a card no photo shows); the Declarer's photo alone with the rest theirs.
        for mode, shown, rest, told in (("both", piles, None, False), ("told", piles, None, True),
                                        ("rest", {"declarer": piles["declarer"]}, "defenders", False)):
            if mode not in modes:
                continue
            tricks = tricks_of(truth, args.seed, i) if told else None
            sizes = game.pile_sizes(tricks["players"], tricks["talon"]) if told else None
            result = both if mode == "both" else reader.decode(game, shown, rest=rest, sizes=sizes)
            row[mode] = judge(game, truth["piles"], result)
            for k, seen in other.items():
                if seen is not None:
                    seen = seen if mode != "rest" else {"declarer": seen["declarer"]}
                    st = trusting if k == "counted" else reader.settings
                    row[f"{k}_{mode}"] = judge(game, truth["piles"], decode(game, seen, rest, settings=st, sizes=sizes))
            row[mode]["idle_questions"] = idle_questions(reader, game, shown, result, rest, sizes)
            if args.no_taps:
                continue
            row[f"taps_{mode}"] = t = taps(reader, game, shown, truth["piles"], rest=rest, sizes=sizes,
                                           places=truth.get("index"))
            # settled with no tap: nothing was asked, so the order of the questions changes nothing
            row[f"taps_last_{mode}"] = t if t["settled"] and not t["taps"] else taps(
                reader, game, shown, truth["piles"], rest=rest, sizes=sizes, places=truth.get("index"), last=True)
            # the players spread a pile again when asked (once), then answer the rest
            row[f"retake_{mode}"] = t if not t["respread"] else taps(
                reader, game, shown, truth["piles"], rest=rest, sizes=sizes, places=truth.get("index"),
                retake=lambda side, i=i, truth=truth, game=game: _retaken(reader, args, i, side, truth, game))
        rows.append(row)
        first = next(m for m in ("both", "told", "rest") if m in modes)
        done = [r[first] for r in rows]
        progress(i - args.start, args.hands, t0, f"settled+right {sum(r['settled'] and r['right'] for r in done)}"
                 f" wrong {sum(r['settled'] and not r['right'] for r in done)}"
                 f" q {sum(r['questions'] for r in done)}")
    summary = summarise(rows)
    summary["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "hands": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
