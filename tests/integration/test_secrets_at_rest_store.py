"""The store's reader encrypts what events declare secret and decrypts it back, the same over
the in-memory and the PostgreSQL store (service.adapters.store.cipher through
service.adapters.store.upcasting): ciphertext at rest, the chain over what is stored, a
ciphertext moved to another event or read with another key refused, old plain events read
as they were."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from domain import secrecy
from domain.secrecy import OWNER_ONLY
from service.adapters.store.base import EventStore, NewEvent, Reveal, Snapshot
from service.adapters.store.cipher import PREFIX, FieldCipher, SecretUnreadable
from service.adapters.store.upcasting import UpcastingStore

KEY = bytes(range(32))


def reading(store: EventStore, key: bytes = KEY) -> UpcastingStore:
    return UpcastingStore(store, "table-", "hand-", FieldCipher(key))


def dealt(cards: str = "AsKd") -> NewEvent:
    return NewEvent("HoleCardsDealt", {"position": 0, "seat": 3, "cards": cards}, 2, metadata={"visible_to": "ann"})


def started() -> NewEvent:
    return NewEvent("HandStarted", {"players": ["ann", "bob"], "deck": None}, 2,
                    sealed={"deck": ["As", "Kd", "Qh"]})


def test_secret_fields_are_ciphertext_at_rest_and_read_back_as_written(store: EventStore, stream_id: str) -> None:
    reading(store).append(stream_id, 0, [started(), dealt()])
    at_rest = store.read_stream(stream_id, reveal=Reveal.ALL)
    # No card as a value (a ciphertext's base64 may spell "As" by chance: look at values).
    assert not {"As", "Kd", "Qh", "AsKd"} & set(_strings([[r.data, r.sealed] for r in at_rest]))
    assert at_rest[0].sealed["deck"].startswith(PREFIX) and at_rest[1].data["cards"].startswith(PREFIX)
    assert at_rest[0].data == {"players": ["ann", "bob"], "deck": None}  # public fields stay readable

    read = reading(store).read_stream(stream_id, reveal=Reveal.ALL)
    assert read[0].full_data()["deck"] == ["As", "Kd", "Qh"] and read[1].data["cards"] == "AsKd"
    assert reading(store).read_stream(stream_id)[0].sealed is None  # withheld stays withheld
    assert store.verify_stream(stream_id).ok  # the chain is over the stored ciphertext


def test_a_ciphertext_moved_to_another_event_does_not_open(store: EventStore, stream_id: str) -> None:
    reading(store).append(stream_id, 0, [dealt("AsKd"), dealt("2c7h")])
    first = store.read_stream(stream_id)[0]
    store.append(stream_id, 2, [NewEvent("HoleCardsDealt", dict(first.data), 2)])  # the insider's copy
    with pytest.raises(SecretUnreadable, match="version 3"):
        reading(store).read_stream(stream_id)


def test_another_data_key_opens_nothing(store: EventStore, stream_id: str) -> None:
    reading(store).append(stream_id, 0, [dealt()])
    with pytest.raises(SecretUnreadable):
        reading(store, bytes(32)).read_stream(stream_id)


def test_events_stored_before_encryption_read_as_they_were(store: EventStore, stream_id: str) -> None:
    store.append(stream_id, 0, [dealt("AsKd")])
    reading(store).append(stream_id, 1, [dealt("2c7h")])
    assert [r.data["cards"] for r in reading(store).read_stream(stream_id)] == ["AsKd", "2c7h"]


def test_snapshots_are_ciphertext_at_rest_and_a_moved_one_is_a_lost_cache(store: EventStore, stream_id: str) -> None:
    encrypting = reading(store)
    encrypting.append(stream_id, 0, [dealt(), dealt("2c7h")])
    encrypting.save_snapshot(Snapshot(stream_id, 1, "s1", '{"hole":"AsKd"}'))
    assert "AsKd" not in store.newest_snapshot(stream_id, "s1").body
    assert encrypting.newest_snapshot(stream_id, "s1").body == '{"hole":"AsKd"}'
    snapshot, records = encrypting.read_from_snapshot(stream_id, "s1")
    assert snapshot.version == 1 and [r.version for r in records] == [2]

    moved = store.newest_snapshot(stream_id, "s1").body  # bound to version 1, stored at 2
    store.save_snapshot(Snapshot(stream_id, 2, "s1", moved))
    snapshot, records = encrypting.read_from_snapshot(stream_id, "s1")
    assert snapshot is None and [r.data["cards"] for r in records] == ["AsKd", "2c7h"]


@dataclass(frozen=True)
class OmenDrawn:
    """A test-only game's event: the store has never heard of it."""
    position: int
    omen: str = field(metadata=OWNER_ONLY)


def test_a_test_only_events_declared_field_is_encrypted_with_no_line_of_the_store_changed(
        store: EventStore, stream_id: str) -> None:
    secrecy.register([OmenDrawn])
    reading(store).append(stream_id, 0, [NewEvent("OmenDrawn", {"position": 0, "omen": "Qh"})])
    assert store.read_stream(stream_id)[0].data["omen"].startswith(PREFIX)
    assert reading(store).read_stream(stream_id)[0].data == {"position": 0, "omen": "Qh"}


def _strings(value) -> list[str]:
    """Every string value in a JSON-like value, nested lists and mappings included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []
