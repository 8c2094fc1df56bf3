"""Phones (390x844) in Chromium: the public clock, seating (find your seat) and payouts
screens with no sideways scroll, and every action of the desk usable there: each form's
every control on the screen, inside its width, a finger high, and the thing a finger at
its middle touches (nothing over it), with every collapsed form opened."""
from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser import chromium, room
from tests.browser.pages import following, shown
from tests.browser.screenshots import set_the_desk

FINGER_PX = 44
"""A control a finger hits: at least 44 px high (pages.css)."""
UNREACHABLE = """
// Every control of the page's forms that a finger cannot reach: off the screen's width,
// lower than a finger, or under something else at its middle. <details> are opened first.
document.querySelectorAll('main details').forEach(d => d.open = true);
const width = document.documentElement.clientWidth, out = [], FINGER_PX = arguments[0];
const controls = document.querySelectorAll(
  'main form button, main form input:not([type=hidden]), main form select, main form textarea, main summary, main a.button');
for (const control of controls) {
  if (control.closest('noscript')) continue;
  control.scrollIntoView({block: 'center', inline: 'nearest'});
  const box = control.getBoundingClientRect();
  const name = control.tagName.toLowerCase() + ' ' + (control.id || control.name || control.textContent.trim()).slice(0, 30);
  if (box.width < 1 || box.height < FINGER_PX) { out.push(name + ': ' + box.height + ' px high'); continue; }
  if (box.left < 0 || box.right > width + 0.5) { out.push(name + ': ' + box.left + '..' + box.right); continue; }
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  if (!hit || !(hit === control || control.contains(hit) || (control.labels && [...control.labels].includes(hit))))
    out.push(name + ': under ' + (hit ? hit.tagName + '.' + hit.className : 'nothing'));
}
return {controls: controls.length, unreachable: out};
"""


def reachable(browser) -> int:
    """How many controls the page has, once each is checked reachable by a finger."""
    found = browser.execute_script(UNREACHABLE, FINGER_PX)
    assert found["unreachable"] == [], found
    assert chromium.horizontal_overflow(browser) == 0, chromium.overflowing(browser)
    return found["controls"]


@pytest.fixture
def phone(browser):
    chromium.set_viewport(browser, "phone")
    return browser


def test_the_public_screens_fit_a_phone_and_a_player_finds_their_seat(server, base, phone):
    names = ["Phone Ann", "Phone Bo", "Phone Cy", "Phone Dee Longername-Hyphenated"]
    tournament_id = room.tournament(server, "Phone screens", room.players(server, names),
                                    payout_percentages=["40", "25", "15", "12", "8"])
    for screen in ("clock", "clock?layout=payouts", "payouts", "seating"):
        phone.get(f"{base}/screens/tournaments/{tournament_id}/{screen}")
        following(phone)
        assert chromium.horizontal_overflow(phone) == 0, (screen, chromium.overflowing(phone))
    phone.find_element(By.ID, "find-seat").send_keys("dee long")
    WebDriverWait(phone, 2).until(lambda b: "Phone Dee" in (shown(b, "#found") or ""))
    assert "table 1, seat" in shown(phone, "#found")
    assert reachable(phone) == 1, "find your seat's one field"


def test_every_desk_action_is_usable_on_a_phone(server, base, phone, admin_key):
    desk = f"/floor/tournaments/{set_the_desk(server)}"
    room.sign_in(phone, base, admin_key, desk)
    phone.get(base + desk)
    controls = reachable(phone)
    assert controls > 20, "the clock's, registration's, players' and tables' forms"
    # A level change asks first: its page too.
    phone.execute_script("window.scrollTo(0, 0)")
    phone.find_element(By.ID, "next-level").click()
    WebDriverWait(phone, 5).until(lambda b: b.find_elements(By.CSS_SELECTOR, ".confirm"))
    assert reachable(phone) >= 2, "confirm and cancel"
