"""The event store contract, run against the in-memory and the PostgreSQL store alike."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.adapters.store.base import (
    AppendResult,
    Checkpoint,
    EventStore,
    IntegrityFailure,
    NewEvent,
    RecordedEvent,
    Verification,
    VersionConflict,
    event_hash,
)
from service.adapters.store.memory import InMemoryEventStore

WRITERS = 16


def seated(player: str, seat: int) -> NewEvent:
    return NewEvent("PlayerSeated", {"player": player, "seat": seat})


def drain(store: EventStore, after: Checkpoint | None) -> tuple[list[RecordedEvent], Checkpoint]:
    """Everything a global reader can see now, read in small pages to exercise checkpoints."""
    seen: list[RecordedEvent] = []
    while True:
        page, after_page = store.read_all(after, limit=7)
        if not page:
            return seen, after or after_page
        seen += page
        after = after_page


def follow_until(
    store: EventStore,
    after: Checkpoint | None,
    streams: set[str],
    count: int,
    timeout_s: float = 20.0,
) -> list[RecordedEvent]:
    """Follow the global log until `count` events of `streams` arrived. On a shared
    PostgreSQL server another session's transaction can hold readers back for a moment
    (the high-water mark waits for it), so a reader keeps polling, as projections do."""
    deadline = time.monotonic() + timeout_s
    seen: list[RecordedEvent] = []
    while len(seen) < count and time.monotonic() < deadline:
        page, after = store.read_all(after, limit=7)
        seen += [e for e in page if e.stream_id in streams]
        if not page:
            time.sleep(0.01)
    return seen


def read_when_ready(store: EventStore, after: Checkpoint | None, timeout_s: float = 20.0,
                    **options: Any) -> tuple[list[RecordedEvent], Checkpoint]:
    """`read_all` asked again while it answers nothing: events already written can be held
    back for a moment behind another session's transaction (see follow_until)."""
    deadline = time.monotonic() + timeout_s
    while True:
        page, checkpoint = store.read_all(after, **options)
        if page or time.monotonic() > deadline:
            return page, checkpoint
        time.sleep(0.01)


@pytest.fixture(params=["memory", "postgres"])
def quiet_store(request: pytest.FixtureRequest) -> EventStore:
    """A store nobody else writes to, for rules about "nothing new": the session database
    can take other tests' events while these run (CI met a stream of another test's
    PlayerRegistered events for over 20 s there), this module's own database cannot."""
    if request.param == "memory":
        return InMemoryEventStore()
    return request.getfixturevalue("own_store")


# -- appending and reading ---------------------------------------------------------------


def test_appended_events_read_back_in_order_with_versions_from_one(store, stream_id):
    result = store.append(stream_id, 0, [seated("ann", 0), seated("bob", 1)])

    events = store.read_stream(stream_id)
    assert result == AppendResult(stream_id, 1, 2, tuple(e.position for e in events))
    assert [(e.version, e.type, e.data) for e in events] == [
        (1, "PlayerSeated", {"player": "ann", "seat": 0}),
        (2, "PlayerSeated", {"player": "bob", "seat": 1}),
    ]
    assert events[0].position < events[1].position
    assert all(e.stream_id == stream_id and e.schema_version == 1 for e in events)
    assert store.stream_version(stream_id) == 2


def test_a_stream_never_written_is_empty_at_version_zero(store, stream_id):
    assert store.read_stream(stream_id) == []
    assert store.stream_version(stream_id) == 0
    assert store.verify_stream(stream_id) == Verification(True, 0, None)


def test_read_stream_after_and_up_to_a_version(store, stream_id):
    store.append(stream_id, 0, [seated(f"p{n}", n) for n in range(5)])

    assert [e.version for e in store.read_stream(stream_id, after_version=2)] == [3, 4, 5]
    assert [e.version for e in store.read_stream(stream_id, up_to_version=2)] == [1, 2]
    assert [e.version for e in store.read_stream(stream_id, 1, 3)] == [2, 3]


def test_tuples_come_back_as_lists_and_schema_version_is_kept(store, stream_id):
    store.append(stream_id, 0, [NewEvent("CardsDealt", {"cards": ("As", "Td")}, schema_version=3)])

    (event,) = store.read_stream(stream_id)
    assert event.data == {"cards": ["As", "Td"]}
    assert event.schema_version == 3


