"""An event of 20 at physical tables run from the organiser's desk in headless Chromium,
as an organiser runs it, through the desk's own forms only (the event itself is created
through the API: the desk has no form for a structure): 20 players registered at the
desk, an early start (asked first), a bust in the rebuy period that keeps the seat and
rebuys, a bust that declines and is out, that player's re-entry, the next level (asked
first), an elimination undone, two busts at one table named with who busted them, a move
called out on the desk and the seating screen and confirmed seated, and busts named from the desk to a finish with the results on the desk.
At most 90 s (make test-integration)."""
from __future__ import annotations

import datetime
import time

import pytest

from tests.browser import chromium, room
from tests.e2e.conftest import Server

pytestmark = [pytest.mark.e2e, pytest.mark.scale, pytest.mark.timeout(90)]

NAMES = ["Ann Duke", "Bo Ferguson", "Chen Wei", "Dara Ó Briain", "Eli Seidel", "Fatima Zahra", "Gus Hansen",
         "Hana Sato", "Ivo Ivanov", "Jana Novak", "Kofi Mensah", "Lena Berg", "Mo Salah", "Nadia Rahman",
         "Omar Haddad", "Pia Larsen", "Quinn Ames", "Rui Costa", "Sara Lind", "Tom Weir"]
LEVELS = [room.level(20, 100, 200), room.level(20, 200, 400, 50), room.level(20, 300, 600, 75),
          room.level(20, 500, 1000, 100)]


@pytest.fixture(scope="module")
def browser():
    reason = chromium.missing()
    if reason:
        pytest.skip(f"browser e2e skipped: {reason}")
    with chromium.chromium() as driver:
        chromium.set_viewport(driver, "laptop")
        yield driver


def _event(server: Server) -> str:
    in_an_hour = datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=1)
    status, created, _ = server.call("POST", "/v1/tournaments", {
        "name": "Sunday 20", "game": "holdem", "levels": LEVELS, "starting_stack": 5000, "buy_in": 20,
        "starts_at": in_an_hour.strftime("%Y-%m-%dT%H:%M:%SZ"), "payout_percentages": ["50", "30", "20"],
        "table_size": 10, "tables": "physical", "rebuy_price": 20, "rebuy_chips": 5000, "rebuys_allowed": 1,
        "rebuy_until_level": 1, "re_entries_allowed": 1, "late_registration_until_level": 2}, server.admin)
    assert status == 201, created
    return created["id"]


