"""A hold'em hand to a declared showdown through the real server (gunicorn, PostgreSQL),
each player acting and showing or mucking with their own key (issue 15: "a hold'em e2e
hand to showdown where a mucked hand stays hidden from the other players on every
endpoint, every player verifies their own cards and the board against the commitment,
and the floor verifies the whole deck"). A player watches the table's stream from the
deal to the end: the mucked cards never reach it either."""
from __future__ import annotations

import http.client
import json
import re

import pytest

from domain.rules.deal_commitment import Opening, deal_root, verify_opening
from tests.e2e.conftest import Server, scripted_players
from tests.e2e.sse import SseClient, open_stream

pytestmark = pytest.mark.e2e

_HEX = re.compile(r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|[0-9a-f]{16,}")


def text_of(server: Server, path: str, headers: dict[str, str]) -> str:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read().decode()
        assert response.status == 200, (path, body)
        return body
    finally:
        connection.close()


def without_hex(text: str) -> str:
    """The text without its hex strings (digests, salts, Merkle paths, ids): "5c3d" is a
    hand and hex alike."""
    return _HEX.sub("", text)


def cards_of(text: str) -> list[str]:
    return [text[i:i + 2] for i in range(0, len(text), 2)]


def pairs(cards: str) -> set[str]:
    return set(cards_of(cards))


def play(server: Server, table_id: str, keys: dict[str, dict[str, str]], action: str) -> dict:
    """The player to act posts `action` with their own key, at the version they read."""
    status, legal, headers = server.call("GET", f"/v1/tables/{table_id}/legal-actions", headers=server.admin)
    assert status == 200, legal
    player = legal["to_act"]
    status, answer, _ = server.call("POST", f"/v1/tables/{table_id}/actions", {"action": action},
                                    {**keys[player], "If-Match": headers["ETag"]})
    assert status == 201, answer
    return {"player": player, "legal": legal["legal"], "answer": answer}


def test_a_mucked_hand_stays_hidden_and_everyone_checks_what_they_saw(server: Server) -> None:
    players = scripted_players(server, 3, "Showdown")
    keys = dict(players)
    status, created, _ = server.call("POST", "/v1/tables", {
        "game": "holdem", "settings": {"showdown": "declared"},
        "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": 10_000} for p, _ in players]}, server.admin)
    assert status == 201, created
    table_id = created["id"]
    watcher_id = players[0][0]
    streams: list[SseClient] = []
    stream = open_stream(server, streams, f"/v1/tables/{table_id}/stream", keys[watcher_id])
    try:
        status, dealt, _ = server.call("POST", f"/v1/tables/{table_id}/hands", {}, server.admin)
        assert status == 201, dealt
        _, floor_view, _ = server.call("GET", f"/v1/tables/{table_id}", headers=server.admin)
        hole = {seat["player_id"]: seat["cards"] for seat in floor_view["seats"]}
        while True:  # check and call to the river
            _, legal, _ = server.call("GET", f"/v1/tables/{table_id}/legal-actions", headers=server.admin)
            if legal["legal"].get("show"):
                break
            play(server, table_id, keys, "check" if legal["legal"]["check"] else "call")
        shown = play(server, table_id, keys, "show")["player"]
        mucked = [play(server, table_id, keys, "muck")["player"] for _ in range(2)]
        _, hand, _ = server.call("GET", f"/v1/hands/{table_id}.1", headers=server.admin)
        assert hand["hand"]["over"] is True
        board = hand["hand"]["board"]

        paths = [f"/v1/tables/{table_id}", f"/v1/tables/{table_id}/events", f"/v1/hands/{table_id}.1",
                 f"/v1/hands/{table_id}.1/state", f"/v1/hands/{table_id}.1/phh"]
        status, spectator_key, _ = server.call("POST", "/v1/keys", {"role": "spectator"}, server.admin)
        assert status == 201, spectator_key
        viewers = {**keys, "spectator": {"Authorization": f"Bearer {spectator_key['key']}"}}
        for who, headers in viewers.items():
            for path in paths:
                text = without_hex(text_of(server, path, headers))
                if path.endswith("/state") or path == f"/v1/tables/{table_id}":
                    assert hole[shown] in text, f"the hand shown is public: {who} on {path}"
                for player in mucked:
                    if player != who:
                        assert hole[player] not in text, f"{player}'s mucked hand reaches {who} on {path}"

        root = next(e for e in json.loads(text_of(server, f"/v1/tables/{table_id}/events", server.admin))["events"]
                    if e["type"] == "HandOpened")["data"]["commitment"]
        for player, headers in keys.items():
            deal = json.loads(text_of(server, f"/v1/hands/{table_id}.1", headers))["deal"]
            assert deal["commitment"] == root and deal["deck"] is None and deal["salt"] is None
            openings = [Opening(o["position"], o["card"], o["salt"], tuple(tuple(step) for step in o["path"]))
                        for o in deal["openings"]]
            assert openings and all(verify_opening(o, root) for o in openings), player
            assert {o.card for o in openings} == pairs(board) | pairs(hole[player]) | pairs(hole[shown]), player

        deal = json.loads(text_of(server, f"/v1/hands/{table_id}.1", server.admin))["deal"]
        assert deal["verified"] is True
        assert deal_root(cards_of(deal["deck"]), bytes.fromhex(deal["salt"])) == root

        _, table_now, _ = server.call("GET", f"/v1/tables/{table_id}", headers=server.admin)
        events, _ = stream.events_until(table_now["version"], timeout=15)
        streamed = without_hex(json.dumps([message.data for message in events]))
        assert "HandOpened" in streamed and "CardsMucked" in streamed
        for player in mucked:
            if player != watcher_id:
                assert hole[player] not in streamed, f"{player}'s mucked hand reaches the stream"
    finally:
        for client in streams:
            client.close()