def test_metadata_records_the_actor_the_key_and_the_callers_fields(store, stream_id):
    event = NewEvent("HandStarted", {"hand": 1}, metadata={"causation_id": "cmd-7"})
    store.append(stream_id, 0, [event], idempotency_key="key-1", actor="dealer-3")

    (recorded,) = store.read_stream(stream_id)
    assert recorded.metadata == {
        "causation_id": "cmd-7",
        "actor": "dealer-3",
        "idempotency_key": "key-1",
    }
    assert recorded.recorded_at.tzinfo is not None


def test_list_streams_by_prefix(store, stream_id):
    for suffix in ("table-1", "table-2", "tournament-1"):
        store.append(f"{stream_id}/{suffix}", 0, [seated("ann", 0)])
    store.append(f"{stream_id}/table-1", 1, [seated("bob", 1)])

    assert store.list_streams(f"{stream_id}/table-") == [
        f"{stream_id}/table-1",
        f"{stream_id}/table-2",
    ]
    assert store.list_streams(f"{stream_id}/t%") == []  # a wildcard is just a character


# -- expected versions -------------------------------------------------------------------


def test_expected_version_zero_means_the_stream_must_not_exist(store, stream_id):
    store.append(stream_id, 0, [seated("ann", 0)])

    with pytest.raises(VersionConflict) as conflict:
        store.append(stream_id, 0, [seated("bob", 1)])
    assert (conflict.value.stream_id, conflict.value.expected, conflict.value.actual) == (
        stream_id,
        0,
        1,
    )


def test_a_conflict_writes_nothing(store, stream_id):
    store.append(stream_id, 0, [seated("ann", 0), seated("bob", 1)])

    with pytest.raises(VersionConflict) as conflict:
        store.append(stream_id, 1, [seated("cat", 2), seated("dan", 3)])

    assert conflict.value.actual == 2
    assert [e.data["player"] for e in store.read_stream(stream_id)] == ["ann", "bob"]
    assert store.stream_version(stream_id) == 2
    # The global log holds the two events and nothing of the refused append.
    store.append(stream_id, 2, [seated("eve", 4)])
    logged = follow_until(store, None, {stream_id}, 3)
    assert [e.data["player"] for e in logged] == ["ann", "bob", "eve"]


def test_an_expected_version_ahead_of_the_stream_is_a_conflict(store, stream_id):
    with pytest.raises(VersionConflict):
        store.append(stream_id, 3, [seated("ann", 0)])
    assert store.stream_version(stream_id) == 0


def test_a_batch_with_an_unstorable_value_writes_nothing(store, stream_id):
    with pytest.raises(TypeError, match="float"):
        store.append(stream_id, 0, [seated("ann", 0), NewEvent("Rated", {"rating": 1500.5})])
    assert store.read_stream(stream_id) == []


@pytest.mark.parametrize("text", ["a\x00b", "lone \ud800 surrogate"], ids=["nul", "surrogate"])
def test_text_postgresql_cannot_hold_is_refused_and_writes_nothing(store, stream_id, text):
    with pytest.raises(ValueError):
        store.append(stream_id, 0, [seated("ann", 0), NewEvent("Chat", {"text": text})])
    assert store.read_stream(stream_id) == []


def test_an_empty_append_is_refused(store, stream_id):
    with pytest.raises(ValueError):
        store.append(stream_id, 0, [])


def test_of_sixteen_writers_racing_for_one_version_exactly_one_wins(store, stream_id):
    store.append(stream_id, 0, [seated("ann", 0)])
    start = threading.Barrier(WRITERS)

    def write(writer: int) -> AppendResult | VersionConflict:
        start.wait()
        try:
            return store.append(stream_id, 1, [seated(f"writer-{writer}", writer)])
        except VersionConflict as conflict:
            return conflict

    with ThreadPoolExecutor(WRITERS) as pool:
        outcomes = list(pool.map(write, range(WRITERS)))

    winners = [o for o in outcomes if isinstance(o, AppendResult)]
    losers = [o for o in outcomes if isinstance(o, VersionConflict)]
    assert len(winners) == 1 and winners[0].first_version == 2
    assert len(losers) == WRITERS - 1 and {c.actual for c in losers} == {2}
    assert store.stream_version(stream_id) == 2


