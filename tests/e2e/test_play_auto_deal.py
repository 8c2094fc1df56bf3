"""An auto-deal table played through gunicorn the way a client plays on: one POST per
action, each following the previous answer (`to_act`, `legal`, ETag), never a read.
Chips are conserved at every hand's end, each player's answers show no other player's
hole cards, every deal checks against its commitment, and the log replays to the table."""
from __future__ import annotations

import random

import pytest

from service.application.public_log import PublicLog
from tests.e2e.conftest import Server, assert_log_replays_to_live, scripted_players

pytestmark = pytest.mark.e2e

HANDS = 60
SEATS = 4
STACK = 10_000


def test_a_client_plays_sixty_auto_dealt_hands_on_the_answers_alone(server: Server):
    rng = random.Random(7)
    players = scripted_players(server, SEATS, "Auto")
    key_of = dict(players)
    status, created, _ = server.call("POST", "/v1/tables", {
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": STACK} for p, _ in players], "auto_deal": True}, server.admin)
    assert status == 201, created
    table_id = created["id"]
    status, answer, headers = server.call("POST", f"/v1/tables/{table_id}/hands", {}, server.admin)
    assert status == 201, answer
    closed_hands = []
    while len(closed_hands) < HANDS and answer["to_act"] is not None:
        player, legal = answer["to_act"], answer["legal"]
        action = {"action": "check"} if legal["check"] else {"action": rng.choice(["call", "call", "fold"])}
        status, answer, headers = server.call("POST", f"/v1/tables/{table_id}/actions", action,
                                              {**key_of[player], "If-Match": headers["ETag"]})
        assert status == 201, (action, answer)
        seat_of = {p: i for i, (p, _) in enumerate(players)}
        for event in answer["events"]:
            if event["type"] == "HoleCardsDealt" and event["data"]["cards"] is not None:
                opened = next(e for e in answer["events"] if e["type"] == "HandOpened")
                assert event["data"]["seat"] == seat_of[player], event
                assert opened["data"]["seats"][event["data"]["position"]] == seat_of[player], event
            if event["type"] == "HandClosed":
                assert sum(entry["stack"] for entry in event["data"]["stacks"]) == SEATS * STACK, event
                closed_hands.append(event["data"]["hand_id"])
    assert len(closed_hands) == HANDS, f"the table stopped after {len(closed_hands)} hands: {answer}"
    for hand_id in closed_hands[:: HANDS // 6]:
        _, hand, _ = server.call("GET", f"/v1/hands/{hand_id}", headers=server.admin)
        assert hand["over"] and hand["deal"]["verified"] is True
    live = assert_log_replays_to_live(server, table_id, "holdem")
    _, verified, _ = server.call("GET", f"/v1/streams/table-{table_id}/verify", headers=server.admin)
    assert set(verified.pop("warnings")) <= {PublicLog.UNCHECKED}  # before the integrator's first checkpoint
    assert verified == {"ok": True, "events": live["version"], "first_bad_version": None, "reason": None}
