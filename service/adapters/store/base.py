"""The event store contract shared by the in-memory and PostgreSQL stores.

A stream is the ordered history of one aggregate (a table, a tournament); versions start
at 1 and have no gaps. Every event is chained to the previous event of its stream by a
SHA-256 hash over a canonical JSON document, so floor staff can prove a log unaltered.
"""
from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar, Protocol

from domain.frozen import made_at_once
from service import json_text

try:  # what hmac.new makes its HMAC-SHA256 with (typeshed declares _hashlib)
    from _hashlib import hmac_new as _openssl_hmac
except ImportError:  # a Python built without OpenSSL
    _openssl_hmac = None  # type: ignore[assignment]

GENESIS_HASH = "0" * 64
"""The "previous hash" of a stream's first event."""


@made_at_once
@dataclass(frozen=True)
class NewEvent:
    """An event about to be appended (the store adds version, position, time and hash)."""

    type: str
    data: Mapping[str, Any]
    schema_version: int = 1
    metadata: Mapping[str, Any] = field(default_factory=dict)
    sealed: Mapping[str, Any] = field(default_factory=dict)
    """The event's secret fields (a deck, a salt), stored apart from `data`: a read returns
    them only when it asks to (see Reveal). The hash chain covers them."""


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
    sealed: Mapping[str, Any] | None = None
    """The sealed fields when the read revealed them ({} when the event has none); None when
    they were withheld."""
    mac: str | None = None
    """Hex HMAC of (stream, version, hash) under the chain key (ChainSigner); None on events
    written before the chain was keyed."""

    @property
    def revealed(self) -> bool:
        """True when the read returned this event's sealed fields (or it has none)."""
        return self.sealed is not None

    def full_data(self) -> Mapping[str, Any]:
        """`data` with the sealed fields put back: the event as the domain recorded it."""
        return {**self.data, **self.sealed} if self.sealed else self.data


@dataclass(frozen=True)
class Reveal:
    """What sealed fields a read returns with the events.

    `Reveal.ALL`: every one (the application's own replay; verification). `Reveal.closed_by
    ("HandClosed")`: only those of events whose `hand_id` (metadata) has an event of that type
    in the stream, decided by the store in the same statement that reads the events, so a
    hand that starts during the read can never be revealed. Without a Reveal, none.
    """

    closing_type: str | None = None

    ALL: ClassVar[Reveal]

    @classmethod
    def closed_by(cls, closing_type: str) -> Reveal:
        return cls(closing_type)


Reveal.ALL = Reveal()


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
    position (see service.adapters.store.postgres); the in-memory store numbers its appends.
    """

    transaction_id: int
    position: int


START = Checkpoint(0, 0)
END = Checkpoint(2**63 - 1, 2**63 - 1)
"""Beyond any event: `read_all`'s default upper bound."""


@dataclass(frozen=True)
class Verification:
    ok: bool
    events: int
    first_bad_version: int | None
    reason: str | None = field(default=None, compare=False)
    """Why the first bad version is bad, in words (None when ok)."""
    warnings: tuple[str, ...] = field(default=(), compare=False)
    """What weakens the check without failing it (no signed public log to check against)."""


@dataclass(frozen=True)
class Snapshot:
    """A stream's state at `version`, encoded by its owner (service.application.snapshots)
    under the tag `schema`: a cache of the replay up to that version, kept beside the log."""

    stream_id: str
    version: int
    schema: str
    body: str


class UnreadableStream(Exception):
    """A stored stream this code cannot read: an event of a type or shape the domain no
    longer accepts, or stored before a fix with values it now refuses. Reported to whoever
    reads it (a problem with a stable code, a line in the status, the follower parking
    that stream), never a crash of the reader."""

    code = "unreadable_stream"

    def __init__(self, stream_id: str, version: int | None, reason: str) -> None:
        super().__init__(f"{stream_id} cannot be read at version {version}: {reason}")
        self.stream_id = stream_id
        self.version = version
        self.reason = reason


