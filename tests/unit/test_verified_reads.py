"""Verify before acting, in the in-memory store (the PostgreSQL store's attacks are
tests/integration/test_verify_before_acting.py; the contract tests run both): a keyed
store's every read checks each event's MAC and its link, and a stream that fails is
refused from then on, its events left out of the global log."""
from __future__ import annotations

import dataclasses

import pytest

from service.adapters.store.base import ChainSigner, IntegrityFailure, NewEvent, Reveal, UnreadableStream
from service.adapters.store.memory import InMemoryEventStore

STREAM = "table-t"


def written(events: int = 4) -> InMemoryEventStore:
    store = InMemoryEventStore(signer=ChainSigner(b"k" * 32))
    store.append(STREAM, 0, [NewEvent("Dealt", {"n": n}, sealed={"deck": [n]}) for n in range(events)])
    store.append("table-other", 0, [NewEvent("Dealt", {"n": 0})])
    return store


def test_an_event_without_the_keys_mac_is_refused_by_every_read_then_the_stream_is():
    store = written()
    stream = store._streams[STREAM]
    stream[2] = dataclasses.replace(stream[2], mac=None)

    assert [e.version for e in store.read_stream(STREAM, up_to_version=2)] == [1, 2]
    with pytest.raises(IntegrityFailure) as refused:
        store.read_stream(STREAM, after_version=2, reveal=Reveal.closed_by("HandClosed"))
    assert (refused.value.version, refused.value.code) == (3, "integrity_failure")
    assert "carries no MAC" in refused.value.reason
    assert isinstance(refused.value, UnreadableStream)  # every reader that passes those over
    with pytest.raises(IntegrityFailure):
        store.read_stream(STREAM, up_to_version=1)
    with pytest.raises(IntegrityFailure):
        store.refuse_failed(STREAM)
    assert [f.stream_id for f in store.integrity_failures()] == [STREAM]
    assert {e.stream_id for e in store.read_all()[0]} == {"table-other"}


def test_a_mac_of_another_key_and_a_missing_version_are_refused():
    store = written()
    stream = store._streams[STREAM]
    stream[1] = dataclasses.replace(stream[1], mac=ChainSigner(b"x" * 32).sign(STREAM, 2, stream[1].hash))
    with pytest.raises(IntegrityFailure, match="not the chain key's"):
        store.read_stream(STREAM)

    gapped = written()
    del gapped._streams[STREAM][1]  # version 2 gone: 3 no longer follows what is stored
    with pytest.raises(IntegrityFailure) as refused:
        gapped.read_stream(STREAM, reveal=Reveal.ALL)
    assert refused.value.version >= 2


def test_the_audit_reads_what_is_stored_and_says_where_it_breaks():
    store = written()
    stream = store._streams[STREAM]
    stream[2] = dataclasses.replace(stream[2], mac=None)
    assert len(store.read_stream(STREAM, checked=False)) == 4
    verification = store.verify_stream(STREAM)
    assert (verification.ok, verification.first_bad_version) == (False, 3)
