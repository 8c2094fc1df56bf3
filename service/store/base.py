"""The event store contract shared by the in-memory and PostgreSQL stores.

A stream is the ordered history of one aggregate (a table, a tournament); versions start
at 1 and have no gaps. Every event is chained to the previous event of its stream by a
SHA-256 hash over a canonical JSON document, so floor staff can prove a log unaltered.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping, Protocol, Sequence

GENESIS_HASH = "0" * 64
"""The "previous hash" of a stream's first event."""


@dataclass(frozen=True)
class NewEvent:
    """An event about to be appended (the store adds version, position, time and hash)."""

    type: str
    data: Mapping[str, Any]
    schema_version: int = 1
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RecordedEvent:
    stream_id: str
    version: int
    position: int
    type: str
    schema_version: int
    data: Mapping[str, Any]
    metadata: Mapping[str, Any]
    recorded_at: datetime
    hash: str
    """Hex SHA-256 of this event's canonical document, which includes the previous hash."""


@dataclass(frozen=True)
class AppendResult:
    stream_id: str
    first_version: int
    last_version: int
    positions: tuple[int, ...]
    deduplicated: bool = field(default=False, compare=False)
    """True when an idempotent retry returned the original result (nothing was written).
    Left out of equality so a retry's result equals the original."""


@dataclass(frozen=True, order=True)
class Checkpoint:
    """Where a global reader stopped: ordered by (transaction_id, position).

    The PostgreSQL store orders the global log by the writing transaction's id, then by
    position (see service.store.postgres); the in-memory store numbers its appends.
    """

    transaction_id: int
    position: int


START = Checkpoint(0, 0)


@dataclass(frozen=True)
class Verification:
    ok: bool
    events: int
    first_bad_version: int | None


class VersionConflict(Exception):
    """The stream was not at the expected version; nothing was written."""

    def __init__(self, stream_id: str, expected: int, actual: int) -> None:
        super().__init__(
            f"stream {stream_id!r} is at version {actual}, not the expected {expected}"
        )
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual


class EventStore(Protocol):
    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency_key: str | None = None,
        actor: str | None = None,
    ) -> AppendResult: ...

    def read_stream(
        self, stream_id: str, after_version: int = 0, up_to_version: int | None = None
    ) -> list[RecordedEvent]: ...

    def stream_version(self, stream_id: str) -> int: ...

    def read_all(
        self, after: Checkpoint | None = None, limit: int = 1000
    ) -> tuple[list[RecordedEvent], Checkpoint]: ...

    def verify_stream(self, stream_id: str) -> Verification: ...

    def list_streams(self, prefix: str = "") -> list[str]: ...


def check_append_arguments(expected_version: int, events: Sequence[NewEvent]) -> None:
    if expected_version < 0:
        raise ValueError(f"expected_version must be 0 or more, not {expected_version}")
    if not events:
        raise ValueError("an append needs at least one event")


