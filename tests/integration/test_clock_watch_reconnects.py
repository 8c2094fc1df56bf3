"""The clock watch across lost database connections (issue 28): while one-second clocks
keep expiring, every session of the worker is ended by the server (pg_terminate_backend,
as a restart or a failover ends them) again and again. The watch loses its lead's
connection, asks for the lead again and reads the overdue clocks from the log; the sweep
and the pool's connections come back too. Every clock that passed expired exactly once."""
from __future__ import annotations

import time
from collections import Counter

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from service.adapters.wakeups import WAKEUPS_NAME
from service.application import commands
from service.application.application import application
from service.config import Config
from tests.integration.conftest import CeleryWorker
from tests.integration.test_broker_outage import clocked_table
from tests.stores import store_as_the_apps
from workers.clock_tasks import WATCH_NAME

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("clock_worker")]

RUN_S = 16.0
CUT_EVERY_S = 4.0
NEW_TABLE_EVERY_S = 0.5
SETTLE_S = 4.0
WORKERS = "clock-test-worker"


def cut_the_workers_sessions(admin_database_url: str) -> int:
    """End every session of the worker (its pools' by PGAPPNAME, its watch's and its
    wake-ups' by their own names) on this test database; how many."""
    with psycopg.connect(admin_database_url, autocommit=True) as admin:
        return len(admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
            " AND application_name = ANY(%s)", ([WORKERS, WATCH_NAME, WAKEUPS_NAME],)).fetchall())


def test_each_passed_clock_expires_once_while_the_workers_connections_are_cut(
        database_url, admin_database_url, broker_url, tmp_path, monkeypatch):
    pool = ConnectionPool(database_url, min_size=1, max_size=2, open=True,
                          kwargs={"autocommit": True, "application_name": "clock-test-writer"})
    store = store_as_the_apps(pool, Config())
    app = application(store)
    monkeypatch.setenv("PGAPPNAME", WORKERS)  # libpq names the worker's pool connections by it
    worker = CeleryWorker(tmp_path / "worker", database_url, broker_url, beat=True)
    monkeypatch.delenv("PGAPPNAME")
    try:
        worker.wait_for_log("clock watch: leading")
        tables, cuts = [], 0
        started = time.monotonic()
        next_cut = started + CUT_EVERY_S
        while time.monotonic() - started < RUN_S:
            tables.append(clocked_table(app))
            if time.monotonic() >= next_cut:
                cuts += cut_the_workers_sessions(admin_database_url) > 0
                next_cut += CUT_EVERY_S
            time.sleep(NEW_TABLE_EVERY_S)
        time.sleep(SETTLE_S)
        checked_at_ms = commands.now_ms()
        assert cuts >= 3
        assert worker.text().count("clock watch: leading") > 1, "the watch never lost its lead"
        passed = 0
        for table_id in tables:
            log = store.read_stream(commands.table_stream(table_id))
            expired = Counter((r.data["hand_id"], r.data["seat"], r.data["deadline_at_ms"])
                              for r in log if r.type == "ClockExpired")
            assert set(expired.values()) <= {1}, f"a clock expired twice on {table_id}"
            for clock in (r.data for r in log if r.type == "ClockStarted"):
                if clock["deadline_at_ms"] < checked_at_ms - SETTLE_S * 1000 / 2:
                    passed += 1
                    assert expired[clock["hand_id"], clock["seat"], clock["deadline_at_ms"]] == 1, \
                        f"a clock that passed never expired on {table_id}"
        assert passed >= len(tables) * 2
        print(f"{cuts} cuts of every worker session: {passed} clocks passed, each expired once")
    finally:
        worker.stop()
        pool.close()
