"""The running clocks the log's trigger keeps (migration 0011), as the clock sweep reads them
(service.application.clock_deadlines.due_clocks): a table's clock while it runs, the next
one in its place, none once the hand is over, none for a rolled-back append; and clocks
ended long ago are not read at all."""
from __future__ import annotations

import uuid

import psycopg
import pytest

from domain.live import table_commands
from domain.rules.betting import BettingStructure
from service.adapters.store.base import NewEvent
from service.application import commands
from service.application.clock_deadlines import due_clocks
from tests import applications

pytestmark = pytest.mark.integration

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
EVERYTHING_DUE = 2**62


def running(pool, table_id: str) -> list[dict]:
    return [clock for found, clock in due_clocks(pool, EVERYTHING_DUE, 100_000) if found == table_id]


def test_a_tables_clock_is_read_while_it_runs_replaced_by_the_next_and_gone_with_the_hand(
        postgres_pool, postgres_store):
    table_id = f"open-clock-{uuid.uuid4().hex[:12]}"
    seats = tuple(table_commands.TableSeat(name, 1000) for name in ("ann", "bob", "cat"))
    commands.create_table(applications.of(postgres_store), table_commands.CreateTable(table_id, "holdem", {}, NL, seats, action_clock_s=30))
    assert running(postgres_pool, table_id) == []
    started = commands.start_next_hand(applications.of(postgres_store), table_id, 1)
    [first] = running(postgres_pool, table_id)
    assert (first["player_id"], first["deadline_at_ms"]) == (started.state.clock.player_id,
                                                             started.state.clock.deadline_at_ms)
    acted = commands.execute(applications.of(postgres_store), table_id, started.version, table_commands.Act(first["player_id"], "fold"))
    [second] = running(postgres_pool, table_id)
    assert second["player_id"] == acted.state.clock.player_id != first["player_id"]
    commands.execute(applications.of(postgres_store), table_id, acted.version, table_commands.Act(second["player_id"], "fold"))
    assert running(postgres_pool, table_id) == []


def test_a_rolled_back_clock_is_not_read(postgres_pool, postgres_store, database_url):
    stream = f"table-open-clock-{uuid.uuid4().hex[:12]}"
    with psycopg.connect(database_url) as aborted:
        postgres_store.append_on(aborted, stream, 0, [NewEvent("ClockStarted", {
            "hand_id": "h", "seat": 0, "player_id": "ann", "deadline_at_ms": 1000})])
        aborted.rollback()
    assert running(postgres_pool, stream.removeprefix("table-")) == []


def test_clocks_ended_long_ago_are_not_read(postgres_pool, postgres_store):
    tables = [f"ended-clock-{uuid.uuid4().hex[:12]}" for _ in range(20)]
    for n, table_id in enumerate(tables):
        postgres_store.append(commands.table_stream(table_id), 0, [
            # a table's log begins with its creation: the shared database's table list
            # (GET /v1/tables, checked against its schema by schemathesis) lists these too
            NewEvent("TableCreated", {"game": "holdem"}),
            NewEvent("ClockStarted", {"hand_id": "h", "seat": 0, "player_id": "ann", "deadline_at_ms": 1000 + n}),
            NewEvent("ClockExpired", {"hand_id": "h", "seat": 0, "player_id": "ann", "deadline_at_ms": 1000 + n,
                                      "expired_at_ms": 2000 + n})])
    found = {table_id for table_id, _ in due_clocks(postgres_pool, EVERYTHING_DUE, 100_000)}
    assert found.isdisjoint(tables)
    with postgres_pool.connection() as connection:
        rows = connection.execute("SELECT count(*) FROM open_clocks WHERE stream_id = ANY(%s)",
                                  ([commands.table_stream(t) for t in tables],)).fetchone()[0]
    assert rows == 0
