"""Several screens of one event (running-events.md), in Chromium: two browsers opened at
different moments turn each second of the countdown over together (each records the
wall-clock moment its countdown changes, and the two are compared second by second); a
layout per screen by `?layout=`: the seating as a carousel of tables for a TV."""
from __future__ import annotations

import time

import pytest
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser import chromium, room
from tests.browser.pages import following, shown

TOGETHER_MS = 150
"""How far apart two screens may turn a second over: well inside the second the room
reads (load on a CI machine delays a timer by tens of milliseconds)."""
WATCHING = """
window.turned = {};
const countdown = document.querySelector('.clock .countdown');
new MutationObserver(() => { window.turned[countdown.textContent] = Date.now(); })
  .observe(countdown, { childList: true, characterData: true, subtree: true });
"""


def test_two_screens_of_an_event_turn_each_second_over_together(server, base, browser):
    entrants = room.players(server, ["Agree A", "Agree B"])
    tournament_id = room.tournament(server, "Agree test", entrants)
    clock = f"{base}/screens/tournaments/{tournament_id}/clock"
    browser.get(clock)
    following(browser)
    time.sleep(0.37)  # the second screen comes in at another moment of the second
    with chromium.chromium() as other:
        chromium.set_viewport(other, "tv")
        other.get(clock + "?layout=payouts")
        following(other)
        for screen in (browser, other):
            screen.execute_script(WATCHING)
        time.sleep(3.2)
        turned = [screen.execute_script("return window.turned") for screen in (browser, other)]
    both = set(turned[0]) & set(turned[1])
    assert len(both) >= 2, turned
    apart = {second: abs(turned[0][second] - turned[1][second]) for second in both}
    print(f"two screens turned the seconds {sorted(both)} over {apart} ms apart")
    assert max(apart.values()) <= TOGETHER_MS, apart


def test_the_seating_carousel_shows_a_row_of_tables_at_a_time_in_big_type(server, base, browser):
    entrants = room.players(server, [f"Carousel {n:02d}" for n in range(40)])
    tournament_id = room.tournament(server, "Carousel test", entrants)
    browser.get(f"{base}/screens/tournaments/{tournament_id}/seating?layout=carousel")
    following(browser)
    tables = browser.execute_script(
        "return Array.from(document.querySelectorAll('.seating-tables > [data-table]'), t => !t.hidden)")
    assert len(tables) == 5 and tables == [True, True, True, False, False], tables
    assert "page 1 of 2" in shown(browser, "[data-carousel-page]")
    assert browser.find_elements("id", "find-seat") == [], "a TV has no one to type a name"
    sizes = browser.execute_script("return Array.from(document.querySelectorAll('.seating-tables td'),"
                                   " td => parseFloat(getComputedStyle(td).fontSize))")
    assert min(sizes) >= 0.04 * 1080 - 0.5
    assert browser.execute_script("return document.documentElement.scrollHeight") <= 1080
    # The next row comes round by itself (PAGE_S of static/carousel.js).
    WebDriverWait(browser, 9, poll_frequency=0.2).until(
        lambda b: "page 2 of 2" in shown(b, "[data-carousel-page]"))
    assert browser.execute_script(
        "return Array.from(document.querySelectorAll('.seating-tables > [data-table]'), t => !t.hidden)") == \
        [False, False, False, True, True]


@pytest.mark.parametrize("screen,layout", [("clock", "carousel"), ("seating", "payouts"), ("payouts", "x" * 500)])
def test_a_layout_a_screen_does_not_have_is_refused(server, base, screen, layout):
    status, problem, _ = server.call("GET", f"/screens/tournaments/any/{screen}?layout={layout}",
                                     headers={"Accept": "application/problem+json"})
    assert status == 400 and problem["code"] == "unknown_layout", problem
