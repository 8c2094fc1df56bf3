"""The tournament manager reads the log in its gap-safe order, which stops before the
oldest transaction still running on the server (a backup's, a report's, a slow request's,
in any database of the cluster). A tournament's events committed meanwhile are notified,
read as nothing yet, and used to wait for the next notification or the manager's 30 s
safety net. Now it looks again soon (0.1 s, doubling to 1.6 s) while its batch finds
events held back, so it acts within moments of the old transaction's end."""
from __future__ import annotations

import time

import psycopg
import pytest

from domain.tournaments import tournament
from service.application import tournament_tables, tournaments
from tests import applications
from tests.integration.conftest import CeleryWorker
from tests.integration.test_tournament_tables import new_tournament

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("clock_worker")]

HELD_S = 4.0
ACTS_WITHIN_S = 2.5


def test_a_tournament_started_behind_a_long_transaction_is_dealt_moments_after_it_ends(
        postgres_store, database_url, broker_url, tmp_path):
    worker = CeleryWorker(tmp_path / "worker", database_url, broker_url)
    try:
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
