"""End to end in headless Chromium at phone size (390 x 844, and 360 px wide): the whole table flow. Log in,
capture the Declarer's pile, correct a card, answer whose pile the next photo is, see another device's
change arrive, say a flagged card is right, enter the hand (a contradiction refused, a double tap saved
once), read the sheet and its chart, start a new evening and read the earlier one. On every page: nothing
scrolls sideways and every tap target is at least 44 px (issue 13)."""

from __future__ import annotations

import itertools
import json
import threading
import time
import urllib.request

import pytest
from web_doubles import BROWSER_MARKS, PIN, PLAYERS, build_table, free_port, log_in, page_wait, tap, text_of

import scoring
from device.web import scoring_adapter

pytestmark = BROWSER_MARKS

TAP_TARGETS = """
const sel = 'button, a, select, summary, label.check, label.choice,'
  + ' input:not([type=hidden]):not([type=checkbox]):not([type=radio])';
return [...document.querySelectorAll(sel)]
  .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .filter(e => { const r = e.getBoundingClientRect(); return r.height < 44 || r.width < 44; })
  .map(e => (e.id || e.name || e.tagName) + ' ' + e.textContent.trim().slice(0, 25) + ' '
       + Math.round(e.getBoundingClientRect().width) + 'x' + Math.round(e.getBoundingClientRect().height));
"""


@pytest.fixture
def server(tmp_path):
    uvicorn = pytest.importorskip("uvicorn")
    app, store, controller, _ = build_table(tmp_path, {"poll_ms": 300})
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                        timeout_graceful_shutdown=2))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):  # bounded: 10 s
        if srv.started:
            break
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}", store, controller
    srv.should_exit = True
    thread.join(timeout=10)
    store.close()


def phone(browser, width: int, height: int = 844) -> None:
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})


def check_phone_page(browser, what: str) -> None:
    """At 390 and at 360 px: no sideways scroll, every tap target at least 44 x 44 px."""
    for width in (390, 360):
        phone(browser, width)
        time.sleep(0.15)
        sizes = browser.execute_script(
            "window.scrollTo(200, window.scrollY);"
            "return [document.documentElement.scrollWidth, window.innerWidth, window.scrollX];")
        assert sizes[0] <= sizes[1] and sizes[2] == 0, f"{what} at {width} px scrolls sideways: {sizes}"
        assert browser.execute_script(TAP_TARGETS) == [], f"{what} at {width} px: small tap targets"
    phone(browser, 390)


