"""The floor's pages over HTTP (Flask's test client, real PostgreSQL): the replayer, the
live table, the hand-history form and the rulings forms. Signed in with a floor key
(the session cookie and CSRF token of service.http.pages.session); a player's key is
refused; hostile names and PHH metadata render as text; bad input is a page with the
reason, never a 500."""
from __future__ import annotations

import io
import json
import re
import secrets
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from service.adapters.store import event_sql
from tests.integration.conftest import ADMIN, key_for, register_players, unique_to_test
from tests.integration.test_forgeries import edit_and_rehash
from tests.integration.test_hands_phh_export import act
from tests.unit.test_phh_draw import OPENED_AND_DRAWN

PHH_DIR = Path(__file__).resolve().parents[2] / ".." / "shared" / "phh"
HOSTILE = '<script>alert("x")</script>\u05e9\u05dc\u05d5\u05dd evil'  # markup and right-to-left text
_CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf(page: Any) -> str:
    found = _CSRF.search(page.get_data(as_text=True))
    assert found, page.get_data(as_text=True)[:500]
    return unescape(found.group(1))


def ruled(floor: Any, kind: str, **fields: str) -> str:
    """A rulings form sent with these fields: the page's text, once it answered 200."""
    form = floor.get("/floor/rulings")
    page = floor.post(f"/floor/rulings/{kind}", data={"csrf_token": csrf(form), **fields})
    text = unescape(page.get_data(as_text=True))
    assert page.status_code == 200, text[:3000]
    return text


def sign_in(client: Any, headers: dict[str, str]) -> None:
    key = headers["Authorization"].removeprefix("Bearer ")
    form = client.get("/floor/sign-in")
    signed = client.post("/floor/sign-in", data={"key": key, "csrf_token": csrf(form), "next": "/"})
    assert signed.status_code == 303, signed.get_data(as_text=True)


@pytest.fixture
def floor(client: Any) -> Any:
    """A browser of its own (the module's client keeps its cookies), signed in as the floor."""
    browser = client.application.test_client()
    sign_in(browser, key_for(client, "floor"))
    return browser


def short_all_in_table(client: Any) -> tuple[str, list[str]]:
    """Three-handed no-limit: the button raises to 300, the small blind is all in for 450,
    the big blind calls, and the button may only call (TDA 2024 47-A)."""
    ann, bob, cat = register_players(client, "Ann", HOSTILE, "Cat")
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": ann, "stack": 5000}, {"player_id": bob, "stack": 450},
                  {"player_id": cat, "stack": 5000}]})
    assert created.status_code == 201, created.get_data(as_text=True)
    table_id = created.get_json()["id"]
    started = client.post(f"/v1/tables/{table_id}/hands", headers=ADMIN, json={})
    version = started.get_json()["version"]
    for player, action, to in ((ann, "raise", 300), (bob, "raise", 450), (cat, "call", None)):
        body = {"action": action, "player_id": player, "expected_version": version,
                **({"to": to} if to else {})}
        acted = client.post(f"/v1/tables/{table_id}/actions", headers=ADMIN, json=body)
        assert acted.status_code == 201, acted.get_data(as_text=True)
        version = acted.get_json()["version"]
    return table_id, [ann, bob, cat]


def test_the_replayer_shows_the_steps_with_the_rule_and_escapes_names(floor: Any) -> None:
    table_id, _ = short_all_in_table(floor)
    page = floor.get(f"/floor/hands/{table_id}.1")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert HOSTILE not in text and "<script>alert" not in text
    assert "TDA 2024 47-A" in text and "TDA 2024 43" in text
    assert 'id="replay-data"' in text


def test_a_player_key_cannot_open_the_floor_pages(client: Any) -> None:
    table_id, players = short_all_in_table(client)
    browser = client.application.test_client()
    sign_in(browser, key_for(client, "player", players[0]))
    for path in (f"/floor/hands/{table_id}.1", f"/floor/tables/{table_id}", "/floor/rulings",
                 "/floor/hand-histories"):
        assert browser.get(path).status_code == 403, path


def test_signed_out_the_floor_pages_ask_for_the_key(client: Any) -> None:
    answer = client.application.test_client().get("/floor/rulings")
    assert answer.status_code == 302 and "/floor/sign-in" in answer.headers["Location"]


def test_the_live_table_lists_its_hands_and_the_legal_range(floor: Any) -> None:
    table_id, _ = short_all_in_table(floor)
    page = floor.get(f"/floor/tables/{table_id}")
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    assert f"/floor/hands/{table_id}.1" in text
    assert "call 150 (to 450)" in text and "no raise (not reopened)" in text
    assert HOSTILE not in text
    assert floor.get(f"/floor/tables/{table_id}/live").status_code == 200
    assert floor.get("/floor/tables/no-such-table").status_code == 404


