"""The hand reader at the table: both piles' reads decoded as one hand, its questions on the Capture page,
answered with one tap (form) or through the API, and the Card Points once nothing is open."""

from __future__ import annotations

import json

import numpy as np
import pytest

import scoring
from device import handread
from vision.hand import PileRead, Sighting

GAME = scoring.find_game("slovenian")


def seen(card, p=0.995, others=(), x=0.0, pips=None):
    likely = ((card, p),) + tuple(others)
    rest = max(0.0, 1 - sum(q for _, q in likely))
    return Sighting((40.0 + x, 60.0), (0.0, -1.0), 50.0,
                    tuple(sorted(likely + (("none", rest),), key=lambda t: -t[1])),
                    scoring.card(card).pips if pips is None else pips, 0.9)


def store_pile_reads(store, controller) -> list[PileRead]:
    """Make the fake controller store a pile read with each capture, as the service does; returns the queue
    of pile reads the next captures take."""
    queue: list[PileRead] = []
    plain_capture = controller.capture

    def capture(side=None):
        pile = queue.pop(0)
        cid = plain_capture(side)
        store._write("UPDATE captures SET recognitions = ? WHERE id = ?",
                     (json.dumps(handread.recognitions_of(pile, GAME)), cid))
        handread.save_pile(store, cid, pile.to_json())
        return cid

    controller.capture = capture
    return queue


@pytest.fixture
def reads(table):
    _, store, controller, _ = table
    return store_pile_reads(store, controller)


def deal(k=26, seed=0):
    ids = [c.id for c in GAME.deck]
    order = [ids[i] for i in np.random.default_rng(seed).permutation(len(ids))]
    return order[:k], order[k:]


def pile(sightings):
    return PileRead((320, 240), list(sightings))


def shoot(player, side):
    r = player.post("/api/captures", json={"side": side})
    assert r.status_code == 200, r.text
    return r.json()["id"]


def test_a_hand_read_surely_is_settled_and_counted(player, reads):
    dec, dfn = deal()
    reads += [pile(seen(c) for c in dec), pile(seen(c) for c in dfn)]
    shoot(player, "declarer")
    shoot(player, "defenders")
    hand = player.get("/api/hand").json()
    assert hand["settled"] and hand["questions"] == []
    view = player.get("/api/piles").json()
    assert view["sides"]["declarer"]["points"] == GAME.format(GAME.count(dec))
    page = player.get("/capture").text
    assert 'id="hand-settled"' in page


def lost_pagat(player, reads) -> list[str]:
    """Both piles photographed; the Pagat, in the Declarer's pile, not found. Returns the Declarer's cards."""
    dec, dfn = deal(seed=1)
    dec, dfn = [c for c in dec if c != "T1"] + ["T1"], [c for c in dfn if c != "T1"]
    reads += [pile(seen(c) for c in dec if c != "T1"), pile(seen(c) for c in dfn)]
    shoot(player, "declarer")
    shoot(player, "defenders")
    return dec


def test_a_lost_pagat_is_asked_on_the_page_and_one_tap_settles_it(player, reads):
    dec = lost_pagat(player, reads)
    hand = player.get("/api/hand").json()
    assert [(q["kind"], q["card"]) for q in hand["questions"]] == [("which_pile", "T1")]
    page = player.get("/capture").text
    assert "The Pagat was not found: which pile is it in?" in page
    assert page.index('id="hand-questions"') < page.index('id="next-photo"')   # questions first
    r = player.post("/hand/answer", data={"csrf": player.csrf, "kind": "which_pile", "side": "declarer",
                                          "card": "T1"}, follow_redirects=False)
    assert r.status_code == 303
    hand = player.get("/api/hand").json()
    assert hand["settled"]
    assert "T1" in hand["sides"]["declarer"]["cards"]
    assert player.get("/api/piles").json()["sides"]["declarer"]["points"] == GAME.format(GAME.count(dec))


