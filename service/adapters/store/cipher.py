"""Secrets unreadable at rest: the fields an event declares owner-only or sealed
(domain.secrecy) are stored encrypted, and so are snapshots (a table's state between hands
holds the last hand's cards), under the data key, which the database never holds.

Each field is AES-GCM under its own random 96-bit nonce, its associated data the key id,
the stream, the version and where the field sits (`data.cards`, `sealed.deck`), so a
ciphertext copied to another event, version or field, or re-tagged with another key's id,
does not open. A stored value reads `aesgcm2:<key id>:<base64 of nonce + ciphertext + tag>`,
the key id naming the key that sealed it (`key_id`), so the key can be rotated without
touching what is stored (the chain is over the ciphertext): new values are sealed under the
ring's current key, old ones open under the retired key that sealed them. A value of the
first format, `aesgcm1:<base64>`, written before keys had ids, was sealed by the one key
there was then: it is opened by whichever key of the ring authenticates it (the tag tells).
Anything else is read as it was stored, so events written before encryption (and the
public fields) read as before.

What is hashed and MAC'd is the stored text, ciphertext included (service.adapters.store.base
.chained_hash): the chain, receipts and `verify` need no data key, and a changed ciphertext
breaks the chain like any changed field. The store's reader (service.adapters.store.upcasting)
calls `encrypt_events` before an append and `decrypt_records` after a read, in that one place.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import domain.live.table  # noqa: F401 - registers every game's declarations (domain.secrecy)
from domain.secrecy import secrets_named
from service.adapters.store.base import IntegrityFailure, NewEvent, RecordedEvent, Snapshot, canonical_json

PREFIX = "aesgcm2:"
UNNAMED_PREFIX = "aesgcm1:"
"""The first format's, before ciphertexts named their key."""
NONCE_BYTES = 12
KEY_BYTES = 32
KEY_ID_HEX = 8
UNNAMED_KEY = "aesgcm1"
"""What the key of a first-format ciphertext is called where a key id is listed."""


def key_id(key: bytes) -> str:
    """A data key's public name: 32 bits of SHA-256 over a label and the key (enough to
    tell a ring's few keys apart; naming the key reveals nothing of it)."""
    return hashlib.sha256(b"cardroom data key id\0" + key).hexdigest()[:KEY_ID_HEX]


class SecretUnreadable(IntegrityFailure):
    """A stored ciphertext that the data key does not open where it lies (another key,
    moved from another event or field, or altered): the stream is refused as any other
    that fails its check (409 integrity_failure), never a 500."""

    def __init__(self, stream_id: str, version: int, place: str) -> None:
        super().__init__(stream_id, version, f"the encrypted {place} does not open with the data key "
                                             "here (another key, moved or altered)")
        self.place = place


class DataKeyMissing(SecretUnreadable):
    """A ciphertext sealed under a key the ring does not hold (a retired key not given
    back, or a newer key this host was not given): refused naming the key, 409 as well."""

    def __init__(self, stream_id: str, version: int, place: str, missing_key: str) -> None:
        IntegrityFailure.__init__(self, stream_id, version,
                                  f"the encrypted {place} was sealed under data key {missing_key}, "
                                  "which this host's key ring does not hold (CARDROOM_DATA_KEY, "
                                  "CARDROOM_DATA_KEYS_OLD, <data dir>/data-keys/)")
        self.place = place
        self.missing_key = missing_key


class FieldCipher:
    """AES-GCM with 256-bit keys over JSON values, bound to where each is stored: a key
    ring, `key` the one new values are sealed under, `retired` keys that only open."""

    def __init__(self, key: bytes, retired: Sequence[bytes] = ()) -> None:
        for each in (key, *retired):
            if len(each) != KEY_BYTES:
                raise ValueError(f"the data key must be {KEY_BYTES} bytes, not {len(each)}")
        self.current_key = key_id(key)
        self._prefix = f"{PREFIX}{self.current_key}:"
        self._sealing = AESGCM(key)
        # Current first: the first format's values are most likely under it when tried in turn.
        self._ring = {key_id(each): AESGCM(each) for each in (key, *retired)}

    @property
    def key_ids(self) -> list[str]:
        """The ring's keys by id, the current one first."""
        return list(self._ring)

    def encrypt(self, value: Any, stream_id: str, version: int, place: str) -> str:
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._sealing.encrypt(nonce, canonical_json(value).encode(),
                                       _bound(self.current_key, stream_id, version, place))
        return self._prefix + base64.b64encode(nonce + sealed).decode()

    def decrypt(self, text: str, stream_id: str, version: int, place: str) -> Any:
        if text.startswith(UNNAMED_PREFIX):
            return self._decrypt_unnamed(text, stream_id, version, place)
        named, _, body = text[len(PREFIX):].partition(":")
        aead = self._ring.get(named)
        if aead is None:
            raise DataKeyMissing(stream_id, version, place, named)
        try:
            raw = base64.b64decode(body, validate=True)
            opened = aead.decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], _bound(named, stream_id, version, place))
        except (InvalidTag, ValueError):
            raise SecretUnreadable(stream_id, version, place) from None
        return json.loads(opened)

    def _decrypt_unnamed(self, text: str, stream_id: str, version: int, place: str) -> Any:
        """A first-format value: bound without a key id, opened by the ring key it authenticates under."""
        try:
            raw = base64.b64decode(text[len(UNNAMED_PREFIX):], validate=True)
        except ValueError:
            raise SecretUnreadable(stream_id, version, place) from None
        bound = _unnamed_bound(stream_id, version, place)
        for aead in self._ring.values():
            try:
                return json.loads(aead.decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], bound))
            except (InvalidTag, ValueError):
                continue
        raise SecretUnreadable(stream_id, version, place)