def test_the_floor_pages_number_seats_from_one_as_the_desk_and_the_screens_do(floor: Any) -> None:
    # Ann is on the button, the table's first seat (0 in the API).
    table_id, _ = short_all_in_table(floor)
    live = unescape(floor.get(f"/floor/tables/{table_id}").get_data(as_text=True))
    assert "<td>1 (button)</td>" in live and "<td>0" not in live
    replayer = unescape(floor.get(f"/floor/hands/{table_id}.1").get_data(as_text=True))
    assert "the button is at seat 1" in replayer


def test_a_pasted_phh_hand_opens_in_the_replayer(floor: Any) -> None:
    form = floor.get("/floor/hand-histories")
    # The record's own event name becomes a hostile one: the page's title and its fields.
    text = re.sub(r"(?m)^event = .*$", lambda _: f"event = {json.dumps(HOSTILE)}",
                  (PHH_DIR / "dwan-ivey-2009.phh").read_text())
    page = floor.post("/floor/hand-histories", data={"csrf_token": csrf(form), "phh": text})
    body = page.get_data(as_text=True)
    assert page.status_code == 200, body[:2000]
    assert "\u2068Tom Dwan\u2069 raises to 7,000" in body and HOSTILE not in body


def test_a_pasted_button_blind_hand_steps_in_the_replayer(floor: Any) -> None:
    from tests.unit.test_phh_forced_bets import HAND
    text = HAND.format(variant="NT", trimming="true", antes="[25, 25, 25]", blinds="[0, 0, 100]",
                       actions='"p1 cbr 300", "p2 f", "p3 f"')
    page = floor.post("/floor/hand-histories", data={"csrf_token": csrf(floor.get("/floor/hand-histories")),
                                                     "phh": text})
    assert page.status_code == 200, page.get_data(as_text=True)[:2000]
    assert "raises to 300" in unescape(page.get_data(as_text=True))


def test_a_pasted_pokerstars_hand_and_session_open_in_the_replayer(floor: Any) -> None:
    stars = Path(__file__).resolve().parents[1] / "pokerstars"
    form = floor.get("/floor/hand-histories")
    page = floor.post("/floor/hand-histories", data={
        "csrf_token": csrf(form), "phh": (stars / "cash-nl-all-in.txt").read_text()})
    body = unescape(page.get_data(as_text=True))
    assert page.status_code == 200, body[:2000]
    assert "\u2068Alice\u2069 bets 830" in body and "233876543210" in body
    session = (stars / "session.txt").read_text()
    listed = floor.post("/floor/hand-histories", data={"csrf_token": csrf(form), "phh": session})
    assert listed.status_code == 200 and "4 replayed" in listed.get_data(as_text=True)
    fourth = floor.post("/floor/hand-histories", data={"csrf_token": csrf(form), "phh": session, "hand": "4"})
    assert fourth.status_code == 200 and "\u2068Ivy\u2069 raises to 1,350" in unescape(fourth.get_data(as_text=True))
    broken = floor.post("/floor/hand-histories", data={
        "csrf_token": csrf(form), "phh": session.split("\n\n\n")[0].replace("Carol: calls $1\n", "Carol: dances\n")})
    assert broken.status_code == 400 and "line 18: an action we do not read" in broken.get_data(as_text=True)


def test_a_pasted_full_tilt_hand_opens_in_the_replayer(floor: Any) -> None:
    text = (Path(__file__).resolve().parents[1] / "site_histories" / "fulltilt-cash-showdown.txt").read_text()
    form = floor.get("/floor/hand-histories")
    page = floor.post("/floor/hand-histories", data={"csrf_token": csrf(form), "phh": text})
    body = unescape(page.get_data(as_text=True))
    assert page.status_code == 200, body[:2000]
    assert "\u2068Cid\u2069 raises to 30" in body and "\u2068Ann\u2069 bets 100" in body


@pytest.mark.parametrize("text, status", [
    ("not = [toml", 400),
    ('variant = "NT"\nantes = ["a"]\nstarting_stacks = [1, 2]\nactions = []', 400),
    ('variant = "F7S"\nantes = [0, 0]\nstarting_stacks = [100, 100]\nactions = []', 422),
    ('variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n'
     'starting_stacks = [100, 100]\nactions = ["p1 cbr 1"]', 422),
    ("", 400),
])
def test_a_record_that_does_not_replay_comes_back_with_why(floor: Any, text: str, status: int) -> None:
    form = floor.get("/floor/hand-histories")
    page = floor.post("/floor/hand-histories", data={"csrf_token": csrf(form), "phh": text})
    assert page.status_code == status, page.get_data(as_text=True)[:2000]
    assert 'id="form-error"' in page.get_data(as_text=True)


