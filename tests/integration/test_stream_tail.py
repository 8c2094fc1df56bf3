"""An idle stream's tail (issue 28): every committed event reaches every open stream within
2 s, whoever wrote it. Real gunicorn (its event loop serves the streams), a real Celery
worker with beat expiring one-second action clocks on auto-deal tables (so the last write
before each quiet moment is often the worker's), and on each table two HTTP writers racing
for the same turn (one wins, the other is refused). Each stream's ids run without a gap or
a double; the head read at any moment is on every stream within 2 s."""
from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Server, scripted_players, start_gunicorn
from tests.e2e.sse import SseClient
from tests.integration.conftest import CeleryWorker

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("clock_worker")]

TABLES = 3
SEATS = 6
RUN_S = 25.0
TAIL_S = 2.0
SAMPLE_EVERY_S = 0.7


@pytest.fixture
def server(database_url) -> Iterator[Server]:
    yield from start_gunicorn(database_url)


@pytest.fixture
def worker(database_url, broker_url, tmp_path):
    started = CeleryWorker(tmp_path / "worker", database_url, broker_url, beat=True)
    yield started
    started.stop()


class Followed:
    """One stream, read on its own thread: (id, when it arrived) of every event."""

    def __init__(self, server: Server, path: str, headers: dict[str, str]) -> None:
        self.client = SseClient(server.port, path, headers)
        assert self.client.read_head() == 200
        self.arrived: list[tuple[int, float]] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while True:
            try:
                message = self.client.next(60)
            except (AssertionError, OSError):
                return
            if message.id is not None:
                self.arrived.append((message.id, time.monotonic()))

    def arrival_of(self, version: int) -> float | None:
        return next((at for seen, at in self.arrived if seen >= version), None)


def racing_writers(server: Server, table_id: str, players, stop: threading.Event) -> list[threading.Thread]:
    """Two writers per table acting for whoever is to act, from the same read: they race
    for each turn, as two devices of one player (or a player and the clock) would."""
    key_of = dict(players)

    def write(seed: int) -> None:
        rng = random.Random(seed)
        while not stop.is_set():
            status, legal, headers = server.call("GET", f"/v1/tables/{table_id}/legal-actions", headers=server.admin)
            if status == 200 and legal["to_act"] is not None:
                action = {"action": "check"} if legal["legal"]["check"] else {"action": rng.choice(["call", "fold"])}
                server.call("POST", f"/v1/tables/{table_id}/actions", action,
                            {**key_of[legal["to_act"]], "If-Match": headers["ETag"]})
            # Often slower than the one-second clock: the worker expires those turns.
            time.sleep(rng.uniform(0.2, 1.6))

    return [threading.Thread(target=write, args=(seed,), daemon=True) for seed in range(2)]


def test_every_committed_event_reaches_every_stream_within_2_s(server, worker):
    tables = []
    for index in range(TABLES):
        players = scripted_players(server, SEATS, f"Tail {index}")
        status, created, _ = server.call("POST", "/v1/tables", {
            "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
            "seats": [{"player_id": p, "stack": 10_000} for p, _ in players], "auto_deal": True,
            "action_clock_s": 1}, server.admin)
        assert status == 201, created
        assert server.call("POST", f"/v1/tables/{created['id']}/hands", {}, server.admin)[0] == 201
        tables.append((created["id"], players))
    streams = {table_id: [Followed(server, f"/v1/tables/{table_id}/stream", headers) for _, headers in players]
               + [Followed(server, f"/v1/tables/{table_id}/stream?view=public", {})]
               for table_id, players in tables}
    stop = threading.Event()
    writers = [w for table_id, players in tables for w in racing_writers(server, table_id, players, stop)]
    for writer in writers:
        writer.start()
    samples: list[tuple[str, int, float]] = []
    try:
        ends = time.monotonic() + RUN_S
        while time.monotonic() < ends:
            for table_id, _ in tables:
                read_at = time.monotonic()
                _, view, _ = server.call("GET", f"/v1/tables/{table_id}", headers=server.admin)
                samples.append((table_id, view["version"], read_at))
            time.sleep(SAMPLE_EVERY_S)
        stop.set()
        for writer in writers:
            writer.join()
        # The clocks go on: the last samples' tails are the worker's writes.
        time.sleep(TAIL_S + 0.5)
    finally:
        stop.set()
        for followed in (f for group in streams.values() for f in group):
            followed.client.close()
    late = []
    for table_id, version, read_at in samples:
        for index, followed in enumerate(streams[table_id]):
            arrived = followed.arrival_of(version)
            if arrived is None or arrived - read_at > TAIL_S:
                late.append((table_id[:8], index, version, None if arrived is None else round(arrived - read_at, 2)))
    assert not late, f"{len(late)} of {len(samples) * (SEATS + 1)} tails late: {late[:10]}"
    for group in streams.values():
        for followed in group:
            ids = [seen for seen, _ in followed.arrived]
            assert ids == list(range(1, len(ids) + 1)), "a gap or a double"
    expired = worker.text().count("clock watch: expired") + worker.text().count("sweep: expired")
    assert expired > 0, "the worker wrote nothing: the test did not test its writes"
    print(f"{len(samples)} tails on {TABLES} tables x {SEATS + 1} streams, each within {TAIL_S} s; "
          f"heads {[v for _, v, _ in samples[-TABLES:]]}")
