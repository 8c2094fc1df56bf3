"""Live tables over HTTP against a real PostgreSQL: create, deal, act with If-Match and
Idempotency-Key, read the table, the log, the hand history, the state at a version."""
from __future__ import annotations

import secrets

import pytest

from service.application.public_log import PublicLog
from tests.integration.conftest import ADMIN, assert_problem, key_for, register_player

pytestmark = pytest.mark.integration

NL = {"structure": "no-limit", "small_blind": 50, "big_blind": 100}


def new_player(client, name: str) -> tuple[str, dict]:
    player_id = register_player(client, name)
    return player_id, key_for(client, "player", player_id)


def new_table(client, players: list[str], game: str = "holdem") -> str:
    response = client.post("/v1/tables", headers=ADMIN, json={
        "game": game, "settings": {}, "betting": NL,
        "seats": [{"player_id": p, "stack": 10000} for p in players],
        "ranked": False, "action_clock_s": None})
    assert response.status_code == 201, response.get_data(as_text=True)
    assert response.get_json()["version"] == 1
    return response.get_json()["id"]


@pytest.fixture
def seated(client):
    """Three players with keys at a fresh table with the first hand dealt."""
    players = [new_player(client, name) for name in ("Ann", "Bob", "Cat")]
    table_id = new_table(client, [p for p, _ in players])
    started = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    assert started.status_code == 201, started.get_data(as_text=True)
    return table_id, players


def version_of(client, table_id: str) -> int:
    response = client.get(f"/v1/tables/{table_id}", headers=ADMIN)
    assert response.headers["ETag"] == f'"{response.get_json()["version"]}"'
    return response.get_json()["version"]


def test_a_table_shows_seats_stacks_and_the_hand_to_act(client, seated):
    table_id, players = seated
    view = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
    assert [s["player_id"] for s in view["seats"]] == [p for p, _ in players]
    assert [s["stack"] for s in view["seats"]] == [10000, 9950, 9900]
    assert view["button"] == 0
    hand = view["hand"]
    assert hand["id"] == f"{table_id}.1"
    assert hand["round"] == "preflop" and hand["to_act"] == players[0][0]
    assert hand["pots"] == [{"amount": 150, "eligible": [p for p, _ in players]}]


def test_legal_actions_name_the_player_to_act_and_the_raise_range(client, seated):
    table_id, players = seated
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=players[1][1]).get_json()
    assert legal == {"to_act": players[0][0], "round": "preflop", "legal": {
        "fold": True, "check": False, "call": {"to": 100, "adds": 100}, "bet": None,
        "raise": {"min_to": 200, "max_to": 10000}}}


def test_an_action_with_if_match_is_recorded_and_answers_the_new_version(client, seated):
    table_id, players = seated
    version = version_of(client, table_id)
    response = client.post(f"/v1/tables/{table_id}/actions", json={"action": "raise", "to": 300},
                           headers={**players[0][1], "If-Match": f'"{version}"'})
    assert response.status_code == 201, response.get_data(as_text=True)
    body = response.get_json()
    assert body["version"] == version + 1
    assert [e["type"] for e in body["events"]] == ["ActionTaken"]
    assert body["events"][0]["data"] == {"seat": 0, "position": 0, "action": "raise", "to": 300, "adds": 300}


def test_a_bare_version_and_the_expected_version_field_are_accepted(client, seated):
    table_id, players = seated
    version = version_of(client, table_id)
    first = client.post(f"/v1/tables/{table_id}/actions", json={"action": "call"},
                        headers={**players[0][1], "If-Match": str(version)})
    assert first.status_code == 201
    second = client.post(f"/v1/tables/{table_id}/actions",
                         json={"action": "call", "expected_version": version + 1}, headers=players[1][1])
    assert second.status_code == 201, second.get_data(as_text=True)


def test_an_action_without_a_version_is_428_and_writes_nothing(client, seated):
    table_id, players = seated
    version = version_of(client, table_id)
    response = client.post(f"/v1/tables/{table_id}/actions", json={"action": "fold"}, headers=players[0][1])
    assert_problem(response, 428, "precondition_required")
    assert version_of(client, table_id) == version


