"""Concurrent writers through a real gunicorn (make run's worker settings) on PostgreSQL:
16 clients post the same action at the same version: exactly one 201, the rest 409;
retries with one Idempotency-Key write once: each answers the first response, or 409 while
it runs."""
from __future__ import annotations

import http.client
import secrets
import threading

import pytest

from tests.e2e.conftest import Server

pytestmark = pytest.mark.e2e

CLIENTS = 16


def seated_table(server: Server) -> tuple[str, list[tuple[str, dict]]]:
    players = []
    for name in ("Ann", "Bob", "Cat"):
        _, created, _ = server.call("POST", "/v1/players", {"name": name}, server.admin)
        _, key, _ = server.call("POST", "/v1/keys", {"role": "player", "player_id": created["id"]}, server.admin)
        players.append((created["id"], {"Authorization": f"Bearer {key['key']}"}))
    status, table, _ = server.call("POST", "/v1/tables", {
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": 10000} for p, _ in players]}, server.admin)
    assert status == 201, table
    status, _, _ = server.call("POST", f"/v1/tables/{table['id']}/hands", {}, server.admin)
    assert status == 201
    return table["id"], players


def all_at_once(server: Server, path: str, body: dict, headers: dict) -> list[tuple[int, dict]]:
    """CLIENTS threads, each on its own open connection, released together."""
    connections = [http.client.HTTPConnection("127.0.0.1", server.port, timeout=30) for _ in range(CLIENTS)]
    for connection in connections:
        connection.connect()
    barrier = threading.Barrier(CLIENTS)
    answers: list[tuple[int, dict]] = [(0, {})] * CLIENTS

    def client(index: int) -> None:
        barrier.wait()
        status, answer, _ = server.call("POST", path, body, headers, connections[index])
        answers[index] = (status, answer)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for connection in connections:
        connection.close()
    return answers


def table_version(server: Server, table_id: str) -> int:
    status, view, headers = server.call("GET", f"/v1/tables/{table_id}", headers=server.admin)
    assert status == 200 and headers["ETag"] == f'"{view["version"]}"'
    return view["version"]


def test_sixteen_clients_one_version_exactly_one_wins(server):
    table_id, players = seated_table(server)
    version = table_version(server, table_id)
    answers = all_at_once(server, f"/v1/tables/{table_id}/actions", {"action": "call"},
                          {**players[0][1], "If-Match": f'"{version}"'})
    statuses = sorted(status for status, _ in answers)
    assert statuses == [201] + [409] * (CLIENTS - 1), answers
    assert all(a["code"] == "version_conflict" for s, a in answers if s == 409)
    assert table_version(server, table_id) == version + 1
    _, events, _ = server.call("GET", f"/v1/tables/{table_id}/events?after={version}", headers=server.admin)
    assert [e["type"] for e in events["events"]] == ["ActionTaken"]


def test_sixteen_retries_with_one_idempotency_key_write_once(server):
    table_id, players = seated_table(server)
    version = table_version(server, table_id)
    headers = {**players[0][1], "If-Match": str(version), "Idempotency-Key": "retry-" + secrets.token_hex(6)}
    answers = all_at_once(server, f"/v1/tables/{table_id}/actions", {"action": "raise", "to": 300}, headers)
    # One runs; the others answer its answer, or 409 while it was still running.
    ran = [answer for status, answer in answers if status == 201]
    busy = [answer for status, answer in answers if status == 409]
    assert ran and len(ran) + len(busy) == CLIENTS, answers
    assert all(answer == ran[0] for answer in ran)
    assert all(answer["code"] == "idempotency_request_in_progress" for answer in busy)
    assert table_version(server, table_id) == version + 1
    # Later retries (the version has moved on) still answer the first response.
    status, late, _ = server.call("POST", f"/v1/tables/{table_id}/actions", {"action": "raise", "to": 300}, headers)
    assert (status, late) == (201, ran[0])
    assert table_version(server, table_id) == version + 1
    _, verified, _ = server.call("GET", f"/v1/streams/table-{table_id}/verify", headers=server.admin)
    assert verified["ok"] is True and verified["events"] == version + 1
