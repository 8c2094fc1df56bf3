"""Five-card draw openers at a table (declarations.md): the opener who splits the openers
says so (`split_openers`), the discards kept aside are the opener's own secret; a floor
key may rule `false_openers`, which a table that checked the openers at the bet answers
with `openers_proven`."""
from __future__ import annotations

import pytest

from domain.games.draw.openers import opening_cards
from domain.rules.cards import parse_cards
from tests.integration.conftest import ADMIN, assert_problem, key_for, register_players

pytestmark = pytest.mark.integration


def cards_of(client, table_id, player):
    seats = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["seats"]
    return next(s["cards"] for s in seats if s["player_id"] == player)


def act(client, table_id, headers, body):
    etag = client.get(f"/v1/tables/{table_id}", headers=ADMIN).headers["ETag"]
    return client.post(f"/v1/tables/{table_id}/actions", json=body, headers={**headers, "If-Match": etag})


def opened_to_the_draw(client, players):
    """A jacks-or-better table played until someone opened and the other called."""
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "five-card-draw", "settings": {"ante": 5, "opening": "jacks_or_better"},
        "seats": [{"player_id": p} for p in players]})
    table_id = created.get_json()["id"]
    client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    for _ in range(500):
        shown = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()
        legal, player = shown["legal"], shown["to_act"]
        if legal.get("discard"):
            return table_id
        move = {"action": "bet", "to": legal["bet"]["min_to"]} if legal.get("bet") else \
            {"action": "call"} if legal.get("call") else {"action": "check"}
        assert act(client, table_id, ADMIN, {**move, "player_id": player}).status_code == 201
    raise AssertionError("nobody opened in 500 actions")


def test_an_opener_splits_the_openers_by_saying_so_and_only_they_see_the_discards(client):
    players = register_players(client, "Opal", "Otto")
    table_id = opened_to_the_draw(client, players)
    opener = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["hand"]["opener"]
    other = next(p for p in players if p != opener)
    opener_key, other_key = key_for(client, "player", opener), key_for(client, "player", other)
    assert_problem(act(client, table_id, opener_key, {"action": "false_openers", "player_id": opener}),
                   403, "forbidden")
    problem = assert_problem(act(client, table_id, key_for(client, "floor"),
                                 {"action": "false_openers", "player_id": opener}), 422, "openers_proven")
    assert problem["rule"] == "RRP draw: false openers"
    for _ in range(2):
        drawer = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()["to_act"]
        if drawer != opener:
            assert act(client, table_id, key_for(client, "player", drawer), {"action": "discard", "discard": []}).status_code == 201
            continue
        split = opening_cards(parse_cards(cards_of(client, table_id, opener)), None)[:2]
        problem = assert_problem(act(client, table_id, opener_key, {"action": "discard", "discard": [split]}),
                                 422, "split_openers_undeclared")
        assert problem["rule"] == "RRP draw: splitting openers"
        answer = act(client, table_id, opener_key, {"action": "split_openers", "discard": [split]})
        assert answer.status_code == 201, answer.get_json()
    mine = client.get(f"/v1/tables/{table_id}/events", headers=opener_key).get_json()["events"]
    theirs = client.get(f"/v1/tables/{table_id}/events", headers=other_key).get_json()["events"]
    assert [e["data"]["cards"] for e in mine if e["type"] == "OpenersSplit"] == [split]
    assert [e["data"]["cards"] for e in theirs if e["type"] == "OpenersSplit"] == [None]
