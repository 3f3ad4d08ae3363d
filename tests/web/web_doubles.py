"""A fake table controller and an app over a temporary SQLite store, shared by the web tests."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from device.storage import Store
from device.web import create_app

PIN = "246813"  # the table refuses PINs under 6 digits (issue 16)
PLAYERS = ["Ana", "Bor", "Cene", "Dora"]


def quad_at(i: int) -> list[list[float]]:
    """The index quad of the i-th card in a fanned row (image px, TL TR BR BL)."""
    x = 10 + 30 * (i % 10)
    y = 10 + 60 * (i // 10)
    return [[x, y], [x + 20, y], [x + 20, y + 50], [x, y + 50]]


class FakeController:
    """Implements TableController: each capture() writes a small photo and stores the next card list."""

    def __init__(self, store: Store, photos_dir: Path):
        self.store, self.photos_dir = store, photos_dir
        self.piles: list[list[str]] = []
        self.fail: str | None = None
        self.printing_switched: str | None = None   # why it reads with the release for other printings

    def use_reference_printing(self) -> None:
        self.printing_switched = None

    def capture(self, side: str | None = None) -> int:
        if self.fail:
            raise RuntimeError(self.fail)
        ids = self.piles.pop(0) if self.piles else ["T21", "HK"]
        n = self.store.latest_capture_id() or 0
        name = f"cap_{n + 1:04d}.png"
        image = np.zeros((240, 320, 3), np.uint8)
        image[:, :, 1] = np.arange(320, dtype=np.uint8)[None, :]  # a gradient, so crops differ by place
        assert cv2.imwrite(str(self.photos_dir / name), image)
        recognitions = [
            {
                "id": cid,
                "confidence": 0.55 if i == 0 else 0.97,
                "pips": 0,
                "quad": quad_at(i),
                "flagged": i == 0,
            }
            for i, cid in enumerate(ids)
        ]
        return self.store.add_capture(photo=name, side=side, width=320, height=240, recognitions=recognitions)

    def status(self) -> dict:
        return {
            "camera": {"ok": self.fail is None, "message": self.fail or "fake camera"},
            "model": {"ok": True, "message": "fake"},
            "calibration": {"ok": True, "message": "none needed"},
            "store": {"ok": True, "message": ""},
            "disk_free_mb": 1000.0,
            "last_capture_age_s": None,
        }


def free_port() -> int:
    """A free TCP port on 127.0.0.1 for a test server."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_table(tmp_path: Path, settings: dict):
    """The real app over a temporary store and the fake controller: (app, store, controller, photos_dir)."""
    photos = tmp_path / "photos"
    photos.mkdir()
    store = Store(tmp_path / "state" / "tarokcam.sqlite")
    controller = FakeController(store, photos)
    app = create_app(store=store, controller=controller, photos_dir=photos, pin=PIN,
                     settings={"players": PLAYERS, **settings})
    return app, store, controller, photos


@pytest.fixture
def table(tmp_path):
    app, store, controller, photos = build_table(tmp_path, {"game": "slovenian", "max_body_bytes": 100_000})
    yield app, store, controller, photos
    store.close()


@pytest.fixture
def anon(table):
    """A visitor who has not logged in (can look, cannot change)."""
    with TestClient(table[0], base_url="http://table.local") as client:
        yield client


def csrf_of(client: TestClient) -> str:
    page = client.get("/login").text
    return page.split('name="csrf" value="', 1)[1].split('"', 1)[0]


@pytest.fixture
def player(table):
    """A logged-in browser-like client; `client.csrf` holds its token."""
    with TestClient(table[0], base_url="http://table.local") as client:
        client.csrf = csrf_of(client)
        r = client.post(
            "/login", data={"pin": PIN, "csrf": client.csrf, "next": "/sheet"}, follow_redirects=False
        )
        assert r.status_code == 303, r.text
        client.headers["X-CSRF-Token"] = client.csrf
        yield client


# ---------------------------------------------------------------- browser tests (Debian chromium + selenium)

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
        reason="needs Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)",
    ),
]


@pytest.fixture
def browser(tmp_path_factory):
    """Headless chromium with a phone's viewport (its singleton folders in a test temp folder, not /tmp)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=412,915"):
        options.add_argument(arg)
    env = {**os.environ, "TMPDIR": str(tmp_path_factory.mktemp("chromium"))}
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER), env=env), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def log_in(browser, base: str, wait, next_path: str = "/capture") -> None:
    """Enter the PIN on the login page and wait for the page it leads to."""
    from selenium.webdriver.common.by import By

    browser.get(f"{base}/login?next={next_path}")
    browser.find_element(By.ID, "pin").send_keys(PIN)
    browser.find_element(By.ID, "login-submit").click()
    # the login page's own address holds next_path too ("/login?next=/capture"): wait until it has gone
    wait.until(lambda b: "/login" not in b.current_url and next_path in b.current_url)


# chromedriver reports an element whose document went away mid-command (a panel swapped in) as an "unhandled
# inspector error" ("Node ... does not belong to the document", "Cannot find context") rather than as stale
SWAP_MESSAGES = ("unhandled inspector error", "does not belong to the document", "Cannot find context")


def swapped(error: Exception) -> bool:
    """Whether `error` says only that the page swapped what a command looked at (look again), not that it broke."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    if isinstance(error, StaleElementReferenceException):
        return True
    return isinstance(error, WebDriverException) and any(m in (error.msg or "") for m in SWAP_MESSAGES)


def looked(condition):
    """`condition(browser)`, False where the page swapped what it looked at (so a wait looks again)."""
    def look(browser):
        try:
            return condition(browser)
        except Exception as error:
            if swapped(error):
                return False
            raise

    return look


def page_wait(browser, timeout_s: float):
    """A WebDriverWait that looks again where the page swapped a panel while a condition looked at it."""
    from selenium.webdriver.support.ui import WebDriverWait

    class PageWait(WebDriverWait):
        def until(self, method, message: str = ""):
            return super().until(looked(method), message)

    return PageWait(browser, timeout_s)


def until_done(wait, action) -> None:
    """Do action(browser); again if the page swapped its panel in between (a refresh can land between finding
    an element and using it)."""
    wait.until(looked(lambda b: action(b) or True))


def tap(browser, wait, css: str) -> None:
    """Tap what `css` finds; again if the page swapped its panel in between."""
    from selenium.webdriver.common.by import By

    until_done(wait, lambda b: b.find_element(By.CSS_SELECTOR, css).click())


def text_of(browser, css: str, timeout_s: float = 10.0) -> str:
    """The text of what `css` finds, read again where the page swapped its panel while it was read."""
    from selenium.webdriver.common.by import By

    return page_wait(browser, timeout_s).until(lambda b: (b.find_element(By.CSS_SELECTOR, css).text,))[0]


def shows(browser, css: str, value: str, attribute: str | None = None) -> bool:
    """Whether what `css` finds shows exactly this text (or has exactly this attribute value); False while the
    page swaps its panel. Selenium's text_to_be_present_* match substrings ("T15" holds "T1")."""
    from selenium.common.exceptions import NoSuchElementException
    from selenium.webdriver.common.by import By

    def look(b) -> bool:
        found = b.find_element(By.CSS_SELECTOR, css)
        return (found.text if attribute is None else found.get_attribute(attribute)) == value

    try:
        return looked(look)(browser)
    except NoSuchElementException:
        return False
