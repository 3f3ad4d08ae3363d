"""In headless Chromium at phone size: the hand reader's questions come first on the Capture page, each is
answered with one tap on a card picture or a pile, and the Card Points show once nothing is open."""

from __future__ import annotations

import os

import numpy as np
from test_web_browser import check_phone_page, phone, server, tap  # noqa: F401 (server is a fixture)
from test_web_hand_questions import seen, store_pile_reads
from web_doubles import BROWSER_MARKS, log_in, page_wait, text_of, until_done

import scoring
from vision.hand import PileRead

pytestmark = BROWSER_MARKS
GAME = scoring.find_game("slovenian")


def test_questions_first_one_tap_each_then_card_points(browser, server):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    base, store, controller = server
    ids = [c.id for c in GAME.deck]
    order = [ids[i] for i in np.random.default_rng(3).permutation(len(ids))]
    dec = [c for c in order[:26] if c not in ("T1", "HK", "HQ")] + ["T1", "HK"]
    dfn = [c for c in order[26:] if c not in ("T1", "HK", "HQ")] + ["HQ"]
    piles = [PileRead((320, 240), [seen(c, x=20.0 * i) for i, c in enumerate(dec) if c not in ("T1", "HK")]
                      + [seen("HK", 0.55, (("HQ", 0.4),), pips=4)]),
             PileRead((320, 240), [seen(c, x=20.0 * i) for i, c in enumerate(dfn) if c != "HQ"])]
    store_pile_reads(store, controller).extend(piles)
    wait = page_wait(browser, 15)
    phone(browser, 390)
    log_in(browser, base, wait)
    for side in ("declarer", "defenders"):
        r = browser.execute_script(
            "return fetch('/api/captures', {method: 'POST', headers: {'Content-Type': 'application/json',"
            " 'X-CSRF-Token': document.querySelector('input[name=csrf]').value}, body: JSON.stringify({side:"
            f" '{side}'}})}}).then(r => r.status)")
        assert r == 200
    browser.get(f"{base}/capture")
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".hand-question")))
    page = browser.page_source
    assert page.index("hand-questions") < page.index("next-photo")
    assert "which places are guesses" in text_of(browser, "#pile-check")
    assert "The Pagat was not found: which pile is it in?" in page
    check_phone_page(browser, "Capture with the hand's questions")
    taps = 0
    for _ in range(6):   # bounded: each tap answers one question
        questions = browser.find_elements(By.CSS_SELECTOR, ".hand-question")
        if not questions:
            break
        text = questions[0].text
        if "Pagat" in text:
            tap(browser, wait, ".hand-question:first-of-type button.choice")        # the Declarer's pile
        elif "which pile" in text:
            q = questions[0]
            card = q.find_element(By.CSS_SELECTOR, "input[name=card]").get_attribute("value")
            want = "declarer" if card in dec else "defenders"
            tap(browser, wait, f".hand-question:first-of-type input[value={want}] ~ button")
        else:
            # "Is this the King of Hearts or the Queen of Hearts?": the King, one tap on its picture
            assert q_has_faces(questions[0])
            tap(browser, wait, ".hand-question:first-of-type input[name=card][value=HK] ~ button")
        taps += 1
        # the answered question goes (an answer may open another: "the Pagat is ours" leaves the King of Hearts,
        # read 0.55, possibly the Pagat with the King in the other pile)
        first = text
        wait.until(lambda b, first=first: b.find_elements(By.ID, "hand-settled") or first not in [
            q.text for q in b.find_elements(By.CSS_SELECTOR, ".hand-question")])
    assert browser.find_elements(By.ID, "hand-settled"), "questions still open after the taps"
    assert 1 <= taps <= 3
    shown = text_of(browser, "#pile-declarer")
    assert GAME.format(GAME.count(dec)) in shown


def q_has_faces(question) -> bool:
    from selenium.webdriver.common.by import By
    return bool(question.find_elements(By.CSS_SELECTOR, "img[src^='/cards/']"))


