"""How streams are served (live.md): any app server delivers any table, and open or
stalled streams hold no request thread, so writes keep answering."""
from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from service.devserver import GUNICORN_THREADS, gunicorn_workers
from tests.e2e.conftest import Server, start_gunicorn
from tests.e2e.sse import SseClient, act, new_hand, open_stream

pytestmark = pytest.mark.e2e

THREADS = GUNICORN_THREADS * gunicorn_workers()


@pytest.fixture(scope="module")
def other_server(database_url) -> Iterator[Server]:
    """A second app server on the same database, as behind a load balancer."""
    yield from start_gunicorn(database_url)


def play(server: Server, table_id: str, players: list, writes: int) -> list[int]:
    """`writes` writes (actions, and a new hand when one ends) through `server`; the
    version after each, and how long each took."""
    versions = []
    for _ in range(writes):
        _, legal, _ = server.call("GET", f"/v1/tables/{table_id}/legal-actions", headers=server.admin)
        if legal["to_act"] is None:
            status, answer, _ = server.call("POST", f"/v1/tables/{table_id}/hands", {}, server.admin)
            assert status == 201, answer
        else:
            answer = act(server, table_id, players, via=server)
        versions.append(answer["version"])
    return versions


def test_a_stream_on_one_server_sees_every_event_written_through_another_in_order_once(
        server, other_server, clients):
    table_id, players, version = new_hand(server, "Two servers")
    stream = open_stream(server, clients, f"/v1/tables/{table_id}/stream", server.admin)
    versions = play(other_server, table_id, players, 40)
    events, _ = stream.events_until(versions[-1], timeout=10)
    assert [m.id for m in events] == list(range(1, versions[-1] + 1))
    # Nothing after: no event twice.
    assert stream.next_within(FALLBACK_WAIT_S) is None


FALLBACK_WAIT_S = 2.5
"""Longer than service.adapters.notifications.FALLBACK_S: a re-read on the tick adds nothing."""


def test_many_more_open_streams_than_threads_leave_writes_fast(server, clients):
    table_id, players, version = new_hand(server, "Crowd")
    crowd = [open_stream(server, clients, f"/v1/tables/{table_id}/stream?view=public") for _ in range(5 * THREADS)]
    for stream in crowd:
        stream.events_until(version)
    started = time.monotonic()
    versions = play(server, table_id, players, 20)
    took = time.monotonic() - started
    assert took < 10, f"20 writes (and 20 reads) took {took:.1f} s beside {len(crowd)} streams"
    for stream in crowd:
        assert [m.id for m in stream.events_until(versions[-1])[0]] == list(range(version + 1, versions[-1] + 1))


def test_stalled_stream_readers_hold_no_thread(server, clients):
    table_id, players, version = new_hand(server, "Stalled")
    stalled = []
    for _ in range(3 * THREADS):
        # A reader that never reads: its socket buffers fill and the server's sends block.
        client = SseClient(server.port, f"/v1/tables/{table_id}/stream?view=public", receive_buffer=4096)
        clients.append(client)
        stalled.append(client)
    time.sleep(0.5)
    started = time.monotonic()
    play(server, table_id, players, 20)
    status, _, _ = server.call("GET", "/healthz")
    took = time.monotonic() - started
    assert status == 200
    assert took < 10, f"20 writes took {took:.1f} s beside {len(stalled)} stalled streams"
