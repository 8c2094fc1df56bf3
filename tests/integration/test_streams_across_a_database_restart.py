"""Open streams across a restart of PostgreSQL (issue 28): a PostgreSQL of the test's own
(embedded) restarts under a real gunicorn with Server-Sent Events streams open. The
streams stay open (they live in gunicorn's event loop), each process's listening
connection connects again by itself, and every stream catches up from the version it
had: the writes from before, during (refused: 503) and after the restart arrive once each,
in order, with no gap. A long-poll from the last version then returns the next write."""
from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import Server, scripted_players, start_gunicorn
from tests.e2e.sse import SseClient
from tests.e2e.test_outages import crash_safe_settings

pytestmark = pytest.mark.integration

BACK_WITHIN_S = 15.0
CAUGHT_UP_WITHIN_S = 5.0


def check_or_call(server: Server, table_id: str, players) -> int | None:
    """The player to act checks or calls; the new version, or None if it was refused."""
    try:
        status, legal, headers = server.call("GET", f"/v1/tables/{table_id}/legal-actions", headers=server.admin)
        if status != 200:
            return None
        action = {"action": "check"} if legal["legal"]["check"] else {"action": "call"}
        status, answer, _ = server.call("POST", f"/v1/tables/{table_id}/actions", action,
                                        {**dict(players)[legal["to_act"]], "If-Match": headers["ETag"]})
    except OSError:
        return None
    return answer["version"] if status == 201 else None


def received_until(stream: SseClient, ids: list[int], version: int, within_s: float) -> None:
    deadline = time.monotonic() + within_s
    while not ids or ids[-1] < version:
        message = stream.next(max(0.01, deadline - time.monotonic()))
        if message.id is not None:
            ids.append(message.id)


def test_streams_open_across_a_restart_of_postgresql_catch_up_once_each(tmp_path: Path):
    from service.adapters.embedded.postgres import EmbeddedPostgres
    from service.adapters.migrate import upgrade

    postgres = EmbeddedPostgres(tmp_path / "pg", settings=crash_safe_settings())
    url = postgres.start()
    try:
        upgrade(url)
        for server in start_gunicorn(url):
            players = scripted_players(server, 3, "Restart")
            status, created, _ = server.call("POST", "/v1/tables", {
                "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
                "seats": [{"player_id": p, "stack": 10_000} for p, _ in players], "auto_deal": True},
                server.admin)
            assert status == 201, created
            table_id = created["id"]
            version = server.call("POST", f"/v1/tables/{table_id}/hands", {}, server.admin)[1]["version"]
            streams = [SseClient(server.port, f"/v1/tables/{table_id}/stream", headers)
                       for headers in (server.admin, players[0][1])]
            streams.append(SseClient(server.port, f"/v1/tables/{table_id}/stream?view=public"))
            received: list[list[int]] = [[] for _ in streams]
            for stream, ids in zip(streams, received):
                assert stream.read_head() == 200
                received_until(stream, ids, version, CAUGHT_UP_WITHIN_S)
            for _ in range(3):
                version = check_or_call(server, table_id, players) or version
            for stream, ids in zip(streams, received):
                received_until(stream, ids, version, CAUGHT_UP_WITHIN_S)

            port = postgres.port
            postgres.stop(how=signal.SIGQUIT)  # a crash: every session dropped at once
            assert check_or_call(server, table_id, players) is None
            postgres = EmbeddedPostgres(tmp_path / "pg", port=port, settings=crash_safe_settings())
            postgres.start()
            restarted = time.monotonic()
            written = None
            while written is None:
                assert time.monotonic() - restarted < BACK_WITHIN_S, "no write after the restart"
                written = check_or_call(server, table_id, players)
                time.sleep(0.1)
            version = written
            for _ in range(3):
                version = check_or_call(server, table_id, players) or version
            for stream, ids in zip(streams, received):
                received_until(stream, ids, version, CAUGHT_UP_WITHIN_S)
                assert ids == list(range(1, version + 1)), "a gap or a double across the restart"
            # Notifications again (not only the fallback): the next write arrives at once.
            written_at = time.monotonic()
            version = check_or_call(server, table_id, players) or version
            for stream, ids in zip(streams, received):
                received_until(stream, ids, version, CAUGHT_UP_WITHIN_S)
            assert time.monotonic() - written_at < 1.0
            # A long-poll from the last version returns the next write.
            last = version
            status, page, _ = server.call("GET", f"/v1/tables/{table_id}/events?after={last}&wait=0",
                                          headers=server.admin)
            assert (status, page["events"]) == (200, [])
            version = check_or_call(server, table_id, players) or version
            status, page, _ = server.call("GET", f"/v1/tables/{table_id}/events?after={last}&wait=5",
                                          headers=server.admin)
            assert [e["version"] for e in page["events"]] == list(range(last + 1, version + 1))
            for stream in streams:
                stream.close()
    finally:
        postgres.stop()
