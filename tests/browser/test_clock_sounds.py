"""The clock's sounds in Chromium (running-events.md): silent until a person clicks "Click
to enable sound"; then a minute's warning, the end of a level and the end of a break, each
played with Web Audio at its moment as the clock runs down, and nothing when the desk sets
the time. The page's AudioContext is instrumented before any script of the page runs: each
oscillator started is recorded with its pitch, and so is each sound the clock tells of."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser import room
from tests.browser.pages import following, shown

LISTENING = """
window.heard = { sounds: [], tones: [] };
document.addEventListener('cardroom:sound', e => window.heard.sounds.push(e.detail.sound));
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.heard.tones.push({ hz: this.frequency.value, state: this.context.state });
  return start.apply(this, args);
};
"""
TONES = {"minute-warning": 2, "level-end": 3, "break-end": 4}
"""How many tones each sound is made of (static/clock_sounds.js)."""


@pytest.fixture
def listening(browser) -> Iterator[Any]:
    added = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": LISTENING})
    yield browser
    browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]})


def heard(browser) -> dict[str, list]:
    return browser.execute_script("return window.heard")


def played(browser, sounds: list[str], within_s: float) -> None:
    WebDriverWait(browser, within_s, poll_frequency=0.05).until(
        lambda b: heard(b)["sounds"] == sounds, f"the sounds {sounds}")


def test_the_clock_sounds_a_minutes_warning_a_level_end_and_a_break_end(server, base, listening):
    browser = listening
    entrants = room.players(server, ["Sound A", "Sound B"])
    tournament_id = room.tournament(server, "Sound test", entrants)
    browser.get(f"{base}/screens/tournaments/{tournament_id}/clock")
    following(browser)

    room.write(server, tournament_id, "clock/level", {"level": 1, "remaining_s": 62})
    WebDriverWait(browser, 3, poll_frequency=0.05).until(lambda b: shown(b, ".clock .countdown") == "1:01")
    assert heard(browser) == {"sounds": [], "tones": []}, "the browser plays nothing before a click"

    browser.find_element(By.CSS_SELECTOR, "[data-sound-switch]").click()
    assert shown(browser, "[data-sound-switch]") == "Sound on"
    played(browser, ["minute-warning"], within_s=3)

    # The desk sets the next level with 2 s left (no sound for the jump); it runs out.
    room.write(server, tournament_id, "clock/level", {"level": 2, "remaining_s": 2})
    WebDriverWait(browser, 2, poll_frequency=0.05).until(lambda b: shown(b, ".clock .level") == "Level 2")
    played(browser, ["minute-warning", "level-end"], within_s=3.5)
    WebDriverWait(browser, 2, poll_frequency=0.05).until(lambda b: shown(b, ".clock .level") == "Break")

    room.write(server, tournament_id, "clock/level", {"period": 3, "remaining_s": 2})
    played(browser, ["minute-warning", "level-end", "break-end"], within_s=4)
    WebDriverWait(browser, 2, poll_frequency=0.05).until(lambda b: shown(b, ".clock .level") == "Level 3")

    tones = heard(browser)["tones"]
    assert len(tones) == sum(TONES.values()), tones
    assert {tone["state"] for tone in tones} == {"running"}, "played on a started AudioContext"
    assert [tone["hz"] for tone in tones[:2]] == [880, 880]
