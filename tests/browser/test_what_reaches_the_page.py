"""What reaches a page in Chromium: a public screen carries only its listed fields (no
player id, no key, no player's chips; the seating screen's one form, find your seat, asks
for a name and sends nothing else); what people typed (player and tournament names:
markup, quotes, right-to-left text, 5,000 characters) renders as text on every page, and
a long name wraps instead of widening the page."""
from __future__ import annotations

import pytest

from tests.browser import chromium, room
from tests.browser.pages import all_shown, following, shown

HOSTILE = [
    "<script>window.pwned = 1</script>",
    "\"'><img src=x onerror=\"window.pwned = 2\">",
    "שלום <b>עולם</b> مرحبا",
    "Ann & \"Bo\" O'Neil",
]
TOURNAMENT_NAME = "<img src=x onerror=window.pwned=3> Friday's \"big\" one"
LONG_NAME = "W" * 5000


@pytest.fixture(scope="module")
def hostile_room(server, database_url):
    entrants = room.players(server, HOSTILE) + [room.player_named_beyond_the_api(database_url, LONG_NAME)]
    tournament_id = room.tournament(server, TOURNAMENT_NAME, entrants,
                                    payout_percentages=["40", "25", "15", "12", "8"])
    # The script's name busts on the first hand: the payouts screen names them in 5th.
    room.deal_hand(database_url, tournament_id, 1)
    stacks = {p: room.STARTING_STACK for p in entrants}
    stacks[entrants[0]], stacks[entrants[1]] = 0, 2 * room.STARTING_STACK
    room.finish_hand(database_url, tournament_id, 1, stacks)
    return tournament_id, entrants


SCREENS = ("clock", "seating", "payouts")


@pytest.mark.parametrize("screen", SCREENS)
def test_a_public_screen_carries_only_its_fields(server, base, browser, admin_key, hostile_room, screen):
    tournament_id, entrants = hostile_room
    browser.get(f"{base}/screens/tournaments/{tournament_id}/{screen}")
    following(browser)
    source = browser.page_source
    for player_id in entrants:
        assert player_id not in source
    assert admin_key not in source and "player_id" not in source
    # A player's chips: 24,690 for the one who doubled up; only the clock's average may
    # show the starting stack.
    for chips in (2 * room.STARTING_STACK, room.STARTING_STACK):
        assert f"{chips:,}" not in source or (screen == "clock" and chips == room.STARTING_STACK)
    # The one form on a public screen is find your seat: a GET of a name, nothing hidden.
    forms = browser.execute_script("return Array.from(document.querySelectorAll('form'), f => f.method)")
    inputs = browser.execute_script("return Array.from(document.querySelectorAll('input'), i => i.name + ':' + i.type)")
    if screen == "seating":
        assert forms == ["get"] and inputs == ["name:search"]
    else:
        assert forms == [] and inputs == []


def test_hostile_names_render_as_text_on_every_page(server, base, browser, admin_key, hostile_room):
    tournament_id, _ = hostile_room
    room.sign_in(browser, base, admin_key, "/")
    seated = [*HOSTILE[1:], LONG_NAME]
    pages = {"/": [], f"/floor/tournaments/{tournament_id}": seated,
             f"/screens/tournaments/{tournament_id}/clock": [],
             f"/screens/tournaments/{tournament_id}/seating": seated,
             f"/screens/tournaments/{tournament_id}/payouts": HOSTILE[:1]}
    for size in ("tv", "laptop", "phone"):
        chromium.set_viewport(browser, size)
        for path, names in pages.items():
            browser.get(base + path)
            text = browser.execute_script("return document.body.innerText").replace("\n", "")
            assert browser.execute_script("return window.pwned === undefined"), path
            assert browser.execute_script("return document.querySelectorAll('img, b, script:not([src])').length") == 0
            assert TOURNAMENT_NAME in text, path
            for name in names:
                assert name in text, (path, name[:40])
            assert chromium.horizontal_overflow(browser) == 0, (size, path, chromium.overflowing(browser))
    assert all_shown(browser, "[data-place='5'] .player") == [HOSTILE[0]]
    assert shown(browser, "h1") == f"{TOURNAMENT_NAME}: payouts"
