"""Live feeds (live.md) against a real gunicorn over real sockets: the streams' messages,
resuming, redaction per role, the `turn` message, the keyless public view, and the
long-poll."""
from __future__ import annotations

import http.client
import threading
import time

import pytest

from tests.e2e.conftest import Server, scripted_players
from tests.e2e.sse import Message, SseClient, act, new_hand, open_stream

pytestmark = pytest.mark.e2e


def test_a_stream_sends_every_event_with_its_version_as_id_then_live_ones(server, clients):
    table_id, players, version = new_hand(server, "Ids")
    stream = open_stream(server, clients, f"/v1/tables/{table_id}/stream", server.admin)
    events, _ = stream.events_until(version)
    assert [m.id for m in events] == list(range(1, version + 1))
    assert events[0].event == "TableCreated" == events[0].data["type"]
    answer = act(server, table_id, players)
    live, _ = stream.events_until(answer["version"])
    assert [m.id for m in live] == list(range(version + 1, answer["version"] + 1))
    assert [{k: v for k, v in m.data.items() if k != "recorded_at"} for m in live] == answer["events"]


def test_resuming_with_last_event_id_or_after_skips_nothing_and_repeats_nothing(server, clients):
    table_id, players, version = new_hand(server, "Resume")
    first = open_stream(server, clients, f"/v1/tables/{table_id}/stream", server.admin)
    seen, _ = first.events_until(version)
    first.close()
    written = [act(server, table_id, players)["version"] for _ in range(2)]
    resumed = open_stream(server, clients, f"/v1/tables/{table_id}/stream?after=1",
                          {**server.admin, "Last-Event-ID": str(seen[-1].id)})
    events, _ = resumed.events_until(written[-1])
    assert [m.id for m in events] == list(range(version + 1, written[-1] + 1))
    by_after = open_stream(server, clients, f"/v1/tables/{table_id}/stream?after={version}", server.admin)
    assert [m.id for m in by_after.events_until(written[-1])[0]] == [m.id for m in events]


def test_a_player_stream_carries_their_own_hole_cards_and_nobody_elses(server, clients):
    table_id, players, version = new_hand(server, "Cards")
    _, view, _ = server.call("GET", f"/v1/tables/{table_id}", headers=server.admin)
    hole = {seat["player_id"]: seat["cards"] for seat in view["seats"]}
    own_id, own_headers = players[0]
    mine = open_stream(server, clients, f"/v1/tables/{table_id}/stream", own_headers)
    text = "".join(repr(m.data) for m in mine.events_until(version)[0])
    assert hole[own_id] in text
    for other, _ in players[1:]:
        assert hole[other] not in text
    _, spectator = server.call("POST", "/v1/keys", {"role": "spectator"}, server.admin)[:2]
    watcher = open_stream(server, clients, f"/v1/tables/{table_id}/stream",
                          {"Authorization": f"Bearer {spectator['key']}"})
    public = open_stream(server, clients, f"/v1/tables/{table_id}/stream?view=public")
    for stream in (watcher, public):
        dealt = [m for m in stream.events_until(version)[0] if m.event == "HoleCardsDealt"]
        assert len(dealt) == 3 and all(m.data["data"]["cards"] is None for m in dealt)
    # And after a reconnect, the same.
    mine.close()
    again = open_stream(server, clients, f"/v1/tables/{table_id}/stream",
                        {**own_headers, "Last-Event-ID": "1"})
    text = "".join(repr(m.data) for m in again.events_until(version)[0])
    assert hole[own_id] in text and not any(hole[o] in text for o, _ in players[1:])


def test_a_player_is_told_their_turn_with_what_is_legal(server, clients):
    table_id, players, version = new_hand(server, "Turn")
    _, legal, _ = server.call("GET", f"/v1/tables/{table_id}/legal-actions", headers=server.admin)
    first = legal["to_act"]
    streams = {p: open_stream(server, clients, f"/v1/tables/{table_id}/stream", h) for p, h in players}
    for player, stream in streams.items():
        stream.events_until(version)
        # The turn follows the events it is the turn after, in the same write.
        told = stream.next_within(0.5)
        assert told == (Message("turn", {"version": version, **legal}, None) if player == first else None)
    answer = act(server, table_id, players)
    for player, stream in streams.items():
        stream.events_until(answer["version"])
        told = stream.next_within(0.5)
        assert told == (Message("turn", {"version": answer["version"], "to_act": answer["to_act"],
                                         "round": answer["round"], "legal": answer["legal"]}, None)
                        if player == answer["to_act"] else None)