def test_a_photo_read_again_is_decoded_again(player, reads, table):
    """After the switch to the release for other printings the service reads the hand's earlier photo again
    (`Store.replace_recognitions`): the hand is decoded from the new read, not from the one kept for it."""
    _, store, _, _ = table
    dec = lost_pagat(player, reads)
    assert [q["card"] for q in player.get("/api/hand").json()["questions"]] == ["T1"]
    first = store.pending_captures(store.current_session()["id"])["declarer"]["id"]
    again = pile(seen(c) for c in dec)
    assert store.replace_recognitions(first, handread.recognitions_of(again, GAME), handread.pile_key(first),
                                      json.dumps(again.to_json()))
    hand = player.get("/api/hand").json()
    assert hand["settled"] and "T1" in hand["sides"]["declarer"]["cards"]


def test_a_doubt_that_changes_the_score_is_answered_through_the_api(player, reads):
    dec, dfn = deal(seed=2)
    dec = [c for c in dec if c not in ("HK", "HQ")] + ["HK"]
    dfn = [c for c in dfn if c not in ("HK", "HQ")] + ["HQ"]
    # The Declarer's King reads as King or Queen, and the Defenders' Queen is not read at all.
    reads += [pile([seen(c) for c in dec if c != "HK"] + [seen("HK", 0.55, (("HQ", 0.4),), pips=4)]),
              pile(seen(c) for c in dfn if c != "HQ")]
    shoot(player, "declarer")
    shoot(player, "defenders")
    questions = player.get("/api/hand").json()["questions"]
    which = next(q for q in questions if q["kind"] == "which_card")
    assert set(which["choices"]) >= {"HK", "HQ"}
    bad = player.post("/api/hand/answers", json={"kind": "which_card", "side": "declarer", "card": "S5",
                                                 "sighting": which["sighting"]})
    assert bad.status_code == 422 and "unknown card" in bad.text, bad.text
    r = player.post("/api/hand/answers", json={"kind": "which_card", "side": "declarer", "card": "HK",
                                               "sighting": which["sighting"]})
    assert r.status_code == 200, r.text
    assert "HK" in r.json()["sides"]["declarer"]["cards"]
    assert not any(q["kind"] == "which_card" for q in r.json()["questions"])
    if r.json()["questions"]:   # where the lost Queen lies may still change the score
        r = player.post("/api/hand/answers", json={"kind": "which_pile", "side": "defenders", "card": "HQ"})
    assert r.json()["settled"] and "HQ" in r.json()["sides"]["defenders"]["cards"]
    again = player.post("/api/hand/answers", json={"kind": "which_card", "side": "declarer", "card": "HQ",
                                                   "sighting": which["sighting"]})
    assert again.status_code == 409     # answered already: no longer open


def test_answers_need_the_pin_and_a_known_card(anon, player, reads):
    dec, dfn = deal(seed=3)
    reads += [pile(seen(c) for c in dec if c != "T21"), pile(seen(c) for c in dfn)]
    shoot(player, "declarer")
    shoot(player, "defenders")
    body = {"kind": "which_pile", "side": "declarer", "card": "T21"}
    assert anon.post("/api/hand/answers", json=body).status_code == 401
    assert player.post("/api/hand/answers", json={**body, "card": "ZZ9"}).status_code == 422
    assert player.post("/api/hand/answers", json={**body, "extra": 1}).status_code == 422


def test_a_hand_correction_counts_as_a_sure_read(player, reads):
    dec, dfn = deal(seed=4)
    dec = [c for c in dec if c not in ("HK", "HQ")] + ["HK"]
    dfn = [c for c in dfn if c not in ("HK", "HQ")] + ["HQ"]
    doubtful = [seen(c) for c in dec if c != "HK"] + [seen("HK", 0.55, (("HQ", 0.4),), pips=4)]
    reads += [pile(doubtful), pile(seen(c) for c in dfn if c != "HQ")]
    cid = shoot(player, "declarer")
    shoot(player, "defenders")
    assert player.get("/api/hand").json()["questions"]
    cards = player.get(f"/api/captures/{cid}").json()["cards"]
    k = next(i for i, c in enumerate(cards) if c["id"] == "HK")
    assert player.put(f"/api/captures/{cid}/cards/{k}", json={"card": "HK"}).status_code == 200
    hand = player.get("/api/hand").json()
    assert "HK" in hand["sides"]["declarer"]["cards"]
    assert not any(q["kind"] == "which_card" for q in hand["questions"])


