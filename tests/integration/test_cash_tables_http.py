"""Cash tables over HTTP on a real PostgreSQL: create one with buy-in limits and empty
seats, sit down, top up, stand up and close, each with its refusals (problem documents
with stable codes and the numbers), and the chips accounted for in the event log."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.integration.conftest import ADMIN, assert_problem, key_for, register_player

pytestmark = pytest.mark.integration

NL = {"structure": "no-limit", "small_blind": 5, "big_blind": 10}
CASH = {"min_buy_in": 200, "max_buy_in": 1000, "seats": 6}


def cash_table(client, players=(), stack=500) -> str:
    response = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "cash": CASH,
        "seats": [{"player_id": p, "stack": stack} for p in players]})
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()["id"]


def test_a_cash_table_opens_without_a_seats_list_and_another_table_names_the_field(client):
    created = client.post("/v1/tables", headers=ADMIN, json={"game": "holdem", "betting": NL, "cash": CASH})
    assert created.status_code == 201, created.get_data(as_text=True)
    seats = seats_of(client, created.get_json()["id"])
    assert len(seats) == 6 and {s["player_id"] for s in seats} == {""}
    refused = client.post("/v1/tables", headers=ADMIN, json={"game": "holdem", "betting": NL})
    assert_problem(refused, 400, "validation_error")
    assert [e["field"] for e in refused.get_json()["errors"]] == ["seats"]


def test_players_racing_for_one_seat_without_a_version_hear_seat_taken(client):
    # Found by playing: the losers of the race got 409 version_conflict, naming an
    # expected version they never sent; a write without one is decided again instead.
    table_id = cash_table(client)
    racers = [key_for(client, "player", register_player(client, f"Racer {i}")) for i in range(6)]
    start = threading.Barrier(len(racers))

    def sit(headers: dict):
        own = client.application.test_client()
        start.wait(10)
        return own.post(f"/v1/tables/{table_id}/seats", json={"buy_in": 300, "seat": 0}, headers=headers)

    with ThreadPoolExecutor(len(racers)) as pool:
        answers = list(pool.map(sit, racers))
    assert sorted(a.status_code for a in answers) == [201] + [422] * 5, [a.get_data(as_text=True) for a in answers]
    for lost in (a for a in answers if a.status_code == 422):
        assert_problem(lost, 422, "seat_taken")


def seats_of(client, table_id: str) -> list[dict]:
    return client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["seats"]


def test_an_empty_cash_table_fills_by_sitting_down_with_buy_ins(client):
    table_id = cash_table(client)
    shown = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
    assert shown["cash"] == {"min_buy_in": 200, "max_buy_in": 1000} and len(shown["seats"]) == 6
    assert {s["player_id"] for s in shown["seats"]} == {""}
    ann, bob = register_player(client, "Ann"), register_player(client, "Bob")
    sat = client.post(f"/v1/tables/{table_id}/seats", json={"buy_in": 300}, headers=key_for(client, "player", ann))
    assert sat.status_code == 201, sat.get_data(as_text=True)
    assert [e["type"] for e in sat.get_json()["events"]] == ["PlayerSeatedAtTable"]
    sat = client.post(f"/v1/tables/{table_id}/seats", json={"player_id": bob, "buy_in": 1000, "seat": 4},
                      headers=ADMIN)
    assert sat.status_code == 201, sat.get_data(as_text=True)
    seats = seats_of(client, table_id)
    assert (seats[0]["player_id"], seats[0]["name"], seats[0]["stack"]) == (ann, "Ann", 300)
    assert (seats[4]["player_id"], seats[4]["name"], seats[4]["stack"]) == (bob, "Bob", 1000)
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    listed = client.get(f"/v1/tables?player_id={bob}", headers=ADMIN).get_json()["tables"]
    assert [(t["id"], t["status"]) for t in listed] == [(table_id, "playing")]


def test_sitting_down_is_refused_in_a_taken_seat_outside_the_limits_twice_or_unregistered(client):
    ann, bob, cat = (register_player(client, n) for n in ("Ann", "Bob", "Cat"))
    table_id = cash_table(client, [ann, bob])
    body = assert_problem(client.post(f"/v1/tables/{table_id}/seats", json={"player_id": cat, "buy_in": 1001},
                                      headers=ADMIN), 422, "buy_in_out_of_range")
    assert body["numbers"] == {"buy_in": 1001, "min_buy_in": 200, "max_buy_in": 1000}
    assert_problem(client.post(f"/v1/tables/{table_id}/seats", json={"player_id": cat, "buy_in": 199},
                               headers=ADMIN), 422, "buy_in_out_of_range")
    assert_problem(client.post(f"/v1/tables/{table_id}/seats", json={"player_id": cat, "buy_in": 300, "seat": 1},
                               headers=ADMIN), 422, "seat_taken")
    assert_problem(client.post(f"/v1/tables/{table_id}/seats", json={"player_id": ann, "buy_in": 300},
                               headers=ADMIN), 422, "already_seated")
    assert_problem(client.post(f"/v1/tables/{table_id}/seats", json={"player_id": "nobody", "buy_in": 300},
                               headers=ADMIN), 422, "unknown_player")
    assert_problem(client.post(f"/v1/tables/{table_id}/seats", json={"player_id": cat, "buy_in": 300},
                               headers=key_for(client, "player", ann)), 403, "forbidden")
    assert_problem(client.post(f"/v1/tables/{table_id}/seats", json={"player_id": cat},
                               headers=ADMIN), 400, "validation_error")
    assert client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["version"] == 1


def test_top_ups_reach_the_maximum_buy_in_and_no_further(client):
    ann, bob = register_player(client, "Ann"), register_player(client, "Bob")
    table_id = cash_table(client, [ann, bob], stack=900)
    key = key_for(client, "player", ann)
    over = assert_problem(client.post(f"/v1/tables/{table_id}/top-ups", json={"amount": 101}, headers=key),
                          422, "top_up_over_max")
    assert over["numbers"] == {"stack": 900, "amount": 101, "max_buy_in": 1000}
    topped = client.post(f"/v1/tables/{table_id}/top-ups", json={"amount": 100}, headers=key)
    assert topped.status_code == 201, topped.get_data(as_text=True)
    assert seats_of(client, table_id)[0]["stack"] == 1000
    assert_problem(client.post(f"/v1/tables/{table_id}/top-ups", json={"amount": 0}, headers=key),
                   400, "validation_error")


def test_a_player_in_the_hand_tops_up_only_after_it_and_stands_up_at_its_end(client):
    ann, bob = register_player(client, "Ann"), register_player(client, "Bob")
    table_id = cash_table(client, [ann, bob])
    answer = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).get_json()
    key = key_for(client, "player", ann)
    assert_problem(client.post(f"/v1/tables/{table_id}/top-ups", json={"amount": 50}, headers=key),
                   422, "hand_in_progress")
    queued = client.delete(f"/v1/tables/{table_id}/seats/{ann}", headers=key)
    assert queued.status_code == 200, queued.get_data(as_text=True)
    assert [e["type"] for e in queued.get_json()["events"]] == ["StandUpQueued"]
    assert_problem(client.delete(f"/v1/tables/{table_id}/seats/{ann}", headers=key), 422, "already_leaving")
    folded = client.post(f"/v1/tables/{table_id}/actions", json={"action": "fold", "player_id": answer["to_act"]},
                         headers={**ADMIN, "If-Match": f'"{queued.get_json()["version"]}"'})
    assert folded.status_code == 201, folded.get_data(as_text=True)
    written = folded.get_json()["events"]
    closed = next(e for e in written if e["type"] == "HandClosed")
    left = next(e for e in written if e["type"] == "PlayerLeftTable")
    assert left["data"]["player_id"] == ann
    assert {"seat": 0, "player_id": ann, "stack": left["data"]["stack"], "points": None} in closed["data"]["stacks"]
    assert seats_of(client, table_id)[0]["player_id"] == ""
    assert_problem(client.delete(f"/v1/tables/{table_id}/seats/{ann}", headers=key), 422, "not_seated")


def test_closing_during_a_hand_finishes_the_table_when_the_hand_ends(client):
    ann, bob = register_player(client, "Ann"), register_player(client, "Bob")
    table_id = cash_table(client, [ann, bob])
    answer = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).get_json()
    assert_problem(client.post(f"/v1/tables/{table_id}/close", json={}, headers=key_for(client, "player", ann)),
                   403, "forbidden")
    closed = client.post(f"/v1/tables/{table_id}/close", json={}, headers=key_for(client, "floor"))
    assert closed.status_code == 201 and closed.get_json()["events"][0]["type"] == "TableClosing"
    shown = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
    assert shown["closing"] is True and shown["finished"] is False
    assert client.get(f"/v1/tables?player_id={ann}", headers=ADMIN).get_json()["tables"][0]["status"] == "closing"
    assert_problem(client.post(f"/v1/tables/{table_id}/close", json={}, headers=ADMIN), 422, "table_closing")
    folded = client.post(f"/v1/tables/{table_id}/actions", json={"action": "fold", "player_id": answer["to_act"]},
                         headers={**ADMIN, "If-Match": f'"{closed.get_json()["version"]}"'})
    assert [e["type"] for e in folded.get_json()["events"]][-1] == "TableFinished"
    assert client.get(f"/v1/tables?player_id={ann}", headers=ADMIN).get_json()["tables"][0]["status"] == "finished"
    assert_problem(client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN), 422, "table_finished")


def test_a_table_that_is_not_cash_refuses_sit_downs_and_top_ups(client):
    ann, bob, cat = (register_player(client, n) for n in ("Ann", "Bob", "Cat"))
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "seats": [{"player_id": p, "stack": 500} for p in (ann, bob)]})
    table_id = created.get_json()["id"]
    assert_problem(client.post(f"/v1/tables/{table_id}/seats", json={"player_id": cat, "buy_in": 300},
                               headers=ADMIN), 422, "not_cash_table")
    assert_problem(client.post(f"/v1/tables/{table_id}/top-ups", json={"player_id": ann, "amount": 300},
                               headers=ADMIN), 422, "not_cash_table")
    one = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "seats": [{"player_id": ann, "stack": 500}]})
    assert_problem(one, 400, "validation_error")
    assert_problem(client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "cash": {**CASH, "min_buy_in": 2000}, "seats": []}), 422, "invalid_table")
    assert_problem(client.post("/v1/tables/nope/seats", json={"player_id": cat, "buy_in": 300}, headers=ADMIN),
                   404, "not_found")