def other_device(base: str, method: str, path: str, body: dict | None = None) -> dict:
    """A second device writing through the API with the table's PIN."""
    request = urllib.request.Request(
        base + path, method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-Tarokcam-Pin": PIN, "Origin": base})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def test_the_table_flow_on_a_phone(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.select import Select

    base, store, controller = server
    # A panel swapped in or a page loaded while a wait looks at the old one: look again.
    wait = page_wait(browser, 20)
    game = scoring.find_game("slovenian")
    deck = [c.id for c in game.deck]
    declarer, defenders = deck[:30], deck[30:]
    # The model read the Pagat (T1) as the Seven of Spades, which the defenders hold too; the Defenders'
    # first card (flagged) was read right.
    assert "D1" in defenders
    controller.piles = [["S7", *declarer[1:]], ["D1", *(c for c in defenders if c != "D1")]]
    phone(browser, 390)

    browser.get(f"{base}/login")
    check_phone_page(browser, "login page")
    log_in(browser, base, wait)
    check_phone_page(browser, "empty Capture page")
    # The next photo's side is the one still missing: the Declarer's.
    assert Select(browser.find_element(By.ID, "capture-side")).first_selected_option.get_attribute("value") \
        == "declarer"
    browser.find_element(By.ID, "capture-now").click()
    wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, "#photo h2"), "Photo 1"))
    wait.until(lambda b: b.find_element(By.ID, "capture-view").get_attribute("data-live") == "1")
    assert text_of(browser, "#capture-points") == game.format(game.count(["S7", *declarer[1:]]))
    assert Select(browser.find_element(By.ID, "capture-side")).first_selected_option.get_attribute("value") \
        == "defenders"
    # The photo is zoomed to the cards, and each card has a zoomed strip of its index to tap.
    view_box = browser.execute_script("return document.getElementById('photo-zoom').getAttribute('viewBox')").split()
    assert float(view_box[2]) < 320 or float(view_box[3]) < 240
    thumbs = browser.find_elements(By.CSS_SELECTOR, "#card-list .card-btn svg.thumb")
    assert len(thumbs) == 30 and all(t.size["height"] >= 44 for t in thumbs)
    check_phone_page(browser, "Capture page with a photo")

    flagged = browser.find_element(By.CSS_SELECTOR, '.card-btn.flagged[data-index="0"]')
    assert "7 of Spades" in flagged.text and flagged.size["height"] >= 44
    flagged.click()
    wait.until(ec.visibility_of_element_located((By.ID, "picker")))
    pagat = browser.find_element(By.CSS_SELECTOR, '#picker .pick[data-card="T1"]')
    assert pagat.text == scoring.card("T1").name and pagat.size["height"] >= 44  # a name, not a code
    wait.until(lambda b: b.execute_script(
        "return document.querySelector('#picker .pick[data-card=\"T1\"] img').naturalWidth") == 72)  # its face
    assert browser.find_element(By.ID, "picker-right").is_displayed()
    pagat.click()
    wait.until(ec.text_to_be_present_in_element((By.ID, "capture-points"), game.format(game.count(declarer))))
    assert store.corrections(1)[0]["new_id"] == "T1" and store.corrections(1)[0]["crop"]

    # The other pile is photographed by the table itself, with no side: the page stays on photo 1, says
    # a newer photo exists and asks whose pile it is, suggesting the Defenders'.
    browser.execute_script("window.__notReloaded = 42;")
    controller.capture(None)
    wait.until(ec.presence_of_element_located((By.ID, "whose-pile")))
    assert text_of(browser, "#photo h2") == "Photo 1"
    assert "Show photo 2" in text_of(browser, "#newer")
    suggested = browser.find_element(By.CSS_SELECTOR, "#whose-pile .assign.suggested")
    assert suggested.get_attribute("data-assign-side") == "defenders"
    check_phone_page(browser, "Capture page with a question")
    suggested.click()
    wait.until(ec.invisibility_of_element_located((By.ID, "whose-pile")))
    assert store.get_capture(2)["side"] == "defenders"
    wait.until(ec.text_to_be_present_in_element((By.ID, "pile-check"), "All 54 cards accounted for"))
    assert browser.execute_script("return window.__notReloaded;") == 42

    tap(browser, wait, "#show-newer")
    wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, "#photo h2"), "Photo 2"))
    wait.until(lambda b: b.find_element(By.ID, "capture-view").get_attribute("data-live") == "1")
    # Another device removes a card and puts it back: this page shows each change without a reload.
    browser.execute_script("window.__notReloaded = 43;")
    other_device(base, "DELETE", "/api/captures/2/cards/5")
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, '.card-btn.removed[data-index="5"]')))
    other_device(base, "POST", "/api/captures/2/cards/5/restore")
    wait.until(ec.invisibility_of_element_located((By.CSS_SELECTOR, '.card-btn.removed[data-index="5"]')))
    assert browser.execute_script("return window.__notReloaded;") == 43
    # While this phone's picker is open, the other device changes a card: this phone's change, made on
    # what it saw before, is refused with a message, and the page then shows the other device's change.
    tap(browser, wait, '.card-btn[data-index="1"]')
    wait.until(ec.visibility_of_element_located((By.ID, "picker")))
    before = len(store.corrections(2))
    card_1 = store.get_capture(2)["cards"][1]["id"]
    other_device(base, "POST", "/api/captures/2/cards/2/confirm", {})  # checked there: a new version
    time.sleep(1.0)  # the change has reached this page, which waits for the picker to close
    tap(browser, wait, '#picker .pick[data-card="T1"]')
    status = wait.until(ec.visibility_of_element_located((By.ID, "capture-status")))
    assert "changed on another device" in status.text
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, '.card-btn.corrected[data-index="2"]')))
    assert len(store.corrections(2)) == before + 1  # only the other device's change was stored
    assert store.get_capture(2)["cards"][1]["id"] == card_1

    # The Defenders' flagged card was read right: "It's right" keeps it and clears the flag.
    tap(browser, wait, '.card-btn.flagged[data-index="0"]')
    wait.until(ec.visibility_of_element_located((By.ID, "picker-right")))
    tap(browser, wait, "#picker-right")
    wait.until(ec.invisibility_of_element_located((By.CSS_SELECTOR, ".card-btn.flagged")))
    assert store.get_capture(2)["cards"][0]["id"] == "D1" and not store.get_capture(2)["cards"][0]["flagged"]

    # "The rest is theirs" is a state of the hand: set here, it is still set after going back to Capture.
    tap(browser, wait, "#rest-toggle")
    wait.until(ec.text_to_be_present_in_element((By.ID, "rest-toggle"), "✓"))
    browser.get(f"{base}/capture")
    assert browser.find_element(By.ID, "rest-toggle").get_attribute("aria-pressed") == "true"
    tap(browser, wait, "#rest-toggle")
    wait.until(lambda b: b.find_element(By.ID, "rest-toggle").get_attribute("aria-pressed") == "false")

    tap(browser, wait, "#enter-hand")
    wait.until(ec.presence_of_element_located((By.ID, "hand-form")))
    tap(browser, wait, "#more summary")  # open Moon and Dodge Round too
    check_phone_page(browser, "Hand form")
    Select(browser.find_element(By.ID, "declarer")).select_by_visible_text("Ana")
    Select(browser.find_element(By.ID, "partner")).select_by_visible_text("Ana")
    Select(browser.find_element(By.ID, "contract")).select_by_value("three")
    browser.find_element(By.ID, "save-hand").click()
    error = wait.until(ec.presence_of_element_located((By.ID, "hand-error")))
    assert "Ana is the Declarer" in error.text and "Partner" in error.text
    assert store.hands(store.current_session()["id"]) == []
    check_phone_page(browser, "Hand form with an error")

    Select(browser.find_element(By.ID, "partner")).select_by_visible_text("Cene")
    assert browser.find_element(By.ID, "source-piles").is_selected()
    # The declarer's pile holds Pagat, Mond and Skus: the form suggests the Trull for them.
    assert Select(browser.find_element(By.ID, "bonus_trull_side")).first_selected_option.text == "Declarer"
    # A tap on a slow network (the request held back here): the button greys out at once.
    greyed = browser.execute_async_script(
        "const done = arguments[0], form = document.getElementById('hand-form');"
        "form.addEventListener('submit', e => e.preventDefault(), {once: true});"
        "document.getElementById('save-hand').click();"
        "setTimeout(() => done(document.getElementById('save-hand').disabled), 100);")
    assert greyed is True
    # The same submission sent twice (a retry after a lost response): one hand.
    browser.execute_script(
        "const form = document.getElementById('hand-form'); form.submit(); setTimeout(() => form.submit(), 20);")
    wait.until(ec.presence_of_element_located((By.ID, "saved")))
    time.sleep(0.5)
    assert len(store.hands(store.current_session()["id"])) == 1
    check_phone_page(browser, "hand result")

    browser.get(f"{base}/sheet")
    shown = {p: browser.find_element(By.CSS_SELECTOR, f'#totals td[data-player="{p}"]').text for p in PLAYERS}
    hand = {
        "game": "slovenian",
        "players": PLAYERS,
        "declarer": "Ana",
        "partner": "Cene",
        "contract": "three",
        "piles": {"declarer": declarer, "defenders": defenders},
        "bonuses": [{"bonus": "trull", "side": "declarer", "announced": False, "made": True}],
    }
    expected = scoring_adapter.score_hand(hand)["simplified"]
    assert shown == {p: str(expected[p]) for p in PLAYERS}
    assert any(v != "0" for v in shown.values())
    # The chart: each line named at its end, names apart (Ana and Cene have equal totals), phone-size text.
    labels = browser.execute_script(
        "return [...document.querySelectorAll('#chart .end-label')].map(t => {const r = t.getBoundingClientRect();"
        " return [t.textContent, r.top, r.bottom, parseFloat(getComputedStyle(t).fontSize) * r.height / t.getBBox().height]});")
    assert sorted(t[0].split()[0] for t in labels) == sorted(PLAYERS)
    rows = sorted(labels, key=lambda t: t[1])
    assert all(a[2] <= b[1] + 1 for a, b in itertools.pairwise(rows)), f"end labels overlap: {rows}"
    heights = [t[2] - t[1] for t in labels]
    assert min(heights) >= 12, f"chart text {min(heights):.1f} px tall on a 390 px phone"
    ticks = browser.execute_script("return [...document.querySelectorAll('#chart .tick')].map(t => t.textContent)")
    assert ticks == ["0", "1"]
    check_phone_page(browser, "Score sheet")

    # The table switched to the release for other printings by itself: said under Card reader, one tap back.
    controller.printing_switched = ("switched to 2026-12-05-printings3, the release for other printings: 28 of the "
                                    "last 54 cards read were unsure (52%; the reference printing gives well under 25%)")
    browser.get(f"{base}/settings")
    assert "28 of the last 54 cards" in text_of(browser, "#printing-switched")
    check_phone_page(browser, "Settings")
    browser.find_element(By.ID, "use-reference").click()
    wait.until(ec.presence_of_element_located((By.ID, "saved")))
    assert controller.printing_switched is None and not browser.find_elements(By.ID, "printing-switched")

    # A new evening is asked for first; the earlier one stays readable and exportable.
    browser.get(f"{base}/settings")
    check_phone_page(browser, "Settings")
    browser.get(f"{base}/training")       # the fine-tune's command and hints wrap on a phone
    check_phone_page(browser, "Training")
    browser.get(f"{base}/settings")
    browser.find_element(By.ID, "new-evening").click()
    wait.until(ec.presence_of_element_located((By.ID, "confirm-new-evening")))
    assert len(store.sessions()) == 1 and "1 hands" in text_of(browser, "#new-evening-question")
    check_phone_page(browser, "new evening question")
    browser.find_element(By.ID, "confirm-new-evening").click()
    wait.until(ec.presence_of_element_located((By.ID, "saved")))
    assert len(store.sessions()) == 2
    browser.get(f"{base}/evenings")
    check_phone_page(browser, "Evenings")
    first = store.sessions()[0]["id"]
    browser.find_element(By.CSS_SELECTOR, f'#evening-{first} a[href="/sheet?evening={first}"]').click()
    wait.until(ec.presence_of_element_located((By.ID, "earlier-evening")))
    assert {p: browser.find_element(By.CSS_SELECTOR, f'#totals td[data-player="{p}"]').text
            for p in PLAYERS} == shown

    # A page that fails is a page with a way back, not bare JSON.
    browser.get(f"{base}/capture?id=999")
    assert "no such capture" in text_of(browser, "#error-message")
    check_phone_page(browser, "error page")
    browser.find_element(By.ID, "error-back").click()
    wait.until(ec.presence_of_element_located((By.ID, "capture-view")))