def test_rest_is_theirs_decodes_one_pile_against_the_deck(player, reads):
    dec, dfn = deal(seed=5)
    reads += [pile(seen(c) for c in dec)]
    shoot(player, "declarer")
    assert player.put("/api/hand-state", json={"rest_is_theirs": True}).status_code == 200
    hand = player.get("/api/hand").json()
    assert sorted(hand["sides"]["defenders"]["cards"]) == sorted(dfn)
    assert [(q["kind"], q["card"]) for q in hand["questions"]] == [("count", str(len(dec)))]
    assert f"hold {len(dec)} cards?" in player.get("/capture").text
    r = player.post("/hand/answer", data={"csrf": player.csrf, "kind": "count", "side": "declarer",
                                          "card": "yes"}, follow_redirects=False)
    assert r.status_code == 303
    assert player.get("/api/hand").json()["settled"]


def test_no_pile_read_means_no_hand_read(player, table):
    player.post("/api/captures", json={"side": "declarer"})
    hand = player.get("/api/hand").json()
    assert hand["sides"] is None and not hand["settled"]


def test_a_photo_lists_each_card_once_and_flags_the_one_it_moved():
    sights = [seen("SQ", 0.95), seen("SQ", 0.7, (("HQ", 0.25),), pips=3, x=30), seen("T21")]
    cards = handread.recognitions_of(pile(sights), GAME)
    assert [(c["id"], c["flagged"]) for c in cards] == [("SQ", False), ("HQ", True), ("T21", False)]
    assert [c["sighting"] for c in cards] == [0, 1, 2]


