"""The pages over HTTP on real PostgreSQL (pages.md): sign-in and its session (cookie
flags, no key kept, sign-out, expiry, revocation), the floor guard, CSRF on every form,
the organiser's desk acting through the application layer, the public screens' fields,
and streams read with the session cookie under the signed-in caller's redaction."""
from __future__ import annotations

import re
import time
from html import unescape

import psycopg
import pytest

from service.application import screens, tournaments
from service.application.api_keys import KEY_CACHE_TTL_S
from service.http.pages.frame import clock_time
from tests.integration.conftest import ADMIN, ADMIN_KEY, register_players

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
FORM_ID = re.compile(r'name="form_id" value="([^"]+)"')
LEVELS = [{"minutes": 20, "small_blind": 100, "big_blind": 200},
          {"break": True, "minutes": 10},
          {"minutes": 20, "small_blind": 200, "big_blind": 400, "ante": 50}]


@pytest.fixture(autouse=True)
def signed_out(client):
    """Each test starts as a browser that never signed in (the client is the module's)."""
    for name in ("cardroom_session", "cardroom_csrf"):
        client.delete_cookie(name)


def new_tournament(client, names: list[str], *, start: bool = True, **settings) -> tuple[str, list[str]]:
    players = register_players(client, *names)
    created = client.post("/v1/tournaments", headers=ADMIN, json={
        "name": "Pages", "game": "holdem", "levels": LEVELS, "starting_stack": 5000, "buy_in": 20,
        "starts_at": "now", "payout_percentages": ["70", "30"], **settings})
    assert created.status_code == 201, created.get_json()
    tournament_id = created.get_json()["id"]
    for player in players:
        assert client.post(f"/v1/tournaments/{tournament_id}/registrations", headers=ADMIN,
                           json={"player_id": player}).status_code == 201
    if start:
        assert client.post(f"/v1/tournaments/{tournament_id}/start", headers=ADMIN, json={}).status_code == 201
    return tournament_id, players


def issue(client, role: str, player_id: str | None = None) -> dict:
    body = {"role": role, **({"player_id": player_id} if player_id else {})}
    issued = client.post("/v1/keys", json=body, headers=ADMIN)
    assert issued.status_code == 201
    return issued.get_json()


def csrf_of(page) -> str:
    found = CSRF.search(page.get_data(as_text=True))
    assert found, page.get_data(as_text=True)[:500]
    return found.group(1)


def sign_in(client, key: str, then: str = "/") -> object:
    form = client.get("/floor/sign-in")
    return client.post("/floor/sign-in", data={"csrf_token": csrf_of(form), "key": key, "next": then})


def session_cookie(client) -> str | None:
    cookie = client.get_cookie("cardroom_session")
    return cookie.value if cookie else None


def desk_form(client, tournament_id: str) -> dict[str, str]:
    desk = client.get(f"/floor/tournaments/{tournament_id}")
    assert desk.status_code == 200, desk.get_data(as_text=True)[:300]
    return {"csrf_token": csrf_of(desk), "form_id": FORM_ID.search(desk.get_data(as_text=True)).group(1)}


# ------------------------------------------------------------------------ signing in


def test_a_key_signs_in_once_and_the_session_cookie_is_httponly_strict_and_keeps_no_key(
        client, admin_database_url):
    key = issue(client, "organiser")
    signed = sign_in(client, key["key"], "/floor/tournaments/x")
    assert signed.status_code == 303 and signed.headers["Location"] == "/floor/tournaments/x"
    cookie = next(c for c in signed.headers.getlist("Set-Cookie") if c.startswith("cardroom_session="))
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie
    assert key["key"] not in cookie
    with psycopg.connect(admin_database_url) as conn:
        rows = conn.execute("SELECT * FROM page_sessions WHERE key_id = %s", (key["id"],)).fetchall()
    assert len(rows) == 1
    assert not any(key["key"] in str(value) for value in rows[0])
    assert session_cookie(client) not in str(rows[0]), "the row is found by the id's hash"
    assert "signed in: organiser" in client.get("/").get_data(as_text=True)


def test_over_https_the_session_cookie_is_secure(client):
    form = client.get("/floor/sign-in", base_url="https://localhost")
    signed = client.post("/floor/sign-in", base_url="https://localhost",
                         data={"csrf_token": csrf_of(form), "key": ADMIN_KEY, "next": "/"})
    assert "Secure" in next(c for c in signed.headers.getlist("Set-Cookie") if c.startswith("cardroom_session="))