def test_sixteen_racing_writers_lose_and_duplicate_nothing(store, stream_id):
    per_writer = 8
    start = threading.Barrier(WRITERS)

    def write(writer: int) -> list[int]:
        won_versions = []
        start.wait()
        for n in range(per_writer):
            while True:
                version = store.stream_version(stream_id)
                try:
                    result = store.append(
                        stream_id, version, [NewEvent("Wrote", {"writer": writer, "n": n})]
                    )
                except VersionConflict:
                    continue
                won_versions.append(result.first_version)
                break
        return won_versions

    with ThreadPoolExecutor(WRITERS) as pool:
        won = [v for versions in pool.map(write, range(WRITERS)) for v in versions]

    total = WRITERS * per_writer
    assert sorted(won) == list(range(1, total + 1))  # one winner per version
    events = store.read_stream(stream_id)
    assert [e.version for e in events] == list(range(1, total + 1))  # gapless
    written = Counter((e.data["writer"], e.data["n"]) for e in events)
    assert written == Counter({(w, n): 1 for w in range(WRITERS) for n in range(per_writer)})
    assert store.verify_stream(stream_id).ok


# -- idempotency -------------------------------------------------------------------------


def test_a_retry_with_the_same_key_returns_the_original_result_and_writes_nothing(
    store, stream_id
):
    original = store.append(stream_id, 0, [seated("ann", 0), seated("bob", 1)], idempotency_key="k1")
    store.append(stream_id, 2, [seated("cat", 2)])

    # The retry's expected version is stale by now: the key still wins.
    retried = store.append(stream_id, 0, [seated("ann", 0), seated("bob", 1)], idempotency_key="k1")

    assert retried == original
    assert retried.deduplicated and not original.deduplicated
    assert store.stream_version(stream_id) == 3


def test_an_idempotency_key_is_scoped_to_its_stream(store, stream_id):
    first = store.append(f"{stream_id}-a", 0, [seated("ann", 0)], idempotency_key="same")
    second = store.append(f"{stream_id}-b", 0, [seated("ann", 0)], idempotency_key="same")

    assert first.stream_id != second.stream_id
    assert not second.deduplicated
    assert store.stream_version(f"{stream_id}-b") == 1


def test_concurrent_retries_with_one_key_write_once(store, stream_id):
    start = threading.Barrier(WRITERS)

    def retry(_: int) -> AppendResult:
        start.wait()
        return store.append(stream_id, 0, [seated("ann", 0)], idempotency_key="double-click")

    with ThreadPoolExecutor(WRITERS) as pool:
        results = list(pool.map(retry, range(WRITERS)))

    assert len(set(results)) == 1
    assert sum(not r.deduplicated for r in results) == 1
    assert store.stream_version(stream_id) == 1


# -- the global log ----------------------------------------------------------------------


def test_a_global_reader_following_concurrent_writers_sees_every_event_once(store, stream_id):
    _, checkpoint = drain(store, None)
    streams = [f"{stream_id}-{n}" for n in range(8)]
    appends_per_stream = 12
    expected = [(s, v) for s in streams for v in range(1, appends_per_stream + 1)]
    seen: list[RecordedEvent] = []

    def follow() -> None:
        seen.extend(follow_until(store, checkpoint, set(streams), len(expected)))

    def write(stream: str) -> None:
        for n in range(appends_per_stream):
            store.append(stream, n, [NewEvent("Wrote", {"n": n})])

    reader = threading.Thread(target=follow)
    reader.start()
    with ThreadPoolExecutor(len(streams)) as pool:
        list(pool.map(write, streams))
    reader.join()

    ours = [(e.stream_id, e.version) for e in seen]
    assert Counter(ours) == Counter(expected)  # every event, exactly once
    for stream in streams:  # each stream's events arrive in version order
        versions = [v for s, v in ours if s == stream]
        assert versions == sorted(versions)


