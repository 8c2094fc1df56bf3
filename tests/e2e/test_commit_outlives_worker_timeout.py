"""gunicorn's worker timeout never kills a request waiting in COMMIT (a COMMIT waiting for
a synchronous standby takes as long as the standby does). In the gthread worker the
timeout is a heartbeat of the worker's main loop, which notifies the master at least once a
second while request threads wait; it is no per-request limit. Here the timeout is 2 s and
a write's COMMIT is held 6 s: the write is answered 201 by the same worker."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.e2e.conftest import scripted_players, start_gunicorn
from tests.integration.test_unknown_commit_outcome import HOLD_LOCK, backend_waiting_in_commit, commit_held

pytestmark = pytest.mark.e2e

WORKER_TIMEOUT_S = 2
HELD_S = 3 * WORKER_TIMEOUT_S


@pytest.fixture(scope="module")
def own_database(admin_database_url: str) -> Iterator[tuple[str, str]]:
    """A database of this module's own: the held COMMIT's trigger meets no other test."""
    from tests.conftest import _fresh_database_on

    yield from _fresh_database_on(admin_database_url)


def test_a_write_held_in_commit_past_the_worker_timeout_is_answered(own_database):
    admin_url, app_url = own_database
    server = next(served := start_gunicorn(app_url, {"GUNICORN_CMD_ARGS": f"--timeout {WORKER_TIMEOUT_S} --workers 1"}))
    try:
        players = scripted_players(server, 2, "Held")
        status, table, _ = server.call("POST", "/v1/tables", {
            "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
            "seats": [{"player_id": p, "stack": 10_000} for p, _ in players]}, server.admin)
        assert status == 201, table
        status, dealt, headers = server.call("POST", f"/v1/tables/{table['id']}/hands", {}, server.admin)
        assert status == 201, dealt
        with commit_held(admin_url, f"table-{table['id']}") as holder, ThreadPoolExecutor(1) as background:
            sent = background.submit(server.call, "POST", f"/v1/tables/{table['id']}/actions",
                                     {"action": "raise", "to": 300}, {**players[0][1], "If-Match": headers["ETag"]})
            backend_waiting_in_commit(admin_url)
            started = time.monotonic()
            threading.Event().wait(HELD_S)
            holder.execute("SELECT pg_advisory_unlock(%s)", (HOLD_LOCK,))
            status, answer, _ = sent.result(timeout=30)
        assert status == 201, answer
        assert time.monotonic() - started >= HELD_S
        assert answer["version"] == dealt["version"] + 1
    finally:
        served.close()
