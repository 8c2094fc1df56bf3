"""Tables routed over TWO PostgreSQL servers (the test database's server and an embedded
one this module starts): every table's events are in one server only, reads and appends
through the router are right, the global streams stay on the global server, and the
merged global log delivers each event once, a late commit in one partition included."""
from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from domain.live import table
from domain.rules.betting import BettingStructure
from service.adapters.store.base import NewEvent, VersionConflict
from service.adapters.store.partitioned import (
    PartitionedCheckpoint,
    PartitionedEventStore,
    partition_of,
)
from service.adapters.store.postgres import PostgresEventStore, open_pool
from service.application import commands
from tests import applications

pytestmark = pytest.mark.integration

TABLES = 200
FOLLOW_S = 30


@pytest.fixture(scope="module")
def second_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(admin URL, application URL) of a fresh, migrated database on an embedded PostgreSQL
    of its own: a second primary beside the test database's."""
    from service.adapters.embedded.postgres import FAST_UNSAFE_SETTINGS, EmbeddedPostgres
    from tests.conftest import _fresh_database_on

    server = EmbeddedPostgres(Path(tmp_path_factory.mktemp("second-postgres")) / "data",
                              settings=FAST_UNSAFE_SETTINGS)
    server.start()
    try:
        yield from _fresh_database_on(server.url)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def first_server(admin_database_url: str) -> Iterator[tuple[str, str]]:
    """A fresh database of its own on the test database's server: the routed streams here
    are made up ("Opened", "TournamentScheduled"), and the database the other tests share
    is read whole by its table list and the tournament manager."""
    from tests.conftest import _fresh_database_on

    yield from _fresh_database_on(admin_database_url)


@pytest.fixture(scope="module")
def partitions(first_server: tuple[str, str], second_server: tuple[str, str]
               ) -> Iterator[dict[str, PostgresEventStore]]:
    pools = [open_pool(first_server[1], max_size=4), open_pool(second_server[1], max_size=4)]
    yield {"east": PostgresEventStore(pools[0]), "west": PostgresEventStore(pools[1])}
    for pool in pools:
        pool.close()


@pytest.fixture(scope="module")
def router(partitions: dict[str, PostgresEventStore]) -> PartitionedEventStore:
    return PartitionedEventStore(partitions, global_store=partitions["east"])


def new_tables(count: int) -> list[str]:
    return [f"routed-{uuid.uuid4().hex[:12]}" for _ in range(count)]


