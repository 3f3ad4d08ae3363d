"""The browser tests' waits look again where the page swapped what they looked at, and only there."""
from __future__ import annotations

import pytest
from web_doubles import page_wait, swapped

selenium = pytest.importorskip("selenium")


def test_a_node_swapped_mid_command_is_looked_at_again_and_a_real_fault_is_not():
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    # chromedriver's words when the element's document went away while it read the text (CI, session 39)
    inspector = WebDriverException('unknown error: unhandled inspector error: {"code":-32000,"message":'
                                   '"Node with given id does not belong to the document"}')
    assert swapped(inspector) and swapped(StaleElementReferenceException("stale"))
    assert not swapped(WebDriverException("chrome not reachable")) and not swapped(ValueError("x"))

    looks = iter([inspector, StaleElementReferenceException("stale"), "shown"])

    def condition(_driver):
        seen = next(looks)
        if isinstance(seen, Exception):
            raise seen
        return seen

    assert page_wait(object(), 2).until(condition) == "shown"
    with pytest.raises(WebDriverException, match="not reachable"):
        page_wait(object(), 2).until(lambda _d: (_ for _ in ()).throw(WebDriverException("chrome not reachable")))