class IntegrityFailure(UnreadableStream):
    """A stream whose stored log fails its check on read: an event that does not hash to
    its recorded hash from the one before it, or whose MAC is not the chain key's (written
    behind the store's back). Nothing is decided, dealt, rated or served from it: every
    reader that passes over an unreadable stream passes over this one too."""

    code = "integrity_failure"

    def __init__(self, stream_id: str, version: int, reason: str) -> None:
        super().__init__(stream_id, version, reason)
        self.version: int = version

    def __str__(self) -> str:
        return f"{self.stream_id} fails its integrity check at version {self.version}: {self.reason}"


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
        self, stream_id: str, after_version: int = 0, up_to_version: int | None = None,
        *, reveal: Reveal | None = None, checked: bool = True,
    ) -> list[RecordedEvent]:
        """Each event checked before it is returned (check_read; IntegrityFailure when one
        fails, and at once for a stream that failed before); `checked` False: as stored,
        for the audits that report what they find (verify, receipts)."""
        ...

    def read_hand(
        self, stream_id: str, hand_id: str, *, opened_by: str, reveal: Reveal | None = None,
    ) -> list[RecordedEvent]: ...

    def verify_hand(
        self, stream_id: str, hand_id: str, *, opened_by: str,
    ) -> RangeVerification | None:
        """The chain check of the hand `read_hand` reads (verify_range); None: no such hand."""
        ...

    def stream_version(self, stream_id: str) -> int: ...

    def save_snapshot(self, snapshot: Snapshot) -> None: ...

    def newest_snapshot(
        self, stream_id: str, schema: str, up_to_version: int | None = None,
    ) -> Snapshot | None: ...

    def read_from_snapshot(
        self, stream_id: str, schema: str, up_to_version: int | None = None,
    ) -> tuple[Snapshot | None, list[RecordedEvent]]: ...

    def read_all(
        self, after: Checkpoint | None = None, limit: int = 1000, *, until: Checkpoint = END
    ) -> tuple[list[RecordedEvent], Checkpoint]:
        """Up to `limit` events after `after` and at or before `until`, in log order, and
        the checkpoint of the last one (`after` when there is none)."""
        ...

    def verify_stream(self, stream_id: str, receipts: Sequence[Head] = ()) -> Verification: ...

    def list_streams(self, prefix: str = "") -> list[str]: ...

    def refuse_failed(self, stream_id: str) -> None:
        """Raise the IntegrityFailure this store found for the stream on a read, if any."""
        ...

    def integrity_failures(self) -> list[IntegrityFailure]:
        """The streams this store found failing their check on read, in this process."""
        ...


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
    return _CANONICAL(value)


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


# One encoder for every call (service.json_text: json.dumps with options builds a new one
# each time, JSONEncoder.encode a new C encoder).
_CANONICAL = json_text.encoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_refuse)
# _CANONICAL's text of a str, from the function it calls for one (ensure_ascii=False's), without
# the encoder's walk, list and join around it, at a third of the cost (issue 37: twice an event).
_CANONICAL_TEXT = json.encoder.encode_basestring


def utc_now() -> datetime:
    """The stores' clock for recorded_at (a store takes another, e.g. in tests)."""
    return datetime.now(UTC)


def format_recorded_at(moment: datetime) -> str:
    """UTC with microseconds (PostgreSQL keeps microseconds too): the hashed spelling,
    "2026-11-30T09:38:46.123456Z", isoformat's without its "+00:00". Spelled with % (a
    fifth fewer CPU instructions than isoformat(timespec=...), whose keyword parsing and
    offset cost more; strftime is twice as slow) and without astimezone for a moment in
    UTC already (the stores' clock's): issue 37, four a table action."""
    utc = moment if moment.tzinfo is UTC else moment.astimezone(UTC)
    # Not an f-string: its seven format specs cost 70% more than this.
    return "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ" % (  # noqa: UP031
        utc.year, utc.month, utc.day, utc.hour, utc.minute, utc.second, utc.microsecond)


def event_hash(
    stream_id: str,
    version: int,
    type: str,
    schema_version: int,
    data: Mapping[str, Any],
    metadata: Mapping[str, Any],
    previous_hash: str,
    recorded_at: datetime,
    sealed: Mapping[str, Any] | None = None,
) -> str:
    """Hex SHA-256 of the event's canonical document: the canonical JSON of {data, metadata,
    previous_hash, recorded_at, schema_version, [sealed,] stream_id, type, version}; `sealed`
    only when the event has sealed fields, so events without any hash as they always did."""
    return chained_hash(stream_id, version, type, schema_version, canonical_json(data),
                        canonical_json(metadata), previous_hash, format_recorded_at(recorded_at),
                        canonical_json(sealed) if sealed else None)