@pytest.mark.parametrize("key, said", [("crd_not-a-key", "not valid"), ("", "not valid")])
def test_a_wrong_key_opens_no_session(client, key, said):
    refused = sign_in(client, key)
    assert refused.status_code == 401 and said in refused.get_data(as_text=True)
    assert session_cookie(client) is None


def test_a_revoked_key_neither_signs_in_nor_keeps_its_sessions(client):
    tournament_id, _ = new_tournament(client, ["Rev A", "Rev B"])
    key = issue(client, "floor")
    sign_in(client, key["key"])
    assert client.get(f"/floor/tournaments/{tournament_id}").status_code == 200
    assert client.delete(f"/v1/keys/{key['id']}", headers=ADMIN).status_code == 200
    desk = client.get(f"/floor/tournaments/{tournament_id}")
    assert desk.status_code == 302 and "/floor/sign-in" in desk.headers["Location"]
    assert client.get(f"/v1/tournaments/{tournament_id}/stream").status_code == 401
    # A sign-in verifies a key as the API does: refused once the key cache has heard.
    time.sleep(KEY_CACHE_TTL_S + 0.1)
    assert "revoked" in sign_in(client, key["key"]).get_data(as_text=True)


def test_a_session_expires(client, admin_database_url):
    key = issue(client, "organiser")
    sign_in(client, key["key"])
    assert "signed in" in client.get("/").get_data(as_text=True)
    with psycopg.connect(admin_database_url) as conn:
        conn.execute("UPDATE page_sessions SET expires_at = now() - interval '1 second' WHERE key_id = %s",
                     (key["id"],))
    assert "signed in" not in client.get("/").get_data(as_text=True)


def test_signing_out_ends_the_session_for_good(client):
    sign_in(client, ADMIN_KEY)
    cookie = session_cookie(client)
    home = client.get("/")
    out = client.post("/floor/sign-out", data={"csrf_token": csrf_of(home)})
    assert out.status_code == 303 and session_cookie(client) is None
    client.set_cookie("cardroom_session", cookie)
    assert "signed in" not in client.get("/").get_data(as_text=True), "the old cookie opens nothing"


def test_signing_in_again_replaces_the_browsers_session(client):
    sign_in(client, ADMIN_KEY)
    first = session_cookie(client)
    sign_in(client, issue(client, "floor")["key"])
    assert session_cookie(client) != first
    client.set_cookie("cardroom_session", first)
    assert "signed in" not in client.get("/").get_data(as_text=True)


@pytest.mark.parametrize("target", ["//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:x",
                                    "/\r\nSet-Cookie: x=1", "/\x00", "/" + "x" * 3000])
def test_the_sign_in_goes_back_only_to_a_page_of_this_site(client, target):
    assert sign_in(client, ADMIN_KEY, target).headers["Location"] == "/"


# ---------------------------------------------------------------------- the guard, CSRF


def test_a_floor_page_asks_a_signed_out_browser_to_sign_in_and_refuses_other_roles(client):
    tournament_id, players = new_tournament(client, ["Guard A", "Guard B"])
    asked = client.get(f"/floor/tournaments/{tournament_id}?x=1")
    assert asked.status_code == 302
    assert asked.headers["Location"] == f"/floor/sign-in?next=/floor/tournaments/{tournament_id}?x%3D1"
    sign_in(client, issue(client, "player", players[0])["key"])
    refused = client.get(f"/floor/tournaments/{tournament_id}")
    assert refused.status_code == 403 and 'data-code="forbidden"' in refused.get_data(as_text=True)


def test_every_form_needs_the_sessions_csrf_token(client):
    tournament_id, _ = new_tournament(client, ["Csrf A", "Csrf B"])
    assert client.post("/floor/sign-in", data={"key": ADMIN_KEY}).status_code == 403
    sign_in(client, ADMIN_KEY)
    form = desk_form(client, tournament_id)
    for token in (None, "forged", form["csrf_token"] + "x"):
        data = {"form_id": form["form_id"], **({"csrf_token": token} if token else {})}
        refused = client.post(f"/floor/tournaments/{tournament_id}/pause", data=data)
        assert refused.status_code == 403 and "csrf_invalid" in refused.get_data(as_text=True)
    assert not client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()["clock"]["paused"]
    refused = client.post(f"/floor/tournaments/{tournament_id}/pause", data={"form_id": "x"},
                          headers={"Accept": "application/json"})
    assert refused.status_code == 403 and refused.get_json()["code"] == "csrf_invalid"


