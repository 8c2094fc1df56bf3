"""An in-memory event store with the same contract as the PostgreSQL one.

One lock serialises appends, so the global log is simply append order and a global
reader can never be overtaken by a late commit. Notifications are in-process: `appended`
(e.g. service.adapters.notifications.LiveFeeds.publish) is called with the stream and its new
version after each append, as PostgreSQL's trigger notifies its listeners.
"""
from __future__ import annotations

import bisect
import dataclasses
import json
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

from service.adapters.store import failed_streams, idempotency, scope
from service.adapters.store.base import (
    END,
    GENESIS_HASH,
    START,
    AppendResult,
    ChainSigner,
    Checkpoint,
    Head,
    IntegrityFailure,
    NewEvent,
    RangeVerification,
    RecordedEvent,
    Reveal,
    Snapshot,
    Verification,
    VersionConflict,
    canonical_json,
    chained_hash,
    check_append_arguments,
    check_read,
    event_metadata,
    format_recorded_at,
    utc_now,
    verify_chain,
    verify_range,
)
from service.adapters.store.failed_streams import FailedStreams

log = logging.getLogger(__name__)


class InMemoryEventStore:
    def __init__(self, clock: Callable[[], datetime] = utc_now,
                 signer: ChainSigner | None = None) -> None:
        self._clock = clock
        self.signer = signer
        self.failed_streams = FailedStreams()
        self._lock = threading.Lock()
        self._streams: dict[str, list[RecordedEvent]] = {}
        # (checkpoint, event) in append order; the checkpoint's transaction id numbers
        # the append, as PostgreSQL's transaction ids do.
        self._log: list[tuple[Checkpoint, RecordedEvent]] = []
        self._appends: dict[tuple[str, str], AppendResult] = {}
        self._transactions = 0
        self.appended: Callable[[str, int], None] | None = None
        self.idempotency = idempotency.InMemoryIdempotency()
        # (stream, schema) -> snapshots in version order, each with its MAC (None unsigned).
        self._snapshots: dict[tuple[str, str], list[tuple[Snapshot, str | None]]] = {}

    @contextmanager
    def transaction(self) -> Iterator[scope.WriteScope]:
        """The idempotency records' scope. Appends here are not undone when the block
        fails (nothing of this store outlives a crash); the key's claim ends with it."""
        with scope.transaction_of(self) as opened:
            yield opened

    def claim_key(self, owner: str, key: str, now: datetime) -> idempotency.IdempotencyRecord | None:
        opened = scope.current()
        if opened is None or opened.store is not self:
            raise RuntimeError("idempotency records are kept inside store.transaction() only")
        found = self.idempotency.claim(owner, key, now)
        opened.at_end(lambda: self.idempotency.release(owner, key))
        return found

    def claim_key_later(self, owner: str, key: str, now: datetime, *, with_commit: bool = False) -> None:
        """Here at once (nothing to save a round trip of, so nothing is held back to the
        end, `with_commit` or not): settled_claim gives its record."""
        found = self.claim_key(owner, key, now)
        opened = scope.current()
        assert opened is not None  # claim_key found it
        opened.claim = found

    def settled_claim(self, *, write_failed: bool = False) -> idempotency.IdempotencyRecord | None:
        opened = scope.current()
        return None if opened is None else opened.claim

    def record_answer(self, record: idempotency.IdempotencyRecord) -> None:
        self.idempotency.record(record)

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency_key: str | None = None,
        actor: str | None = None,
    ) -> AppendResult:
        check_append_arguments(expected_version, events)
        with self._lock:
            if idempotency_key is not None:
                original = self._appends.get((stream_id, idempotency_key))
                if original is not None:
                    return AppendResult(
                        original.stream_id,
                        original.first_version,
                        original.last_version,
                        original.positions,
                        deduplicated=True,
                    )
            stream = self._streams.get(stream_id, [])
            if len(stream) != expected_version:
                raise VersionConflict(stream_id, expected_version, len(stream))
            # Build the whole batch before touching state, so a refused value (a float,
            # say) leaves nothing half written.
            recorded = self._record(stream_id, stream, events, idempotency_key, actor)
            self._transactions += 1
            self._streams[stream_id] = stream + recorded
            self._log.extend((Checkpoint(self._transactions, e.position), e) for e in recorded)
            result = AppendResult(
                stream_id,
                expected_version + 1,
                expected_version + len(recorded),
                tuple(e.position for e in recorded),
            )
            if idempotency_key is not None:
                self._appends[(stream_id, idempotency_key)] = result
        gathered = scope.current()
        if gathered is not None:  # the receipt of the request's answer
            head = recorded[-1]
            gathered.appended(Head(stream_id, head.version, head.hash, head.mac))
        if self.appended is not None:
            self.appended(stream_id, result.last_version)
        return result

    def _record(
        self,
        stream_id: str,
        stream: list[RecordedEvent],
        events: Sequence[NewEvent],
        idempotency_key: str | None,
        actor: str | None,
    ) -> list[RecordedEvent]:
        recorded_at = self._clock()
        moment = format_recorded_at(recorded_at)
        previous_hash = stream[-1].hash if stream else GENESIS_HASH
        recorded: list[RecordedEvent] = []
        for offset, event in enumerate(events, start=1):
            version = len(stream) + offset
            data_json = canonical_json(event.data)
            metadata_json = canonical_json(event_metadata(event, idempotency_key, actor))
            sealed_json = canonical_json(event.sealed) if event.sealed else None
            previous_hash = chained_hash(
                stream_id, version, event.type, event.schema_version, data_json, metadata_json,
                previous_hash, moment, sealed_json,
            )
            recorded.append(
                RecordedEvent(
                    stream_id=stream_id,
                    version=version,
                    position=len(self._log) + offset,
                    type=event.type,
                    schema_version=event.schema_version,
                    # Through JSON, as PostgreSQL does: tuples come back as lists.
                    data=json.loads(data_json),
                    metadata=json.loads(metadata_json),
                    recorded_at=recorded_at,
                    hash=previous_hash,
                    sealed={} if sealed_json is None else json.loads(sealed_json),
                    mac=None if self.signer is None else self.signer.sign(stream_id, version, previous_hash),
                )
            )
        return recorded

    def read_stream(
        self, stream_id: str, after_version: int = 0, up_to_version: int | None = None,
        *, reveal: Reveal | None = None, checked: bool = True,
    ) -> list[RecordedEvent]:
        """As the PostgreSQL store's: each event checked before it is returned, unless
        `checked` is False (the audits)."""
        if checked:
            self.failed_streams.refuse(stream_id)
        with self._lock:
            stream = self._streams.get(stream_id, [])
            events = stream[after_version:up_to_version]
            if checked:
                self._check(stream, events)
            if reveal is not None and reveal.closing_type is None:
                return events
            closed = set() if reveal is None else {
                e.metadata.get("hand_id") for e in stream if e.type == reveal.closing_type}
        return [e if e.metadata.get("hand_id") in closed and "hand_id" in e.metadata
                else dataclasses.replace(e, sealed=None) for e in events]

    def _check(self, stream: list[RecordedEvent], events: Sequence[RecordedEvent]) -> None:
        """base.check_read of each event, chained from the stored one before it (the
        stream's list holds an event at index version - 1, as stored)."""
        for event in events:
            before = stream[event.version - 2] if 1 < event.version <= len(stream) + 1 else None
            try:
                check_read(event.stream_id, event, event.sealed,
                           None if before is None or before.version != event.version - 1 else before.hash,
                           self.signer)
            except IntegrityFailure as failed:
                raise self.failed_streams.found(failed) from None

    def refuse_failed(self, stream_id: str) -> None:
        self.failed_streams.refuse(stream_id)

    def integrity_failures(self) -> list[IntegrityFailure]:
        return self.failed_streams.all()

    def read_hand(
        self, stream_id: str, hand_id: str, *, opened_by: str, reveal: Reveal | None = None,
    ) -> list[RecordedEvent]:
        """The events tagged with `hand_id`, from its opening event (type `opened_by`) to
        the stream's next opening event. Found by a scan: this store is for tests."""
        with self._lock:
            stream = self._streams.get(stream_id, [])
            first = next((e.version for e in stream
                          if e.type == opened_by and e.metadata.get("hand_id") == hand_id), None)
            if first is None:
                return []
            after = next((e.version for e in stream[first:] if e.type == opened_by), None)
        events = self.read_stream(stream_id, first - 1, None if after is None else after - 1,
                                  reveal=reveal)  # checked, the events of other hands too
        return [e for e in events if e.metadata.get("hand_id") == hand_id]

    def verify_hand(
        self, stream_id: str, hand_id: str, *, opened_by: str,
    ) -> RangeVerification | None:
        """The chain check of one hand's range (verify_range); None when there is no such
        hand. Found by a scan: this store is for tests."""
        with self._lock:
            stream = self._streams.get(stream_id, [])
            first = next((e.version for e in stream
                          if e.type == opened_by and e.metadata.get("hand_id") == hand_id), None)
            if first is None:
                return None
            following = next((e.version for e in stream[first:] if e.type == opened_by), None)
        read = self.read_stream(stream_id, max(first - 2, 0), following, reveal=Reveal.ALL, checked=False)
        return verify_range(stream_id, read, first, opened_by, self.signer)

    def save_snapshot(self, snapshot: Snapshot) -> None:
        """Kept once per (stream, schema, version): a second one at the same version is
        the same state (replays are deterministic), so the first stays."""
        mac = None if self.signer is None else self.signer.sign_snapshot(snapshot)
        with self._lock:
            kept = self._snapshots.setdefault((snapshot.stream_id, snapshot.schema), [])
            versions = [s.version for s, _ in kept]
            at = bisect.bisect_left(versions, snapshot.version)
            if at == len(kept) or kept[at][0].version != snapshot.version:
                kept.insert(at, (snapshot, mac))

    def newest_snapshot(
        self, stream_id: str, schema: str, up_to_version: int | None = None,
    ) -> Snapshot | None:
        """The newest snapshot at or below `up_to_version` under `schema`; with a chain
        key, one whose MAC is not the key's is passed over."""
        with self._lock:
            kept = list(self._snapshots.get((stream_id, schema), ()))
        for snapshot, mac in reversed(kept):
            if up_to_version is not None and snapshot.version > up_to_version:
                continue
            if self.signer is None or self.signer.valid_snapshot(snapshot, mac):
                return snapshot
            failed_streams.snapshot_passed_over(snapshot)
        return None

    def read_from_snapshot(
        self, stream_id: str, schema: str, up_to_version: int | None = None,
    ) -> tuple[Snapshot | None, list[RecordedEvent]]:
        """The newest snapshot at or below `up_to_version` (newest_snapshot) and the events
        after it up to that version, their sealed fields revealed: the owner's replay."""
        found = self.newest_snapshot(stream_id, schema, up_to_version)
        return found, self.read_stream(stream_id, 0 if found is None else found.version,
                                       up_to_version, reveal=Reveal.ALL)

    def stream_version(self, stream_id: str) -> int:
        with self._lock:
            return len(self._streams.get(stream_id, []))

    def read_all(
        self, after: Checkpoint | None = None, limit: int = 1000, *, until: Checkpoint = END
    ) -> tuple[list[RecordedEvent], Checkpoint]:
        after = after or START
        with self._lock:
            start = bisect.bisect_right(self._log, after, key=lambda entry: entry[0])
            stop = bisect.bisect_right(self._log, until, key=lambda entry: entry[0])
            batch = self._log[start : min(start + limit, stop)]
            checked = []
            for _, event in batch:
                if self.failed_streams.failed(event.stream_id):
                    continue
                try:
                    self._check(self._streams[event.stream_id], [event])
                except IntegrityFailure as failed:
                    log.error("left out of the global log's batch: %s", failed)
                    continue
                checked.append(event)
        if not batch:
            return [], after
        return checked, batch[-1][0]

    def verify_stream(self, stream_id: str, receipts: Sequence[Head] = ()) -> Verification:
        return verify_chain(stream_id, self.read_stream(stream_id, reveal=Reveal.ALL, checked=False),
                            self.signer, receipts)

    def list_streams(self, prefix: str = "") -> list[str]:
        with self._lock:
            return sorted(s for s in self._streams if s.startswith(prefix))
