"""The one handling path (service.application.handling), on a counter stream in the
in-memory store: the order of its checks, its retries, and what its cache keeps."""
from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.adapters.store.base import NewEvent, VersionConflict
from service.adapters.store.memory import InMemoryEventStore
from service.application.handling import Decision, Loaded, StreamKind, Streams, UnknownEventType, UnreadableStream, folded


def count(total: int, records) -> int:
    return total + sum(r.data["by"] for r in records)


COUNTERS = StreamKind("counter-", 0, count, cached=4)
RETRYING = StreamKind("counter-", 0, count, cached=4, retries=3)


def add(by: int):
    def decide(loaded: Loaded[int]) -> Decision[int]:
        decide.calls += 1
        return Decision([NewEvent("Added", {"by": by})], loaded.state + by, (by,))
    decide.calls = 0
    return decide


def test_a_command_is_decided_on_the_folded_state_and_appended_at_its_version():
    streams = Streams(InMemoryEventStore(), COUNTERS)
    streams.handle("counter-a", add(2))
    handled = streams.handle("counter-a", add(3), expected_version=1)
    assert (handled.version, handled.state, handled.decided) == (2, 5, (3,))
    assert [e["data"] for e in handled.events] == [{"by": 3}]
    assert streams.load("counter-a").state == 5


def test_a_known_idempotency_key_answers_the_first_result_without_deciding_again():
    streams = Streams(InMemoryEventStore(), COUNTERS)
    first = streams.handle("counter-a", add(2), idempotency_key="k")
    streams.handle("counter-a", add(5))
    again = add(7)
    repeated = streams.handle("counter-a", again, idempotency_key="k")
    assert again.calls == 0
    assert repeated.deduplicated and repeated.version == first.version == 1
    assert repeated.state == 2  # the state the first command left
    assert [e["data"] for e in repeated.events] == [{"by": 2}]


def test_a_stale_expected_version_is_a_conflict_before_the_domain_is_asked():
    streams = Streams(InMemoryEventStore(), COUNTERS)
    streams.handle("counter-a", add(1))
    late = add(1)
    with pytest.raises(VersionConflict):
        streams.handle("counter-a", late, expected_version=0)
    assert late.calls == 0


def test_without_an_expected_version_a_lost_race_is_judged_again_on_the_fresh_state():
    store = InMemoryEventStore()
    mine, theirs = Streams(store, RETRYING), Streams(store, RETRYING)
    mine.handle("counter-a", add(1))  # cached at version 1
    theirs.handle("counter-a", add(10))  # another process moves the stream on
    handled = mine.handle("counter-a", add(1), loaded=mine.load_for_write("counter-a", 1))
    assert (handled.version, handled.state) == (3, 12)


def test_with_an_expected_version_a_lost_race_is_not_retried():
    store = InMemoryEventStore()
    mine, theirs = Streams(store, RETRYING), Streams(store, RETRYING)
    mine.handle("counter-a", add(1))
    theirs.handle("counter-a", add(10))
    with pytest.raises(VersionConflict):
        mine.handle("counter-a", add(1), expected_version=1, loaded=mine.load_for_write("counter-a", 1))


def test_a_state_known_only_from_the_log_is_folded_at_the_next_load():
    store = InMemoryEventStore()
    streams = Streams(store, COUNTERS)

    def dated_by_the_store(loaded: Loaded[int]) -> Decision[int]:
        return Decision([NewEvent("Added", {"by": 4})], loaded.state, remember=False)

    streams.handle("counter-a", dated_by_the_store)
    assert streams.load("counter-a").state == 4


def test_a_state_decided_in_a_transaction_is_its_own_until_it_commits():
    store = InMemoryEventStore()
    streams = Streams(store, COUNTERS)
    streams.handle("counter-a", add(1))

    class Abandoned(Exception):
        pass

    seen_elsewhere = []
    with pytest.raises(Abandoned), store.transaction():
        streams.handle("counter-a", add(5))
        assert streams._cached("counter-a").state == 6  # the transaction acts on what it decided
        elsewhere = threading.Thread(target=lambda: seen_elsewhere.append(streams._cached("counter-a")))
        elsewhere.start()
        elsewhere.join(5)
        raise Abandoned
    # Another request never saw it, nor does anyone after the rollback: the cache holds the
    # committed state (the next load reads the log after it: the in-memory store keeps its
    # appends, PostgreSQL would have none of them).
    assert [loaded.state for loaded in seen_elsewhere] == [1]
    assert streams._cached("counter-a").version == 1
    assert streams.load("counter-a").state == 6
    with store.transaction():
        streams.handle("counter-a", add(2))
    assert streams._cached("counter-a").state == 8  # shared once committed