def test_read_all_returns_the_checkpoint_it_was_given_when_nothing_is_new(quiet_store, stream_id):
    store = quiet_store
    store.append(stream_id, 0, [seated("ann", 0)])
    _, checkpoint = drain(store, None)
    # Drained again while something turns up after all: an event held back behind another
    # session's transaction during the drain. The rule is asked of an empty answer.
    deadline = time.monotonic() + 20
    while (answer := store.read_all(checkpoint, limit=10))[0] and time.monotonic() < deadline:
        _, checkpoint = drain(store, checkpoint)

    assert answer == ([], checkpoint)


def test_read_all_until_a_checkpoint_stops_there(quiet_store, stream_id):
    """What a follower catching up reads: the events another follower handled, no more."""
    store = quiet_store
    _, start = drain(store, None)
    store.append(stream_id, 0, [seated("ann", 0)])
    store.append(stream_id, 1, [seated("bob", 1), seated("cat", 2)])
    first = follow_until(store, start, {stream_id}, 3)
    assert [e.data["player"] for e in first] == ["ann", "bob", "cat"]
    _, after_ann = read_when_ready(store, start, limit=1)
    store.append(stream_id, 3, [seated("dan", 3)])
    follow_until(store, after_ann, {stream_id}, 3)  # dan is readable

    caught_up, at = read_when_ready(store, start, limit=10, until=after_ann)

    assert [e.data["player"] for e in caught_up] == ["ann"]
    assert at == after_ann


# -- the hash chain ----------------------------------------------------------------------


def test_the_hash_chain_verifies(store, stream_id):
    store.append(stream_id, 0, [seated("ann", 0), seated("bob", 1)])
    store.append(stream_id, 2, [NewEvent("Café", {"note": "naïve ♠ ünïcode"})])

    assert store.verify_stream(stream_id) == Verification(True, 3, None)


def test_each_hash_depends_on_the_previous_event(store, stream_id):
    # Same events in two streams differ only by stream id; swapping the first event of
    # one stream changes every later hash.
    store.append(f"{stream_id}-a", 0, [seated("ann", 0), seated("bob", 1)])
    store.append(f"{stream_id}-b", 0, [seated("zed", 0), seated("bob", 1)])

    a = store.read_stream(f"{stream_id}-a")
    b = store.read_stream(f"{stream_id}-b")
    assert len({a[0].hash, a[1].hash, b[0].hash, b[1].hash}) == 4
    assert all(len(e.hash) == 64 for e in a + b)