def test_a_hand_with_open_questions_is_not_saved_from_the_photos(player, reads):
    lost_pagat(player, reads)
    form = player.get("/hand").text
    assert 'id="pile-open-questions"' in form
    data = {"csrf": player.csrf, "declarer": "Ana", "partner": "Cene", "contract": "three",
            "points_source": "piles", "kontra_contract": "1",
            "counted_after": str(player.get("/api/piles").json()["state"]["after_capture"])}
    r = player.post("/hands", data=data, follow_redirects=False)
    assert r.status_code == 409 and "question open" in r.text
    assert player.get("/api/hands").json() == []
    # one tap on the Capture page, and the same form saves
    player.post("/hand/answer", data={"csrf": player.csrf, "kind": "which_pile", "side": "declarer", "card": "T1"})
    r = player.post("/hands", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert len(player.get("/api/hands").json()) == 1


def test_saying_the_talon_cards_lets_the_count_of_tricks_place_a_lost_card(player, reads):
    dec = lost_pagat(player, reads)
    assert [q["card"] for q in player.get("/api/hand").json()["questions"]] == ["T1"]
    page = player.get("/capture").text
    assert 'id="talon-form"' in page and "tricks of 4 cards" in page      # four at this table
    # Four cards a trick: the Declarer's pile holds len(dec) % 4 cards no trick brought; only the Declarer's
    # pile can then take the Pagat.
    r = player.post("/capture/talon", data={"csrf": player.csrf, "talon": str(len(dec) % 4)},
                    follow_redirects=False)
    assert r.status_code == 303
    hand = player.get("/api/hand").json()
    assert hand["settled"] and "T1" in hand["sides"]["declarer"]["cards"]
    assert player.get("/api/piles").json()["talon"] == len(dec) % 4
    # Unsaid through the API: the question is back; other fields stay as they were.
    r = player.put("/api/hand-state", json={"talon": None})
    assert r.status_code == 200 and r.json()["talon"] is None
    assert [q["card"] for q in player.get("/api/hand").json()["questions"]] == ["T1"]
    assert player.put("/api/hand-state", json={"rest_is_theirs": False}).json()["talon"] is None
    assert player.put("/api/hand-state", json={"talon": 2}).json()["talon"] == 2
    assert player.put("/api/hand-state", json={"rest_is_theirs": False}).json()["talon"] == 2


def test_saying_the_contract_says_its_discards_and_carries_to_the_hand_form(player, reads):
    dec = lost_pagat(player, reads)
    contract = {3: "three", 2: "two", 1: "one", 0: "solo_without"}[len(dec) % 4]
    page = player.get("/capture").text
    assert f'value="contract:{contract}"' in page and 'value="contract:beggar"' not in page   # Beggar counts none
    assert 'id="say-contract-first"' in page        # a lost card's pile asked: the contract may place it
    r = player.post("/capture/talon", data={"csrf": player.csrf, "talon": f"contract:{contract}"},
                    follow_redirects=False)
    assert r.status_code == 303
    hand = player.get("/api/hand").json()
    assert hand["settled"] and "T1" in hand["sides"]["declarer"]["cards"]       # the count placed the Pagat
    said = player.get("/api/piles").json()
    assert (said["contract"], said["talon"]) == (contract, len(dec) % 4)
    assert f'value="contract:{contract}" selected' in player.get("/capture").text
    assert 'id="say-contract-first"' not in player.get("/capture").text    # said, and nothing left to ask
    # the hand form starts on the same contract: the score needs it anyway, so no second tap
    assert f'<option value="{contract}" selected' in player.get("/hand").text
    # a number said instead unsays the contract; the contract unsaid unsays both
    assert player.put("/api/hand-state", json={"talon": len(dec) % 4}).json()["contract"] is None
    assert player.put("/api/hand-state", json={"contract": contract}).json()["talon"] == len(dec) % 4
    r = player.put("/api/hand-state", json={"contract": None})
    assert (r.json()["contract"], r.json()["talon"]) == (None, None)
    assert [q["card"] for q in player.get("/api/hand").json()["questions"]] == ["T1"]
    assert '<option value="three" selected' not in player.get("/hand").text


def test_a_hand_saved_from_the_photos_keeps_the_contract_they_were_counted_for(player, reads):
    dec = lost_pagat(player, reads)
    contract = {3: "three", 2: "two", 1: "one", 0: "solo_without"}[len(dec) % 4]
    other = {"three": "two", "two": "one", "one": "three", "solo_without": "three"}[contract]
    player.put("/api/hand-state", json={"contract": contract})
    data = {"csrf": player.csrf, "declarer": "Ana", "partner": "Cene", "contract": other,
            "points_source": "piles", "kontra_contract": "1",
            "counted_after": str(player.get("/api/piles").json()["state"]["after_capture"])}
    r = player.post("/hands", data=data, follow_redirects=False)
    assert r.status_code == 409 and "counted for" in r.text
    assert player.get("/api/hands").json() == []
    # a contract with the same count (a solo of the same size) counts the piles alike: saved
    data["contract"] = {"three": "solo_three", "two": "solo_two", "one": "solo_one"}.get(contract, contract)
    data["partner"] = ""                        # the solos are played alone
    r = player.post("/hands", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    saved = player.get("/api/hands").json()
    assert len(saved) == 1
    hand = player.get(f"/api/hands/{saved[0]['id']}").json()["hand"]
    assert hand["contract"] == data["contract"] and "T1" in hand["piles"]["declarer"]  # the count's placement kept


def test_only_a_contract_with_another_count_is_another_count():
    from device.web.piles import other_count

    session = {"game": "slovenian"}
    assert other_count(session, "three", "two") and not other_count(session, "three", "solo_three")
    assert not other_count(session, "three", "beggar")          # counts no Card Points: the piles do not matter
    assert not other_count(session, "three", None) and not other_count(session, "three", "nonsense")


def test_a_contract_the_piles_count_cannot_fit_is_shown_to_check(player, reads):
    """Every card read: a contract whose discards and whole tricks cannot make the Declarer's count is named on
    both pages (the contract may be wrong, and with it the score), and the hand still counts as read."""
    dec, dfn = deal(k=26, seed=2)
    reads += [pile(seen(c) for c in dec), pile(seen(c) for c in dfn)]
    shoot(player, "declarer")
    shoot(player, "defenders")
    fits = {3: "three", 2: "two", 1: "one", 0: "solo_without"}[len(dec) % 4]
    wrong = "three" if fits != "three" else "two"
    player.put("/api/hand-state", json={"contract": fits})
    assert player.get("/api/piles").json()["count_warning"] is None
    player.put("/api/hand-state", json={"contract": wrong})
    said = player.get("/api/piles").json()
    warning = said["count_warning"]
    assert warning.startswith(f"The Declarer's pile holds {len(dec)} cards, but with ")
    assert dict(GAME.contracts)[wrong] in warning and "check the contract" in warning
    assert said["settled"]                      # every card read: nothing to ask, but something to check
    assert 'id="count-warning"' in player.get("/capture").text
    assert 'id="pile-count-warning"' in player.get("/hand").text
    player.put("/api/hand-state", json={"contract": None})
    assert player.get("/api/piles").json()["count_warning"] is None     # nothing said: nothing to check


@pytest.mark.parametrize("bad", [{"contract": "beggar"}, {"contract": "nonsense"}, {"contract": 3},
                                 {"contract": "x" * 41}])
def test_a_contract_without_a_count_is_refused_and_changes_nothing(player, reads, bad):
    lost_pagat(player, reads)
    player.put("/api/hand-state", json={"talon": 2})
    r = player.put("/api/hand-state", json=bad)
    assert r.status_code == 422
    said = player.get("/api/piles").json()
    assert (said["talon"], said["contract"]) == (2, None)
    r = player.post("/capture/talon", data={"csrf": player.csrf, "talon": "contract:dodge_round"},
                    follow_redirects=False)
    assert r.status_code == 422 and "say the number" in r.text
    assert player.get("/api/piles").json()["talon"] == 2


@pytest.mark.parametrize("bad", [{"talon": 13}, {"talon": -1}, {"talon": "three"}, {"talon": 2.5}, {"talo": 1}])
def test_a_malformed_talon_count_is_refused(player, bad):
    assert player.put("/api/hand-state", json=bad).status_code == 422


def test_a_malformed_talon_form_is_refused_and_changes_nothing(player, reads):
    lost_pagat(player, reads)
    r = player.post("/capture/talon", data={"csrf": player.csrf, "talon": "99"}, follow_redirects=False)
    assert r.status_code == 422
    assert player.get("/api/piles").json()["talon"] is None


def test_when_the_count_allows_two_sizes_the_page_asks_how_many_cards_and_one_tap_settles_it(player, reads):
    """Six 0-pip cards lost, one of them the Declarer's: with four cards a trick the count allows one or five of
    them in the Declarer's pile, and no single card's pile tells the two apart."""
    dec, dfn = deal(k=22, seed=3)
    plain = [c for c in dec + dfn if scoring.card(c).pips == 0 and c not in ("T1", "T21", "SKUS")]
    lost = [c for c in plain if c in dec][:1] + [c for c in plain if c in dfn][:5]
    reads += [pile(seen(c) for c in dec if c not in lost), pile(seen(c) for c in dfn if c not in lost)]
    shoot(player, "declarer")
    shoot(player, "defenders")
    r = player.post("/capture/talon", data={"csrf": player.csrf, "talon": str(len(dec) % 4)},
                    follow_redirects=False)
    assert r.status_code == 303
    hand = player.get("/api/hand").json()
    assert [(q["kind"], q["choices"]) for q in hand["questions"]] == [
        ("pile_size", [str(len(dec)), str(len(dec) + 4)])]
    assert f"{len(dec) + 4} cards" in player.get("/capture").text
    bad = player.post("/api/hand/answers", json={"kind": "pile_size", "side": "declarer", "card": "23"})
    assert bad.status_code == 422 and "not one of the choices" in bad.text
    assert player.post("/api/hand/answers", json={"kind": "pile_size", "side": "declarer",
                                                  "card": "many"}).status_code == 422
    r = player.post("/hand/answer", data={"csrf": player.csrf, "kind": "pile_size", "side": "declarer",
                                          "card": str(len(dec))}, follow_redirects=False)
    assert r.status_code == 303
    hand = player.get("/api/hand").json()
    assert hand["settled"] and len(hand["sides"]["declarer"]["cards"]) == len(dec)
    assert hand["sides"]["declarer"]["points"] == GAME.format(GAME.count(dec))


def test_many_lost_cards_ask_for_a_new_photo_first_and_the_new_photo_replaces_the_old(player, reads):
    """Five Kings and Queens of the Declarer's pile not found: the page asks to spread the pile again, and the
    taps a new photo makes needless wait behind the request, folded (the Pagat's and the King's piles, and the
    count for the three Queens), for players who would rather tap; the next photo of that pile replaces the old
    one and settles it."""
    dec, dfn = deal(seed=3)
    lost = [c for c in dec if scoring.card(c).pips >= 3][:5]
    assert len(lost) == 5
    reads += [pile(seen(c) for c in dec if c not in lost), pile(seen(c) for c in dfn), pile(seen(c) for c in dec)]
    shoot(player, "declarer")
    shoot(player, "defenders")
    hand = player.get("/api/hand").json()
    assert [q["kind"] for q in hand["questions"]] == ["respread", "respread"] and not hand["settled"]
    behind = hand["instead"]
    assert sorted(q["card"] for q in behind if q["kind"] == "which_pile") == sorted(
        c for c in lost if not c.endswith("Q"))
    assert behind[-1]["kind"] == "pile_size"
    page = player.get("/capture").text
    assert "2 questions before the score is sure" in page and "5 cards were not found in either photo" in page
    folded = page[page.index('<details id="instead-questions">'):]
    assert "Or answer 3 questions instead of taking the photo again" in folded
    assert page.index("5 cards were not found") < page.index("was not found: which pile is it in?")
    assert "was not found: which pile is it in?" in folded and 'name="then" value="instead"' in folded
    # a tap behind the request is answered like any other, and the page keeps those taps open for the next;
    # four lost cards left take fewer taps than a new photo (lost_respread), so the rest are then put plainly
    assert '<details id="instead-questions" open>' in player.get("/capture?instead=1").text
    odd = player.get("/capture?instead=%3Cb%3E")       # anything else: the page, folded
    assert odd.status_code == 200 and '<details id="instead-questions">' in odd.text
    r = player.post("/hand/answer", data={"csrf": player.csrf, "kind": "which_pile", "side": "declarer",
                                          "card": "T1", "then": "instead"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/capture?instead=1", r.text
    hand = player.get("/api/hand").json()
    assert not hand["instead"] and "respread" not in [q["kind"] for q in hand["questions"]]
    assert [q.get("card") for q in hand["questions"] if q["kind"] == "which_pile"] == ["HK"]
    # one tap on the question's own button takes the pile again and replaces its photo
    r = player.post("/capture", data={"csrf": player.csrf, "side": "declarer", "replace": "1",
                                      "submission": "respread-declarer-1"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert 'name="replace" value="1"' in page and 'value="declarer"' in page
    hand = player.get("/api/hand").json()
    assert hand["settled"] and sorted(hand["sides"]["declarer"]["cards"]) == sorted(dec)


def test_an_answer_about_a_read_is_void_once_its_pile_is_photographed_again(player, reads):
    """The players say the Declarer's unsure read 0 is the Heart King, then spread that pile again: read 0 of
    the new photo is another card, and the old answer must not force it to be the King."""
    dec, dfn = deal(seed=2)
    dec = [c for c in dec if c not in ("HK", "HQ")] + ["HK"]
    dfn = [c for c in dfn if c not in ("HK", "HQ")] + ["HQ"]
    first = [seen("HK", 0.55, (("HQ", 0.4),), pips=4)] + [seen(c, x=5.0 * k) for k, c in enumerate(dec) if c != "HK"]
    again = [seen(c, x=5.0 * k) for k, c in enumerate(dec)]       # read 0 is now another card, all read surely
    reads += [pile(first), pile(seen(c) for c in dfn if c != "HQ"), pile(again)]
    shoot(player, "declarer")
    shoot(player, "defenders")
    which = next(q for q in player.get("/api/hand").json()["questions"] if q["kind"] == "which_card")
    assert which["sighting"] == 0
    r = player.post("/api/hand/answers", json={"kind": "which_card", "side": "declarer", "card": "HK",
                                               "sighting": 0})
    assert r.status_code == 200, r.text
    r = player.post("/api/captures", json={"side": "declarer", "replace": True})
    assert r.status_code == 200, r.text
    hand = player.get("/api/hand").json()
    # every card of the new photo is its own (the old answer would make read 0 a second Heart King, and lose
    # the card it shows); only the Queen no photo shows is left to ask about
    assert set(dec) <= set(hand["sides"]["declarer"]["cards"])
    assert [(q["kind"], q.get("card")) for q in hand["questions"]] == [("which_pile", "HQ")]


def test_a_read_the_players_name_as_a_card_not_offered_is_that_card(player, reads):
    """"Is this the King or the Queen?" about a read that shows the Cavalier: the players name it from the whole
    deck ("None of these: it is ..."), and the read is the Cavalier. A card of no game's deck is refused."""
    dec, dfn = deal(seed=2)
    dec = [c for c in dec if c not in ("HK", "HQ", "HC")] + ["HC"]
    dfn = [c for c in dfn if c not in ("HK", "HQ", "HC")] + ["HK", "HQ"]
    # The Declarer's Cavalier reads as King or Queen; the Defenders' King and Queen are not read at all.
    reads += [pile([seen(c) for c in dec if c != "HC"] + [seen("HK", 0.55, (("HQ", 0.4),), pips=4)]),
              pile(seen(c) for c in dfn if c not in ("HK", "HQ"))]
    shoot(player, "declarer")
    shoot(player, "defenders")
    which = next(q for q in player.get("/api/hand").json()["questions"] if q["kind"] == "which_card")
    assert "HC" not in which["choices"]
    page = player.get("/capture").text
    assert "None of these: it is" in page and f'value="{which["sighting"]}"' in page
    r = player.post("/hand/answer", data={"csrf": player.csrf, "kind": "which_card", "side": "declarer",
                                          "card": "HC", "sighting": str(which["sighting"])}, follow_redirects=False)
    assert r.status_code == 303, r.text
    hand = player.get("/api/hand").json()
    assert "HC" in hand["sides"]["declarer"]["cards"]
    assert not any(q["kind"] == "which_card" and q["side"] == "declarer" and q.get("sighting") == which["sighting"]
                   for q in hand["questions"])
    while hand["questions"]:     # where the lost King and Queen lie
        q = hand["questions"][0]
        assert q["kind"] == "which_pile", q
        hand = player.post("/api/hand/answers", json={"kind": "which_pile", "side": "defenders",
                                                      "card": q["card"]}).json()
    assert hand["settled"] and {"HK", "HQ"} <= set(hand["sides"]["defenders"]["cards"])


def test_a_game_dealt_without_a_talon_places_a_lost_card_by_whole_tricks_with_nothing_said(tmp_path):
    """Calling the Twenty: ten cards each and no talon, so every pile is whole tricks of four; the Pagat no photo
    shows goes where the count allows without a word from the players (with tricks of three it would not)."""
    from fastapi.testclient import TestClient
    from web_doubles import PIN, build_table, csrf_of

    twenty = scoring.find_game("zwanzigerrufen")
    app, store, controller, _ = build_table(tmp_path, {"game": "zwanzigerrufen", "max_body_bytes": 100_000})
    ids = [c.id for c in twenty.deck]
    order = [ids[i] for i in np.random.default_rng(7).permutation(len(ids))]
    others = [c for c in order if c != "T1"]
    dec, dfn = others[:19] + ["T1"], others[19:]              # five tricks each
    queue = [pile(seen(c) for c in dec if c != "T1"), pile(seen(c) for c in dfn)]
    plain_capture = controller.capture

    def capture(side=None):
        cid = plain_capture(side)
        read = queue.pop(0)
        store._write("UPDATE captures SET recognitions = ? WHERE id = ?",
                     (json.dumps(handread.recognitions_of(read, twenty)), cid))
        handread.save_pile(store, cid, read.to_json())
        return cid

    controller.capture = capture
    try:
        with TestClient(app, base_url="http://table.local") as client:
            client.csrf = csrf_of(client)
            client.post("/login", data={"pin": PIN, "csrf": client.csrf, "next": "/sheet"})
            client.headers["X-CSRF-Token"] = client.csrf
            shoot(client, "declarer")
            shoot(client, "defenders")
            hand = client.get("/api/hand").json()
            assert client.get("/api/piles").json()["talon"] is None          # nothing said
            assert hand["settled"] and "T1" in hand["sides"]["declarer"]["cards"]
    finally:
        store.close()
