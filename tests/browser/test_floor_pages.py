"""The floor's pages in Chromium (pages.md): the replayer steps through a real hand from
../shared/phh and through a live hand with a short all-in, with the legal range and the
rule cited at each step, and shows the floor every card the floor may see; a player's
key cannot open a floor page; the live table follows its stream without a reload; a
ruling form gives the TDA's answer. (Their screenshots: tests.browser.floor_screenshots.)"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from service.application.replay import isolated
from tests.browser import chromium, room

PHH_DIR = Path(__file__).resolve().parents[2] / ".." / "shared" / "phh"
HOSTILE = '<img src=x onerror=alert(1)>"Bob \u05e9\u05dc\u05d5\u05dd'  # markup, a quote, right-to-left text


def text(browser: Any, selector: str) -> str:
    """The element's text as rendered, read in one step: the live table swaps its fragment
    in, and an element found a moment before may be gone when its text is read."""
    shown = browser.execute_script(
        "const found = document.querySelector(arguments[0]); return found ? found.innerText : null", selector)
    assert shown is not None, f"nothing matches {selector}"
    return str(shown).strip()


def key(server: Any, role: str, player_id: str | None = None) -> str:
    status, issued, _ = server.call("POST", "/v1/keys", {"role": role, **({"player_id": player_id} if player_id else {})},
                                    server.admin)
    assert status == 201, issued
    return issued["key"]


def press(browser: Any, key_name: str, times: int = 1) -> None:
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(times):
        body.send_keys(key_name)


def step_to(browser: Any, caption_start: str) -> None:
    """Forward with the arrow key until the step's caption begins so."""
    for _ in range(60):
        if text(browser, "#step-caption").startswith(caption_start):
            return
        press(browser, Keys.ARROW_RIGHT)
    raise AssertionError(f"no step begins {caption_start!r}; last: {text(browser, '#step-caption')}")


def no_alert(browser: Any) -> None:
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert  # noqa: B018 - reading it is the check


@pytest.fixture(scope="module")
def short_all_in(server: Any) -> dict[str, Any]:
    """The short all-in of room.short_all_in_hand, the small blind named with hostile text."""
    return room.short_all_in_hand(server, ["Ann", HOSTILE, "Cat"])


def paste_phh(server: Any, base: str, browser: Any, text: str, opens: str = "replay-data") -> None:
    """Signed in as the floor, paste PHH text in the hand-histories form and open it."""
    room.sign_in(browser, base, key(server, "floor"), "/floor/hand-histories")
    browser.execute_script("document.getElementById('phh').value = arguments[0]", text)
    browser.find_element(By.CSS_SELECTOR, ".phh-form button[type=submit]").click()
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, opens))


def test_the_replayer_steps_through_a_real_phh_hand(server: Any, base: str, browser: Any) -> None:
    paste_phh(server, base, browser, (PHH_DIR / "dwan-ivey-2009.phh").read_text())
    assert text(browser, "#step-caption").startswith("The hand starts")
    step_to(browser, f"{isolated('Tom Dwan')} raises to 7,000")
    assert text(browser, "#decision-legal") == "fold · call 2,000 (to 2,000) · raise to 4,000 – 553,000"
    assert text(browser, "#decision-rule") == "TDA 2024 43"
    assert "the minimum raise is to 4,000" in text(browser, "#decision-verdict")
    step_to(browser, f"{isolated('Patrik Antonius')} folds")
    # Only a numbered rule is a badge: a fold says in words that none decides it.
    assert not browser.find_element(By.ID, "decision-rule").is_displayed()
    assert text(browser, "#decision-no-rule") == "no numbered rule decides a fold"
    step_to(browser, f"{isolated('Tom Dwan')} calls 262,400")
    assert "no raise" in text(browser, "#decision-legal")
    assert text(browser, "#decision-closed").startswith("No raise: the stack covers only a call to 495,000")
    # Ivey's 572,100 nobody can call is not a side pot: it goes back to him.
    assert (text(browser, "#pot"), text(browser, "#pots")) == ("1,109,500", "")
    assert text(browser, "#uncalled") == f"uncalled 572,100, goes back to {isolated('Phil Ivey')}"
    press(browser, Keys.ARROW_LEFT)
    assert text(browser, "#step-caption") == f"{isolated('Phil Ivey')} raises to 1,067,100"
    browser.find_element(By.CSS_SELECTOR, "[data-go=last]").click()
    assert text(browser, "#board") == "Jc3d5c4hJh"
    for size in ("laptop", "phone"):
        chromium.set_viewport(browser, size)
        assert chromium.horizontal_overflow(browser) == 0, size
    assert "1,997,500" in text(browser, "#seats")  # Antonius folded pre-flop: 2,000,000 less his blind and ante