def test_a_stale_version_is_409_quoting_both_versions_and_writes_nothing(client, seated):
    table_id, players = seated
    version = version_of(client, table_id)
    response = client.post(f"/v1/tables/{table_id}/actions", json={"action": "fold"},
                           headers={**players[0][1], "If-Match": f'"{version - 1}"'})
    body = assert_problem(response, 409, "version_conflict")
    assert str(version) in body["detail"] and str(version - 1) in body["detail"]
    assert version_of(client, table_id) == version


def test_acting_out_of_turn_is_422_not_your_turn(client, seated):
    table_id, players = seated
    version = version_of(client, table_id)
    response = client.post(f"/v1/tables/{table_id}/actions", json={"action": "call"},
                           headers={**players[2][1], "If-Match": str(version)})
    assert_problem(response, 422, "not_your_turn")
    assert version_of(client, table_id) == version


def test_a_raise_below_the_minimum_is_422_with_the_numbers(client, seated):
    table_id, players = seated
    version = version_of(client, table_id)
    response = client.post(f"/v1/tables/{table_id}/actions", json={"action": "raise", "to": 150},
                           headers={**players[0][1], "If-Match": str(version)})
    body = assert_problem(response, 422, "raise_below_minimum")
    assert "200" in body["detail"]


def test_a_retry_with_the_same_idempotency_key_answers_the_first_response(client, seated):
    table_id, players = seated
    version = version_of(client, table_id)
    headers = {**players[0][1], "If-Match": str(version), "Idempotency-Key": "k-" + secrets.token_hex(4)}
    first = client.post(f"/v1/tables/{table_id}/actions", json={"action": "call"}, headers=headers)
    again = client.post(f"/v1/tables/{table_id}/actions", json={"action": "call"}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.get_json() == first.get_json()
    assert version_of(client, table_id) == version + 1


def test_a_player_key_cannot_act_for_someone_else(client, seated):
    table_id, players = seated
    response = client.post(f"/v1/tables/{table_id}/actions",
                           json={"action": "fold", "player_id": players[0][0]},
                           headers={**players[1][1], "If-Match": str(version_of(client, table_id))})
    assert_problem(response, 403, "forbidden")


def test_a_floor_key_acts_for_the_named_player(client, seated):
    table_id, players = seated
    floor_key = client.post("/v1/keys", json={"role": "floor"}, headers=ADMIN).get_json()["key"]
    response = client.post(f"/v1/tables/{table_id}/actions",
                           json={"action": "fold", "player_id": players[0][0]},
                           headers={"Authorization": f"Bearer {floor_key}",
                                    "If-Match": str(version_of(client, table_id))})
    assert response.status_code == 201, response.get_data(as_text=True)


def fold_to_the_big_blind(client, table_id, players):
    for index in (0, 1):
        response = client.post(f"/v1/tables/{table_id}/actions", json={"action": "fold"},
                               headers={**players[index][1], "If-Match": str(version_of(client, table_id))})
        assert response.status_code == 201, response.get_data(as_text=True)


def test_the_next_hand_moves_the_button_and_carries_the_stacks(client, seated):
    table_id, players = seated
    fold_to_the_big_blind(client, table_id, players)
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=players[0][1]).status_code == 201
    view = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
    assert view["button"] == 1
    assert view["hand"]["id"] == f"{table_id}.2"
    # Cat won Bob's small blind; now Cat posts 50 and Ann 100.
    assert [s["stack"] for s in view["seats"]] == [9900, 9950, 10000]


def test_a_second_hand_cannot_start_during_a_hand(client, seated):
    table_id, _ = seated
    assert_problem(client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN), 422, "hand_in_progress")


def test_the_hand_history_and_the_deal_check_after_the_hand(client, seated):
    table_id, players = seated
    fold_to_the_big_blind(client, table_id, players)
    hand = client.get(f"/v1/hands/{table_id}.1", headers=players[0][1]).get_json()
    assert hand["over"] is True
    assert [e["type"] for e in hand["events"]][:2] == ["HandOpened", "HandStarted"]
    assert hand["events"][-1]["type"] == "HandClosed"
    # A player gets the openings of their own two cards (nothing else was dealt face up)
    # and checks them against the root; only the floor gets the deck and the secret.
    assert hand["deal"]["verified"] is True and len(hand["deal"]["openings"]) == 2
    assert hand["deal"]["deck"] is None and hand["deal"]["salt"] is None
    floor = client.get(f"/v1/hands/{table_id}.1", headers=ADMIN).get_json()["deal"]
    assert len(floor["deck"]) == 104 and len(floor["salt"]) == 64 and floor["verified"] is True
    assert hand["events"][0]["data"]["commitment"] == hand["deal"]["commitment"]


