"""No hidden card leaks to a role that may not see it, on any endpoint: a player sees their
own hole cards only, spectators none, floor and admin every dealt card; the deck and salt
are hidden from every role during the hand (api.md: "never visible before the hand ends");
after it a hold'em hand, committed card by card, shows them to the floor only, and everyone
else checks the cards they saw through their openings."""
from __future__ import annotations

import json
import re

import pytest

from tests.integration.conftest import ADMIN, key_for, register_players, without_digests

pytestmark = pytest.mark.integration



@pytest.fixture(scope="module")
def hand(client):
    """A three-handed hand in progress: ids, keys, and the true hole cards (from the admin)."""
    players = register_players(client, "Ann", "Bob", "Cat")
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": 10000} for p in players]}).get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    view = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
    hole = {seat["player_id"]: seat["cards"] for seat in view["seats"]}
    assert all(cards and len(cards) == 4 for cards in hole.values())
    keys = {p: key_for(client, "player", p) for p in players}
    return {"table": table_id, "players": players, "hole": hole, "keys": keys,
            "spectator": key_for(client, "spectator"), "floor": key_for(client, "floor")}


def every_read(client, hand, headers) -> dict[str, str]:
    """The text of every endpoint that could show a card."""
    table_id = hand["table"]
    paths = [f"/v1/tables/{table_id}", f"/v1/tables/{table_id}/events",
             f"/v1/hands/{table_id}.1", f"/v1/hands/{table_id}.1/state",
             f"/v1/hands/{table_id}.1/state?at=4", f"/v1/tables/{table_id}/legal-actions"]
    answers = {}
    for path in paths:
        response = client.get(path, headers=headers)
        assert response.status_code == 200, (path, response.get_data(as_text=True))
        answers[path] = without_digests(json.dumps(response.get_json()))
    return answers


def test_a_player_sees_their_own_hole_cards_and_nobody_elses(client, hand):
    ann, bob, cat = hand["players"]
    for path, text in every_read(client, hand, hand["keys"][ann]).items():
        for other in (bob, cat):
            assert hand["hole"][other] not in text, f"{other}'s cards leak on {path}"
    table = client.get(f"/v1/tables/{hand['table']}", headers=hand["keys"][ann]).get_json()
    assert [s["cards"] for s in table["seats"]] == [hand["hole"][ann], None, None]


def test_a_spectator_sees_no_hidden_card_anywhere(client, hand):
    for path, text in every_read(client, hand, hand["spectator"]).items():
        for cards in hand["hole"].values():
            assert cards not in text, f"hole cards leak to a spectator on {path}"
        assert not re.search(r'"deck": "', text) and '"salt": "' not in text, path


def test_no_deck_or_salt_for_players_before_the_hand_ends(client, hand):
    text = json.dumps(client.get(f"/v1/tables/{hand['table']}/events",
                                 headers=hand["keys"][hand["players"][0]]).get_json())
    started = [e for e in json.loads(text)["events"] if e["type"] in ("HandStarted", "HandOpened")]
    assert started[0]["data"]["salt"] is None and started[0]["data"]["commitment"]
    assert started[1]["data"]["deck"] is None


def test_the_floor_sees_every_dealt_card_but_not_the_deck_while_the_hand_is_live(client, hand):
    texts = every_read(client, hand, hand["floor"])
    table_text = texts[f"/v1/tables/{hand['table']}"]
    for cards in hand["hole"].values():
        assert cards in table_text
    events = json.loads(texts[f"/v1/tables/{hand['table']}/events"])["events"]
    assert next(e for e in events if e["type"] == "HandStarted")["data"]["deck"] is None


def test_after_the_hand_everyone_can_check_the_deal_but_mucked_cards_stay_private(client, hand):
    table_id, (ann, bob, cat) = hand["table"], hand["players"]
    for player in (ann, bob):
        version = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["version"]
        response = client.post(f"/v1/tables/{table_id}/actions", json={"action": "fold"},
                               headers={**hand["keys"][player], "If-Match": str(version)})
        assert response.status_code == 201, response.get_data(as_text=True)
    history = client.get(f"/v1/hands/{table_id}.1", headers=hand["spectator"]).get_json()
    assert history["deal"]["verified"] is True
    dealt = [e for e in history["events"] if e["type"] == "HoleCardsDealt"]
    assert all(e["data"]["cards"] is None for e in dealt)
    phh = client.get(f"/v1/hands/{table_id}.1/phh", headers=hand["spectator"]).get_data(as_text=True)
    assert hand["hole"][cat] not in phh and "????" in phh