def test_a_phhs_file_lists_its_hands_and_one_opens_in_the_replayer(server: Any, base: str, browser: Any) -> None:
    record = (PHH_DIR / "dwan-ivey-2009.phh").read_text()
    paste_phh(server, base, browser, f"[1]\nvariant = 'NT\n\n[2]\n{record}", opens="collection")
    assert "1 replayed" in text(browser, "#collection-summary") and "1 unreadable" in text(browser, "#collection-summary")
    assert "line 2 of the file" in text(browser, "#collection tr[data-position='1']")
    for size in ("laptop", "phone"):
        chromium.set_viewport(browser, size)
        assert chromium.horizontal_overflow(browser) == 0, size
    browser.find_element(By.CSS_SELECTOR, "button[name=hand][value='2']").click()
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, "replay-data"))
    step_to(browser, f"{isolated('Tom Dwan')} raises to 7,000")


def test_a_pasted_pokerstars_hand_steps_through_the_replayer(server: Any, base: str, browser: Any) -> None:
    stars = Path(__file__).resolve().parents[1] / "pokerstars" / "cash-nl-all-in.txt"
    paste_phh(server, base, browser, stars.read_text())
    assert text(browser, "#step-caption").startswith("The hand starts")
    step_to(browser, f"{isolated('Alice')} bets 830")
    browser.find_element(By.CSS_SELECTOR, "[data-go=last]").click()
    assert text(browser, "#board") == "2c7dTsQh3s"
    assert "1,690" in text(browser, "#seats")  # Carol's pot, the rake given back (cents)
    for size in ("laptop", "phone"):
        chromium.set_viewport(browser, size)
        assert chromium.horizontal_overflow(browser) == 0, size


def test_a_stud_record_steps_with_its_bring_in(server: Any, base: str, browser: Any) -> None:
    paste_phh(server, base, browser, (PHH_DIR / "wsop/2023/43/5/54.phh").read_text())  # stud hi-lo
    brought_in = next(step["caption"] for step in browser.execute_script(
        "return JSON.parse(document.getElementById('replay-data').textContent).steps")
        if "brings it in" in step["caption"])
    step_to(browser, brought_in)
    assert text(browser, "#decision-legal").startswith("bring it in for")
    assert "bring in to" in text(browser, "#decision-who")


def test_the_picker_opens_a_stored_hand_of_a_recent_table(server: Any, base: str, browser: Any,
                                                          short_all_in: dict[str, Any]) -> None:
    table_id = short_all_in["table_id"]
    room.sign_in(browser, base, key(server, "floor"), "/floor/hand-histories")
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, "recent-tables"))
    for size in ("laptop", "phone"):
        chromium.set_viewport(browser, size)
        assert chromium.horizontal_overflow(browser) == 0, size
    browser.find_element(By.CSS_SELECTOR, f"#recent-tables a[href='?table={table_id}']").click()
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, "picked-hands"))
    browser.find_element(By.CSS_SELECTOR, f"#picked-hands a[href='/floor/hands/{table_id}.1']").click()
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, "replay-data"))
    assert "of the table, chained from" in text(browser, "#chain-check")


def test_the_replayer_shows_the_rule_at_a_short_all_in_and_the_floor_sees_every_card(
        server: Any, base: str, browser: Any, short_all_in: dict[str, Any]) -> None:
    hand = f"{short_all_in['table_id']}.1"
    room.sign_in(browser, base, key(server, "floor"), f"/floor/hands/{hand}")
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, "replay-data"))
    step_to(browser, f"{isolated(HOSTILE)} raises to 450")
    assert text(browser, "#decision-who") == f"{isolated(HOSTILE)}: raise to 450, all in"
    assert text(browser, "#decision-legal") == "fold · call 250 (to 300) · raise to 450 – 450"
    assert text(browser, "#decision-rule") == "TDA 2024 47-A"
    assert "does not reopen the betting" in text(browser, "#decision-verdict")
    no_alert(browser)
    # The floor sees every hole card at every step (as GET /v1/hands gives the floor).
    cards = [cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "#seats td:last-child")]
    assert len(cards) == 3 and all(len(c) == 4 and c != "hidden" for c in cards), cards
    assert "Deal check" in browser.page_source
    assert "the hash chain holds over events" in text(browser, "#chain-check")
    assert "of the table, chained from event" in text(browser, "#chain-check")


