"""What the browser tests read off a page, each in one step (a live page swaps its screen
in at any moment, so an element found a moment ago may be gone)."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

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


def printed_styles(browser: Any, sheet: str, text: str, page_property: str) -> dict[str, str]:
    """How a printed sheet renders (print media emulated): the site's menu and Print button
    hidden, the page's background, the colour of `text` and `page_property` of `sheet`."""
    return browser.execute_script("""
        const style = (selector, property) => getComputedStyle(document.querySelector(selector))[property];
        return {nav: style('.nav', 'display'), print: style('[data-print]', 'display'),
                background: style('body', 'backgroundColor'), color: style(arguments[1], 'color'),
                page: style(arguments[0], arguments[2])};""", sheet, text, page_property)


BLACK_ON_WHITE = {"nav": "none", "print": "none", "background": "rgb(255, 255, 255)", "color": "rgb(0, 0, 0)"}
