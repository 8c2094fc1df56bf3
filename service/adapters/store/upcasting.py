"""The upcaster: records written before positions were named are read as written now.

Events are append-only and hash-chained, so a record's stored text never changes; when
the shape of a record changes, the old one is converted on read instead, in this one
place (the `eventsourcing` library's upcasting). Since schema version 2
(domain.live.table_records.POSITIONS_NAMED) a hand event names a player's place in the
hand `position`, and a table's stream records hand events in the table form (`seat` the
table seat, the position beside it; HandEnded and HandClosed list `{seat, player_id,
stack}`). A record of schema version 1 is read as if written so: an imported hand's by
its record alone, a table's with the seating of its hand (HandOpened.seats, and the
players its start event names), taken from the records read before it or, when a read
begins inside an old hand, from that hand's own records (one `read_hand`). Records of
schema version 2, and every other stream, pass untouched and cost nothing.

Hashes stay those of the stored text: verifying the chain reads the stored records
(`stored`, the store this one reads from).

With a data key (`cipher`), this is also where secrets are encrypted on their way in and
decrypted on their way out (service.adapters.store.cipher): every append, snapshot and read
of the application and the workers passes here, over either store.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from domain.live import table_records
from domain.live.table_records import HandSeating
from service.adapters.store import cipher
from service.adapters.store.base import END, AppendResult, Checkpoint, EventStore, NewEvent, RecordedEvent, Reveal, Snapshot
from service.adapters.store.cipher import FieldCipher
from service.adapters.store.forwarding import Forwarded

_HAND_OPENED = "HandOpened"


class UpcastingStore:
    """An event store whose reads give old records as written now; anything else goes
    straight to the store it wraps (`stored`). `table_prefix`, `hand_prefix`: what the id
    of a table's stream and of an imported hand's begins with."""

    def __init__(self, store: EventStore, table_prefix: str, hand_prefix: str,
                 cipher: FieldCipher | None = None) -> None:
        self.stored = store
        self._table_prefix = table_prefix
        self._hand_prefix = hand_prefix
        self._cipher = cipher

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stored, name)

    # What every idempotent write asks for, found here without a miss (store.forwarding).
    transaction = Forwarded("stored")
    claim_key_later = Forwarded("stored")
    settled_claim = Forwarded("stored")
    record_answer = Forwarded("stored")
    refuse_failed = Forwarded("stored")
    stream_version = Forwarded("stored")

    def append(self, stream_id: str, expected_version: int, events: Sequence[NewEvent],
               **options: Any) -> AppendResult:
        return self.stored.append(stream_id, expected_version,
                                  self._encrypted(stream_id, expected_version, events), **options)

    def append_on(self, connection: Any, stream_id: str, expected_version: int,
                  events: Sequence[NewEvent], **options: Any) -> AppendResult:
        return self.stored.append_on(connection, stream_id, expected_version,  # type: ignore[attr-defined, no-any-return]
                                     self._encrypted(stream_id, expected_version, events), **options)

    def save_snapshot(self, snapshot: Snapshot) -> None:
        self.stored.save_snapshot(snapshot if self._cipher is None else cipher.encrypt_snapshot(self._cipher, snapshot))

    def newest_snapshot(self, stream_id: str, schema: str, up_to_version: int | None = None) -> Snapshot | None:
        return self._snapshot(self.stored.newest_snapshot(stream_id, schema, up_to_version))

    def read_stream(self, stream_id: str, after_version: int = 0, up_to_version: int | None = None,
                    *, reveal: Reveal | None = None, checked: bool = True) -> list[RecordedEvent]:
        return self._read(self.stored.read_stream(stream_id, after_version, up_to_version, reveal=reveal,
                                                  checked=checked))

    def read_hand(self, stream_id: str, hand_id: str, *, opened_by: str,
                  reveal: Reveal | None = None) -> list[RecordedEvent]:
        return self._read(self.stored.read_hand(stream_id, hand_id, opened_by=opened_by, reveal=reveal))

    def read_from_snapshot(self, stream_id: str, schema: str, up_to_version: int | None = None,
                           ) -> tuple[Snapshot | None, list[RecordedEvent]]:
        snapshot, records = self.stored.read_from_snapshot(stream_id, schema, up_to_version)
        try:
            return self._snapshot(snapshot), self._read(records)
        except cipher.SecretUnreadable as unreadable:
            if snapshot is None or unreadable.version != snapshot.version:
                raise
            # A snapshot that does not open is a cache lost (another data key): replay.
            return None, self.read_stream(stream_id, 0, up_to_version, reveal=Reveal.ALL)

    def read_all(self, after: Checkpoint | None = None, limit: int = 1000, *,
                 until: Checkpoint = END) -> tuple[list[RecordedEvent], Checkpoint]:
        records, checkpoint = self.stored.read_all(after, limit, until=until)
        return self._read(records), checkpoint

    def _encrypted(self, stream_id: str, expected_version: int, events: Sequence[NewEvent]) -> Sequence[NewEvent]:
        """The events as stored: their secrets encrypted (service.adapters.store.cipher)."""
        if self._cipher is None:
            return events
        return cipher.encrypt_events(self._cipher, stream_id, expected_version, events)

    def _snapshot(self, snapshot: Snapshot | None) -> Snapshot | None:
        return snapshot if self._cipher is None else cipher.decrypt_snapshot(self._cipher, snapshot)

    def _read(self, records: list[RecordedEvent]) -> list[RecordedEvent]:
        """Stored records as written now: their secrets decrypted, old shapes upcast."""
        if self._cipher is not None:
            records = cipher.decrypt_records(self._cipher, records)
        return self._upcast(records)

    def _is_old(self, record: RecordedEvent) -> bool:
        return record.schema_version == table_records.SEAT_WAS_POSITION \
            and record.stream_id.startswith((self._table_prefix, self._hand_prefix))

    def _upcast(self, records: list[RecordedEvent]) -> list[RecordedEvent]:
        if not any(self._is_old(record) for record in records):
            return records
        # (stream, hand) -> its seating as of the last record read; a read of the global
        # log interleaves streams.
        seatings: dict[tuple[str, str], HandSeating | None] = {}
        upcast = []
        for record in records:
            if not self._is_old(record):
                upcast.append(record)
                continue
            if record.stream_id.startswith(self._hand_prefix):
                upcast.append(replace(record, schema_version=table_records.POSITIONS_NAMED,
                                      data=table_records.named_positions(record.type, record.data)))
                continue
            hand_id = record.metadata.get("hand_id")
            seating = None
            try:
                if hand_id is not None:  # a hand's record; the table's others count table seats
                    key = (record.stream_id, hand_id)
                    if key not in seatings:
                        seatings[key] = None if record.type == _HAND_OPENED else self._seating_before(record, hand_id)
                    seating = seatings[key] = table_records.seating_after(seatings[key], record.type, record.data)
                data = table_records.upcast(record.type, record.data, seating)
            except (KeyError, IndexError, TypeError, ValueError):
                # Not what the code of schema version 1 wrote (a forgery, which the chain
                # check names): read as stored, so that a reader of the whole log (the
                # tournament manager) does not stop at it.
                upcast.append(record)
                continue
            upcast.append(replace(record, schema_version=table_records.POSITIONS_NAMED, data=data))
        return upcast

    def _seating_before(self, record: RecordedEvent, hand_id: str) -> HandSeating | None:
        """The seating of `hand_id` just before `record`, from the hand's own records."""
        seating = None
        for earlier in self.stored.read_hand(record.stream_id, hand_id, opened_by=_HAND_OPENED):
            if earlier.version >= record.version:
                break
            seating = table_records.seating_after(seating, earlier.type, earlier.data)
        return seating