def test_a_player_key_cannot_open_the_floor_pages(server: Any, base: str, browser: Any,
                                                  short_all_in: dict[str, Any]) -> None:
    ann = short_all_in["players"][0]
    room.sign_in(browser, base, key(server, "player", ann), f"/floor/hands/{short_all_in['table_id']}.1")
    assert "403" in text(browser, "h1")
    assert "replay-data" not in browser.page_source
    browser.get(f"{base}/floor/tables/{short_all_in['table_id']}")
    assert "403" in text(browser, "h1")


def test_the_live_table_follows_its_stream_and_opens_the_replayer(
        server: Any, base: str, browser: Any, short_all_in: dict[str, Any]) -> None:
    table_id = short_all_in["table_id"]
    ann = short_all_in["players"][0]
    room.sign_in(browser, base, key(server, "floor"), f"/floor/tables/{table_id}")
    WebDriverWait(browser, 5).until(lambda b: "live" in text(b, "#live-status"))
    assert text(browser, "#turn h2") == "Ann to act"  # a <bdi>, not characters
    assert "call 150 (to 450)" in text(browser, "#legal") and "no raise (not reopened)" in text(browser, "#legal")
    no_alert(browser)
    chromium.set_viewport(browser, "phone")
    assert chromium.horizontal_overflow(browser) == 0
    browser.execute_script("window.notReloaded = true")
    status, acted, _ = server.call("POST", f"/v1/tables/{table_id}/actions", {
        "action": "call", "player_id": ann, "expected_version": short_all_in["version"]}, server.admin)
    assert status == 201, acted
    WebDriverWait(browser, 10, poll_frequency=0.05).until(lambda b: text(b, "#round") == "flop")
    assert browser.execute_script("return window.notReloaded === true")
    # Clicked in one step: the fragment may be swapped in again meanwhile (one event per action).
    browser.execute_script("document.querySelector('ol.hands a[href$=\".1\"]').click()")
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, "replay-data"))
    assert text(browser, "#step-caption").startswith("Hand 1 opens")


def test_a_ruling_is_read_at_the_top_of_the_page_without_scrolling(server: Any, base: str, browser: Any) -> None:
    # At a laptop's 1366x768 the floor types the seats round the table, marks the button,
    # rules, and reads the answer first on the page: the raw numbers wait behind "Details".
    chromium.set_viewport(browser, "laptop")
    room.sign_in(browser, base, key(server, "floor"), "/floor/rulings")
    form = browser.find_element(By.CSS_SELECTOR, "#betting form")
    form.find_element(By.CSS_SELECTOR, "select[name=structure] option[value=pot-limit]").click()
    seats = form.find_element(By.NAME, "seats")
    seats.clear()
    seats.send_keys("SB 10000\nBB 10000\nA 10000\nB 10000\nBTN 10000 button")
    form.find_element(By.NAME, "actions").send_keys("A call\nB call\nBTN call\nSB call\nBB check\nSB bet 200")
    form.find_element(By.NAME, "proposed").send_keys("BB raise 1200")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, "answer"))
    assert text(browser, "#answer .words") == ("Not legal: raise to 1,200 is above the pot limit: pot 700 + call 200 = 900: "
            "raise to at most 1,100 (TDA 2024 54)")
    seen = browser.execute_script(
        "const box = document.getElementById('answer').getBoundingClientRect();"
        "return [window.scrollY, box.top, box.bottom, window.innerHeight]")
    assert seen[0] == 0 and seen[1] >= 0 and seen[2] <= seen[3], seen
    raw = browser.find_element(By.CSS_SELECTOR, "#answer details dl")
    assert not raw.is_displayed()
    browser.find_element(By.CSS_SELECTOR, "#answer details summary").click()
    assert raw.is_displayed() and "1,200" in raw.text and "1,100" in raw.text
    chromium.set_viewport(browser, "phone")
    assert chromium.horizontal_overflow(browser) == 0


