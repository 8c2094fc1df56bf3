"""The desk's money in Chromium, as an organiser uses it: a bounty bust asks who busted the
player before it is written, a deal is read from the ICM and chip-chop figures and
recorded after its question, and a player's payout slip prints (print media) black on
white, one slip a page, the site's menu and buttons left out."""
from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.browser import room
from tests.browser.pages import BLACK_ON_WHITE, all_shown, printed_styles, shown


def test_a_pko_bust_a_deal_and_a_payout_slip_from_the_desk(server, base, browser, admin_key):
    names = ["Slip Ann", "Slip Bo", "Slip Cy", "Slip Di"]
    entrants = room.players(server, names)
    tournament_id = room.tournament(server, "Slip test", entrants, tables="physical", fee=10, guarantee=500,
                                    payout_percentages=["70", "30"], bounty={"kind": "fixed", "amount": 25})
    ann, bo, cy, di = entrants
    desk = f"/floor/tournaments/{tournament_id}"
    room.sign_in(browser, base, admin_key, desk)

    def submit(selector: str) -> None:
        page = browser.find_element(By.TAG_NAME, "html")
        browser.find_element(By.CSS_SELECTOR, selector).click()
        WebDriverWait(browser, 5).until(lambda b: page != b.find_element(By.TAG_NAME, "html"))

    # The bust asks who busted Ann: the bounty is on her head.
    submit(f"#players-list [data-player='{ann}'] [data-action=eliminate]")
    assert "name who busted them" in shown(browser, "[data-asked]")
    Select(browser.find_element(By.NAME, "busted_by")).select_by_visible_text(
        next(o.text for o in Select(browser.find_element(By.NAME, "busted_by")).options if o.text.startswith("Slip Bo")))
    submit("#confirm")
    assert shown(browser, "[role=status]") == "Elimination recorded."
    assert shown(browser, "[data-figure=bounties_paid]") == "25"

    # Counted, the deal figures show; the organiser records the ICM amounts after the question.
    in_play = room.read(server, tournament_id)["chips"]["in_play"]
    counts = [{"player_id": p, "chips": c} for p, c in ((bo, in_play // 2), (cy, in_play * 3 // 10),
                                                          (di, in_play - in_play // 2 - in_play * 3 // 10))]
    room.write(server, tournament_id, "chip-counts", {"counts": counts})
    browser.get(base + desk)
    icm = {row: shown(browser, f"[data-deal-player='{row}'] [data-icm]") for row in (bo, cy, di)}
    assert sum(int(v.replace(",", "")) for v in icm.values()) == 500
    submit("#record-deal")
    assert "nothing is left to play for" in shown(browser, "[data-consequence]")
    submit("#confirm")
    assert shown(browser, "[role=status]") == "The deal is recorded."
    for out in (di, cy):
        room.write(server, tournament_id, "eliminations", {"player_id": out, "busted_by": bo})
    browser.get(base + desk)
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.CSS_SELECTOR, ".results [data-place]"))
    assert shown(browser, "[data-figure=left]") == "0"

    # Bo's slip, printed.
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        browser.get(f"{base}{desk}/print/payout-slips/{bo}")
        slips = all_shown(browser, ".payout-slip")
        assert len(slips) == 1 and "Slip Bo" in slips[0] and "Prize (the deal)" in slips[0]
        assert shown(browser, ".payout-slip [data-field=bounties]") == "100", "three bounties and his own"
        styles = printed_styles(browser, ".payout-slip", ".payout-slip .who", "breakAfter")
        assert styles == {**BLACK_ON_WHITE, "page": "page"}
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
