"""End to end in headless Chromium: capture, correct a card, see the other pile arrive, enter the hand,
read the score sheet."""

from __future__ import annotations

import threading
import time

import pytest
from web_doubles import BROWSER_MARKS, PLAYERS, build_table, free_port, log_in

import scoring
from device.web import scoring_adapter

pytestmark = BROWSER_MARKS


@pytest.fixture
def server(tmp_path):
    uvicorn = pytest.importorskip("uvicorn")
    app, store, controller, _ = build_table(tmp_path, {"poll_ms": 300})
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
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


def test_capture_correct_enter_hand_and_read_the_sheet(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    base, store, controller = server
    wait = WebDriverWait(browser, 20)
    game = scoring.find_game("slovenian")
    deck = [c.id for c in game.deck]
    declarer, defenders = deck[:30], deck[30:]
    # The model read the Pagat (T1) as the Seven of Spades, which the defenders hold too.
    controller.piles = [["S7", *declarer[1:]], defenders]

    log_in(browser, base, wait)

    Select(browser.find_element(By.ID, "capture-side")).select_by_value("declarer")
    browser.find_element(By.ID, "capture-now").click()
    wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, "#capture-panel h2"), "Photo 1"))
    assert browser.find_element(By.ID, "capture-points").text == game.format(
        game.count(["S7", *declarer[1:]])
    )

    flagged = browser.find_element(By.CSS_SELECTOR, '.card-btn.flagged[data-index="0"]')
    assert flagged.size["height"] >= 44  # touch target
    flagged.click()
    wait.until(ec.visibility_of_element_located((By.ID, "picker")))
    browser.find_element(By.CSS_SELECTOR, '#picker .pick[data-card="T1"]').click()
    wait.until(ec.text_to_be_present_in_element((By.ID, "capture-points"), game.format(game.count(declarer))))
    assert store.corrections(1)[0]["new_id"] == "T1" and store.corrections(1)[0]["crop"]

    # The other pile arrives from the table's trigger; the page shows it without a reload.
    browser.execute_script("window.__notReloaded = 42;")
    controller.capture("defenders")
    wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, "#capture-panel h2"), "Photo 2"))
    assert browser.execute_script("return window.__notReloaded;") == 42
    assert "All 54 cards accounted for" in browser.find_element(By.ID, "pile-check").text

    browser.find_element(By.ID, "enter-hand").click()
    wait.until(ec.presence_of_element_located((By.ID, "hand-form")))
    browser.find_element(By.CSS_SELECTOR, "#more summary").click()  # open Moon and Dodge Round too
    small = browser.execute_script(
        """return [...document.querySelectorAll('#hand-form select, #hand-form button, #hand-form label.check,'
            + ' #hand-form label.choice, #hand-form input:not([type=hidden]):not([type=checkbox]):not([type=radio])')]
          .filter(e => e.offsetParent !== null && e.getBoundingClientRect().height < 44)
          .map(e => e.name || e.id || e.textContent.trim().slice(0, 30));"""
    )
    assert small == []  # touch targets, the game's own fields included
    Select(browser.find_element(By.ID, "declarer")).select_by_visible_text("Ana")
    Select(browser.find_element(By.ID, "partner")).select_by_visible_text("Cene")
    Select(browser.find_element(By.ID, "contract")).select_by_value("three")
    assert browser.find_element(By.ID, "source-piles").is_selected()
    # The declarer's pile holds Pagat, Mond and Skus: the form suggests the Trull for them.
    assert Select(browser.find_element(By.ID, "bonus_trull_side")).first_selected_option.text == "Declarer"
    browser.find_element(By.ID, "save-hand").click()
    wait.until(ec.presence_of_element_located((By.ID, "saved")))

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