def test_a_phhs_file_lists_its_hands_and_opens_the_one_asked_for(floor: Any) -> None:
    hand = (PHH_DIR / "dwan-ivey-2009.phh").read_text()
    text = f"[1]\n{hand}\n[2]\nvariant = 'NT\n\n[3]\n{hand.replace('variant = ', '_was = ')}\n" \
           f"[{json.dumps(HOSTILE)}]\n{hand}"
    form = floor.post("/floor/hand-histories", content_type="multipart/form-data", data={
        "csrf_token": csrf(floor.get("/floor/hand-histories")), "phh": "",
        "phh_file": (io.BytesIO(text.encode()), "four.phhs")})
    listed = form.get_data(as_text=True)
    assert form.status_code == 200, listed[:2000]
    assert "2 replayed" in listed and "2 unreadable" in listed and HOSTILE not in listed
    unreadable_line = text.splitlines().index("variant = 'NT") + 1
    assert f"line {unreadable_line} of the file" in listed
    assert "variant: Missing data for required field" in listed
    assert re.findall(r'name="hand" value="(\d+)"', listed) == ["1", "4"]  # the readable ones
    page = floor.post("/floor/hand-histories", data={"csrf_token": csrf(form), "phh": text, "hand": "4"})
    body = page.get_data(as_text=True)
    assert page.status_code == 200, body[:2000]
    assert "\u2068Tom Dwan\u2069 raises to 7,000" in body
    unreadable = floor.post("/floor/hand-histories", data={
        "csrf_token": csrf(form), "phh": "[1]\nvariant = 'NT\n[2]\nantes = []\n"})
    assert unreadable.status_code == 400 and "none of the file" in unreadable.get_data(as_text=True)


def test_forms_need_their_csrf_token(floor: Any) -> None:
    assert floor.post("/floor/rulings/betting", data={"seats": "A 1\nB 1"}).status_code == 403
    assert floor.post("/floor/hand-histories", data={"phh": "x"}).status_code == 403


def test_the_pot_limit_form_reads_out_the_arithmetic(floor: Any) -> None:
    text = ruled(floor, "betting", game="holdem", structure="pot-limit", small_blind="50",
        big_blind="100", seats="SB 10000\nBB 10000\nA 10000\nB 10000\nBTN 10000",
        actions="A call\nB call\nBTN call\nSB call\nBB check\nSB bet 200", proposed="BB raise 1200")
    assert "Not legal: raise to 1,200 is above the pot limit: pot 700 + call 200 = 900: raise to at most 1,100" in text
    assert "TDA 2024 54" in text


def test_the_chips_form_rules_a_tda_example(floor: Any) -> None:
    # TDA 2024 Addendum 45, example 1-B: facing 1,100 (the last raise 600), a silent push of
    # a 500 and a 1,000 is a call: removing either leaves less than 1,100.
    text = ruled(floor, "chips", structure="no-limit", facing_to="1100", last_full_raise="600",
        big_blind="500", stack="9000", raise_open="on", chips="500 1000")
    assert "Call to 1,100" in text and "TDA 2024 45-A" in text and "400 goes back" in text


@pytest.mark.parametrize("actions, proposed, answer", [
    ("A bet 20\nB call\nD fold\nA draw 3", "B draw 2",
     "Legal: B draws 2: at most 4 keeping an ace or the joker, else 3 (seed 000)"),
    ("A bet 20\nB call\nD fold", "A draw Js Kd", "Legal: A draws 2"),
])
def test_the_betting_form_takes_five_card_draws(floor: Any, actions: str, proposed: str, answer: str) -> None:
    # `player draw 3` (a count) and `player draw Js Kd` (the cards): the form's words for
    # the API's `discard`.
    text = ruled(floor, "betting", game="five-card-draw", structure="no-limit", ante="10",
        seats="A 2000\nB 2000\nD 2000", actions=actions, proposed=proposed)
    assert answer in text


def test_the_betting_form_takes_hole_cards_the_bring_in_and_openers(floor: Any) -> None:
    # Stud's first to act is the lowest up card's bring-in; jacks or better needs the
    # opener's cards: the form gives both, as the API's `cards.hole`, `betting.bring_in`
    # and `settings.opening`.
    text = ruled(floor, "betting", game="stud", structure="fixed-limit", ante="5", bring_in="10",
        small_bet="20", big_bet="40", seats="A 1000\nB 1000\nC 1000",
        hole="A AsKs7d\nB 2c3c2d\nC QhJhTh")
    assert "B is to act (third_street): bring in 10, bet 20." in text
    text = ruled(floor, "betting", game="five-card-draw", structure="no-limit", ante="10",
        opening="jacks_or_better", seats="A 2000\nB 2000\nD 2000", hole="A Th9h4c4d2s",
        proposed="A bet 20")
    assert "Not legal: A cannot open: the first bet needs a pair of jacks or better" in text


