"""Five-card draw tables over HTTP: settings validated, discards as actions, each player sees
only their own cards; and the shuffle's secrets (deck order, salt) hidden from every role,
floor and admin included, on every endpoint until the hand is over, then shown to all."""
from __future__ import annotations

import json

import pytest

from tests.integration.conftest import ADMIN, assert_problem, key_for, register_players, without_digests

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def players(client):
    return register_players(client, "Ann", "Bob")


def new_table(client, players, game="five-card-draw", settings=None, **extra):
    body = {"game": game, "settings": {"ante": 5} if settings is None else settings, "seats": [{"player_id": p} for p in players], **extra}
    return client.post("/v1/tables", json=body, headers=ADMIN)


def test_draw_settings_the_game_cannot_play_are_refused_with_a_code(client, players):
    assert_problem(new_table(client, players, settings={"draw_limit": 7}), 422, "invalid_settings")
    # The bet unit is twice the ante: a betting description may not say otherwise.
    assert_problem(new_table(client, players, betting={"structure": "no-limit", "min_bet": 15}), 422,
                   "invalid_betting")
    assert_problem(new_table(client, players, settings={"ante": 5, "structure": "pot-limit"},
                             betting={"structure": "fixed-limit"}), 422, "invalid_betting")


def test_a_draw_table_takes_its_structure_as_betting_structure_and_shows_it_there(client, players):
    """README "Changelog": the betting description is `betting` at every table, draw's too."""
    created = new_table(client, players, betting={"structure": "fixed-limit", "raise_cap": 3})
    assert created.status_code == 201, created.get_json()
    shown = client.get(f"/v1/tables/{created.get_json()['id']}", headers=ADMIN).get_json()
    assert shown["betting"]["structure"] == "fixed-limit" and shown["betting"]["raise_cap"] == 3
    assert (shown["betting"]["small_bet"], shown["betting"]["big_bet"]) == (10, 20)  # the unit: twice the ante
    copied = new_table(client, players, settings=shown["settings"], betting=shown["betting"])
    assert copied.status_code == 201, copied.get_json()
    without = new_table(client, players, settings={"ante": 5, "mode": "no-betting"})
    assert client.get(f"/v1/tables/{without.get_json()['id']}", headers=ADMIN).get_json()["betting"] is None


def test_the_turn_time_limit_setting_runs_the_tables_action_clock(client, players):
    table_id = new_table(client, players, settings={"ante": 5, "turn_time_limit_s": 30}).get_json()["id"]
    assert client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["action_clock_s"] == 30

    started = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).get_json()
    clock = next(e for e in started["events"] if e["type"] == "ClockStarted")
    assert clock["data"]["seat"] is not None

    conflicting = new_table(client, players, settings={"ante": 5, "turn_time_limit_s": 30}, action_clock_s=60)
    assert_problem(conflicting, 422, "invalid_table")
    assert "turn_time_limit_s 30" in conflicting.get_json()["detail"]


def test_seats_take_the_starting_chips_and_the_unit_is_twice_the_ante(client, players):
    table_id = new_table(client, players, settings={"ante": 5, "starting_chips": 700}).get_json()["id"]
    client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()
    assert legal["legal"]["bet"]["min_to"] == 10
    view = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
    assert sum(seat["stack"] for seat in view["seats"]) + 10 == 1400


def _to_the_draw(client, table_id):
    while True:
        response = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
        legal = response.get_json()
        if legal["legal"].get("discard"):
            return legal, response.headers["ETag"]
        client.post(f"/v1/tables/{table_id}/actions", headers={**ADMIN, "If-Match": response.headers["ETag"]},
                    json={"action": "check", "player_id": legal["to_act"]})