def _bound(key: str, stream_id: str, version: int, place: str) -> bytes:
    """The associated data: the sealing key's id, then where the value is stored."""
    return f"{key}:".encode() + _unnamed_bound(stream_id, version, place)


def _unnamed_bound(stream_id: str, version: int, place: str) -> bytes:
    """The associated data: where the value is stored, unambiguously (the stream id's
    length first, so no id and version can spell another's)."""
    return f"{len(stream_id)}:{stream_id}:{version}:{place}".encode()


def is_encrypted(value: Any) -> bool:
    return isinstance(value, str) and value.startswith((PREFIX, UNNAMED_PREFIX))


def encrypt_events(cipher: FieldCipher, stream_id: str, expected_version: int,
                   events: Sequence[NewEvent]) -> list[NewEvent]:
    """The events as stored: every sealed field, and each data field the event's type
    declares owner-only or sealed, encrypted (null stays null: it hides nothing)."""
    stored = []
    for version, event in enumerate(events, start=expected_version + 1):
        private = [name for name in secrets_named(event.type).at_rest
                   if event.data.get(name) is not None]
        if not private and not event.sealed:
            stored.append(event)
            continue
        data = {**event.data, **{name: cipher.encrypt(event.data[name], stream_id, version, "data." + name)
                                 for name in private}}
        sealed = {name: None if value is None else cipher.encrypt(value, stream_id, version, "sealed." + name)
                  for name, value in event.sealed.items()}
        stored.append(replace(event, data=data, sealed=sealed))
    return stored


def decrypt_records(cipher: FieldCipher, records: list[RecordedEvent]) -> list[RecordedEvent]:
    """The records as written: each encrypted value opened where it lies."""
    return [_decrypted(cipher, record) for record in records]


def _decrypted(cipher: FieldCipher, record: RecordedEvent) -> RecordedEvent:
    names = secrets_named(record.type).at_rest
    sealed = record.sealed
    if not names and not sealed:  # most records: nothing to look at
        return record
    data = _opened(cipher, record, record.data, names, "data.")
    if sealed:
        opened_sealed = _opened(cipher, record, sealed, tuple(sealed), "sealed.")
        if opened_sealed is not None:
            sealed = opened_sealed
    if data is None and sealed is record.sealed:
        return record
    # Built whole rather than by dataclasses.replace, which costs more than the decryption.
    return RecordedEvent(record.stream_id, record.version, record.position, record.type,
                         record.schema_version, record.data if data is None else data, record.metadata,
                         record.recorded_at, record.hash, sealed, record.mac)


def _opened(cipher: FieldCipher, record: RecordedEvent, fields: Mapping[str, Any],
            names: Sequence[str], place: str) -> dict[str, Any] | None:
    """`fields` with these names decrypted; None when none of them is encrypted."""
    encrypted = [name for name in names if is_encrypted(fields.get(name))]
    if not encrypted:
        return None
    return {**fields, **{name: cipher.decrypt(fields[name], record.stream_id, record.version, place + name)
                         for name in encrypted}}


def encrypt_snapshot(cipher: FieldCipher, snapshot: Snapshot) -> Snapshot:
    """The snapshot as stored: its whole body encrypted (bound to stream, version and schema)."""
    return replace(snapshot, body=cipher.encrypt(snapshot.body, snapshot.stream_id, snapshot.version,
                                                 "snapshot." + snapshot.schema))


def decrypt_snapshot(cipher: FieldCipher, snapshot: Snapshot | None) -> Snapshot | None:
    """The snapshot as written; one stored before encryption reads as stored."""
    if snapshot is None or not is_encrypted(snapshot.body):
        return snapshot
    return replace(snapshot, body=cipher.decrypt(snapshot.body, snapshot.stream_id, snapshot.version,
                                                 "snapshot." + snapshot.schema))