def test_every_table_lives_in_exactly_one_server_and_reads_back_through_the_router(router, partitions):
    tables = new_tables(TABLES)
    for table_id in tables:
        stream = commands.table_stream(table_id)
        router.append(stream, 0, [NewEvent("Opened", {"table": table_id})])
        router.append(stream, 1, [NewEvent("Dealt", {"n": 1}), NewEvent("Bet", {"to": 100})])

    placed = {name: set() for name in partitions}
    for table_id in tables:
        stream = commands.table_stream(table_id)
        home = partition_of(table_id, sorted(partitions))
        placed[home].add(table_id)
        versions = {name: store.stream_version(stream) for name, store in partitions.items()}
        assert versions == {name: 3 if name == home else 0 for name in partitions}, table_id
        direct = partitions[home].read_stream(stream)
        assert [e.type for e in direct] == ["Opened", "Dealt", "Bet"]
        assert router.read_stream(stream) == direct
        assert router.stream_version(stream) == 3
        assert router.verify_stream(stream).ok

    # Both servers hold a fair share (binomial: 100 +- 7 of 200), and no table both.
    assert all(len(held) > TABLES // 4 for held in placed.values()), {n: len(h) for n, h in placed.items()}
    listed = {name: {s.removeprefix("table-") for s in store.list_streams("table-routed-")}
              for name, store in partitions.items()}
    assert listed["east"].isdisjoint(listed["west"])
    for name in partitions:
        assert set(tables) & listed[name] == placed[name]
    assert set(tables) <= {s.removeprefix("table-") for s in router.list_streams("table-routed-")}


def test_conflicts_and_retries_are_settled_by_the_tables_own_server(router, partitions):
    [table_id] = new_tables(1)
    stream = commands.table_stream(table_id)
    first = router.append(stream, 0, [NewEvent("Opened", {})], idempotency_key="open-1")
    again = router.append(stream, 0, [NewEvent("Opened", {})], idempotency_key="open-1")
    assert again == first and again.deduplicated
    with pytest.raises(VersionConflict) as conflict:
        router.append(stream, 0, [NewEvent("Opened", {})])
    assert (conflict.value.expected, conflict.value.actual) == (0, 1)
    home = partition_of(table_id, sorted(partitions))
    other = next(name for name in partitions if name != home)
    assert partitions[other].stream_version(stream) == 0


def test_global_streams_stay_on_the_global_server(router, partitions):
    stream = f"tournament-{uuid.uuid4().hex[:12]}"
    router.append(stream, 0, [NewEvent("TournamentScheduled", {})])
    assert partitions["east"].stream_version(stream) == 1
    assert partitions["west"].stream_version(stream) == 0


def test_the_application_layer_plays_on_routed_tables(router, partitions):
    nl = BettingStructure("no-limit", small_blind=50, big_blind=100)
    seats = (table.TableSeat("ann", 1000), table.TableSeat("bob", 1000))
    for table_id in new_tables(6):
        commands.create_table(applications.of(router), table.CreateTable(table_id, "holdem", {}, nl, seats))
        started = commands.start_next_hand(applications.of(router), table_id, 1)
        folded = commands.execute(applications.of(router), table_id, started.version, table.Act("ann", "fold"))
        home = partition_of(table_id, sorted(partitions))
        direct = partitions[home].read_stream(commands.table_stream(table_id))
        assert direct[-1].version == folded.version and direct[-1].type == "HandClosed"
        assert commands.load_table(applications.of(router), table_id).state.hands_played == 1


def follow(router: PartitionedEventStore, checkpoint: PartitionedCheckpoint, streams: set[str],
           count: int) -> tuple[list, PartitionedCheckpoint]:
    """Read the merged log from `checkpoint` until `count` events of `streams` arrived."""
    seen: list = []
    deadline = time.monotonic() + FOLLOW_S
    while len(seen) < count:
        assert time.monotonic() < deadline, f"{len(seen)} of {count} events in {FOLLOW_S} s"
        events, checkpoint = router.read_all(checkpoint, limit=500)
        seen += [e for e in events if e.stream_id in streams]
        if not events:
            time.sleep(0.05)
    return seen, checkpoint


def drained(router: PartitionedEventStore) -> PartitionedCheckpoint:
    checkpoint = PartitionedCheckpoint()
    while True:
        events, checkpoint = router.read_all(checkpoint, limit=5000)
        if not events:
            return checkpoint


def test_the_merged_log_gives_every_event_once_and_waits_for_a_late_commit(
        router, partitions, database_url, second_server):
    checkpoint = drained(router)
    tables = new_tables(40)
    by_home = {name: [t for t in tables if partition_of(t, sorted(partitions)) == name]
               for name in partitions}
    late_table = by_home["west"][0]
    late_stream = commands.table_stream(late_table)
    with psycopg.connect(second_server[1]) as late:
        # West's writer holds its transaction open while both servers take later commits.
        partitions["west"].append_on(late, late_stream, 0, [NewEvent("Late", {})])
        streams = {commands.table_stream(t) for t in tables}
        for table_id in tables:
            if table_id != late_table:
                stream = commands.table_stream(table_id)
                router.append(stream, 0, [NewEvent("Opened", {}), NewEvent("Dealt", {})])
        # Everything committed on east arrives; west stops short of the open transaction.
        east_count = 2 * len(by_home["east"])
        seen, checkpoint = follow(router, checkpoint, streams, east_count)
        assert late_stream not in {e.stream_id for e in seen}
        late.commit()
    total = 2 * (len(tables) - 1) + 1
    more, _ = follow(router, checkpoint, streams, total - len(seen))
    everything = seen + more
    keys = [(e.stream_id, e.version) for e in everything]
    assert len(keys) == len(set(keys)) == total
    assert ("table-" + late_table, 1) in keys
    for stream in streams:  # each stream in its own order
        versions = [v for s, v in keys if s == stream]
        assert versions == sorted(versions)
