"""The tournament manager reads the log in its gap-safe order, which stops before the
oldest transaction still running on the server (a backup's, a report's, a slow request's,
in any database of the cluster). A tournament's events committed meanwhile are notified,
read as nothing yet, and used to wait for the next notification or the manager's 30 s
safety net. Now it looks again soon (0.1 s, doubling to 1.6 s) while its batch finds
events held back, so it acts within moments of the old transaction's end.

The long transaction begins only once the manager's first batch has committed: that batch
lists every tournament from their streams as they stand (a manager that starts does what
is due at once, process_managers.TournamentFollower._start), so a first batch that ran
late, after the tournament was written, rightly dealt it without the log ever reading past
the running transaction (the flake of a loaded machine, "read past a running transaction")."""
from __future__ import annotations

import time

import psycopg
import pytest

from domain.tournaments import tournament
from service.application import tournament_tables, tournaments
from service.application.process_managers import TOURNAMENT_MANAGER
from tests import applications
from tests.integration.conftest import CeleryWorker
from tests.integration.test_tournament_tables import new_tournament

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("clock_worker")]

HELD_S = 4.0
ACTS_WITHIN_S = 2.5
FIRST_BATCH_WITHIN_S = 60.0


def wait_for_first_batch(database_url: str, since: object) -> None:
    """Until the manager's tracking record was moved by a batch begun after `since` (the
    database's clock), so by this worker's first batch, committed."""
    deadline = time.monotonic() + FIRST_BATCH_WITHIN_S
    with psycopg.connect(database_url, autocommit=True) as connection:
        while not connection.execute("SELECT EXISTS (SELECT FROM process_trackings WHERE name = %s"
                                     " AND moved_at >= %s)", (TOURNAMENT_MANAGER, since)).fetchone()[0]:
            assert time.monotonic() < deadline, "the tournament manager never finished its first batch"
            time.sleep(0.05)


def test_a_tournament_started_behind_a_long_transaction_is_dealt_moments_after_it_ends(
        postgres_store, database_url, broker_url, tmp_path):
    with psycopg.connect(database_url, autocommit=True) as clock:
        started = clock.execute("SELECT now()").fetchone()[0]
    worker = CeleryWorker(tmp_path / "worker", database_url, broker_url)
    try:
        wait_for_first_batch(database_url, started)
        with psycopg.connect(database_url) as old:
            old.execute("SELECT pg_current_xact_id()")  # an open transaction with an id
            tournament_id = new_tournament(postgres_store, 6, table_size=6)
            table_stream = f"table-{tournament_tables.table_id_for(tournament_id, 1)}"
            time.sleep(HELD_S)
            assert postgres_store.stream_version(table_stream) == 0, "read past a running transaction"
            old.rollback()
            ended = time.monotonic()
        while postgres_store.stream_version(table_stream) == 0:
            assert time.monotonic() - ended < ACTS_WITHIN_S, \
                f"the manager waited for its safety net:\n{worker.text()[-2000:]}"
            time.sleep(0.05)
        state = tournaments.load_tournament(applications.of(postgres_store), tournament_id).state
        assert state.status == tournament.RUNNING
    finally:
        worker.stop()


def test_a_manager_that_starts_behind_a_long_transaction_deals_what_is_due_and_its_checkpoint_stays_behind_it(
        postgres_store, database_url, broker_url, tmp_path):
    """The flake's cause, on purpose: the tournament is written before the manager's first
    batch, which lists it from its stream and deals it at once; the log's gap-safe order
    still stops before the running transaction (the tracking record never passes it)."""
    with psycopg.connect(database_url) as old:
        held_back_from = int(old.execute("SELECT pg_current_xact_id()::text").fetchone()[0])
        tournament_id = new_tournament(postgres_store, 6, table_size=6)
        table_stream = f"table-{tournament_tables.table_id_for(tournament_id, 1)}"
        worker = CeleryWorker(tmp_path / "worker", database_url, broker_url)
        try:
            deadline = time.monotonic() + FIRST_BATCH_WITHIN_S
            while postgres_store.stream_version(table_stream) == 0:
                assert time.monotonic() < deadline, f"the starting manager never dealt:\n{worker.text()[-2000:]}"
                time.sleep(0.05)
            with psycopg.connect(database_url, autocommit=True) as reader:
                tracked = int(reader.execute("SELECT transaction_id::text FROM process_trackings WHERE name = %s",
                                             (TOURNAMENT_MANAGER,)).fetchone()[0])
            assert tracked < held_back_from, "the manager's checkpoint passed a running transaction"
            old.rollback()
        finally:
            worker.stop()
