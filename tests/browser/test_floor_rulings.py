"""Rulings on the record in Chromium (issue 33): a floor person at the replayer steps to the
short all-in, records a ruling there with the small form, and finds it at that step (and
in the hand's list of rulings) when the page comes back; the cards it names are theirs.
And the rulings page's "Who shows first" form answers at the top of the page."""
from __future__ import annotations

from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from service.application.replay import isolated
from tests.browser import chromium, room
from tests.browser.test_floor_pages import key, no_alert, step_to, text

QUESTION = "Bob's all-in for 450 over a raise to 300: may Ann re-raise?"
DECISION = "No: 150 is short of a full raise (200); Ann may call or fold."


@pytest.fixture(scope="module")
def short_all_in(server: Any) -> dict[str, Any]:
    return room.short_all_in_hand(server, ["Ann", "Bob", "Cat"])


def test_a_floor_person_records_a_ruling_and_finds_it_at_its_step(
        server: Any, base: str, browser: Any, short_all_in: dict[str, Any]) -> None:
    hand = f"{short_all_in['table_id']}.1"
    room.sign_in(browser, base, key(server, "floor"), f"/floor/hands/{hand}")
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, "replay-data"))
    assert "No ruling recorded on this hand." in text(browser, "#rulings")
    step_to(browser, f"{isolated('Bob')} raises to 450")
    at_step = text(browser, "#step-number")
    assert browser.find_element(By.ID, "step-rulings").get_attribute("hidden") is not None

    browser.find_element(By.CSS_SELECTOR, ".record-ruling summary").click()
    form = browser.find_element(By.ID, "ruling-form")
    form.find_element(By.NAME, "question").send_keys(QUESTION)
    form.find_element(By.NAME, "decision").send_keys(DECISION)
    form.find_element(By.NAME, "rule").send_keys("TDA 2024 47-A")
    form.find_element(By.NAME, "cards").send_keys("As Kd")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, "rulings-list"))
    assert text(browser, "#step-number") == at_step  # back at the step it was made at
    here = text(browser, "#step-rulings")
    assert QUESTION in here and DECISION in here and "TDA 2024 47-A" in here and "As Kd" in here
    listed = text(browser, "#rulings-list")
    assert listed.startswith(f"step {at_step}: ") and QUESTION in listed and "floor" in listed
    no_alert(browser)

    # Elsewhere in the hand the ruling is not at the step; its link in the list goes back to it.
    browser.find_element(By.CSS_SELECTOR, "[data-go=first]").click()
    assert browser.find_element(By.ID, "step-rulings").get_attribute("hidden") is not None
    browser.find_element(By.CSS_SELECTOR, "#rulings-list a[data-step]").click()
    assert text(browser, "#step-number") == at_step and QUESTION in text(browser, "#step-rulings")


def test_who_shows_first_is_read_at_the_top_of_the_page_without_scrolling(server: Any, base: str,
                                                                          browser: Any) -> None:
    # At a laptop's 1366x768 the floor types the hand round the table, the button marked,
    # scrolls down to the form, asks, and reads the answer first on the page (TDA 2024 17-A).
    chromium.set_viewport(browser, "laptop")
    room.sign_in(browser, base, key(server, "floor"), "/floor/rulings")
    form = browser.find_element(By.CSS_SELECTOR, "#showdown-order form")
    seats = form.find_element(By.NAME, "seats")
    seats.clear()
    seats.send_keys("Cy 5000 button\nAnn 5000\nBob 5000")
    form.find_element(By.NAME, "actions").send_keys(
        "Cy call\nAnn call\nBob check\n" + "Ann check\nBob check\nCy check\n" * 2
        + "Ann check\nBob bet 300\nCy raise 900\nAnn fold\nBob call")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, "answer"))
    assert text(browser, "#answer .words") == ("Cy shows first (TDA 2024 17-A): Cy made the last bet or raise "
                                               "on the river. Then, clockwise, Bob shows or mucks.")
    assert text(browser, "#answer .arithmetic") == "Order of show: Cy, Bob"
    seen = browser.execute_script(
        "const box = document.getElementById('answer').getBoundingClientRect();"
        "return [window.scrollY, box.top, box.bottom, window.innerHeight]")
    assert seen[0] == 0 and seen[1] >= 0 and seen[2] <= seen[3], seen
    chromium.set_viewport(browser, "phone")
    assert chromium.horizontal_overflow(browser) == 0