def chained_hash(
    stream_id: str,
    version: int,
    type: str,
    schema_version: int,
    data_json: str,
    metadata_json: str,
    previous_hash: str,
    recorded_at: str,
    sealed_json: str | None = None,
) -> str:
    """event_hash from data, metadata and sealed fields already in canonical JSON (a store
    encodes them once, for storing and for hashing) and recorded_at already spelled
    (format_recorded_at). The document is written with its keys in sorted order, exactly as
    canonical_json would write it whole (`stream_id` and `type` are texts: written as
    canonical_json writes a text)."""
    sealed = "" if sealed_json is None else f'"sealed":{sealed_json},'
    document = (
        f'{{"data":{data_json},"metadata":{metadata_json},"previous_hash":"{previous_hash}",'
        f'"recorded_at":"{recorded_at}","schema_version":{schema_version:d},{sealed}'
        f'"stream_id":{_CANONICAL_TEXT(stream_id)},"type":{_CANONICAL_TEXT(type)},'
        f'"version":{version:d}}}'
    )
    return hashlib.sha256(document.encode("utf-8")).hexdigest()


def snapshot_message(snapshot: Snapshot) -> str:
    """What a snapshot's MAC signs (ChainSigner.sign_snapshot)."""
    body_hash = hashlib.sha256(snapshot.body.encode("utf-8")).hexdigest()
    return f"snapshot\n{snapshot.stream_id}\n{snapshot.version:d}\n{snapshot.schema}\n{body_hash}"


class KeyedMac(Protocol):
    """An HMAC under a key (keyed_sha256's): copied, fed a message, read in hex."""

    def copy(self) -> KeyedMac: ...

    def update(self, msg: bytes, /) -> None: ...

    def hexdigest(self) -> str: ...


def keyed_sha256(key: bytes) -> KeyedMac:
    """An HMAC-SHA256 under `key` that has MACed nothing: `mac_hex` copies it for each
    message, so the key is set up once, not per MAC (1.6 -> 1.1 us a MAC on this machine).
    OpenSSL's HMAC object itself, the one hmac.new makes and wraps: the same MAC, without
    the wrapper's three Python calls (copy, update, hexdigest) for each (issue 37: a fifth of
    a MAC's CPU instructions, four or five MACs a table action)."""
    if _openssl_hmac is None:  # hmac.new wraps its own Python HMAC then
        return hmac.new(key, digestmod=hashlib.sha256)
    return _openssl_hmac(key, digestmod=hashlib.sha256)


def mac_hex(keyed: KeyedMac, message: bytes) -> str:
    """The hex HMAC of `message` under `keyed`'s key (hmac.new(key, message).hexdigest());
    `keyed` itself is left as it was, so threads may share it."""
    mac = keyed.copy()
    mac.update(message)
    return mac.hexdigest()


class ChainSigner:
    """Keys the hash chain: an HMAC-SHA256 of (stream, version, hash) under a secret the
    database never holds (CARDROOM_CHAIN_KEY or the data directory's chain-key file).

    SHA-256 alone proves nothing against someone who can write the events table: they can
    edit an event and recompute every later hash. Without the key they cannot compute the
    MAC of an edited, inserted or recomputed event, and the same MAC signs the receipt each
    write returns (which, shown to `verify`, catches a removed tail; so does the public log's
    signed tree: service.application.public_log)."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("the chain key needs at least 16 bytes")
        self._key = key
        self._keyed = keyed_sha256(key)

    def derived_key(self, label: str) -> bytes:
        """A key of its own for another use (service.adapters.row_macs), from this one: a
        MAC made with it is never a valid MAC of the chain, nor of another label."""
        return hmac.new(self._key, b"cardroom derived key\n" + label.encode(), hashlib.sha256).digest()

    def sign(self, stream_id: str, version: int, hash_: str) -> str:
        return mac_hex(self._keyed, f"{stream_id}\n{version:d}\n{hash_}".encode())

    def sign_snapshot(self, snapshot: Snapshot) -> str:
        """A snapshot's MAC: whoever may insert into the snapshots table without the key
        cannot make the application load a state the log does not hold."""
        return mac_hex(self._keyed, snapshot_message(snapshot).encode())

    def valid_snapshot(self, snapshot: Snapshot, mac: str | None) -> bool:
        return mac is not None and hmac.compare_digest(self.sign_snapshot(snapshot).encode(),
                                                       mac.encode("utf-8", "surrogatepass"))

    def valid(self, stream_id: str, version: int, hash_: str, mac: str | None) -> bool:
        return mac is not None and hmac.compare_digest(self.sign(stream_id, version, hash_).encode(),
                                                       mac.encode("utf-8", "surrogatepass"))


@dataclass(frozen=True)
class Head:
    """A stream's head as a receipt records it: version, hash and its MAC."""

    stream_id: str
    version: int
    hash: str
    mac: str | None
    """None from a store without a chain key."""