def test_the_state_at_a_version_replays_the_hand_to_that_point(client, seated):
    table_id, players = seated
    before = version_of(client, table_id)
    fold_to_the_big_blind(client, table_id, players)
    state = client.get(f"/v1/hands/{table_id}.1/state?at={before}", headers=ADMIN).get_json()
    assert state["version"] == before
    assert state["hand"]["to_act"] == players[0][0] and state["hand"]["over"] is False
    final = client.get(f"/v1/hands/{table_id}.1/state", headers=ADMIN).get_json()
    assert final["hand"]["over"] is True


def test_the_events_after_a_version_and_the_stream_verifies(client, seated):
    table_id, _ = seated
    events = client.get(f"/v1/tables/{table_id}/events?after=1", headers=ADMIN).get_json()["events"]
    assert events[0]["version"] == 2 and events[0]["type"] == "HandOpened"
    assert all("recorded_at" in e for e in events)
    verified = client.get(f"/v1/streams/table-{table_id}/verify", headers=ADMIN).get_json()
    assert set(verified.pop("warnings")) <= {PublicLog.UNCHECKED}  # no integrator runs here
    assert verified == {"ok": True, "events": events[-1]["version"], "first_bad_version": None, "reason": None}


def test_a_finished_hand_exports_as_phh(client, seated):
    table_id, players = seated
    assert_problem(client.get(f"/v1/hands/{table_id}.1/phh", headers=ADMIN), 409, "hand_in_progress")
    fold_to_the_big_blind(client, table_id, players)
    response = client.get(f"/v1/hands/{table_id}.1/phh", headers=ADMIN)
    assert response.status_code == 200 and response.mimetype == "application/toml"
    assert "variant = 'NT'" in response.get_data(as_text=True) or 'variant = "NT"' in response.get_data(as_text=True)


def test_unknown_players_tables_and_hands(client):
    response = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "seats": [{"player_id": "nobody", "stack": 5}, {"player_id": "no", "stack": 5}]})
    assert_problem(response, 422, "unknown_player")
    assert_problem(client.get("/v1/tables/nope", headers=ADMIN), 404, "not_found")
    assert_problem(client.get("/v1/hands/nope.3", headers=ADMIN), 404, "not_found")
    assert_problem(client.post("/v1/tables/nope/actions", json={"action": "fold", "player_id": "x"},
                               headers={**ADMIN, "If-Match": "1"}), 404, "not_found")


def test_bad_input_is_a_4xx_never_a_500(client, seated):
    table_id, players = seated
    for body in ({"action": 3}, {"action": "raise", "to": 1.5}, {"action": "raise", "to": "x"}, {}):
        response = client.post(f"/v1/tables/{table_id}/actions", json=body,
                               headers={**players[0][1], "If-Match": "2"})
        assert 400 <= response.status_code < 500, body
    bad_version = client.post(f"/v1/tables/{table_id}/actions", json={"action": "fold"},
                              headers={**players[0][1], "If-Match": "banana"})
    assert_problem(bad_version, 400, "validation_error")
    floats = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "settings": {"x": 1.5}, "betting": NL,
        "seats": [{"player_id": players[0][0], "stack": 5}, {"player_id": players[1][0], "stack": 5}]})
    assert_problem(floats, 400, "validation_error")


def test_creating_a_table_twice_with_one_idempotency_key_makes_one_table(client):
    players = [new_player(client, n)[0] for n in ("Dan", "Eve")]
    body = {"game": "omaha", "betting": {"structure": "pot-limit", "small_blind": 1, "big_blind": 2},
            "seats": [{"player_id": p, "stack": 200} for p in players]}
    headers = {**ADMIN, "Idempotency-Key": "table-" + secrets.token_hex(4)}
    first = client.post("/v1/tables", json=body, headers=headers)
    again = client.post("/v1/tables", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert first.get_json() == again.get_json()