def test_a_fixed_limit_range_of_one_amount_reads_as_that_amount(floor: Any) -> None:
    text = ruled(floor, "betting", game="holdem", structure="fixed-limit", small_blind="5",
        big_blind="10", small_bet="10", big_bet="20", seats="SB 1000\nBB 1000\nBTN 1000")
    assert "BTN is to act (preflop): fold, call 10 (to 10), raise to 20." in text


def test_a_ruling_that_waits_for_cards_says_so(floor: Any) -> None:
    text = ruled(floor, "betting", game="stud", structure="fixed-limit", ante="5", bring_in="10",
        small_bet="20", big_bet="40", seats="A 1000\nB 1000\nC 1000")
    assert "None is to act" not in text
    assert "Nobody is to act (third_street): the cards decide who acts; give them" in text


def test_the_palace_battle_form_reads_out_the_battle_and_its_stakes(floor: Any) -> None:
    # Ann's spades do not count against Bob's spade banner (Ks ignored); Bob's heart does
    # not count against Ann's heart banner (7h ignored): ace high beats seven high.
    text = ruled(floor, "palace-battle", small_bet="10",
        attacker="Ann Ah KsKd2c Qh9d", defender="Bob 5s 7h7d3c")
    assert "Ann wins the battle with the better hand; Bob is out and Ann takes 5s (seed 001)" in text
    assert "Ann: high card (AhKdQh9d2c), not counting spades (Ks)" in text
    assert "Bob: high card (7d5s3c), not counting hearts (7h)" in text
    assert "Ann bets at least (2 soldiers + banner) x 10 = 30" in text


def test_the_dice_form_says_when_a_roll_is_a_joker(floor: Any) -> None:
    # Five threes again with 50 on Poker: a bonus of 100, and threes being written, any
    # free lower line scores as if its need were met (dice-poker.md).
    text = ruled(floor, "dice", dice="3 3 3 3 3", scorecard="poker 50\nthrees 9")
    assert ("A joker: five of a kind again with 50 on Poker earns a bonus of 100; threes is written, so "
            "any free lower line takes it as meeting its need") in text


@pytest.mark.parametrize("kind, data, status", [
    ("betting", {"seats": "A ten\nB 100"}, 400),
    ("betting", {"seats": "A 100"}, 400),
    ("betting", {"seats": "A 100\nB 100", "actions": "A fly"}, 400),
    ("betting", {"seats": "A 100\nB 100", "actions": "B call"}, 422),
    ("chips", {"stack": "", "big_blind": "100"}, 400),
    ("showdown", {"hands": "A AsAs\nB KdKh", "board": "2c3c4c"}, 422),
    ("dice", {"dice": "1 2 3 4 9"}, 422),
    ("palace-battle", {"attacker": "Ann Ah KsKd2c", "defender": "Bob 5h 7h7d3c"}, 422),
    ("palace-battle", {"attacker": "Ann Ah", "defender": "Bob 5s 7h7d3c"}, 400),
    ("nonsense", {}, 404),
])
def test_bad_input_reads_as_a_reason_on_the_page(floor: Any, kind: str, data: dict, status: int) -> None:
    form = floor.get("/floor/rulings")
    page = floor.post(f"/floor/rulings/{kind}", data={"csrf_token": csrf(form), **data})
    assert page.status_code == status, page.get_data(as_text=True)[:3000]
    assert 'class="error"' in page.get_data(as_text=True)


@pytest.mark.parametrize("role", ["floor", "player"])
def test_each_step_shows_the_cards_the_api_shows_the_same_key(client: Any, role: str) -> None:
    """Never more than the API gives that role: at every step, the seats' cards are the
    hole cards GET /v1/hands/{id}/state?at=<version> shows the same caller."""
    from service.application import replay, views
    from service.http.api import event_store

    table_id, players = short_all_in_table(client)
    cat = players[2]
    headers = key_for(client, role, cat if role == "player" else None)
    viewer = views.Viewer(role, cat if role == "player" else None)
    with client.application.app_context():
        replayed = replay.table_hand(event_store(), f"{table_id}.1", viewer)
    compared = 0
    for step in replayed["steps"]:
        if step["table"]["round"] is None:
            continue  # before the deal: no hand state to compare
        state = client.get(f"/v1/hands/{table_id}.1/state?at={step['version']}", headers=headers)
        assert state.status_code == 200, state.get_data(as_text=True)
        hole = state.get_json()["hand"]["hole"]
        assert {seat["player"]: seat["cards"] for seat in step["table"]["seats"]} == hole, step["caption"]
        compared += 1
    assert compared >= 5
    seen = {seat["player"] for step in replayed["steps"] for seat in step["table"]["seats"] if seat["cards"]}
    assert seen == (set(players) if role == "floor" else {cat})