def verify_chain(
    stream_id: str,
    events: Sequence[RecordedEvent],
    signer: ChainSigner | None = None,
    heads: Sequence[Head] = (),
    *,
    chained_from: RecordedEvent | None = None,
) -> Verification:
    """Recompute every hash in version order (sealed fields included, so `events` must be
    read with Reveal.ALL); with a signer, check every event's MAC; then check the stream
    still reaches every head shown (receipts) with the same hash. The first
    bad version is reported, with why.

    `events` are the whole stream, or with `chained_from` the events right after that one,
    their chain continuing from its stored hash (a range: heads before it say nothing here)."""
    previous_hash = GENESIS_HASH if chained_from is None else chained_from.hash
    first = 1 if chained_from is None else chained_from.version + 1
    for expected_version, event in enumerate(events, start=first):
        if event.version != expected_version:
            return _bad(events, expected_version, "a version is missing here")
        if event.hash != event_hash(
            stream_id, event.version, event.type, event.schema_version, event.data,
            event.metadata, previous_hash, event.recorded_at, event.sealed,
        ):
            return _bad(events, expected_version, "the event does not hash to its recorded hash")
        if signer is not None and not signer.valid(stream_id, event.version, event.hash, event.mac):
            return _bad(events, expected_version, _mac_reason(event))
        previous_hash = event.hash
    end = first + len(events) - 1
    by_version = {event.version: event.hash for event in events}
    for head in sorted(heads, key=lambda h: h.version):
        if head.version < first:
            continue
        if signer is not None and not signer.valid(head.stream_id, head.version, head.hash, head.mac):
            continue  # not ours: a forged receipt proves nothing either way
        if head.version not in by_version:
            return _bad(events, end + 1,
                        f"the log ends at version {end}, but version {head.version} "
                        f"was recorded (receipt)")
        if by_version[head.version] != head.hash:
            return _bad(events, head.version, "the event differs from the one recorded (receipt)")
    return Verification(True, len(events), None)


def check_read(stream_id: str, event: RecordedEvent, sealed: Mapping[str, Any] | None,
               previous_hash: str | None, signer: ChainSigner | None) -> None:
    """Verify before acting: `event` as read, with its sealed fields as stored (`sealed`,
    None or {} when it has none) and the stored hash of the event before it
    (`previous_hash`; None when there is none). Its hash is recomputed from its fields
    chained from that one, and with a signer its MAC checked: one SHA-256 and one HMAC.
    A MAC'd hash that recomputes from its predecessor's stored hash proves that hash too,
    so a read checks each event it returns, not the stream before it. Raises
    IntegrityFailure naming the version and why."""
    if previous_hash is None:
        if event.version != 1:
            raise IntegrityFailure(stream_id, event.version - 1, "a version is missing here")
        previous_hash = GENESIS_HASH
    try:
        # The encoder straight away, without canonical_json's storable check (slower than the
        # encoding): a read value it would refuse was not written by a store, so does not
        # hash to the recorded hash either.
        recomputed = chained_hash(stream_id, event.version, event.type, event.schema_version,
                                  _CANONICAL(event.data), _CANONICAL(event.metadata),
                                  previous_hash, format_recorded_at(event.recorded_at),
                                  _CANONICAL(sealed) if sealed else None)
    except (TypeError, ValueError):
        recomputed = None
    if event.hash != recomputed:
        raise IntegrityFailure(stream_id, event.version,
                               "the event does not hash to its recorded hash from the one before it")
    if signer is not None and not signer.valid(stream_id, event.version, event.hash, event.mac):
        raise IntegrityFailure(stream_id, event.version, _mac_reason(event))


