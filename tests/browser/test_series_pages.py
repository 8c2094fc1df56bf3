"""A series' public pages on a phone (390x844) in Chromium, signed out: the schedule shows
what runs, what is coming and what finished, the standings screen the league table, and a
player's page their results across events, with no sideways scroll (docs/series.md)."""
from __future__ import annotations

import datetime

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser import chromium, room
from tests.browser.pages import all_shown, shown


@pytest.fixture
def phone(browser):
    chromium.set_viewport(browser, "phone")
    return browser


def _at(hours: int) -> str:
    moment = datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=hours)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_phone_reads_the_series_schedule_and_its_standings(server, base, phone):
    ann, bob = room.players(server, ["League Ann", "League Bob Longername-Hyphenated"])
    status, created, _ = server.call("POST", "/v1/series", {"name": "Phone league", "formula": {"kind": "linear",
                                                                                                "scale": 2}},
                                     server.admin)
    assert status == 201, created
    series_id = created["id"]
    finished = room.tournament(server, "League night 1", [ann, bob], tables="physical")
    later = room.tournament(server, "League night 2", [ann], start=False, starts_at=_at(48))
    for tournament_id in (finished, later):
        status, answer, _ = server.call("POST", f"/v1/series/{series_id}/events", {
            "tournament_id": tournament_id, "registration_opens_at": _at(-1), "registration_closes_at": _at(24)},
            server.admin)
        assert status == 201, answer
    room.write(server, finished, "eliminations", {"player_id": bob})

    phone.get(f"{base}/series/{series_id}")
    assert "League night 1" in shown(phone, "[data-phase=finished]")
    coming = shown(phone, "[data-phase=coming]")
    assert "League night 2" in coming and "registration open" in coming
    assert "None." in shown(phone, "[data-phase=running]")
    assert chromium.horizontal_overflow(phone) == 0, chromium.overflowing(phone)

    phone.get(f"{base}/series/{series_id}/standings")
    # Linear at scale 2 in a field of 2: the winner 2 × 2 = 4, second 2 × 1 = 2.
    assert all_shown(phone, "table.standings tbody tr") == [
        "1\tLeague Ann\t1\t4.00", "2\tLeague Bob Longername-Hyphenated\t1\t2.00"]
    assert "After 1 of 2 events" in shown(phone, "main")
    assert chromium.horizontal_overflow(phone) == 0, chromium.overflowing(phone)

    # A name in the standings opens the player's results across events.
    phone.find_element(By.LINK_TEXT, "League Bob Longername-Hyphenated").click()
    WebDriverWait(phone, 5).until(lambda b: b.find_elements(By.CSS_SELECTOR, ".player-results"))
    result = shown(phone, f".player-results [data-tournament='{finished}']")
    # 200 in the pool at 50/30/20: second place 60.
    assert "2nd of 2" in result and "prize 60" in result and "Phone league: 2.00 points" in result, result
    assert chromium.horizontal_overflow(phone) == 0, chromium.overflowing(phone)