def test_a_games_own_ruling_form_is_filled_from_its_example_and_answered(server: Any, base: str,
                                                                         browser: Any) -> None:
    # The Palace battle form is laid out from the game's registration: its fields show the
    # example as placeholders; the floor types the two sides and reads the battle out.
    room.sign_in(browser, base, key(server, "floor"), "/floor/rulings")
    form = browser.find_element(By.CSS_SELECTOR, "#palace-battle form")
    attacker = form.find_element(By.NAME, "attacker")
    assert attacker.get_attribute("placeholder") == "Ann Ah KsKd2c Qh9d"
    attacker.send_keys("Ann Ah KsKd2c Qh9d")
    form.find_element(By.NAME, "defender").send_keys("Bob 5s 7h7d3c")
    form.find_element(By.NAME, "small_bet").send_keys("10")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, "answer"))
    answer = text(browser, "#answer")
    assert "Ann wins the battle with the better hand; Bob is out and Ann takes 5s" in answer
    assert "Ann bets at least (2 soldiers + banner) x 10 = 30" in answer


@pytest.mark.parametrize("form_id, typed", [
    ("chips", {"pot": "300", "stack": "10000", "big_blind": "100", "opponents": "1", "chips": "1000"}),
    ("showdown", {"board": "AhKhQh2c3d", "hands": "Ann AsAd\nBob 7c7d"}),
    ("palace-battle", None),
    ("dice", None),
])
def test_every_ruling_is_read_at_the_top_without_scrolling(server: Any, base: str, browser: Any,
                                                             form_id: str, typed: dict[str, str] | None) -> None:
    # The betting and who-shows-first forms have tests of their own above and in
    # test_floor_rulings.py; here the other rulings at 1366x768, asked as the floor asks them
    # (a game's own form from the example its registration shows as placeholders).
    chromium.set_viewport(browser, "laptop")
    room.sign_in(browser, base, key(server, "floor"), "/floor/rulings")
    form = browser.find_element(By.CSS_SELECTOR, f"#{form_id} form")
    if typed is None:
        typed = {field.get_attribute("name"): field.get_attribute("placeholder")
                 for field in form.find_elements(By.CSS_SELECTOR, "[placeholder]")}
    assert typed
    for name, value in typed.items():
        field = form.find_element(By.NAME, name)
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", field)
        field.clear()
        field.send_keys(value)
    button = form.find_element(By.CSS_SELECTOR, "button[type=submit]")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.CSS_SELECTOR, f"#answer[data-kind='{form_id}']"))
    assert text(browser, "#answer").strip()
    seen = browser.execute_script(
        "const box = document.getElementById('answer').getBoundingClientRect();"
        "return [window.scrollY, box.top, box.bottom, window.innerHeight]")
    assert seen[0] == 0 and seen[1] >= 0 and seen[2] <= seen[3], seen


def test_a_pasted_session_is_kept_hand_by_hand_and_a_kept_hand_opens(server: Any, base: str, browser: Any) -> None:
    session = (Path(__file__).resolve().parents[1] / "pokerstars" / "session.txt").read_text()
    room.sign_in(browser, base, key(server, "floor"), "/floor/hand-histories")
    browser.execute_script("document.getElementById('phh').value = arguments[0]", session)
    browser.find_element(By.ID, "store").click()
    browser.find_element(By.CSS_SELECTOR, ".phh-form button[type=submit]").click()
    WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.ID, "collection-kept"))
    kept = text(browser, "#collection-kept")
    now, before = (int(part.split()[0]) for part in kept.split(", "))
    assert now + before == 4, kept
    for size in ("laptop", "phone"):
        chromium.set_viewport(browser, size)
        assert chromium.horizontal_overflow(browser) == 0, size
    browser.find_element(By.CSS_SELECTOR, "#collection tr[data-position='4'] a.kept").click()
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, "replay-data"))
    step_to(browser, f"{isolated('Ivy')} raises to 1,350")
    assert "the hash chain holds" in text(browser, "#chain-check")


def test_the_floor_opens_a_named_table_and_its_page_is_headed_by_the_name(server: Any, base: str, browser: Any) -> None:
    room.sign_in(browser, base, key(server, "floor"), "/floor/tables/new")
    name = browser.find_element(By.ID, "name")
    name.clear()
    name.send_keys("Feature table \u05e9")  # a right-to-left letter reads in place
    browser.find_element(By.CSS_SELECTOR, ".table-form button[type=submit]").click()
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.ID, "table-live"))
    assert text(browser, "#table-live h1") == "Feature table \u05e9"
    assert browser.title.startswith("Feature table \u05e9 · ")
    for size in ("laptop", "phone"):
        chromium.set_viewport(browser, size)
        assert chromium.horizontal_overflow(browser) == 0, size
