"""The clock read across a room (running-events.md), measured in Chromium at 1920x1080:
every text but the countdown at least 4% of the height (43 px), on one line, not cut, on
the screen; the screen used from side to side and down to its last fifth. In each state a
room sees: a level, a break with its colour-up and the level after it, a far start, the
end with the winner, and the clock with the payouts beside it; then the same states on a
phone (390x844) with no sideways scroll. Screenshots of them: tests.browser.screenshots."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.browser import chromium, room
from tests.browser.pages import following, shown

SMALLEST_PX = 0.04 * 1080
FAR_START = datetime.now(UTC).replace(microsecond=0) + timedelta(days=40)
"""A start the old clock counted down to as 960:00:00."""
SOON = timedelta(hours=5, minutes=3)
"""A start counted down to, in hours (the widest countdown: 5:02:59)."""
TEXTS = """
// Every text of the screen as laid out: its font size, its lines, whether a box cuts it.
const out = [];
const walker = document.createTreeWalker(document.getElementById('screen'), NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode, element = node.parentElement;
  if (!node.textContent.trim() || element.closest('[hidden]')) continue;
  const range = document.createRange();
  range.selectNodeContents(node);
  const rects = Array.from(range.getClientRects()).filter(r => r.width > 0);
  if (!rects.length) continue;
  const box = range.getBoundingClientRect();
  let cut = false;
  for (let a = element; a && a !== document.body; a = a.parentElement) {
    if (a.scrollWidth > a.clientWidth + 1 && getComputedStyle(a).overflowX !== 'visible') cut = true;
  }
  out.push({text: node.textContent.trim(), px: parseFloat(getComputedStyle(element).fontSize),
            lines: new Set(rects.map(r => Math.round(r.top))).size, cut: cut,
            left: box.left, right: box.right, top: box.top, bottom: box.bottom,
            countdown: element.closest('.countdown') !== null});
}
return out;
"""


def texts(browser) -> list[dict[str, Any]]:
    return browser.execute_script(TEXTS)


def read_across_a_room(browser) -> list[dict[str, Any]]:
    """Every text of the screen, checked as a room reads it at 1920x1080."""
    found = texts(browser)
    assert found, "the screen shows something"
    for text in found:
        what = (text["text"][:40], text)
        if not text["countdown"]:
            assert text["px"] >= SMALLEST_PX - 0.5, what
        assert text["lines"] == 1 and not text["cut"], what
        assert text["left"] >= 0 and text["right"] <= 1920 and text["top"] >= 0 and text["bottom"] <= 1080, what
    assert min(t["left"] for t in found) < 0.05 * 1920 and max(t["right"] for t in found) > 0.95 * 1920
    assert max(t["bottom"] for t in found) > 0.6 * 1080, "the screen is used down to its lower part"
    assert chromium.horizontal_overflow(browser) == 0
    assert browser.execute_script("return document.documentElement.scrollHeight") <= 1080, "no scroll on a TV"
    return found


def said(found: list[dict[str, Any]]) -> str:
    return " | ".join(t["text"] for t in found)


@pytest.fixture(scope="module")
def evening(server, database_url) -> dict[str, str]:
    """The events a room shows in one evening: one running with everything a clock counts
    (a colour-up at its break), one a month off, one finished."""
    names = ["Ann Duke", "Bo Ferguson", "Chen Wei", "Dara Ó Briain", "Eli Seidel", "Fatima Zahra"]
    players = room.players(server, names)
    levels = [room.level(20, 25, 50), room.level(20, 10000, 20000, 20000), {"break": True, "minutes": 10},
              {**room.level(20, 15000, 30000, 30000), "colour_up": 100}]
    running = room.tournament(
        server, "Friday Deepstack", players, levels=levels, starting_stack=10000, denominations=[25, 100, 500],
        late_registration_until_level=2, re_entries_allowed=1, rebuy_price=100, rebuy_chips=10000,
        rebuys_allowed=1, rebuy_until_level=2, add_on_price=100, add_on_chips=10000, add_ons_allowed=1,
        add_on_until_level=2, payout_percentages=["40", "25", "15", "12", "8"])
    soon = room.tournament(server, "Tonight", players[:2], start=False, late_registration_until_level=1,
                           starts_at=(datetime.now(UTC) + SOON).strftime("%Y-%m-%dT%H:%M:%SZ"))
    far = room.tournament(server, "Next Month", players[:2], start=False, starts_at=FAR_START.strftime("%Y-%m-%dT%H:%M:%SZ"))
    finished = room.tournament(server, "Sunday Final", players[:3], tables="physical")
    seated = [p["player_id"] for t in room.read(server, finished)["tables"] for p in t["players"]]
    for loser in seated[:2]:
        room.write(server, finished, "eliminations", {"player_id": loser})
    return {"running": running, "soon": soon, "far": far, "finished": finished,
            "winner": names[players.index(seated[2])]}


def open_clock(browser, base: str, tournament_id: str, layout: str = "clock") -> None:
    browser.get(f"{base}/screens/tournaments/{tournament_id}/clock?layout={layout}")
    following(browser)


def test_a_level_reads_across_a_room_with_everything_the_room_counts(server, base, browser, evening):
    open_clock(browser, base, evening["running"])
    text = said(read_across_a_room(browser))
    for expected in ("Level 1", "25 / 50", "Next: 10,000 / 20,000", "Late registration closes in", "Entries",
                     "Re-entries", "Rebuys", "Add-ons", "Chips in play", "60,000", "Average stack", "10,000",
                     "Prize pool", "600", "1st", "240", "Next break in", "Click to enable sound"):
        assert expected in text, (expected, text)
    assert shown(browser, "[data-time-of-day]"), "the time of day"
    countdown = browser.execute_script("return parseFloat(getComputedStyle(document.querySelector('.countdown')).fontSize)")
    assert countdown >= 0.25 * 1080


def test_a_break_shows_the_next_level_and_the_chips_raced_off(server, base, browser, evening):
    room.write(server, evening["running"], "clock/level", {"period": 3})
    try:
        open_clock(browser, base, evening["running"])
        text = said(read_across_a_room(browser))
        assert "Break" in text and "Level 3:" in text and "15,000 / 30,000" in text
        assert shown(browser, ".clock .colour-up") == "25 chips raced off"
        assert "10,000 / 20,000" not in text, "not the blinds of the level that ended"
    finally:
        room.write(server, evening["running"], "clock/level", {"period": 1})


def test_a_start_counts_down_a_far_one_shows_its_day_and_time_and_the_end_names_the_winner(server, base, browser, evening):
    open_clock(browser, base, evening["soon"])
    text = said(read_across_a_room(browser))
    assert "Starting soon" in text and "Registration open" in text and "Late registration" not in text
    assert shown(browser, ".clock .countdown").startswith("5:0")
    assert browser.execute_script("""const c = document.querySelector('.clock .countdown').getBoundingClientRect(),
        column = document.querySelector('.clock-main').getBoundingClientRect();
        return column.left <= c.left && c.right <= column.right""" ), "the hours stay in their column"

    open_clock(browser, base, evening["far"])
    text = said(read_across_a_room(browser))
    assert "Starting soon" in text and browser.find_elements("css selector", ".countdown") == []
    assert f"{FAR_START:%b}" in shown(browser, "[data-show=day]") and ":" in shown(browser, "[data-show=time]")

    open_clock(browser, base, evening["finished"])
    text = said(read_across_a_room(browser))
    assert "Finished" in text and "Winner" in text and "0:00" not in text
    assert shown(browser, ".clock .winner") == evening["winner"]


def test_the_clock_with_the_payouts_beside_it(server, base, browser, evening):
    open_clock(browser, base, evening["running"], layout="payouts")
    text = said(read_across_a_room(browser))
    assert [shown(browser, f"[data-place='{place}'] .place") for place in range(1, 6)] == \
        ["1st", "2nd", "3rd", "4th", "5th"]
    assert "Level 1" in text and "48" in text  # 8% of 600, the 5th place


@pytest.mark.parametrize("layout", ["clock", "payouts"])
def test_every_state_of_the_clock_fits_a_phone(server, base, browser, evening, layout):
    chromium.set_viewport(browser, "phone")
    for event in ("running", "soon", "far", "finished"):
        open_clock(browser, base, evening[event], layout)
        assert chromium.horizontal_overflow(browser) == 0, (event, chromium.overflowing(browser))
        assert all(t["right"] <= 390 for t in texts(browser)), event