def test_the_public_view_needs_no_key_and_other_views_do(server, clients):
    table_id, _, version = new_hand(server, "Public")
    anonymous = SseClient(server.port, f"/v1/tables/{table_id}/stream")
    clients.append(anonymous)
    assert anonymous.read_head() == 401
    missing = SseClient(server.port, "/v1/tables/no-such-table/stream?view=public")
    clients.append(missing)
    assert missing.read_head() == 404
    for headers, query in (({"Last-Event-ID": "seven"}, ""), ({}, "&after=-1"), ({}, "&view=secret")):
        refused = SseClient(server.port, f"/v1/tables/{table_id}/stream?view=public{query}".replace(
            "?view=public&view=secret", "?view=secret"), headers)
        clients.append(refused)
        assert refused.read_head() == 400
        assert refused.headers["content-type"] == "application/problem+json"
    public = open_stream(server, clients, f"/v1/tables/{table_id}/stream?view=public")
    public.events_until(version)
    assert public.next_within(0.5) is None  # nobody's turn is told to the room


def test_a_tournament_stream_follows_registrations(server, clients):
    status, created, _ = server.call("POST", "/v1/tournaments", {
        "name": "Streamed", "game": "holdem", "betting": "no-limit", "starting_stack": 10000,
        "starts_at": "now", "payout_percentages": ["100"],
        "levels": [{"small_blind": 25, "big_blind": 50, "seconds": 600}]},
        server.admin)
    assert status == 201, str(created)
    tournament_id = created["id"]
    stream = open_stream(server, clients, f"/v1/tournaments/{tournament_id}/stream?view=public")
    assert stream.next().id == 1
    player, _ = scripted_players(server, 1, "Entrant")[0]
    status, answer, _ = server.call("POST", f"/v1/tournaments/{tournament_id}/registrations",
                                    {"player_id": player}, server.admin)
    assert status == 201, answer
    message = stream.next()
    assert (message.id, message.event) == (answer["version"], answer["events"][0]["type"])


def test_a_long_poll_answers_within_100_ms_of_a_write(server):
    table_id, players, version = new_hand(server, "Poll")
    answered: dict = {}

    def poll() -> None:
        answered["status"], answered["body"], _ = server.call(
            "GET", f"/v1/tables/{table_id}/events?after={version}&wait=20", headers=server.admin)
        answered["at"] = time.monotonic()

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(0.5)
    assert "at" not in answered
    answer = act(server, table_id, players)
    written_at = time.monotonic()
    poller.join(10)
    assert answered["status"] == 200
    assert [e["version"] for e in answered["body"]["events"]] == list(range(version + 1, answer["version"] + 1))
    assert answered["at"] - written_at < 0.1


def test_a_long_poll_answers_empty_at_its_timeout(server):
    table_id, _, version = new_hand(server, "Timeout")
    started = time.monotonic()
    status, body, _ = server.call("GET", f"/v1/tables/{table_id}/events?after={version}&wait=1",
                                  headers=server.admin)
    assert (status, body["events"]) == (200, [])
    assert 1.0 <= time.monotonic() - started < 2.0
    status, problem, _ = server.call("GET", f"/v1/tables/{table_id}/events?wait=61", headers=server.admin)
    assert status == 400, problem


def play_from_stream(server: Server, table_id: str, headers: dict[str, str], hands: int,
                     errors: list[str]) -> None:
    """A bot: it acts on each `turn` its stream brings (check, else call; If-Match: the
    turn's version) until `hands` hands have started, and reads nothing else."""
    stream = SseClient(server.port, f"/v1/tables/{table_id}/stream", headers)
    try:
        assert stream.read_head() == 200
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        started = 0
        while started < hands:
            message = stream.next(timeout=30)
            if message.event == "HandStarted":
                started += 1
            elif message.event == "turn":
                legal = message.data["legal"]
                action = {"action": "check"} if legal["check"] else {"action": "call"}
                status, answer, _ = server.call(
                    "POST", f"/v1/tables/{table_id}/actions", action,
                    {**headers, "If-Match": f'"{message.data["version"]}"'}, connection)
                assert status == 201, answer
    except AssertionError as error:
        errors.append(str(error))
    finally:
        stream.close()


def test_two_bots_play_a_hundred_hands_from_their_streams_alone(server):
    players = scripted_players(server, 2, "Stream bot")
    status, created, _ = server.call("POST", "/v1/tables", {
        "game": "holdem", "auto_deal": True,
        "betting": {"structure": "no-limit", "small_blind": 1, "big_blind": 2},
        "seats": [{"player_id": p, "stack": 1_000_000} for p, _ in players]}, server.admin)
    assert status == 201, created
    table_id, errors = created["id"], []
    bots = [threading.Thread(target=play_from_stream, args=(server, table_id, headers, 100, errors))
            for _, headers in players]
    for bot in bots:
        bot.start()
    time.sleep(0.5)  # both streams open: the first turn goes to one of them
    status, answer, _ = server.call("POST", f"/v1/tables/{table_id}/hands", {}, server.admin)
    assert status == 201, answer
    for bot in bots:
        bot.join(120)
    assert errors == []
    _, view, _ = server.call("GET", f"/v1/tables/{table_id}", headers=server.admin)
    assert view["hand"]["number"] >= 100
