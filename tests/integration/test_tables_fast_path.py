"""The write answers of a live table carry what the next action needs: who is to act, what
they may do (the same shape as GET legal-actions, from public information only) and the
hand's public summary, with the new version as ETag. A client plays a whole hand with
POSTs alone, and no answer shows a player another player's hole cards."""
from __future__ import annotations

import json
import secrets

import pytest

from service.bootstrap import create_app
from service.config import Config
from tests.integration.conftest import without_digests

pytestmark = pytest.mark.integration

ADMIN_KEY = "fast-path-admin-" + secrets.token_hex(8)
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}
NL = {"structure": "no-limit", "small_blind": 50, "big_blind": 100}


@pytest.fixture(scope="module")
def client(database_url):
    return create_app(Config(database_url=database_url, admin_key=ADMIN_KEY)).test_client()


def register(client, *names: str) -> list[str]:
    return [client.post("/v1/players", json={"name": n}, headers=ADMIN).get_json()["id"] for n in names]


def key_for(client, player_id: str) -> dict[str, str]:
    created = client.post("/v1/keys", json={"role": "player", "player_id": player_id}, headers=ADMIN)
    return {"Authorization": f"Bearer {created.get_json()['key']}"}


def holdem_table(client, players: list[str], stack: int = 10000) -> str:
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "seats": [{"player_id": p, "stack": stack} for p in players]})
    assert created.status_code == 201, created.get_data(as_text=True)
    return created.get_json()["id"]


def act(client, table_id: str, answer, body: dict, headers: dict):
    """POST the next action at the version the previous answer gave (its ETag)."""
    return client.post(f"/v1/tables/{table_id}/actions", json=body,
                       headers={**headers, "If-Match": answer.headers["ETag"]})


def test_a_hand_start_answers_who_acts_first_and_what_they_may_do(client):
    ann, bob, cat = register(client, "Ann", "Bob", "Cat")
    table_id = holdem_table(client, [ann, bob, cat])
    started = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    assert started.status_code == 201
    body = started.get_json()
    assert started.headers["ETag"] == f'"{body["version"]}"'
    assert body["to_act"] == ann
    assert body["legal"] == {"fold": True, "check": False, "call": {"to": 100, "adds": 100}, "bet": None,
                             "raise": {"min_to": 200, "max_to": 10000}}
    assert body["hand"] == {"id": f"{table_id}.1", "number": 1, "round": "preflop", "over": False,
                            "board": "", "pots": [{"amount": 150, "eligible": [ann, bob, cat]}],
                            "stacks": {ann: 10000, bob: 9950, cat: 9900}}


def test_an_action_answer_says_what_get_legal_actions_would_say_at_the_new_version(client):
    ann, bob, cat = register(client, "Ann", "Bob", "Cat")
    table_id = holdem_table(client, [ann, bob, cat])
    started = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    raised = act(client, table_id, started, {"action": "raise", "to": 300, "player_id": ann}, ADMIN)
    assert raised.status_code == 201
    body = raised.get_json()
    read = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
    assert read.headers["ETag"] == raised.headers["ETag"] == f'"{body["version"]}"'
    assert {"to_act": body["to_act"], "round": body["round"], "legal": body["legal"]} == read.get_json()
    assert body["to_act"] == bob
    assert body["legal"]["call"] == {"to": 300, "adds": 250}
    assert body["legal"]["raise"] == {"min_to": 500, "max_to": 10000}
    assert body["hand"]["pots"] == [{"amount": 450, "eligible": [ann, bob, cat]}]


def test_a_whole_hand_is_played_with_posts_alone(client):
    ann, bob = register(client, "Ann", "Bob")
    table_id = holdem_table(client, [ann, bob])
    answer = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    rounds_seen = []
    while answer.get_json()["to_act"] is not None:
        body = answer.get_json()
        rounds_seen.append(body["hand"]["round"])
        move = "check" if body["legal"]["check"] else "call"
        answer = act(client, table_id, answer, {"action": move, "player_id": body["to_act"]}, ADMIN)
        assert answer.status_code == 201, answer.get_data(as_text=True)
    final = answer.get_json()
    assert final["legal"] is None and final["hand"]["over"] is True
    assert len(final["hand"]["board"]) == 10  # five cards, two characters each
    assert rounds_seen[0] == "preflop" and "river" in rounds_seen
    assert sum(final["hand"]["stacks"].values()) == 20000
    table = client.get(f"/v1/tables/{table_id}", headers=ADMIN)
    assert table.headers["ETag"] == answer.headers["ETag"]


def test_a_stale_answer_is_refused_and_a_read_gives_the_current_version(client):
    ann, bob = register(client, "Ann", "Bob")
    table_id = holdem_table(client, [ann, bob])
    started = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    first = started.get_json()
    act(client, table_id, started, {"action": "call", "player_id": first["to_act"]}, ADMIN)
    stale = act(client, table_id, started, {"action": "check", "player_id": bob}, ADMIN)
    assert stale.status_code == 409
    read = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
    again = act(client, table_id, read, {"action": "check", "player_id": read.get_json()["to_act"]}, ADMIN)
    assert again.status_code == 201


def test_a_players_answers_never_show_another_players_hole_cards(client):
    ann, bob = register(client, "Ann", "Bob")
    keys = {ann: key_for(client, ann), bob: key_for(client, bob)}
    table_id = holdem_table(client, [ann, bob])
    answer = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=keys[ann])
    hole = {seat["player_id"]: seat["cards"]
            for seat in client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["seats"]}
    assert all(hole.values())
    answers = [(ann, answer)]
    while (body := answer.get_json())["to_act"] is not None and body["hand"]["round"] != "river":
        player = body["to_act"]
        move = "check" if body["legal"]["check"] else "call"
        answer = act(client, table_id, answer, {"action": move}, keys[player])
        assert answer.status_code == 201, answer.get_data(as_text=True)
        answers.append((player, answer))
    assert len(answers) >= 4
    for player, response in answers:
        other = bob if player == ann else ann
        text = without_digests(response.get_data(as_text=True))
        assert hole[other] not in text
        for event in response.get_json()["events"]:
            if event["type"] == "HoleCardsDealt" and event["data"]["seat"] != [ann, bob].index(player):
                assert event["data"]["cards"] is None
            assert event["data"].get("deck") is None and event["data"].get("salt") is None
        assert "hole" not in json.dumps(response.get_json()["hand"])


def test_under_jacks_or_better_others_see_the_bet_marked_as_needing_openers(client):
    ann, bob = register(client, "Ann", "Bob")
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "five-card-draw", "settings": {"ante": 5, "opening": "jacks_or_better"},
        "seats": [{"player_id": ann}, {"player_id": bob}]})
    assert created.status_code == 201, created.get_data(as_text=True)
    table_id = created.get_json()["id"]
    bob_key = key_for(client, bob)
    started = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=bob_key).get_json()
    first = started["to_act"]
    others_key = bob_key if first != bob else key_for(client, ann)
    seen_by_others = client.get(f"/v1/tables/{table_id}/legal-actions", headers=others_key).get_json()
    seen_by_floor = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()
    # Whether the first player may open depends on their cards: others see only that a bet
    # needs openers, the same whatever the deal.
    bet = seen_by_others["legal"]["bet"]
    assert bet == {"min_to": 10, "max_to": bet["max_to"], "needs_openers": True}
    assert seen_by_floor["legal"]["bet"] in (None, {"min_to": 10, "max_to": bet["max_to"]})
    if first != bob:
        assert started["legal"] == seen_by_others["legal"]
