"""Action clocks under load: 1,000 heads-up tables whose clocks run out within the same
minute (opened as fast as 8 threads can, with clocks of 25 to 55 seconds so the deadlines
spread over about half a minute and only begin once every table is open; the actual
window is reported), and a real worker (`celery worker -B`, 4 pool processes) acting on
them: its clock watch expires each at its deadline, read from the log.

Figures: how late each timeout event is recorded after its deadline (the database's
`recorded_at` of ClockExpired minus the deadline: p50, p99, max) and how many clocks were
expired twice (must be 0). Uses DATABASE_URL / CELERY_BROKER_URL if set, else the
embedded PostgreSQL and broker.
"""
from __future__ import annotations

import os
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

from bench import size
from domain.live import table_commands
from domain.rules.betting import BettingStructure
from service.adapters.migrate import upgrade
from service.adapters.store.base import ChainSigner
from service.adapters.store.postgres import PostgresEventStore, open_pool
from service.application import commands
from service.application.application import application
from service.application.parts import Application

TABLES = size(1000, smoke=4)
SHORTEST_CLOCK_S = size(25, smoke=2)
CLOCK_SPREAD_S = size(30, smoke=2)
OPENING_THREADS = 8
WORKER_PROCESSES = size(4, smoke=1)
SETTLE_S = size(3.0, smoke=0.5)  # after the last timeout: time for a duplicate to show up
GIVE_UP_S = size(120, smoke=30)
NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
PROJECT_ROOT = Path(__file__).resolve().parents[1]

_TIMEOUTS = """
SELECT e.stream_id, (e.data->>'deadline_at_ms')::bigint, e.data->>'hand_id', (e.data->>'seat')::int,
       extract(epoch FROM e.recorded_at)::float8
  FROM events e WHERE e.type = 'ClockExpired' AND e.stream_id LIKE %s
"""


def _open_table(app: Application, table_id: str, clock_s: int) -> int:
    seats = (table_commands.TableSeat("ann", 1000), table_commands.TableSeat("bob", 1000))
    commands.create_table(app, table_commands.CreateTable(table_id, "holdem", {}, NL, seats, action_clock_s=clock_s))
    clock = commands.start_next_hand(app, table_id, 1).state.clock
    assert clock is not None
    return clock.deadline_at_ms


def _start_worker(directory: Path, env: dict[str, str]) -> subprocess.Popen:
    log_path = directory / "worker.log"
    log = log_path.open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker", "-B",
         f"--schedule={directory / 'beat-schedule'}", f"--concurrency={WORKER_PROCESSES}",
         "--loglevel=INFO", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    give_up = time.monotonic() + 60
    while "ready." not in log_path.read_text():
        if process.poll() is not None or time.monotonic() > give_up:
            raise RuntimeError(f"the worker did not start:\n{log_path.read_text()}")
        time.sleep(0.1)
    return process


def _stop(process: subprocess.Popen) -> None:
    # The main process only: it stops its pool and beat (service.md, known pitfalls).
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _measure(env: dict[str, str], scratch: Path) -> dict[str, float]:
    pool = open_pool(env["DATABASE_URL"], max_size=OPENING_THREADS + 2)
    # As the web app does: the appends record the deadlines, nothing is sent; under the
    # worker's chain key, as its reads check the MACs.
    app = application(PostgresEventStore(pool, signer=ChainSigner(env["CARDROOM_CHAIN_KEY"].encode())))
    worker = _start_worker(scratch, env)
    try:
        prefix = f"bench-clock-{uuid.uuid4().hex[:8]}-"
        with ThreadPoolExecutor(OPENING_THREADS) as threads:
            deadlines = list(threads.map(
                lambda n: _open_table(app, f"{prefix}{n}", SHORTEST_CLOCK_S + n * CLOCK_SPREAD_S // TABLES),
                range(TABLES)))
        pattern = commands.table_stream(prefix) + "%"
        give_up = time.monotonic() + SHORTEST_CLOCK_S + CLOCK_SPREAD_S + GIVE_UP_S
        while True:
            with pool.connection() as connection:
                rows = connection.execute(_TIMEOUTS, (pattern,)).fetchall()
            if len({row[0] for row in rows}) >= TABLES or time.monotonic() > give_up:
                break
            time.sleep(0.5)
        time.sleep(SETTLE_S)
        with pool.connection() as connection:
            rows = connection.execute(_TIMEOUTS, (pattern,)).fetchall()
    finally:
        _stop(worker)
        pool.close()
    lateness = sorted(recorded_at - deadline_ms / 1000 for _, deadline_ms, _, _, recorded_at in rows)
    per_clock = Counter((stream, hand, seat, deadline) for stream, deadline, hand, seat, _ in rows)
    return {
        "clocks.tables": TABLES,
        "clocks.deadline_window_s": round((max(deadlines) - min(deadlines)) / 1000, 2),
        "clocks.timeouts_recorded": len(per_clock),
        "clocks.timeout_lateness_p50_s": round(statistics.median(lateness), 3),
        "clocks.timeout_lateness_p99_s": round(lateness[int(0.99 * (len(lateness) - 1))], 3),
        "clocks.timeout_lateness_max_s": round(lateness[-1], 3),
        "clocks.duplicate_timeouts": sum(count - 1 for count in per_clock.values()),
    }


def run() -> dict[str, float]:
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-clocks-") as scratch_dir:
        scratch = Path(scratch_dir)
        env = dict(os.environ)
        if not env.get("DATABASE_URL"):
            from service.adapters.embedded.postgres import EmbeddedPostgres

            postgres = EmbeddedPostgres(scratch / "postgres")
            env["DATABASE_URL"] = postgres.start()
            stack.callback(postgres.stop)
        if not env.get("CELERY_BROKER_URL"):
            from service.adapters.embedded.broker import EmbeddedBroker

            broker = EmbeddedBroker(scratch / "broker")
            env["CELERY_BROKER_URL"] = broker.start()
            stack.callback(broker.stop)
        upgrade(env["DATABASE_URL"])
        env["CARDROOM_CHAIN_KEY"] = secrets.token_hex(32)  # this run's, the app's and the worker's
        return _measure(env, scratch)


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<40} {value:>12,}")
