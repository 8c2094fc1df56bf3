"""Where the partitioned store puts a table (service.adapters.store.partitioned): the same
partition for the same table wherever it is asked, a fair share for each partition, and a
new partition takes tables only for itself. Merged reads over in-memory stores."""
from __future__ import annotations

import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.adapters.store.base import NewEvent, Snapshot
from service.adapters.store.memory import InMemoryEventStore
from service.adapters.store.partitioned import (
    PartitionedCheckpoint,
    PartitionedEventStore,
    partition_of,
)

NAMES = st.lists(st.text("abcdefghijklmnop0123456789", min_size=1, max_size=6), min_size=1, max_size=8,
                 unique=True)


@settings(max_examples=200)
@given(NAMES, st.text(min_size=1, max_size=40))
def test_a_table_goes_to_the_same_partition_whatever_the_order_of_the_names(names, table_id):
    assert partition_of(table_id, names) == partition_of(table_id, list(reversed(names))) in names


@settings(max_examples=200)
@given(NAMES, st.text("abcdefghijklmnop0123456789", min_size=1, max_size=6), st.text(min_size=1, max_size=40))
def test_a_new_partition_takes_tables_only_for_itself(names, added, table_id):
    if added in names:
        return
    before, after = partition_of(table_id, names), partition_of(table_id, [*names, added])
    assert after in (before, added)


def test_tables_spread_evenly_and_a_fourth_partition_moves_about_a_quarter():
    tables = [str(uuid.UUID(int=n)) for n in range(4000)]
    three = [partition_of(t, ["p0", "p1", "p2"]) for t in tables]
    assert all(1200 < three.count(name) < 1467 for name in ("p0", "p1", "p2"))
    moved = sum(partition_of(t, ["p0", "p1", "p2", "p3"]) != was for t, was in zip(tables, three))
    assert 850 < moved < 1150  # 1/4 of 4,000 = 1,000; hash mod N would move 3/4


def test_no_partitions_is_refused():
    with pytest.raises(ValueError):
        partition_of("t", [])


def test_the_merged_log_reads_each_store_from_its_own_checkpoint():
    east, west = InMemoryEventStore(), InMemoryEventStore()
    router = PartitionedEventStore({"east": east, "west": west}, global_store=east)
    tables = [f"t{n}" for n in range(20)]
    for table_id in tables:
        router.append(f"table-{table_id}", 0, [NewEvent("Opened", {}), NewEvent("Dealt", {})])
    router.append("tournament-1", 0, [NewEvent("TournamentScheduled", {})])
    first, checkpoint = router.read_all(limit=5)
    assert {name for name, _ in checkpoint.of} == {"global", "west"}  # east is the global store
    rest, checkpoint = router.read_all(checkpoint, limit=1000)
    seen = [(e.stream_id, e.version) for e in first + rest]
    assert len(seen) == len(set(seen)) == 2 * len(tables) + 1
    assert router.read_all(checkpoint) == ([], checkpoint)
    assert router.read_all(PartitionedCheckpoint(), limit=1000)[0] != []
    assert router.list_streams("table-") == sorted(f"table-{t}" for t in tables)


def test_a_tables_snapshots_and_hand_reads_stay_in_its_partition():
    east, west = InMemoryEventStore(), InMemoryEventStore()
    router = PartitionedEventStore({"east": east, "west": west}, global_store=east)
    stream = f"table-{uuid.uuid4().hex}"
    home = router.store_for(stream)
    router.append(stream, 0, [NewEvent("TableCreated", {}),
                              NewEvent("HandOpened", {}, metadata={"hand_id": "h.1"})])
    router.save_snapshot(Snapshot(stream, 1, "schema", "{}"))

    assert home.newest_snapshot(stream, "schema") == Snapshot(stream, 1, "schema", "{}")
    assert (east if home is west else west).newest_snapshot(stream, "schema") is None
    found, events = router.read_from_snapshot(stream, "schema")
    assert found.version == 1 and [e.version for e in events] == [2]
    assert router.newest_snapshot(stream, "schema") == found
    assert [e.version for e in router.read_hand(stream, "h.1", opened_by="HandOpened")] == [2]
