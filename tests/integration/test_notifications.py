"""Notifications and feeds (service.adapters.notifications, service.http.streams): the append trigger's
payload, the listener, the in-memory store's in-process notification, the fallback when a
notification is lost, and a stream's catch-up (nothing skipped, nothing twice)."""
from __future__ import annotations

import threading
import time

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.adapters import notifications
from service.adapters.notifications import CHANNEL, FALLBACK_S, LiveFeeds, PostgresListener
from service.adapters.store.base import NewEvent, VersionConflict
from service.adapters.store.memory import InMemoryEventStore
from service.application.live_feeds import FeedSource, LiveFeed
from service.http.streams import EventStream


def events(count: int) -> list[NewEvent]:
    return [NewEvent("Happened", {"n": n}) for n in range(count)]


def shown(records) -> list[dict]:
    return [{"version": r.version, "type": r.type, "data": r.data} for r in records]


def ids(data: bytes) -> list[int]:
    return [int(line[4:]) for line in data.decode().split("\n") if line.startswith("id: ")]


def test_an_append_notifies_its_stream_and_last_version_and_nothing_else(database_url, postgres_store, stream_id):
    with psycopg.connect(database_url, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        postgres_store.append(stream_id, 0, events(3))
        postgres_store.append(stream_id, 3, events(1))
        heard = [n.payload for n in listener.notifies(timeout=1.0)]
    assert [p for p in heard if p.startswith(stream_id)] == [f"{stream_id} 3", f"{stream_id} 4"]


def test_an_append_rolled_back_notifies_nobody(database_url, postgres_store, postgres_pool, stream_id):
    with psycopg.connect(database_url, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        with postgres_pool.connection() as connection, pytest.raises(RuntimeError), connection.transaction():
            postgres_store.append_on(connection, stream_id, 0, events(2))
            raise RuntimeError("the caller's transaction fails after the append")
        heard = [n.payload for n in listener.notifies(timeout=0.5)]
    assert not [p for p in heard if p.startswith(stream_id)]
    assert postgres_store.stream_version(stream_id) == 0



def test_an_append_refused_notifies_nobody(database_url, postgres_store, stream_id):
    """The append's own statement notifies (migration 0022): one that writes nothing, behind
    the stream or racing for its version, sends nothing."""
    postgres_store.append(stream_id, 0, events(2))
    with psycopg.connect(database_url, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        for stale in (0, 1):
            with pytest.raises(VersionConflict):
                postgres_store.append(stream_id, stale, events(1))
        heard = [n.payload for n in listener.notifies(timeout=0.5)]
    assert not [p for p in heard if p.startswith(stream_id)]
    assert postgres_store.stream_version(stream_id) == 2

def test_the_listener_wakes_a_watcher_for_a_write_from_another_store(database_url, postgres_store, stream_id):
    from service.adapters.store.postgres import PostgresEventStore, open_pool

    other_pool = open_pool(database_url, max_size=2)
    try:
        listeners: list[PostgresListener] = []
        live = LiveFeeds(postgres_store, listen=lambda feeds: listeners.append(
            PostgresListener(feeds, database_url)) or listeners[-1])
        woken = threading.Event()
        feed = live.subscribe(stream_id, woken.set)
        feed.refresh()
        # Once it listens, the listener wakes every watcher (notifications may have been
        # missed before): from then on, it hears every write.
        assert woken.wait(5), "the listener never connected"
        woken.clear()
        started = time.monotonic()
        # Another process of the same deployment: the same chain key.
        PostgresEventStore(other_pool, signer=postgres_store.signer).append(stream_id, 0, events(2))
        assert woken.wait(FALLBACK_S / 2), "no wake-up from the notification"
        assert time.monotonic() - started < 0.5
        assert [r.version for r in feed.after(0) or []] == [1, 2]
    finally:
        for listener in listeners:
            listener.stop()
        other_pool.close()


def test_the_memory_store_notifies_in_process():
    store = InMemoryEventStore()
    live = LiveFeeds(store)
    store.appended = live.publish
    woken = threading.Event()
    feed = live.subscribe("s", woken.set)
    feed.refresh()
    store.append("s", 0, events(2))
    assert woken.is_set()
    assert [r.version for r in feed.after(0)] == [1, 2]
    assert feed.after(2) == []


def test_a_lost_notification_costs_latency_never_an_event():
    store = InMemoryEventStore()  # nothing wired: every notification is lost
    live = LiveFeeds(store)
    store.append("s", 0, events(1))
    stream = EventStream(LiveFeed(live), FeedSource("s", shown, "anyone"), after=0)
    chunks = stream.in_thread()
    assert ids(next(chunks)) == [1]
    store.append("s", 1, events(2))
    started = time.monotonic()
    assert ids(next(chunks)) == [2, 3]
    assert time.monotonic() - started <= FALLBACK_S + 0.5
    chunks.close()
    assert "s" not in live._subscriptions  # closing the stream unsubscribed it


def test_a_long_poll_returns_at_a_write_or_at_its_timeout():
    store = InMemoryEventStore()
    live = LiveFeeds(store)
    store.appended = live.publish
    store.append("s", 0, events(1))
    started = time.monotonic()
    live.wait_after("s", 0, 5)
    live.wait_after("no such stream", 0, 5)
    assert time.monotonic() - started < 0.1
    threading.Timer(0.2, lambda: store.append("s", 1, events(1))).start()
    started = time.monotonic()
    live.wait_after("s", 1, 5)
    assert 0.15 < time.monotonic() - started < 0.3
    started = time.monotonic()
    live.wait_after("s", 2, 0.3)
    assert 0.3 <= time.monotonic() - started < 0.5


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.lists(st.integers(1, 40), min_size=1, max_size=12),
       start=st.integers(0, 30), kept=st.integers(1, 50), data=st.data())
def test_a_stream_gets_every_version_after_its_start_once_and_in_order(batches, start, kept, data):
    store = InMemoryEventStore()
    live = LiveFeeds(store)
    store.appended = live.publish
    head = 0
    original, notifications.FEED_EVENTS = notifications.FEED_EVENTS, kept
    try:
        stream = EventStream(LiveFeed(live), FeedSource("s", shown, "anyone"), after=start)
        received = ids(stream.open(lambda: None))
        for size in batches:
            store.append("s", head, events(size))
            head += size
            if data.draw(st.booleans(), label="catch up now"):
                more = stream.catch_up(may_read=data.draw(st.booleans(), label="may read"))
                if more is None:  # the loop drops it; the client resumes from what it got
                    stream.close()
                    stream = EventStream(LiveFeed(live), FeedSource("s", shown, "anyone"), after=stream.sent)
                    more = stream.open(lambda: None)
                received += ids(more)
        received += ids(stream.catch_up(may_read=True))
    finally:
        notifications.FEED_EVENTS = original
    assert received == list(range(start + 1, head + 1))


def test_long_polls_beyond_the_bound_answer_at_once():
    store = InMemoryEventStore()
    live = LiveFeeds(store)
    store.appended = live.publish
    store.append("s", 0, events(1))
    waiting = [threading.Thread(target=live.wait_after, args=("s", 1, 1.0))
               for _ in range(notifications.LONG_POLLS_WAITING)]
    for thread in waiting:
        thread.start()
    time.sleep(0.1)
    started = time.monotonic()
    live.wait_after("s", 1, 1.0)
    assert time.monotonic() - started < 0.05
    for thread in waiting:
        thread.join()
    started = time.monotonic()
    live.wait_after("s", 1, 0.2)  # the waiters are gone: this one waits again
    assert time.monotonic() - started >= 0.2
