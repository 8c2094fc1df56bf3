"""Find your seat and the printed sheets in Chromium: on a phone (390x844) and without a
key, a player types part of their name on the seating screen and reads their table and
seat, and where to go when a move waits for them; the desk's seat cards and table draw
print (print media) black on white, one card per player, the site's menu and buttons left
out and no card split across pages."""
from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser import chromium, room
from tests.browser.pages import BLACK_ON_WHITE, all_shown, following, printed_styles, within_a_second

NAMES = ["Dara Ó Briain", "Ann Duke", "Annika Berg", "Bo Ferguson", "Chen Wei", "Eli Seidel"]


def test_a_player_finds_their_seat_by_name_on_a_phone(server, base, browser, database_url):
    entrants = room.players(server, NAMES)
    tournament_id = room.tournament(server, "Find test", entrants, table_size=4)
    tables = room.read(server, tournament_id)["tables"]
    seat_of = {p["player_id"]: (t["number"], p["seat"]) for t in tables for p in t["players"]}  # seats from 1
    chromium.set_viewport(browser, "phone")
    browser.get(f"{base}/screens/tournaments/{tournament_id}/seating")
    following(browser)
    assert browser.get_cookie("cardroom_session") is None

    box = browser.find_element(By.ID, "find-seat")
    box.send_keys("dara o")  # no accent typed: "Ó" is found as "O"
    table, seat = seat_of[entrants[0]]
    assert all_shown(browser, "#found li") == [f"Dara Ó Briain: table {table}, seat {seat}"]
    box.clear()
    box.send_keys("ANN")
    assert sorted(all_shown(browser, "#found li")) == sorted(
        f"{name}: table {seat_of[p][0]}, seat {seat_of[p][1]}" for name, p in zip(NAMES, entrants) if "ann" in name.lower())
    assert chromium.horizontal_overflow(browser) == 0, chromium.overflowing(browser)

    # A move for Ann: what she finds says where to go, live, with what she typed kept.
    room.deal_hand(database_url, tournament_id, seat_of[entrants[1]][0])
    other = next(t for t in tables if t["number"] != seat_of[entrants[1]][0])
    free = next(s for s in range(1, 5) if s not in {p["seat"] for p in other["players"]})
    room.write(server, tournament_id, "moves", {"player_id": entrants[1], "to_table": other["number"],
                                                "to_seat": free})
    within_a_second(browser, lambda b: any(f"→ moving to table {other['number']}, seat {free}" in line
                                           for line in all_shown(b, "#found li")), "the move found")
    assert box.get_attribute("value") == "ANN"

    # Without JavaScript's help the same answer comes from the server (?name=).
    browser.get(f"{base}/screens/tournaments/{tournament_id}/seating?name=bo%20f")
    assert all_shown(browser, "#found li")[0].startswith("Bo Ferguson: table ")


def test_seat_cards_and_the_table_draw_print_black_on_white(server, base, browser, admin_key):
    entrants = room.players(server, [f"Print {n}" for n in "ABCDEFGHIJ"])
    tournament_id = room.tournament(server, "Print test", entrants, table_size=6)
    desk = f"/floor/tournaments/{tournament_id}"
    room.sign_in(browser, base, admin_key, desk)
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        browser.get(f"{base}{desk}/print/seat-cards")
        WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.CSS_SELECTOR, ".seat-card"))
        cards = all_shown(browser, ".seat-card")
        assert len(cards) == 10 and all("Table " in card and "Seat " in card for card in cards)
        styles = printed_styles(browser, ".seat-card", ".seat-card .who", "breakInside")
        assert styles == {**BLACK_ON_WHITE, "page": "avoid"}
        browser.get(f"{base}{desk}/print/table-draw")
        assert len(all_shown(browser, ".draw-table")) == 2
        assert sorted(all_shown(browser, ".draw-by-name td.player")) == sorted(f"Print {n}" for n in "ABCDEFGHIJ")
        pdf = browser.execute_cdp_cmd("Page.printToPDF", {"printBackground": True})
        assert len(pdf["data"]) > 1000
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
