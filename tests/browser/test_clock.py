"""The clock screen in Chromium (pages.md): it counts down to the second, and follows a
level change, an adjust and a pause within a second, without a reload; big enough on a
TV, no horizontal scroll on a TV, a laptop or a phone."""
from __future__ import annotations

import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser import chromium, room
from tests.browser.pages import following, shown, within_a_second


def countdown(browser) -> str:
    return shown(browser, ".clock .countdown")


def seconds(text: str) -> int:
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return total


@pytest.fixture
def clock(server, base, browser):
    entrants = room.players(server, ["Ann", "Bob", "Cy"])
    tournament_id = room.tournament(server, "Clock test", entrants)
    browser.get(f"{base}/screens/tournaments/{tournament_id}/clock")
    following(browser)
    return tournament_id


@pytest.mark.parametrize("size", ["tv", "laptop", "phone"])
def test_the_clock_counts_down_and_follows_a_level_change_an_adjust_and_a_pause(server, browser, clock, size):
    chromium.set_viewport(browser, size)
    first = seconds(countdown(browser))
    assert 19 * 60 <= first <= 20 * 60
    WebDriverWait(browser, 2.5, poll_frequency=0.05).until(lambda b: seconds(countdown(b)) <= first - 2)
    assert shown(browser, ".clock .level") == "Level 1"
    marker = browser.execute_script("window.notReloaded = true; return true")

    room.write(server, clock, "clock/level", {"level": 2})
    within_a_second(browser, lambda b: shown(b, ".clock .level") == "Level 2",
                    "the level change")
    assert "200 / 400" in shown(browser, ".clock .blinds") and "ante 50" in shown(browser, ".clock .blinds")

    before = seconds(countdown(browser))
    room.write(server, clock, "clock/adjust", {"seconds": -600})
    within_a_second(browser, lambda b: abs(seconds(countdown(b)) - (before - 600)) <= 2, "the adjust")

    room.write(server, clock, "clock/pause")
    within_a_second(browser, lambda b: shown(b, ".clock .paused-note") == "Paused",
                    "the pause")
    frozen = countdown(browser)
    time.sleep(1.3)
    assert countdown(browser) == frozen, "a paused clock does not count"

    room.write(server, clock, "clock/resume")
    within_a_second(browser, lambda b: shown(b, ".clock .paused-note") == "",
                    "the resume")
    WebDriverWait(browser, 2.5, poll_frequency=0.05).until(lambda b: countdown(b) != frozen)
    assert browser.execute_script("return window.notReloaded === true") and marker
    assert chromium.horizontal_overflow(browser) == 0


@pytest.mark.parametrize("size", ["tv", "laptop", "phone"])
def test_the_clock_fits_the_screen_and_its_digits_are_a_fifth_of_a_tv(server, browser, clock, size):
    chromium.set_viewport(browser, size)
    time.sleep(0.2)
    assert chromium.horizontal_overflow(browser) == 0
    digits = browser.find_element(By.CSS_SELECTOR, ".clock .countdown")
    height = browser.execute_script("return arguments[0].getBoundingClientRect().height", digits)
    glyphs = browser.execute_script(_GLYPH_HEIGHT, digits)
    width, viewport_height = chromium.SIZES[size]
    if size == "tv":
        assert glyphs >= viewport_height / 5, (glyphs, height)
    # Everything the clock shows is on the screen, side by side within its width.
    right = browser.execute_script("return arguments[0].getBoundingClientRect().right", digits)
    assert right <= width


_GLYPH_HEIGHT = """
// The digits' own height (a font's cap height is less than its size): measured in a canvas
// with the element's font.
const style = getComputedStyle(arguments[0]);
const context = document.createElement('canvas').getContext('2d');
context.font = style.fontWeight + ' ' + style.fontSize + ' ' + style.fontFamily;
const metrics = context.measureText('0123456789');
return metrics.actualBoundingBoxAscent + metrics.actualBoundingBoxDescent;
"""
