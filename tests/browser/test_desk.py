"""The organiser's desk in Chromium (pages.md): signed in with a key once, the desk
pauses the clock and the clock screen on the wall follows within a second; a form sent
without the session's CSRF token is refused."""
from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser import room
from tests.browser.pages import following, shown, within_a_second


def test_the_desk_pauses_the_clock_and_the_screen_follows(server, base, browser, admin_key):
    entrants = room.players(server, ["Desk A", "Desk B"])
    tournament_id = room.tournament(server, "Desk test", entrants)
    browser.get(f"{base}/screens/tournaments/{tournament_id}/clock")
    following(browser)
    screen = browser.current_window_handle
    assert shown(browser, ".clock .paused-note") == ""

    browser.switch_to.new_window("tab")
    desk_path = f"/floor/tournaments/{tournament_id}"
    browser.get(base + desk_path)
    assert "/floor/sign-in" in browser.current_url, "signed out, the desk asks for a key"
    room.sign_in(browser, base, admin_key, desk_path)
    assert browser.current_url == base + desk_path
    assert "Desk: Desk test" in shown(browser, "h1")
    cookie = browser.get_cookie("cardroom_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and admin_key not in cookie["value"]

    browser.find_element(By.ID, "pause").click()
    WebDriverWait(browser, 5).until(lambda b: shown(b, "[role=status]") == "The clock is paused.")
    browser.switch_to.window(screen)
    within_a_second(browser, lambda b: shown(b, ".clock .paused-note") == "Paused", "the desk's pause")
    paused = room.read(server, tournament_id)["clock"]
    assert paused["paused"]

    browser.switch_to.new_window("tab")
    browser.get(base + desk_path)
    browser.execute_script("document.querySelectorAll('input[name=csrf_token]').forEach(e => e.value = 'forged')")
    browser.find_element(By.ID, "resume").click()
    WebDriverWait(browser, 5).until(lambda b: shown(b, "[data-code]") is not None)
    assert browser.execute_script("return document.querySelector('[data-code]').dataset.code") == "csrf_invalid"
    assert room.read(server, tournament_id)["clock"]["paused"], "a forged form changes nothing"