def test_one_choice_of_the_contract_settles_a_lost_card(browser, server):  # noqa: F811
    """The Pagat not found; the players choose the hand's contract (one choice, no second tap), which says how
    many cards no trick brought lie in the Declarer's pile, and the count of whole tricks puts the Pagat in that
    pile. The hand form then starts on that contract."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    base, store, controller = server
    ids = [c.id for c in GAME.deck]
    order = [ids[i] for i in np.random.default_rng(4).permutation(len(ids))]
    dec = [c for c in order[:25] if c != "T1"] + ["T1"]
    dfn = [c for c in order[25:] if c != "T1"]
    store_pile_reads(store, controller).extend([
        PileRead((320, 240), [seen(c, x=20.0 * i) for i, c in enumerate(dec) if c != "T1"]),
        PileRead((320, 240), [seen(c, x=20.0 * i) for i, c in enumerate(dfn)])])
    wait = both_piles_photographed(browser, base)
    assert "The Pagat was not found" in browser.page_source
    check_phone_page(browser, "Capture with the Talon cards to say")
    contract = {3: "three", 2: "two", 1: "one", 0: "solo_without"}[len(dec) % 4]
    Select(browser.find_element(By.ID, "talon-select")).select_by_value(f"contract:{contract}")
    wait.until(lambda b: b.find_elements(By.ID, "hand-settled"))
    assert not browser.find_elements(By.CSS_SELECTOR, ".hand-question")
    assert GAME.format(GAME.count(dec)) in text_of(browser, "#pile-declarer")
    browser.get(base + "/hand")
    assert Select(browser.find_element(By.ID, "contract")).first_selected_option.get_attribute("value") == contract


def test_many_lost_cards_ask_for_a_new_photo_and_one_tap_takes_it(browser, server, tmp_path):  # noqa: F811
    """Six Kings, Queens and Cavaliers of the Declarer's pile not found: at phone size the page asks only to
    spread that pile again; the taps a new photo makes needless (four cards' piles, the pile's count) wait
    folded behind it. A player who taps one of them (the King of Hearts lies in the Declarer's pile) finds the
    rest still open after the page reloads; one tap on the request's button then takes the pile again, the new
    photo replaces the old one, and with every card read the hand is settled."""
    from selenium.webdriver.common.by import By

    base, store, controller = server
    ids = [c.id for c in GAME.deck]
    order = [ids[i] for i in np.random.default_rng(5).permutation(len(ids))]
    dec, dfn = order[:27], order[27:]
    lost = [c for c in dec if scoring.card(c).pips >= 2][:6]
    assert lost[0] == "HK"
    first = PileRead((320, 240), [seen(c, x=20.0 * i) for i, c in enumerate(dec) if c not in lost])
    first.tight.append((300.0, 120.0))                  # its spread shows short steps on the right
    store_pile_reads(store, controller).extend([
        first, PileRead((320, 240), [seen(c, x=20.0 * i) for i, c in enumerate(dfn)]),
        PileRead((320, 240), [seen(c, x=20.0 * i) for i, c in enumerate(dec)])])
    wait = both_piles_photographed(browser, base)
    put = browser.find_elements(By.CSS_SELECTOR, "#hand-questions > .hand-question")
    assert [q.get_attribute("data-kind") for q in put] == ["respread"]
    assert "Spread the right part of the Declarer's pile" in put[0].text
    assert "6 cards were not found in either photo" in put[0].text
    behind = browser.find_elements(By.CSS_SELECTOR, "#instead-questions .hand-question")
    assert [q.get_attribute("data-kind") for q in behind] == ["which_pile"] * 4 + ["pile_size"]
    assert not any(q.is_displayed() for q in behind)    # folded until the players open them
    assert "Or answer 5 questions instead" in text_of(browser, "#instead-questions")
    check_phone_page(browser, "Capture asking for a new photo")
    browser.execute_script("arguments[0].scrollIntoView()", put[0])
    browser.save_screenshot(str(tmp_path / "respread.png"))
    if os.environ.get("TAROKCAM_SCREENSHOTS"):
        browser.save_screenshot(os.path.join(os.environ["TAROKCAM_SCREENSHOTS"], "respread.png"))
    tap(browser, wait, "#instead-questions summary")
    wait.until(lambda b: b.find_element(By.CSS_SELECTOR, "#instead-questions .hand-question").is_displayed())
    check_phone_page(browser, "Capture with the taps behind a new photo open")
    king = ("//details[@id='instead-questions']//div[contains(@class, 'hand-question')]"
            "[contains(., 'King of Hearts was not found')]//button[contains(., \"The Declarer's pile\")]")
    until_done(wait, lambda b: b.find_element(By.XPATH, king).click())     # again if the panel was swapped in
    wait.until(lambda b: "instead=1" in b.current_url)
    wait.until(lambda b: b.find_element(By.ID, "instead-questions").get_attribute("open") is not None)
    assert "King of Hearts" not in text_of(browser, "#hand-questions")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#instead-questions .hand-question")) == 4
    tap(browser, wait, "#hand-questions > .hand-question[data-kind=respread] button")
    wait.until(lambda b: b.find_elements(By.ID, "hand-settled"))
    assert not browser.find_elements(By.CSS_SELECTOR, ".hand-question")
    assert GAME.format(GAME.count(dec)) in text_of(browser, "#pile-declarer")


def test_lost_cards_alike_to_the_score_are_one_count_tap_on_a_phone(browser, server):  # noqa: F811
    """Both piles photographed, five 0-pip cards of the Declarer's pile not found: the page asks for a better
    spread of each pile, and behind that request, for players who would rather tap, how many cards the
    Declarer's pile holds (six counts, one tap each); the buttons fit a 360 px phone, and the true count's tap
    settles the hand."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from test_web_hand_questions import deal, pile

    base, store, controller = server
    reads = store_pile_reads(store, controller)
    dec, dfn = deal(k=27, seed=13)
    lost = [c for c in dec if scoring.card(c).pips == 0 and not scoring.card(c).trull][:5]
    reads += [pile(seen(c) for c in dec if c not in lost), pile(seen(c) for c in dfn)]
    wait = both_piles_photographed(browser, base)
    text = text_of(browser, "#hand-questions")
    assert "5 cards were not found in either photo" in text
    assert "How many cards" not in text         # folded behind the request until opened
    tap(browser, wait, "#instead-questions summary")
    text = text_of(browser, "#hand-questions")
    assert "How many cards does the Declarer's pile hold: 22, 23, 24, 25, 26 or 27?" in text
    counts = browser.find_elements(By.CSS_SELECTOR, '#hand-questions form input[name="kind"][value="pile_size"]')
    assert len(counts) == 6
    check_phone_page(browser, "Capture page asking the pile's count")
    browser.find_element(By.XPATH, "//button[normalize-space()='27 cards']").click()
    wait.until(ec.presence_of_element_located((By.ID, "hand-settled")))
    assert store.meta_prefix("answers.")
    assert GAME.format(GAME.count(dec)) in text_of(browser, "#pile-declarer")
    check_phone_page(browser, "Capture page, hand settled")


def both_piles_photographed(browser, base: str):
    """At phone size, logged in: both piles photographed through the API, the Capture page open with its
    questions. Returns the page's wait."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    wait = page_wait(browser, 15)
    phone(browser, 390)
    log_in(browser, base, wait)
    for side in ("declarer", "defenders"):
        assert browser.execute_script(
            "return fetch('/api/captures', {method: 'POST', headers: {'Content-Type': 'application/json',"
            " 'X-CSRF-Token': document.querySelector('input[name=csrf]').value}, body: JSON.stringify({side:"
            f" '{side}'}})}}).then(r => r.status)") == 200
    browser.get(f"{base}/capture")
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".hand-question")))
    return wait


def test_a_card_not_offered_is_named_from_the_whole_deck_on_a_phone(browser, server):  # noqa: F811
    """"Is this the King of Hearts or the Queen of Hearts?" about a read that shows the Cavalier: the players
    choose it under "None of these: it is" and say it; the read is the Cavalier and the King and the Queen, not
    read at all, are asked for by pile."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    base, store, controller = server
    ids = [c.id for c in GAME.deck]
    order = [ids[i] for i in np.random.default_rng(5).permutation(len(ids))]
    dec = [c for c in order[:26] if c not in ("HK", "HQ", "HC")] + ["HC"]
    dfn = [c for c in order[26:] if c not in ("HK", "HQ", "HC")] + ["HK", "HQ"]
    store_pile_reads(store, controller).extend([
        PileRead((320, 240), [seen(c, x=20.0 * i) for i, c in enumerate(dec) if c != "HC"]
                 + [seen("HK", 0.55, (("HQ", 0.4),), pips=4)]),
        PileRead((320, 240), [seen(c, x=20.0 * i) for i, c in enumerate(dfn) if c not in ("HK", "HQ")])])
    wait = both_piles_photographed(browser, base)
    form = browser.find_element(By.CSS_SELECTOR, ".hand-question form.other-card")
    assert "None of these" in form.text
    check_phone_page(browser, "Capture with a card to name from the deck")
    Select(browser.find_element(By.CSS_SELECTOR, ".hand-question form.other-card select")).select_by_value("HC")
    tap(browser, wait, ".hand-question form.other-card button")
    wait.until(lambda b: not b.find_elements(By.CSS_SELECTOR, ".hand-question form.other-card"))
    text = " ".join(q.text for q in browser.find_elements(By.CSS_SELECTOR, ".hand-question"))
    assert "which pile" in text and "Cavalier" not in text