def add_record(total: int, record) -> int:
    if record.type != "Added":
        raise UnknownEventType(record.type)
    return total + record.data["by"]


STRICT = StreamKind("counter-", 0, lambda total, records: folded(total, records, add_record), cached=4)


class CountingStore(InMemoryEventStore):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def read_stream(self, *args, **kwargs):
        self.reads += 1
        return super().read_stream(*args, **kwargs)


def test_a_record_the_fold_refuses_makes_the_stream_unreadable_at_that_version_and_no_later_read_repeats_it():
    store = CountingStore()
    streams = Streams(store, STRICT)
    streams.handle("counter-a", add(2))
    store.append("counter-a", 1, [NewEvent("Renamed", {"name": "later"}), NewEvent("Added", {"by": 1})])
    with pytest.raises(UnreadableStream) as refused:
        streams.load("counter-a")
    assert (refused.value.stream_id, refused.value.version) == ("counter-a", 2)
    assert refused.value.reason == "Renamed: an event type this code does not know"
    reads = store.reads
    for _ in range(2):
        with pytest.raises(UnreadableStream, match="at version 2"):
            streams.handle("counter-a", add(1))
    assert store.reads == reads  # known: refused without reading the stream again
    assert streams.unreadable("counter-a").version == 2 and streams.unreadable("counter-b") is None
    assert streams.replay("counter-a", 1).state == 2  # what came before it still replays


def test_a_stream_found_unreadable_in_a_transaction_that_rolls_back_is_looked_at_again():
    store = InMemoryEventStore()
    streams = Streams(store, STRICT)

    class Abandoned(Exception):
        pass

    with pytest.raises(Abandoned), store.transaction():
        store.append("counter-a", 0, [NewEvent("Renamed", {"name": "later"})])
        with pytest.raises(UnreadableStream):
            streams.load("counter-a")
        raise Abandoned
    assert streams.unreadable("counter-a") is None


def test_the_cache_keeps_the_most_recently_used_streams():
    streams = Streams(InMemoryEventStore(), COUNTERS)
    for name in "abcde":
        streams.handle(f"counter-{name}", add(1))
    assert streams._cached("counter-a") is None
    assert streams._cached("counter-e") is not None


@given(st.lists(st.tuples(st.sampled_from(("mine", "theirs")), st.integers(1, 5),
                          st.sampled_from((None, "k1", "k2")), st.booleans()), min_size=1, max_size=25))
@settings(max_examples=60, deadline=None)
def test_two_processes_writing_one_stream_never_write_a_key_twice_or_answer_a_state_the_log_does_not_hold(writes):
    store = InMemoryEventStore()
    processes = {"mine": Streams(store, RETRYING), "theirs": Streams(store, RETRYING)}
    seen = {"mine": 0, "theirs": 0}  # the version each process last wrote or read
    for process, by, key, expecting in writes:
        streams = processes[process]
        # Its cached state, stale if the other process wrote since: the append finds out.
        loaded = streams.load_for_write("counter-a", seen[process])
        try:
            handled = streams.handle("counter-a", add(by), expected_version=seen[process] if expecting else None,
                                     idempotency_key=key, loaded=loaded)
        except VersionConflict:
            seen[process] = streams.load("counter-a").version
            continue
        seen[process] = handled.version
        # Whatever a writer is answered is the state the log holds at that version.
        assert handled.state == sum(r.data["by"] for r in store.read_stream("counter-a", up_to_version=handled.version))
    records = store.read_stream("counter-a")
    keys = [r.metadata.get("idempotency_key") for r in records if r.metadata.get("idempotency_key")]
    assert len(keys) == len(set(keys))
    for streams in processes.values():
        assert streams.load("counter-a").state == sum(r.data["by"] for r in records)
