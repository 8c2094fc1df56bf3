"""Table streams spread over several event stores, each table's stream wholly in one.

A table's stream goes to one partition chosen by rendezvous hashing of its table id:
every partition scores `sha256(partition name | table id)` and the highest score wins.
The choice is the same in every process and on every host (no Python `hash()`, no
configuration order), and adding a partition moves only the tables it now wins, about
1/(N+1) of them, where `hash % N` would move most of them. Every other stream
(tournaments, ratings, players, imported hands) lives in the global store: they span
tables, or must be read as one (see docs/SCALING.md).

Per-stream operations (append, read, version, verification) go to the stream's store
unchanged, with that store's own guarantees. The global log is the partitions' logs read
side by side: one checkpoint per store (`PartitionedCheckpoint`), each advanced only by
its own store's gap-safe reader (service.adapters.store.postgres), so a late commit in one
partition is never skipped because another moved on. The merged batch keeps every
stream's order (a stream is in one store); across stores it is ordered by recorded_at,
which is only a hint: followers act on stream versions, never on cross-partition order.

Idempotent requests (`transaction()`, the idempotency records) are not routed: one
request's record and events must commit in one database, and the record is claimed before
the request names its table. Until the records follow the table's partition, this store
serves the per-stream contract and the merged log, not the HTTP write path.
"""
from __future__ import annotations

import hashlib
import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from service.adapters.store.base import (
    START,
    AppendResult,
    Checkpoint,
    EventStore,
    Head,
    IntegrityFailure,
    NewEvent,
    RangeVerification,
    RecordedEvent,
    Reveal,
    Snapshot,
    Verification,
)

TABLE_STREAM_PREFIX = "table-"
"""service.application.commands.STREAM_PREFIX: the streams routed by table id."""
GLOBAL = "global"
"""The global store's name in a PartitionedCheckpoint."""


def partition_of(table_id: str, names: Sequence[str]) -> str:
    """The partition (of `names`) that holds the table's stream: the highest rendezvous
    score."""
    if not names:
        raise ValueError("a partitioned store needs at least one partition")
    return max(names, key=lambda name: hashlib.sha256(f"{name}|{table_id}".encode()).digest())


@dataclass(frozen=True)
class PartitionedCheckpoint:
    """Where a reader of the merged log stopped: one store checkpoint per store name."""

    of: tuple[tuple[str, Checkpoint], ...] = ()

    def at(self, name: str) -> Checkpoint:
        return dict(self.of).get(name, START)


class PartitionedEventStore:
    def __init__(self, tables: Mapping[str, EventStore], global_store: EventStore) -> None:
        """`tables`: partition name -> store, for the table streams; `global_store` for
        every other stream (it may also be one of `tables`). A name must never change
        once tables are written: it decides where they are."""
        if GLOBAL in tables:
            raise ValueError(f"{GLOBAL!r} names the global store; give the partitions other names")
        self._tables = dict(tables)
        self._names = tuple(sorted(self._tables))
        partition_of("", self._names)  # refuses an empty mapping at once
        self._global = global_store
        # Each distinct store once (the global store may double as a partition), so the
        # merged log reads nothing twice.
        self._stores: dict[str, EventStore] = {GLOBAL: global_store}
        for name in self._names:
            if all(self._tables[name] is not known for known in self._stores.values()):
                self._stores[name] = self._tables[name]

    @property
    def signer(self) -> object:
        return getattr(self._global, "signer", None)

    def store_for(self, stream_id: str) -> EventStore:
        if stream_id.startswith(TABLE_STREAM_PREFIX):
            return self._tables[partition_of(stream_id[len(TABLE_STREAM_PREFIX):], self._names)]
        return self._global

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency_key: str | None = None,
        actor: str | None = None,
    ) -> AppendResult:
        return self.store_for(stream_id).append(stream_id, expected_version, events,
                                                idempotency_key=idempotency_key, actor=actor)

    def read_stream(
        self, stream_id: str, after_version: int = 0, up_to_version: int | None = None,
        *, reveal: Reveal | None = None, checked: bool = True,
    ) -> list[RecordedEvent]:
        return self.store_for(stream_id).read_stream(stream_id, after_version, up_to_version,
                                                     reveal=reveal, checked=checked)

    def read_hand(
        self, stream_id: str, hand_id: str, *, opened_by: str, reveal: Reveal | None = None,
    ) -> list[RecordedEvent]:
        return self.store_for(stream_id).read_hand(stream_id, hand_id, opened_by=opened_by,
                                                   reveal=reveal)

    def verify_hand(
        self, stream_id: str, hand_id: str, *, opened_by: str,
    ) -> RangeVerification | None:
        return self.store_for(stream_id).verify_hand(stream_id, hand_id, opened_by=opened_by)

    def save_snapshot(self, snapshot: Snapshot) -> None:
        """Beside the stream it is of, so a load reads both in one statement."""
        self.store_for(snapshot.stream_id).save_snapshot(snapshot)

    def newest_snapshot(
        self, stream_id: str, schema: str, up_to_version: int | None = None,
    ) -> Snapshot | None:
        return self.store_for(stream_id).newest_snapshot(stream_id, schema, up_to_version)

    def read_from_snapshot(
        self, stream_id: str, schema: str, up_to_version: int | None = None,
    ) -> tuple[Snapshot | None, list[RecordedEvent]]:
        return self.store_for(stream_id).read_from_snapshot(stream_id, schema, up_to_version)

    def stream_version(self, stream_id: str) -> int:
        return self.store_for(stream_id).stream_version(stream_id)

    def verify_stream(self, stream_id: str, receipts: Sequence[Head] = ()) -> Verification:
        return self.store_for(stream_id).verify_stream(stream_id, receipts)

    def forget(self, stream_id: str) -> None:
        forget = getattr(self.store_for(stream_id), "forget", None)
        if forget is not None:
            forget(stream_id)

    def refuse_failed(self, stream_id: str) -> None:
        self.store_for(stream_id).refuse_failed(stream_id)

    def integrity_failures(self) -> list[IntegrityFailure]:
        return sorted((failure for store in self._stores.values() for failure in store.integrity_failures()),
                      key=lambda failure: failure.stream_id)

    def list_streams(self, prefix: str = "") -> list[str]:
        return list(heapq.merge(*(store.list_streams(prefix) for store in self._stores.values())))

    def read_all(
        self, after: PartitionedCheckpoint | None = None, limit: int = 1000
    ) -> tuple[list[RecordedEvent], PartitionedCheckpoint]:
        """Up to `limit` events of each store after its checkpoint, merged."""
        after = after or PartitionedCheckpoint()
        batches = []
        reached = []
        for name, store in self._stores.items():
            events, checkpoint = store.read_all(after.at(name), limit)
            batches.append(events)
            reached.append((name, checkpoint))
        # heapq.merge takes from the front of each batch only, so each store's own
        # (gap-safe) order is kept whatever the clocks say.
        merged = list(heapq.merge(*batches, key=lambda event: event.recorded_at))
        return merged, PartitionedCheckpoint(tuple(reached))
