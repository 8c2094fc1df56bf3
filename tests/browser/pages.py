"""What the browser tests read off a page, each in one step (a live page swaps its screen
in at any moment, so an element found a moment ago may be gone)."""
from __future__ import annotations

import time
from typing import Any, Callable

from selenium.webdriver.support.ui import WebDriverWait

FOLLOWS_WITHIN_S = 1.0
"""pages.md: a screen follows a change within a second, without a reload."""


def shown(browser: Any, selector: str) -> str | None:
    """The element's text as rendered, or None when there is none."""
    return browser.execute_script(
        "const found = document.querySelector(arguments[0]); return found ? found.innerText.trim() : null",
        selector)


def all_shown(browser: Any, selector: str) -> list[str]:
    return browser.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), e => e.innerText.trim())", selector)


def within_a_second(browser: Any, condition: Callable[[Any], Any], what: str) -> float:
    """Waits for `condition(browser)`; the seconds it took (fails past FOLLOWS_WITHIN_S)."""
    started = time.monotonic()
    WebDriverWait(browser, FOLLOWS_WITHIN_S, poll_frequency=0.05).until(condition, what)
    took = time.monotonic() - started
    print(f"followed {what} in {took * 1000:.0f} ms")  # shown with -s, or for a failed test
    return took


def following(browser: Any) -> None:
    """Waits until the page's stream is open (the screen follows from then on)."""
    WebDriverWait(browser, 5, poll_frequency=0.05).until(lambda b: b.execute_script(
        "return window.Cardroom && window.Cardroom.open === true"))