def _storable_text(**size: int) -> st.SearchStrategy[str]:
    return st.text(
        st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), **size
    )


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    batches=st.lists(
        st.lists(
            st.tuples(
                # Types with quotes and backslashes: batches send them in array literals.
                _storable_text(min_size=1, max_size=4) | st.sampled_from(['"', "\\", '{a,"b"}', "NULL"]),
                st.dictionaries(
                    _storable_text(min_size=1, max_size=5),
                    st.one_of(st.integers(), _storable_text(max_size=8), st.booleans(), st.none()),
                    max_size=3,
                ),
            ),
            min_size=1,
            max_size=3,
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_any_sequence_of_appends_reads_back_gapless_and_verifies(store, stream_id, batches):
    stream = f"{stream_id}-{uuid.uuid4().hex}"  # a fresh stream per example
    for batch in batches:
        store.append(stream, store.stream_version(stream), [NewEvent(t, d) for t, d in batch])

    events = store.read_stream(stream)
    assert [(e.type, e.data) for e in events] == [event for batch in batches for event in batch]
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    assert store.verify_stream(stream) == Verification(True, len(events), None)


def test_verify_finds_the_first_event_altered_behind_the_stores_back(
    store, stream_id, request
):
    store.append(stream_id, 0, [seated(f"p{n}", n) for n in range(4)])

    tamper = _tamper_in_memory if isinstance(store, InMemoryEventStore) else _tamper_in_postgres
    tamper(store, request, stream_id, version=3, data={"player": "p2", "seat": 9})

    assert store.verify_stream(stream_id) == Verification(False, 4, 3)
    assert store.read_stream(stream_id, checked=False)[2].data["seat"] == 9


def test_a_read_refuses_an_event_altered_behind_the_stores_back_and_keeps_refusing(
    store, stream_id, request
):
    """Verify before acting: every read checks what it returns, the event before the read
    included (a read after version 2 still finds version 3 altered), then refuses the
    stream at once; the global log leaves its events out; the audit still reads it."""
    store.append(stream_id, 0, [seated(f"p{n}", n) for n in range(4)])
    assert [e.version for e in store.read_stream(stream_id, after_version=2)] == [3, 4]
    after, _ = drain(store, None)

    tamper = _tamper_in_memory if isinstance(store, InMemoryEventStore) else _tamper_in_postgres
    tamper(store, request, stream_id, version=3, data={"player": "p2", "seat": 9})

    with pytest.raises(IntegrityFailure) as refused:
        store.read_stream(stream_id, after_version=2)
    assert (refused.value.stream_id, refused.value.version) == (stream_id, 3)
    with pytest.raises(IntegrityFailure):
        store.read_stream(stream_id, up_to_version=1)  # the stream is refused, not only the event
    assert stream_id in {f.stream_id for f in store.integrity_failures()}
    assert all(e.stream_id != stream_id for e in drain(store, None)[0])
    assert len(store.read_stream(stream_id, checked=False)) == 4


def test_a_read_refuses_an_event_whose_link_to_the_one_before_is_broken(store, stream_id, request):
    """An event recomputed on a forged predecessor hash: the read that starts after the
    predecessor (a cached prefix) still checks the link."""
    store.append(stream_id, 0, [seated(f"p{n}", n) for n in range(3)])
    first, second = store.read_stream(stream_id, up_to_version=2)
    data = {"player": "p1", "seat": 7}
    forged_hash = event_hash(stream_id, 2, second.type, second.schema_version, data, second.metadata,
                             first.hash, second.recorded_at)
    if isinstance(store, InMemoryEventStore):
        store._streams[stream_id][1] = dataclasses.replace(second, data=data, hash=forged_hash)
    else:
        import psycopg
        from psycopg.types.json import Jsonb

        with psycopg.connect(request.getfixturevalue("admin_database_url")) as intruder:
            intruder.execute("SET session_replication_role = replica")
            intruder.execute("UPDATE events SET data = %s, hash = decode(%s, 'hex') WHERE stream_id = %s"
                             " AND version = 2", (Jsonb(data), forged_hash, stream_id))
    assert store.verify_stream(stream_id).first_bad_version == 3

    with pytest.raises(IntegrityFailure) as refused:
        store.read_stream(stream_id, after_version=2)
    assert refused.value.version == 3


def _tamper_in_memory(store, request, stream_id, version, data):
    stream = store._streams[stream_id]
    stream[version - 1] = dataclasses.replace(stream[version - 1], data=data)


def _tamper_in_postgres(store, request, stream_id, version, data):
    import psycopg
    from psycopg.types.json import Jsonb

    # As superuser: switch the guard off for one transaction, as an intruder would.
    with psycopg.connect(request.getfixturevalue("admin_database_url")) as intruder:
        intruder.execute("ALTER TABLE events DISABLE TRIGGER events_refuse_update_delete")
        intruder.execute(
            "UPDATE events SET data = %s WHERE stream_id = %s AND version = %s",
            (Jsonb(data), stream_id, version),
        )
        intruder.execute("ALTER TABLE events ENABLE TRIGGER events_refuse_update_delete")


def test_an_auditor_can_recompute_a_hash_from_the_event_alone(store, stream_id):
    """The hash is SHA-256 of the canonical JSON (sorted keys, no spaces, UTF-8) of the
    event's fields and the previous event's hash: a few lines of any language check it."""
    store.append(stream_id, 0, [seated("ann", 0), seated("bob", 1)], actor="floor-1")

    previous_hash = "0" * 64
    for event in store.read_stream(stream_id):
        document = {
            "data": event.data,
            "metadata": event.metadata,
            "previous_hash": previous_hash,
            "recorded_at": event.recorded_at.astimezone(UTC).strftime(
                "%Y-%m-%dT%H:%M:%S.%fZ"
            ),
            "schema_version": event.schema_version,
            "stream_id": event.stream_id,
            "type": event.type,
            "version": event.version,
        }
        text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert event.hash == hashlib.sha256(text.encode("utf-8")).hexdigest()
        previous_hash = event.hash