# ---------------------------------------------------------------------------- the desk


def test_the_desk_runs_the_clock_through_the_same_commands_as_the_api(client):
    tournament_id, _ = new_tournament(client, ["Clock A", "Clock B"])
    sign_in(client, ADMIN_KEY)
    paused = client.post(f"/floor/tournaments/{tournament_id}/pause", data=desk_form(client, tournament_id))
    assert paused.status_code == 303 and paused.headers["Location"].endswith("?done=pause")
    shown = client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()
    assert shown["clock"]["paused"]
    # The time it was paused at: 20:00, or a second or two less when the machine is slow.
    left = shown["clock"]["remaining_s"]
    assert 20 * 60 - 10 <= left <= 20 * 60
    level = {**desk_form(client, tournament_id), "level": "2"}
    asked = client.post(f"/floor/tournaments/{tournament_id}/level", data=level)
    assert asked.status_code == 200 and f"The clock goes from level 1 (100/200) with {clock_time(left)} left to level 2 " \
                                      "(200/400 ante 50) with 20:00 (its full time)" in unescape(asked.get_data(as_text=True))
    assert client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()["clock"]["level"] == 1
    assert client.post(f"/floor/tournaments/{tournament_id}/level", data={**level, "confirmed": "yes"}).status_code == 303
    client.post(f"/floor/tournaments/{tournament_id}/adjust", data={**desk_form(client, tournament_id),
                                                                    "seconds": "-300"})
    clock = client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()["clock"]
    assert (clock["level"], clock["paused"], clock["remaining_s"]) == (2, True, 15 * 60)
    beyond = client.post(f"/floor/tournaments/{tournament_id}/adjust",
                         data={**desk_form(client, tournament_id), "seconds": "-3600"})
    page = beyond.get_data(as_text=True)
    assert beyond.status_code == 422 and 'data-code="adjust_beyond_period"' in page and "remaining_s 900" in page
    bad = client.post(f"/floor/tournaments/{tournament_id}/adjust",
                      data={**desk_form(client, tournament_id), "seconds": "soon"})
    assert bad.status_code == 400 and "seconds: a whole number" in bad.get_data(as_text=True)


def test_the_floor_role_may_not_run_the_clock_from_the_desk_as_in_the_api(client):
    tournament_id, _ = new_tournament(client, ["Floor A", "Floor B"])
    sign_in(client, issue(client, "floor")["key"])
    refused = client.post(f"/floor/tournaments/{tournament_id}/pause", data=desk_form(client, tournament_id))
    assert refused.status_code == 403
    assert not client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()["clock"]["paused"]


def test_a_registration_sent_twice_registers_once(client):
    tournament_id, _ = new_tournament(client, ["Reg A"], start=False)
    sign_in(client, ADMIN_KEY)
    form = {**desk_form(client, tournament_id), "name": "Walk-in Wendy"}
    for _ in range(2):
        assert client.post(f"/floor/tournaments/{tournament_id}/register", data=form).status_code == 303
    shown = client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()
    assert [r["name"] for r in shown["registrations"]].count("Walk-in Wendy") == 1
    assert "Walk-in Wendy" in client.get(f"/floor/tournaments/{tournament_id}").get_data(as_text=True)


def test_two_forms_sent_from_one_rendering_of_the_desk_both_act(client):
    # A desk page gives every form one form_id; a browser's Back button shows that page
    # again, and what is sent from it then is another action, not a resent one.
    tournament_id, _ = new_tournament(client, ["Back A"], start=False)
    sign_in(client, ADMIN_KEY)
    form = desk_form(client, tournament_id)
    for name in ("Walk-in Wendy", "Walk-in Walter"):
        assert client.post(f"/floor/tournaments/{tournament_id}/register", data={**form, "name": name}).status_code == 303
    shown = client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()
    assert {"Walk-in Wendy", "Walk-in Walter"} <= {r["name"] for r in shown["registrations"]}