def test_a_stored_hand_history_opens_by_its_id(client: Any, floor: Any) -> None:
    record = (PHH_DIR / "dwan-ivey-2009.phh").read_text()
    stored = client.post("/v1/hand-histories?store=true", data=unique_to_test(record).encode(),
                         headers={**ADMIN, "Content-Type": "application/toml"})
    assert stored.status_code == 201, stored.get_data(as_text=True)
    hand_id = stored.get_json()["id"]
    form = floor.get("/floor/hand-histories")
    opened = floor.post("/floor/hand-histories", data={"csrf_token": csrf(form), "hand_id": hand_id})
    assert opened.status_code == 303 and opened.headers["Location"].endswith(f"/floor/hands/{hand_id}")
    page = floor.get(f"/floor/hands/{hand_id}")
    text = page.get_data(as_text=True)
    assert page.status_code == 200, text[:2000]
    assert "\u2068Tom Dwan\u2069 raises to 7,000" in text and re.search(rf"the hash chain holds over the [0-9,]+ events of {hand_id}", text)
    assert floor.get("/floor/hands/hand-00000000-0000-0000-0000-000000000000").status_code == 404


@pytest.mark.parametrize("game, settings", [("dice", {}), ("five-card-draw", {}), ("palace", {"small_bet": 10, "big_bet": 20})])
def test_the_live_table_page_shows_every_game(client: Any, floor: Any, game: str, settings: dict) -> None:
    players = register_players(client, "Ann", "Bob")
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": game, "settings": settings, "seats": [{"player_id": p, "stack": 1000} for p in players]})
    assert created.status_code == 201, created.get_data(as_text=True)
    table_id = created.get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", headers=ADMIN, json={}).status_code == 201
    page = floor.get(f"/floor/tables/{table_id}")
    assert page.status_code == 200, page.get_data(as_text=True)[:3000]
    assert "to act" in page.get_data(as_text=True)
    assert floor.get(f"/floor/hands/{table_id}.1").status_code == 200


def test_an_uploaded_phh_file_opens_in_the_replayer(floor: Any) -> None:
    form = floor.get("/floor/hand-histories")
    record = (PHH_DIR / "dwan-ivey-2009.phh").read_bytes()
    page = floor.post("/floor/hand-histories", content_type="multipart/form-data", data={
        "csrf_token": csrf(form), "phh": "", "phh_file": (io.BytesIO(record), "dwan-ivey-2009.phh")})
    assert page.status_code == 200, page.get_data(as_text=True)[:2000]
    assert "Full Tilt Million Dollar Cash Game S4E12" in page.get_data(as_text=True)
    too_big = floor.post("/floor/hand-histories", content_type="multipart/form-data", data={
        "csrf_token": csrf(form), "phh_file": (io.BytesIO(b"#" * (300 * 1024)), "big.phh")})
    assert too_big.status_code == 400 and "at most" in too_big.get_data(as_text=True)


def test_a_pot_limit_table_reads_out_the_largest_raise(client: Any, floor: Any) -> None:
    players = register_players(client, "Ann", "Bob", "Cat")
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "omaha", "betting": {"structure": "pot-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": 10000} for p in players]})
    table_id = created.get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", headers=ADMIN, json={}).status_code == 201
    text = unescape(floor.get(f"/floor/tables/{table_id}").get_data(as_text=True))
    # The button acts first three-handed: pot 150 + call 100 = 250, raise to 100 + 250.
    assert "Pot limit: pot 150 + call 100 = 250: raise to at most 350 (TDA 2024 54)" in text


def long_table(client: Any, hands: int) -> str:
    """A heads-up auto-deal table where `hands` hands were folded at the first action (the
    fold that ends one deals the next, which is left in play)."""
    players = register_players(client, "Ann", "Bob")
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "auto_deal": True,
        "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": 100000} for p in players]})
    table_id = created.get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", headers=ADMIN, json={}).status_code == 201
    for _ in range(hands):
        act(client, table_id, {"action": "fold"})
    return table_id