def _mac_reason(event: RecordedEvent) -> str:
    return ("the event carries no MAC (written before the chain was keyed, or forged)"
            if event.mac is None else "the event's MAC is not the chain key's")


@dataclass(frozen=True)
class RangeVerification:
    """The chain check of one range of a stream (a hand's events), read on its own: its
    events chained from the stored hash of the event just before it, each MAC checked, and
    the range ending where the next range opens or at the stream's head."""

    verification: Verification
    first_version: int
    last_version: int
    """The range's last event (first_version - 1 when the range is empty)."""
    chained_from: int
    """The version whose stored hash the range continues from (0: the stream's start)."""
    next_opening: int | None
    """The version of the event that opens the next range; None: the range ends at the head."""


def verify_range(
    stream_id: str,
    read: Sequence[RecordedEvent],
    first_version: int,
    opened_by: str,
    signer: ChainSigner | None = None,
) -> RangeVerification:
    """`read`: the event before the range (when it has one), the range from `first_version`,
    and the next event of type `opened_by` after it when there is one, in version order
    (Reveal.ALL). The stored hash before the range is trusted only as far as its MAC goes:
    the whole chain is `verify`'s (verify_stream); this costs the range."""
    anchor = read[0] if read and read[0].version == first_version - 1 else None
    ranged = list(read[1:] if anchor is not None else read)
    following = ranged[-1] if len(ranged) > 1 and ranged[-1].type == opened_by else None
    if following is not None:
        ranged.pop()
    last = first_version + len(ranged) - 1

    def checked(verification: Verification) -> RangeVerification:
        return RangeVerification(verification, first_version, last,
                                 0 if anchor is None else anchor.version,
                                 None if following is None else following.version)

    if first_version > 1 and anchor is None:
        return checked(Verification(False, 0, first_version - 1,
                                    "the event before the range is missing"))
    if anchor is not None and signer is not None and not signer.valid(
            stream_id, anchor.version, anchor.hash, anchor.mac):
        return checked(Verification(False, 0, anchor.version, _mac_reason(anchor)))
    # With a next range, its first event must continue this chain.
    verification = verify_chain(stream_id, [*ranged, *([following] if following else [])], signer,
                                chained_from=anchor)
    if verification.ok and following is not None:
        verification = Verification(True, len(ranged), None)
    return checked(verification)


def _bad(events: Sequence[RecordedEvent], version: int, reason: str) -> Verification:
    return Verification(False, len(events), version, reason)


@dataclass(frozen=True)
class ReceiptCheck:
    """Whether the log still reaches a receipt (a Head a write answered), and why not."""

    valid: bool
    reason: str | None
    """None when valid; else mac_wrong, unknown_stream, version_beyond_head, hash_differs
    or chain_broken."""
    detail: str | None
    head_version: int
    """The stream's version now (0: no such stream)."""


def check_receipt(receipt: Head, events: Sequence[RecordedEvent],
                  signer: ChainSigner | None) -> ReceiptCheck:
    """`events`: the receipt's stream read with Reveal.ALL. First the MAC (a receipt the
    chain key did not sign proves nothing), then the log: it must hold the receipt's
    version with the same hash, and verify up to it."""
    head = events[-1].version if events else 0
    if signer is not None and not signer.valid(receipt.stream_id, receipt.version, receipt.hash,
                                               receipt.mac):
        return ReceiptCheck(False, "mac_wrong", "the receipt's MAC is not the chain key's: "
                            "this service did not issue it", head)
    if not events:
        return ReceiptCheck(False, "unknown_stream", f"the log holds no stream {receipt.stream_id!r}", 0)
    if receipt.version > head:
        return ReceiptCheck(False, "version_beyond_head",
                            f"the log ends at version {head}, but the receipt is for version "
                            f"{receipt.version}: events were removed", head)
    at_version = next((e for e in events if e.version == receipt.version), None)
    if at_version is not None and at_version.hash != receipt.hash:
        return ReceiptCheck(False, "hash_differs",
                            f"the event at version {receipt.version} is not the one the receipt "
                            "was given for", head)
    verification = verify_chain(receipt.stream_id,
                                [e for e in events if e.version <= receipt.version], signer)
    if not verification.ok:
        return ReceiptCheck(False, "chain_broken", f"version {verification.first_bad_version}: "
                            f"{verification.reason}", head)
    return ReceiptCheck(True, None, None, head)