def test_the_desk_moves_rebuys_and_exports(client):
    tournament_id, players = new_tournament(client, ["Mv A", "Mv B", "Mv C"], rebuy_price=20)
    sign_in(client, ADMIN_KEY)
    seated = client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()["tables"][0]["players"]
    free = next(s for s in range(1, 10) if s not in {p["seat"] for p in seated})  # seats from 1, as on the desk
    moved = client.post(f"/floor/tournaments/{tournament_id}/move", data={
        **desk_form(client, tournament_id), "player_id": players[0], "to_table": "1", "to_seat": str(free)})
    assert moved.status_code == 303
    seats = client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()["tables"][0]["players"]
    assert {"seat": free, "player_id": players[0]}.items() <= next(
        p for p in seats if p["player_id"] == players[0]).items()
    rebuy = client.post(f"/floor/tournaments/{tournament_id}/rebuy",
                        data={**desk_form(client, tournament_id), "player_id": players[1]})
    assert rebuy.status_code == 303
    assert client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()["chips"]["rebuys"] == 1
    for action, on in (("hand-for-hand", True), ("hand-for-hand-off", False)):
        assert client.post(f"/floor/tournaments/{tournament_id}/{action}",
                           data=desk_form(client, tournament_id)).status_code == 303
        assert client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()["hand_for_hand"] is on
    for export, header in (("results", "place,player_id,name,prize"), ("seating", "table,seat,player_id"),
                           ("payouts", "place,percentage,amount")):
        answer = client.get(f"/floor/tournaments/{tournament_id}/{export}.csv")
        assert answer.status_code == 200 and answer.mimetype == "text/csv"
        assert answer.get_data(as_text=True).startswith(header)
    assert client.get(f"/floor/tournaments/{tournament_id}/secrets.csv").status_code == 404


def test_a_move_to_a_taken_seat_is_refused_in_the_desks_seat_numbers(client):
    # The desk and the API both count seats from 1.
    tournament_id, players = new_tournament(client, ["Seat A", "Seat B", "Seat C"])
    sign_in(client, ADMIN_KEY)
    seated = client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()["tables"][0]["players"]
    taken = next(p["seat"] for p in seated if p["player_id"] != players[0])
    refused = client.post(f"/floor/tournaments/{tournament_id}/move", data={
        **desk_form(client, tournament_id), "player_id": players[0], "to_table": "1", "to_seat": str(taken)})
    page = unescape(refused.get_data(as_text=True))
    assert refused.status_code == 422 and 'data-code="seat_taken"' in page
    assert f"seat {taken} at table 1 is not an open seat" in page


def test_a_desk_refusal_names_the_player_as_the_api_does(client):
    tournament_id, players = new_tournament(client, ["Chips Charlie", "Chips Dora"])
    sign_in(client, ADMIN_KEY)
    refused = client.post(f"/floor/tournaments/{tournament_id}/eliminate", data={
        **desk_form(client, tournament_id), "player_id": players[0]})
    page = unescape(refused.get_data(as_text=True))
    assert refused.status_code == 422 and "player Chips Charlie still has 5000 chips" in page


# --------------------------------------------------------------------- public screens


def test_the_public_screens_answer_only_their_listed_fields(client):
    tournament_id, players = new_tournament(client, ["Pub A", "Pub B", "Pub C"])
    loaded = tournaments.load_tournament(client.application.extensions["cardroom"].application, tournament_id)
    names = dict(zip(players, ["Pub A", "Pub B", "Pub C"]))
    clock = screens.clock_screen(loaded, names, time.time())
    seating = screens.seating_screen(loaded, names, time.time())
    payouts = screens.payouts_screen(loaded, names)
    assert tuple(clock) == screens.CLOCK_FIELDS
    assert set(clock["blinds"]) == set(screens.BLINDS_FIELDS) and set(clock["next"]) <= set(screens.NEXT_FIELDS)
    assert tuple(seating) == screens.SEATING_FIELDS
    assert all(tuple(t) == screens.TABLE_FIELDS and all(tuple(s) == screens.SEAT_FIELDS for s in t["seats"])
               for t in seating["tables"])
    assert tuple(payouts) == screens.PAYOUTS_FIELDS
    assert all(tuple(p) == screens.PLACE_FIELDS for p in payouts["places"])
    assert (clock["level"], clock["players_left"], clock["average_stack"]) == (1, 3, 5000)
    assert 20 * 60 - 10 <= clock["to_break_s"] <= 20 * 60
    for screen in ("clock", "seating", "payouts"):
        page = client.get(f"/screens/tournaments/{tournament_id}/{screen}").get_data(as_text=True)
        assert not any(player in page for player in players) and "player_id" not in page
    assert client.get("/screens/tournaments/nope/clock").status_code == 404


