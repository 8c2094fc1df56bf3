"""The store's pipelines wait for PostgreSQL without holding the GIL: while one thread's
statement runs on the server, the process's other threads go on (a gunicorn worker's
other requests). psycopg's own `get_result` and `pipeline_sync` hold it
(service/adapters/store/libpq_pipeline.py)."""
from __future__ import annotations

import threading
import time

import psycopg

from service.adapters.store import libpq_pipeline

SERVER_SECONDS = 0.4


def _work_done_meanwhile(run_on_server) -> int:
    """How many steps a busy Python thread makes while `run_on_server` runs."""
    steps = 0
    done = threading.Event()

    def busy() -> None:
        nonlocal steps
        while not done.is_set():
            steps += 1

    started = threading.Thread(target=busy)
    started.start()
    time.sleep(0.05)  # the busy thread is running before the statement is sent
    counted_from = steps
    try:
        run_on_server()
    finally:
        done.set()
        started.join()
    return steps - counted_from


def test_another_thread_runs_while_a_pipeline_waits_for_the_server(database_url):
    with psycopg.connect(database_url, autocommit=True) as connection:
        baseline = _work_done_meanwhile(lambda: time.sleep(SERVER_SECONDS))
        during = _work_done_meanwhile(lambda: libpq_pipeline.pipelined(
            connection.pgconn, [f"SELECT pg_sleep({SERVER_SECONDS})".encode()], [], []))
    # Holding the GIL for the server's 0.4 s would leave the busy thread a switch interval
    # or two (5 ms each: about a fortieth of the baseline); released, it runs for about as
    # long as beside a plain sleep, less on a loaded machine (a quarter was once seen in CI).
    assert during > baseline / 10, (during, baseline)


def test_the_pipeline_is_sent_through_libpq_without_the_gil():
    with_psycopg = psycopg.pq.__impl__ != "python"
    assert (libpq_pipeline._PIPELINE_SYNC is not None) == with_psycopg