def test_a_player_discards_and_sees_only_their_own_cards_on_every_endpoint(client, players):
    table_id = new_table(client, players).get_json()["id"]
    client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    legal, etag = _to_the_draw(client, table_id)
    drawer = legal["to_act"]
    other = next(p for p in players if p != drawer)
    own = next(s["cards"] for s in client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["seats"]
               if s["player_id"] == drawer)
    answer = client.post(f"/v1/tables/{table_id}/actions", headers={**key_for(client, "player", drawer), "If-Match": etag},
                         json={"action": "discard", "discard": [own[:2], own[2:4]]})
    assert answer.status_code == 201, answer.get_json()
    other_key = key_for(client, "player", other)
    drew = next(e for e in answer.get_json()["events"] if e["type"] == "PlayerDrew")
    assert drew["data"]["count"] == 2 and drew["data"]["received"]
    drawer_seat = players.index(drawer)
    for headers in (other_key, key_for(client, "spectator")):
        view = client.get(f"/v1/tables/{table_id}", headers=headers).get_json()
        assert all(seat["cards"] is None for seat in view["seats"] if seat["player_id"] == drawer)
        assert view["hand"]["drawn"] == {drawer: 2}
        for path in (f"/v1/tables/{table_id}/events", f"/v1/hands/{table_id}.1"):
            for event in client.get(path, headers=headers).get_json()["events"]:
                if event["type"] == "HoleCardsDealt" and event["data"]["seat"] == drawer_seat:
                    assert event["data"]["cards"] is None, path
                if event["type"] == "PlayerDrew":
                    assert event["data"]["received"] is None and event["data"]["discarded"] is None, path
        state = without_digests(json.dumps(client.get(f"/v1/hands/{table_id}.1/state", headers=headers).get_json()))
        assert own[4:] not in state and drew["data"]["received"] not in state


@pytest.mark.parametrize("game", ["holdem", "five-card-draw"])
def test_no_role_sees_the_deck_or_salt_before_the_hand_ends_and_the_floor_sees_them_after(client, players, game):
    """After the hand the floor verifies the whole deck; hold'em and five-card draw hands,
    committed card by card, show the others only the openings of cards they saw
    (tests/integration/test_showdown_http.py, test_draw_showdown_http.py)."""
    extra = {"betting": {"structure": "no-limit", "small_blind": 5, "big_blind": 10}} if game == "holdem" else {}
    table_id = new_table(client, players, game=game, settings={} if game == "holdem" else None,
                         **extra | ({"seats": [{"player_id": p, "stack": 500} for p in players]} if game == "holdem" else {})
                         ).get_json()["id"]
    client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    roles = [ADMIN, key_for(client, "floor"), key_for(client, "spectator"), key_for(client, "player", players[0])]
    paths = [f"/v1/tables/{table_id}", f"/v1/tables/{table_id}/events", f"/v1/hands/{table_id}.1",
             f"/v1/hands/{table_id}.1/state", f"/v1/hands/{table_id}.1/state?at=3"]
    for headers in roles:
        for path in paths:
            body = client.get(path, headers=headers).get_json()
            for event in body.get("events", []):
                assert event["data"].get("salt") is None and event["data"].get("deck") is None, (path, event)
            deal = (body.get("hand") or {}).get("deal")
            if deal is not None:
                assert deal["deck"] is None and deal["salt"] is None, (path, deal)
    while (legal := client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)).get_json()["to_act"]:
        client.post(f"/v1/tables/{table_id}/actions", headers={**ADMIN, "If-Match": legal.headers["ETag"]},
                    json={"action": "fold", "player_id": legal.get_json()["to_act"]})
    for headers in roles[:2]:
        deal = client.get(f"/v1/hands/{table_id}.1", headers=headers).get_json()["deal"]
        assert deal["salt"] and deal["deck"] and deal["verified"] is True
    for headers in roles[2:]:
        deal = client.get(f"/v1/hands/{table_id}.1", headers=headers).get_json()["deal"]
        assert deal["salt"] is None and deal["deck"] is None


@pytest.mark.parametrize("action", ["show", "muck"])
def test_a_show_or_muck_at_a_no_betting_table_is_refused_by_the_order_of_show(client, players, action):
    """A no-betting hand shows every hand by itself: a player's show or muck is a 422 citing
    TDA 2024 17, never a 500 (domain.games.draw.showdown.show_or_muck)."""
    table_id = new_table(client, players, settings={"ante": 5, "mode": "no-betting", "showdown": "declared"}).get_json()["id"]
    client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
    assert legal.get_json()["legal"]["discard"]
    answer = client.post(f"/v1/tables/{table_id}/actions", headers={**ADMIN, "If-Match": legal.headers["ETag"]},
                         json={"action": action, "player_id": legal.get_json()["to_act"]})
    body = assert_problem(answer, 422, "illegal_action")
    assert body["rule"] == "TDA 2024 17", body