# ---------------------------------------------------------------------------- streams


def first_chunk(response) -> str:
    try:
        return next(iter(response.response)).decode()
    finally:
        response.close()


def test_a_stream_reads_the_session_cookie_as_its_caller(client):
    tournament_id, _ = new_tournament(client, ["Str A", "Str B"])
    assert client.get(f"/v1/tournaments/{tournament_id}/stream").status_code == 401
    sign_in(client, ADMIN_KEY)
    streamed = client.get(f"/v1/tournaments/{tournament_id}/stream", buffered=False)
    assert streamed.status_code == 200 and streamed.mimetype == "text/event-stream"
    assert "event: TournamentCreated" in first_chunk(streamed)


def test_a_players_session_sees_their_own_cards_on_a_table_stream_and_nobody_elses(client):
    players = register_players(client, "Cards A", "Cards B", "Cards C")
    table = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": 10000} for p in players]}).get_json()["id"]
    assert client.post(f"/v1/tables/{table}/hands", headers=ADMIN, json={}).status_code == 201
    hole = {s["player_id"]: s["cards"] for s in client.get(f"/v1/tables/{table}", headers=ADMIN).get_json()["seats"]}
    sign_in(client, issue(client, "player", players[0])["key"])
    text = first_chunk(client.get(f"/v1/tables/{table}/stream", buffered=False))
    assert hole[players[0]] in text
    assert not any(hole[other] in text for other in players[1:])


def test_pages_run_no_script_but_their_own_and_a_floor_page_is_never_cached(client):
    tournament_id, _ = new_tournament(client, ["Csp A", "Csp B"])
    screen = client.get(f"/screens/tournaments/{tournament_id}/clock")
    assert "script-src 'self'" in screen.headers["Content-Security-Policy"]
    assert screen.headers["X-Content-Type-Options"] == "nosniff"
    sign_in(client, ADMIN_KEY)
    assert client.get(f"/floor/tournaments/{tournament_id}").headers["Cache-Control"] == "no-store"


def test_a_physical_tables_counts_after_a_hand_put_the_player_at_zero_out(client):
    tournament_id, players = new_tournament(client, ["Phys A", "Phys B", "Phys C"], tables="physical")
    sign_in(client, ADMIN_KEY)
    desk = client.get(f"/floor/tournaments/{tournament_id}").get_data(as_text=True)
    assert 'data-counts="1"' in desk
    counts = {f"chips:{players[0]}": "10000", f"chips:{players[1]}": "5000", f"chips:{players[2]}": "0"}
    recorded = client.post(f"/floor/tournaments/{tournament_id}/counts",
                           data={**desk_form(client, tournament_id), "table": "1", **counts})
    assert recorded.status_code == 303, recorded.get_data(as_text=True)[:400]
    shown = client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()
    assert shown["players_left"] == 2 and shown["standings"] == [{"player_id": players[2], "place": 3,
                                                                   "name": "Phys C"}]
    unbalanced = client.post(f"/floor/tournaments/{tournament_id}/counts", data={
        **desk_form(client, tournament_id), "table": "1", f"chips:{players[0]}": "1", f"chips:{players[1]}": "1"})
    assert unbalanced.status_code == 422 and 'data-code="chips_not_conserved"' in unbalanced.get_data(as_text=True)


@pytest.mark.parametrize("value", ["\x00", "x" * 5000, "-1", "99999999999999999999999", "", "١٢"])
def test_no_desk_form_answers_a_500_whatever_its_fields_hold(client, value):
    from service.http.pages.desk_actions import ACTIONS

    tournament_id, _ = new_tournament(client, ["Fuzz A", "Fuzz B"], tables="physical")
    sign_in(client, ADMIN_KEY)
    fields = ("player_id", "name", "seconds", "level", "step", "to_table", "to_seat", "move_id", "table")
    for action in ACTIONS:
        answer = client.post(f"/floor/tournaments/{tournament_id}/{action}", data={
            **desk_form(client, tournament_id), **{field: value for field in fields}})
        assert answer.status_code < 500, (action, answer.get_data(as_text=True)[:300])