def test_an_event_of_20_at_physical_tables_run_from_the_desk(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.expected_conditions import staleness_of
    from selenium.webdriver.support.ui import WebDriverWait

    started = time.monotonic()
    base = f"http://127.0.0.1:{server.port}"
    tournament_id = _event(server)
    desk = f"/floor/tournaments/{tournament_id}"
    room.sign_in(browser, base, server.admin["Authorization"].removeprefix("Bearer "), desk)

    def text(selector: str) -> str:
        return browser.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.innerText.trim() : ''", selector)

    def click(selector: str) -> None:
        """Clicks a form's button and waits for the page it brings (every desk form is a
        POST). Found and clicked in one step: the desk's live part may be swapped in at any
        moment, and a button found a moment before may be gone."""
        page = browser.find_element(By.TAG_NAME, "html")
        assert browser.execute_script(
            "const b = document.querySelector(arguments[0]); if (b) { b.click(); } return !!b", selector), selector
        WebDriverWait(browser, 5).until(staleness_of(page))

    def confirm(expected: str) -> None:
        assert expected in text("[data-consequence]"), text("[data-consequence]")
        click("#confirm")
        assert not browser.find_elements(By.CSS_SELECTOR, "[data-code]"), text("[data-code]")

    def done(notice: str) -> None:
        assert text("[role=status]") == notice, text("[data-code]")

    def shown() -> dict:
        return room.read(server, tournament_id)

    def player_row(name: str) -> str:
        """Finds the player as the desk does, by typing the name (a first name alone may
        match two: "Gus" is in "Bo Ferguson" too)."""
        search = browser.find_element(By.ID, "player-search")
        search.clear()
        search.send_keys(name.lower())
        visible = browser.execute_script(
            "return Array.from(document.querySelectorAll('#players-list [data-name]')).filter(r => !r.hidden)"
            ".map(r => r.dataset.player)")
        assert len(visible) == 1, (name, visible)
        return f"#players-list [data-player='{visible[0]}']"

    def eliminate(name: str, expected: str, busted_by: str | None = None) -> None:
        click(player_row(name) + " [data-action=eliminate]")
        if busted_by:
            option = browser.find_element(By.XPATH, f"//select[@name='busted_by']/option[starts-with(., '{busted_by} (')]")
            option.click()
        confirm(expected)

    # 20 players registered at the desk, by name.
    for name in NAMES:
        field = browser.find_element(By.CSS_SELECTOR, "input[name=name]")
        field.send_keys(name)
        click("#register")
        done("Registered.")
    assert len(shown()["registered"]) == 20

    # An early start: the desk asks first.
    click("#start")
    confirm("The published start is")
    done("The tournament started.")
    assert [len(t["players"]) for t in shown()["tables"]] == [10, 10]

    # A bust in the rebuy period keeps the seat; the player rebuys.
    eliminate("Ann Duke", "keep the seat until they rebuy or decline")
    assert "Ann Duke" in text("[data-awaiting]")
    click("[data-awaiting] [data-action=rebuy]")
    done("Rebuy taken.")
    assert shown()["chips"]["rebuys"] == 1 and shown()["players_left"] == 20

    # A bust that declines is out, and re-enters while late registration is open.
    eliminate("Bo Ferguson", "keep the seat")
    click("[data-awaiting] [data-action=decline]")
    confirm("declines the rebuy and is out of the tournament, placed 20th of 20 entries")
    done("Rebuy declined: the player is out.")
    assert [e["name"] for e in shown()["standings"]] == ["Bo Ferguson"]
    click("[data-action=re-enter]")
    done("Registered.")
    assert shown()["entries"] == 21 and shown()["players_left"] == 20
    assert not browser.find_elements(By.CSS_SELECTOR, "[data-action=re-enter]"), "in again: no second offer"

    # The next level (asked first): rebuys are over.
    click("#next-level")
    confirm("to level 2 (200/400 ante 50) with 20:00 (its full time)")
    done("The level is set.")
    assert not browser.find_elements(By.CSS_SELECTOR, "#players-list [data-action=rebuy]")

    # An elimination undone.
    eliminate("Chen Wei", "Chen Wei")
    assert shown()["players_left"] == 19
    assert "Chen Wei" in text("#undo")
    click("#undo")
    done("Undone.")
    assert shown()["players_left"] == 20 and not [e for e in shown()["standings"] if e["name"] == "Chen Wei"]

    # Two busts at one table: the floor calls out a move, the desk and the seating show it.
    tables = shown()["tables"]
    names_at = [[p["name"] for p in t["players"]] for t in tables]
    for name in names_at[0][:2]:
        eliminate(name, "out of the tournament", busted_by=names_at[0][2])
    assert {e.get("busted_by") for e in shown()["standings"] if e["name"] in names_at[0][:2]} == {
        p["player_id"] for p in tables[0]["players"] if p["name"] == names_at[0][2]}
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.CSS_SELECTOR, "[data-move][data-state=pending]"))
    move_id = browser.find_element(By.CSS_SELECTOR, "[data-move][data-state=pending]").get_attribute("data-move")
    called = text(f"[data-move='{move_id}']")
    mover = called.split(":")[0]
    assert mover in names_at[1] and "→ table 1 seat" in called
    desk_tab = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(f"{base}/screens/tournaments/{tournament_id}/seating")
    assert any(line.startswith(f"{mover}: table 2 seat") for line in browser.execute_script(
        "return Array.from(document.querySelectorAll('[data-move]'), e => e.innerText.trim())"))
    browser.close()
    browser.switch_to.window(desk_tab)
    click(f"[data-move='{move_id}'] [data-action=seated]")
    done("Seated: the move is done.")
    assert browser.find_element(By.CSS_SELECTOR, f"[data-move='{move_id}']").get_attribute("data-state") == "seated"

    # Busts named from the desk to a finish.
    while shown()["status"] != "finished":
        click("#players-list [data-action=eliminate]")
        confirm("out of the tournament")
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.CSS_SELECTOR, ".results [data-place]"))
    places = browser.execute_script(
        "return Array.from(document.querySelectorAll('.results [data-place]'), r => Array.from(r.cells, c => c.innerText))")
    final = shown()
    # One place per player (a re-entry's player finishes once), the pool of 21 entries and
    # one rebuy at 20 each paid 50/30/20.
    assert [row[:2] for row in places] == [[str(e["place"]), e["name"]] for e in final["standings"]]
    assert len(places) == 20 and final["prize_pool"] == 440
    assert [row[2] for row in places[:4]] == ["220", "132", "88", ""]
    assert places[0][1] == final["prizes"][0]["name"]
    assert not browser.find_elements(By.CSS_SELECTOR, "#pause, #register, [data-action=rebuy]")
    print(f"the event ran from the desk in {time.monotonic() - started:.1f} s")
