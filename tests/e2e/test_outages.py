"""The database is killed under load (SIGQUIT: PostgreSQL's immediate shutdown, as a crash:
no checkpoint, in-flight transactions lost, WAL recovery at the restart) and comes back:
requests get a 503 problem with Retry-After within 2 s (not a 500 after the pool's 30 s
wait), no acknowledged write is lost, and the service serves again by itself once
PostgreSQL is back."""
from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import start_gunicorn

pytestmark = pytest.mark.e2e

WRITERS = 4
OUTAGE_S = 4.0
ANSWER_WITHIN_S = 2.0
RECOVER_WITHIN_S = 10.0


class Writers:
    """Threads creating players as fast as they are answered; every 201 is an
    acknowledged write, every other answer is kept with how long it took."""

    def __init__(self, server) -> None:
        self.server = server
        self.acknowledged: list[str] = []
        self.answers: list[tuple[float, int, str | None, str | None, float]] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._write, args=(i,)) for i in range(WRITERS)]

    def _write(self, index: int) -> None:
        count = 0
        while not self._stop.is_set():
            count += 1
            started = time.monotonic()
            try:
                status, answer, headers = self.server.call(
                    "POST", "/v1/players", {"name": f"writer {index}.{count}"}, self.server.admin)
            except OSError:
                status, answer, headers = 0, {}, {}
            took = time.monotonic() - started
            if status == 201:
                self.acknowledged.append(answer["id"])
            self.answers.append((started, status, answer.get("code"), headers.get("Retry-After"), took))

    def __enter__(self) -> Writers:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()


def crash_safe_settings() -> dict[str, str]:
    """The test cluster's fast settings, but every commit's WAL written before it is
    acknowledged (synchronous_commit on): a killed PostgreSQL then loses no acknowledged
    write, as `make run`'s cluster (which keeps PostgreSQL's defaults). fsync may stay off:
    the machine does not crash here, only PostgreSQL."""
    from service.adapters.embedded.postgres import FAST_UNSAFE_SETTINGS

    return {**FAST_UNSAFE_SETTINGS, "synchronous_commit": "on"}


def test_a_database_killed_under_load_is_503s_within_2_s_loses_no_acknowledged_write_and_heals(tmp_path: Path):
    from service.adapters.embedded.postgres import EmbeddedPostgres
    from service.adapters.migrate import upgrade

    postgres = EmbeddedPostgres(tmp_path / "pg", settings=crash_safe_settings())
    url = postgres.start()
    try:
        upgrade(url)
        for server in start_gunicorn(url):
            with Writers(server) as writers:
                time.sleep(1.0)
                before = len(writers.acknowledged)
                assert before > 0, writers.answers[-5:]
                stopped_at = time.monotonic()
                port = postgres.port
                postgres.stop(how=signal.SIGQUIT)
                time.sleep(OUTAGE_S)
                status, health, _ = server.call("GET", "/healthz")
                assert (status, health["status"], health["database"]) == (503, "down", "down")
                postgres = EmbeddedPostgres(tmp_path / "pg", port=port, settings=crash_safe_settings())
                postgres.start()
                restarted_at = time.monotonic()
                deadline = restarted_at + RECOVER_WITHIN_S
                while not any(s == 201 and t > restarted_at for t, s, *_ in writers.answers):
                    assert time.monotonic() < deadline, writers.answers[-5:]
                    time.sleep(0.1)
                recovered_after = min(t for t, s, *_ in writers.answers if s == 201 and t > restarted_at) - restarted_at
                time.sleep(0.5)

            during = [a for a in writers.answers if stopped_at + 0.5 < a[0] and a[0] + a[4] < restarted_at]
            assert len(during) >= WRITERS, "requests were made during the outage"
            assert {(status, code, retry) for _, status, code, retry, _ in during} == {
                (503, "database_unavailable", "2")}, during[:5]
            slowest = max(took for *_, took in during)
            assert slowest < ANSWER_WITHIN_S, slowest
            assert 500 not in {status for _, status, *_ in writers.answers}
            for player_id in writers.acknowledged:
                status, _, _ = server.call("GET", f"/v1/players/{player_id}", headers=server.admin)
                assert status == 200, f"acknowledged player {player_id} lost"
            print(f"outage: {len(during)} answers, all 503 in at most {slowest:.2f} s; "
                  f"{len(writers.acknowledged)} acknowledged writes, 0 lost; "
                  f"first success {recovered_after:.2f} s after PostgreSQL was back")
    finally:
        postgres.stop()