def test_a_hands_chain_check_reads_the_hand_not_the_tables_earlier_events(
        client: Any, floor: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    table_id = long_table(client, 30)
    before = client.get(f"/v1/hands/{table_id}.29", headers=ADMIN).get_json()
    hand = client.get(f"/v1/hands/{table_id}.30", headers=ADMIN).get_json()
    table_version = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["version"]
    read: list[int] = []
    recorded = event_sql.recorded

    def counted(row: Any) -> Any:  # every event row the store reads, whichever statement
        event = recorded(row)
        if event.stream_id == f"table-{table_id}":
            read.append(event.version)
        return event

    monkeypatch.setattr(event_sql, "recorded", counted)
    page = floor.get(f"/floor/hands/{table_id}.30")
    text = unescape(page.get_data(as_text=True))
    assert page.status_code == 200, text[:2000]
    first, last = hand["first_version"], hand["last_version"]
    assert f"the hash chain holds over events {first:,}-{last:,} of the table, chained from event " \
           f"{first - 1:,}'s hash, ending where the next hand opens (event {last + 1:,})" in text
    # From the snapshot taken as hand 29 closed: nothing of hands 1 to 28 (or 29's play).
    assert read and min(read) >= before["last_version"], (min(read), before["last_version"])
    assert len(read) <= 3 * (last - first + 2) < table_version, (len(read), table_version)
    in_play = floor.get(f"/floor/hands/{table_id}.31")
    assert "ending at the table&#39;s head" in in_play.get_data(as_text=True)


def test_a_forged_event_inside_the_hand_is_caught_on_the_page(client: Any, floor: Any,
                                                              admin_database_url: str) -> None:
    table_id = long_table(client, 3)
    hand = client.get(f"/v1/hands/{table_id}.2", headers=ADMIN).get_json()
    forged = hand["first_version"] + 2
    edit_and_rehash(admin_database_url, f"table-{table_id}", forged)
    # Verify before acting: the replay's read checks each event, so the page is the 409
    # problem naming the version and why, and the whole table is refused from then on.
    page = floor.get(f"/floor/hands/{table_id}.2")
    text = unescape(page.get_data(as_text=True))
    assert page.status_code == 409 and "integrity_failure" in text, text[:2000]
    assert f"fails its integrity check at version {forged}: the event's MAC is not the chain key's" in text
    assert floor.get(f"/floor/hands/{table_id}.1").status_code == 409
    # The audit still reads it as stored: the hand's own chain check says where it breaks,
    # and the hand before ends where this one opens, which the forger left as it was.
    checked = client.get(f"/v1/hands/{table_id}.2/verify", headers=ADMIN).get_json()
    assert (checked["ok"], checked["first_bad_version"]) == (False, forged)
    assert client.get(f"/v1/hands/{table_id}.1/verify", headers=ADMIN).get_json()["ok"] is True


def test_the_picker_lists_the_newest_tables_and_their_latest_hands(client: Any, floor: Any) -> None:
    older = [long_table(client, 0) for _ in range(20)]
    newest = long_table(client, 7)
    page = floor.get("/floor/hand-histories")
    text = page.get_data(as_text=True)
    assert page.status_code == 200, text[:2000]
    rows = re.findall(r'<a href="\?table=([^"]+)">', text)
    assert rows[:2] == [newest, older[-1]] and len(rows) == 20
    # The latest five hands of the newest table, newest first, each opening the replayer.
    latest = re.findall(rf'href="/floor/hands/{newest}\.(\d+)"', text)
    assert latest == ["8", "7", "6", "5", "4"]
    cursor = unescape(re.search(r'href="\?cursor=([^"]+)" id="older-tables"', text).group(1))
    following = floor.get("/floor/hand-histories", query_string={"cursor": unquote(cursor)})
    assert following.status_code == 200 and older[0] in following.get_data(as_text=True)
    assert newest not in following.get_data(as_text=True)
    tampered = floor.get("/floor/hand-histories", query_string={"cursor": unquote(cursor)[:-2] + "xx"})
    assert tampered.status_code == 400 and "invalid_cursor" in tampered.get_data(as_text=True)


def test_the_picker_pages_one_tables_hands(client: Any, floor: Any) -> None:
    table_id = long_table(client, 55)
    text = floor.get("/floor/hand-histories", query_string={"table": table_id}).get_data(as_text=True)
    hands = re.findall(rf'href="/floor/hands/{table_id}\.(\d+)"', text)
    assert hands[0] == "56" and len(hands) == 50
    older = unescape(re.search(r'href="(\?table=[^"]+&amp;hands_before=\d+)"', text).group(1))
    text = floor.get("/floor/hand-histories" + older).get_data(as_text=True)
    assert re.findall(rf'href="/floor/hands/{table_id}\.(\d+)"', text) == ["6", "5", "4", "3", "2", "1"]
    missing = floor.get("/floor/hand-histories", query_string={"table": HOSTILE}).get_data(as_text=True)
    assert "no table" in missing and HOSTILE not in missing


def test_a_mixed_game_hand_opens_in_the_replayer(floor: Any) -> None:
    form = floor.post("/floor/hand-histories", data={
        "csrf_token": csrf(floor.get("/floor/hand-histories")),
        "phh": (PHH_DIR / "wsop/2023/43/5/54.phh").read_text()})  # seven-card stud hi-lo
    text = unescape(form.get_data(as_text=True))
    assert form.status_code == 200, text[:2000]
    assert 'id="replay-data"' in text and "PHH F7S/8 · stud_hi_lo" in text
    assert "brings it in for" in text and "as the record states" in text


@pytest.mark.parametrize("record, caption", [
    ((PHH_DIR / "wsop/2023/43/5/54.phh").read_text(), "brings it in for"),
    (OPENED_AND_DRAWN, "\u2068Ann\u2069 draws 3: AdTc4h"),
], ids=["stud hi-lo", "five-card draw"])
def test_a_stored_hand_of_any_game_steps_in_the_replayer(client: Any, floor: Any, record: str,
                                                        caption: str) -> None:
    stored = client.post("/v1/hand-histories?store=true", data=unique_to_test(record).encode(),
                         headers={**ADMIN, "Content-Type": "application/toml"})
    assert stored.status_code == 201, stored.get_data(as_text=True)
    hand_id = stored.get_json()["id"]
    text = unescape(floor.get(f"/floor/hands/{hand_id}").get_data(as_text=True))
    assert caption in text and f"events of {hand_id}" in text


def test_the_api_checks_a_hands_chain_as_the_page_does(client: Any, admin_database_url: str) -> None:
    table_id = long_table(client, 3)
    hands = [client.get(f"/v1/hands/{table_id}.{n}", headers=ADMIN).get_json() for n in (1, 2, 3, 4)]
    checked = [client.get(f"/v1/hands/{table_id}.{n}/verify", headers=ADMIN).get_json() for n in (1, 2, 3, 4)]
    assert all(c["ok"] for c in checked)
    assert [(c["first_version"], c["last_version"], c["chained_from"]) for c in checked] == [
        (h["first_version"], h["last_version"], h["first_version"] - 1) for h in hands]
    assert [c["next_opening"] for c in checked] == [h["first_version"] for h in hands[1:]] + [None]
    edit_and_rehash(admin_database_url, f"table-{table_id}", hands[2]["first_version"] + 1)
    forged = client.get(f"/v1/hands/{table_id}.3/verify", headers=ADMIN).get_json()
    assert (forged["ok"], forged["first_bad_version"]) == (False, hands[2]["first_version"] + 1)
    assert client.get(f"/v1/hands/{table_id}.9/verify", headers=ADMIN).status_code == 404
    assert client.get("/v1/hands/no-hand/verify", headers=ADMIN).status_code == 404
    stored = client.post("/v1/hand-histories?store=true", data=(PHH_DIR / "dwan-ivey-2009.phh").read_bytes(),
                         headers={**ADMIN, "Content-Type": "application/toml"}).get_json()
    whole = client.get(f"/v1/hands/{stored['id']}/verify", headers=ADMIN).get_json()
    assert whole["ok"] and (whole["first_version"], whole["last_version"], whole["chained_from"]) == (
        1, stored["version"], 0)
    assert client.get("/v1/hands/hand-00000000-0000-0000-0000-000000000000/verify", headers=ADMIN).status_code == 404


_AMOUNT = re.compile(r"\d+(?:,\d{3})*")
_CITATION_YEAR = re.compile(r"\b(?:TDA|Robert's Rules|RRoP)[^()]*?\b(?:19|20)\d\d\b")


# The button raises to 1,000, the small blind calls, the big blind's all-in to 1,400 is
# short of a full raise (1,900): the button may not raise again.
NOT_REOPENED_SEATS = "UTG 10000\nA 10000 button\nSB 10000\nBB 1400"
NOT_REOPENED_ACTIONS = "UTG fold\nA raise 1000\nSB call\nBB raise 1400"


def answer_of(text: str) -> str:
    """The ruling's answer section (first on the page), its details left in."""
    found = re.search(r'<section class="card answer" id="answer".*?</section>', text, re.S)
    assert found, text[:3000]
    return found.group(0)


def test_the_answer_comes_first_its_raw_fields_behind_details(floor: Any) -> None:
    text = ruled(floor, "betting", game="holdem", structure="no-limit", small_blind="50", big_blind="100",
                 seats=NOT_REOPENED_SEATS, actions=NOT_REOPENED_ACTIONS,
                 proposed="A raise 3000")
    answer = answer_of(text)
    assert text.index('id="answer"') < text.index('action="/floor/rulings/betting"'), "the answer is above the forms"
    said = re.sub(r"<details.*?</details>", "", answer, flags=re.S)
    assert "Not legal: raising is not reopened" in said and "TDA 2024" in said
    assert "<dt>" not in said, "raw fields are only behind the details toggle"
    assert re.search(r"<details[^>]*><summary>Details</summary>.*<dt>to</dt><dd>3,000</dd>", answer, re.S)


def test_a_ruling_and_its_page_write_every_amount_one_way(floor: Any) -> None:
    text = ruled(floor, "betting", game="holdem", structure="no-limit", small_blind="50", big_blind="100",
                 seats=NOT_REOPENED_SEATS, actions=NOT_REOPENED_ACTIONS,
                 proposed="A raise 3000")
    words = _CITATION_YEAR.sub("", re.sub(r"<[^>]+>", " ", answer_of(text)))
    amounts = _AMOUNT.findall(words)
    assert "1,000" in amounts and "1,400" in amounts, words
    assert [a for a in amounts if len(a.replace(",", "")) > 3 and "," not in a] == [], words


def test_seats_are_read_round_the_table_with_the_button_marked(floor: Any) -> None:
    # Bob has the button: Cat posts the small blind, Dan the big, Ann acts first.
    text = ruled(floor, "betting", game="holdem", structure="no-limit", small_blind="50", big_blind="100",
                 seats="Ann 10000\nBob 10000 button\nCat 10000\nDan 10000")
    assert "Ann is to act (preflop): fold, call 100 (to 100), raise to 200 to 10,000." in answer_of(text)
    form = floor.get("/floor/rulings")
    twice = floor.post("/floor/rulings/betting", data={"csrf_token": csrf(form),
                                                       "seats": "Ann 1 button\nBob 1 button"})
    assert twice.status_code == 400 and "one button, not 2" in twice.get_data(as_text=True)


def test_the_replayer_heads_a_hand_by_number_and_players_not_by_id(floor: Any) -> None:
    table_id, _ = short_all_in_table(floor)
    text = unescape(floor.get(f"/floor/hands/{table_id}.1").get_data(as_text=True))
    heading = re.search(r"<h1>(.*?)</h1>", text, re.S)
    assert heading and heading.group(1).startswith("Hand 1 · holdem · Ann, "), text[:2000]
    assert table_id not in heading.group(1) and f">table {table_id}<" not in text
    assert re.search(r"started \w{3} \d{1,2} \w{3}, \d\d:\d\d UTC", text)


def test_the_finishing_stacks_are_named_and_written_with_separators(floor: Any) -> None:
    form = floor.get("/floor/hand-histories")
    page = floor.post("/floor/hand-histories", data={"csrf_token": csrf(form),
                                                     "phh": (PHH_DIR / "dwan-ivey-2009.phh").read_text()})
    text = unescape(page.get_data(as_text=True))
    assert "Finishing stacks: Phil Ivey 572,100, Patrik Antonius 1,997,500, Tom Dwan 1,109,500" in text


def test_an_imported_hand_is_headed_by_its_game_and_players(client: Any, floor: Any) -> None:
    stored = client.post("/v1/hand-histories?store=true", data=(PHH_DIR / "dwan-ivey-2009.phh").read_bytes(),
                         headers={**ADMIN, "Content-Type": "application/toml"}).get_json()
    text = unescape(floor.get(f"/floor/hands/{stored['id']}").get_data(as_text=True))
    heading = re.search(r"<h1>(.*?)</h1>", text, re.S)
    assert heading and heading.group(1) == "Imported holdem · Phil Ivey, Patrik Antonius, Tom Dwan", text[:2000]


def test_hands_kept_from_the_page_answer_hand_by_hand_and_once(floor: Any) -> None:
    from tests.unit.test_phh_odd_chips import CHOPPED_BOARD
    run = secrets.token_hex(6)
    hand = f'{CHOPPED_BOARD}_run = "{run}"\n'
    illegal = hand.replace("'p3 cc', 'p1 f'", "'p3 cbr 3', 'p1 f'")
    text = f"[1]\n{hand}\n[2]\n{illegal}"
    form = floor.get("/floor/hand-histories")
    assert 'name="store"' in form.get_data(as_text=True)
    first = floor.post("/floor/hand-histories", data={"csrf_token": csrf(form), "phh": text, "store": "true"})
    listed = unescape(first.get_data(as_text=True))
    assert first.status_code == 200, listed[:2000]
    assert "1 kept now, 0 kept before" in listed and "raise_below_minimum" in listed
    kept_link = re.search(r'<a class="kept" href="/floor/hands/(hand-[0-9a-f-]+)">kept now</a>', listed)
    assert kept_link, listed[:3000]
    again = unescape(floor.post("/floor/hand-histories", data={"csrf_token": csrf(form), "phh": text,
                                                              "store": "true"}).get_data(as_text=True))
    assert "0 kept now, 1 kept before" in again and f"/floor/hands/{kept_link.group(1)}\">kept before" in again
    one = floor.post("/floor/hand-histories", data={"csrf_token": csrf(form), "phh": hand, "store": "true"})
    assert one.status_code == 303 and one.headers["Location"].endswith(f"/floor/hands/{kept_link.group(1)}")
    refused = floor.post("/floor/hand-histories", data={"csrf_token": csrf(form), "phh": illegal, "store": "true"})
    assert refused.status_code == 422 and 'id="form-error"' in refused.get_data(as_text=True)