def event_metadata(
    event: NewEvent, idempotency_key: str | None, actor: str | None
) -> dict[str, Any]:
    """The metadata stored with an event: the caller's, plus who appended it and the key."""
    metadata = dict(event.metadata)
    if actor is not None:
        metadata["actor"] = actor
    if idempotency_key is not None:
        metadata["idempotency_key"] = idempotency_key
    return metadata


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 text: the same bytes wherever the value came from.

    Floats are refused: PostgreSQL keeps JSON numbers as `numeric` and gives some back in
    another spelling (1e+16 comes back as 10000000000000000, -0.0 as 0), which would
    break the hash chain on verification. Events hold whole numbers or strings.
    The NUL character and lone surrogates are refused too: PostgreSQL text and jsonb
    cannot hold them, and UTF-8 cannot encode a surrogate.
    """
    check_storable(value)
    return _CANONICAL.encode(value)


def check_storable(value: Any) -> None:
    """Refuse what canonical_json refuses (floats, NUL, lone surrogates, non-string keys),
    without encoding anything."""
    # Exact-type fast paths first (events are mostly these): the checks below are the same,
    # but `isinstance(x, typing.Mapping)` is slow.
    kind = type(value)
    if kind is int or kind is bool or value is None:
        return
    if kind is dict:
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"event keys must be strings (got {key!r})")
            if "\x00" in key or not key.isascii():
                check_storable(key)
            # Inline for the plain ASCII texts and ints events are full of: no call for them.
            item_kind = type(item)
            if item_kind is str:
                if "\x00" in item or not item.isascii():
                    check_storable(item)
            elif item_kind is not int:
                check_storable(item)
        return
    if kind is list or kind is tuple:
        if value and type(value[0]) is str and _plain_ascii_texts(value):
            return
        for item in value:
            item_kind = type(item)
            if item_kind is str:
                if "\x00" in item or not item.isascii():
                    check_storable(item)
            elif item_kind is not int:
                check_storable(item)
        return
    if isinstance(value, float):
        raise TypeError(f"event values must not be floats (got {value!r}): use int or str")
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError(f"event text must not contain the NUL character: {value!r}")
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError(f"event text must be valid Unicode: {value!r}") from None
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"event keys must be strings (got {key!r})")
            check_storable(key)
            check_storable(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            check_storable(item)


def _plain_ascii_texts(texts: list[Any] | tuple[Any, ...]) -> bool:
    """True when every item is a text of ASCII without NUL, checked as one joined text at C
    speed (decks, card and player lists); False sends the caller item by item."""
    try:
        joined = "".join(texts)
    except TypeError:  # not all texts
        return False
    return "\x00" not in joined and joined.isascii()


def _refuse(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON-friendly: {value!r}")


# One encoder for every call: json.dumps with options builds a new one each time.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_refuse)


def utc_now() -> datetime:
    """The stores' clock for recorded_at (a store takes another, e.g. in tests)."""
    return datetime.now(timezone.utc)


def format_recorded_at(moment: datetime) -> str:
    """UTC with microseconds (PostgreSQL keeps microseconds too): the hashed spelling,
    "2026-11-30T09:38:46.123456Z" (isoformat is C code; strftime is twice as slow)."""
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")[:-6] + "Z"


def event_hash(
    stream_id: str,
    version: int,
    type: str,
    schema_version: int,
    data: Mapping[str, Any],
    metadata: Mapping[str, Any],
    previous_hash: str,
    recorded_at: datetime,
) -> str:
    """Hex SHA-256 of the event's canonical document: the canonical JSON of {data, metadata,
    previous_hash, recorded_at, schema_version, stream_id, type, version}."""
    return chained_hash(stream_id, version, type, schema_version, canonical_json(data),
                        canonical_json(metadata), previous_hash, format_recorded_at(recorded_at))


def chained_hash(
    stream_id: str,
    version: int,
    type: str,
    schema_version: int,
    data_json: str,
    metadata_json: str,
    previous_hash: str,
    recorded_at: str,
) -> str:
    """event_hash from data and metadata already in canonical JSON (a store encodes them
    once, for storing and for hashing) and recorded_at already spelled (format_recorded_at).
    The document is written with its keys in sorted order, exactly as canonical_json would
    write it whole."""
    document = (
        f'{{"data":{data_json},"metadata":{metadata_json},"previous_hash":"{previous_hash}",'
        f'"recorded_at":"{recorded_at}","schema_version":{schema_version:d},'
        f'"stream_id":{_CANONICAL.encode(stream_id)},"type":{_CANONICAL.encode(type)},'
        f'"version":{version:d}}}'
    )
    return hashlib.sha256(document.encode("utf-8")).hexdigest()


def verify_chain(stream_id: str, events: Sequence[RecordedEvent]) -> Verification:
    """Recompute every hash in version order; the first mismatch or gap is the bad one."""
    previous_hash = GENESIS_HASH
    for expected_version, event in enumerate(events, start=1):
        if event.version != expected_version or event.hash != event_hash(
            stream_id, event.version, event.type, event.schema_version, event.data,
            event.metadata, previous_hash, event.recorded_at,
        ):
            return Verification(False, len(events), expected_version)
        previous_hash = event.hash
    return Verification(True, len(events), None)
