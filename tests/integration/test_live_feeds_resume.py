"""Everything that follows the log resumes, and nothing is held back (issue 28): a feed
that cannot follow its table still sends its events, no failure ends a refresher, and
after the database ends the listening connections (pg_terminate_backend, as a restart or
a failover does) they listen again: every stream catches up from its own version, with
no gap and no event twice, and the tournament follower's wake-ups come back."""
from __future__ import annotations

import threading
import time

import psycopg
import pytest

from service.adapters.notifications import FALLBACK_S, LISTENER_NAME, LiveFeeds, PostgresListener
from service.adapters.store.base import NewEvent
from service.adapters.store.memory import InMemoryEventStore
from service.adapters.wakeups import WAKEUPS_NAME, Wakeups
from service.application.live_feeds import FeedSource, LiveFeed
from service.http.streams import EventStream

pytestmark = pytest.mark.integration

NOTIFIED_WITHIN_S = 0.5
RECONNECTED_WITHIN_S = 10.0


def events(count: int) -> list[NewEvent]:
    return [NewEvent("Happened", {"n": n}) for n in range(count)]


def shown(records) -> list[dict]:
    return [{"version": r.version, "type": r.type, "data": r.data} for r in records]


def ids(data: bytes) -> list[int]:
    return [int(line[4:]) for line in data.decode().split("\n") if line.startswith("id: ")]


class LoopStream:
    """A stream as gunicorn's loop serves it: the watcher only says there is news; the
    loop takes what the feed holds (never reading the store itself)."""

    def __init__(self, live: LiveFeeds, stream_id: str, after: int = 0,
                 follow=None, turn=None) -> None:
        self.received: list[int] = []
        self.news = threading.Event()
        self._lock = threading.Lock()
        self.stream = EventStream(LiveFeed(live), FeedSource(stream_id, shown, "anyone", follow=follow, turn=turn), after)
        self.received += ids(self.stream.open(self._woken))

    def _woken(self) -> None:
        with self._lock:
            data = self.stream.catch_up(may_read=False)
        if data:
            self.received += ids(data)
        self.news.set()

    def until(self, version: int, within_s: float) -> float:
        """Seconds until it received `version`; AssertionError past `within_s`."""
        started = time.monotonic()
        while not self.received or self.received[-1] < version:
            assert time.monotonic() - started < within_s, \
                f"held back: received up to {self.received[-1:]} of {version}"
            time.sleep(0.01)
        return time.monotonic() - started


def test_a_table_that_cannot_be_followed_still_gets_its_events_at_once():
    """The `turn` messages follow the table's state, loaded after each read. A load that
    failed (a pool timeout, a cache the process must rebuild) used to drop the events just
    read and skip the wake-up, on every re-read, until a load worked again: for the web
    process often only after its next write had warmed its table cache. The tail waited."""
    store = InMemoryEventStore()
    live = LiveFeeds(store)
    store.appended = live.publish
    loads_fail = threading.Event()

    def follow():
        if loads_fail.is_set():
            raise psycopg.OperationalError("couldn't get a connection after 1.50 sec")
        return store.stream_version("t")

    store.append("t", 0, events(3))
    stream = LoopStream(live, "t", follow=follow, turn=lambda followed, version: None)
    assert stream.received == [1, 2, 3]
    loads_fail.set()
    store.append("t", 3, events(2))
    assert stream.received == [1, 2, 3, 4, 5]
    loads_fail.clear()
    store.append("t", 5, events(1))
    assert stream.received == [1, 2, 3, 4, 5, 6]


def test_a_turn_that_cannot_be_told_loses_no_event():
    store = InMemoryEventStore()
    live = LiveFeeds(store)
    store.appended = live.publish

    def turn(followed, version):
        raise KeyError("a state the turn message does not expect")

    stream = LoopStream(live, "t", follow=lambda: store.stream_version("t"), turn=turn)
    store.append("t", 0, events(2))
    store.append("t", 2, events(1))
    assert stream.received == [1, 2, 3]


@pytest.fixture
def listened(database_url):
    """LiveFeeds on the test database with a PostgresListener, and the listeners made."""
    from service.adapters.store.postgres import PostgresEventStore, open_pool

    pool = open_pool(database_url, max_size=4)
    listeners: list[PostgresListener] = []
    live = LiveFeeds(PostgresEventStore(pool), listen=lambda feeds: listeners.append(
        PostgresListener(feeds, database_url)) or listeners[-1])
    yield live, listeners
    for listener in listeners:
        listener.stop()
    pool.close()


def test_no_failure_ends_a_refresher(listened, stream_id):
    """Two threads read the notified feeds. A watcher that raised (any bug past a read)
    used to end the thread that called it: two such and no feed of the process moved."""
    live, _ = listened

    def broken() -> None:
        raise RuntimeError("a watcher's bug")

    bad, good = f"{stream_id}-bad", f"{stream_id}-good"
    live.subscribe(bad, broken).refresh()
    woken = threading.Event()
    feed = live.subscribe(good, woken.set)
    feed.refresh()
    for version in range(PostgresListener.REFRESHERS + 2):
        live.store.append(bad, version, events(1))
    time.sleep(0.3)
    woken.clear()
    live.store.append(good, 0, events(2))
    assert woken.wait(NOTIFIED_WITHIN_S), "no refresher left to read the feed"
    assert [r.version for r in feed.after(0) or []] == [1, 2]


def terminate(admin_database_url: str, application_name: str) -> int:
    """pg_terminate_backend, as the server's superuser, of this test database's sessions
    named `application_name` (only this test's own); how many."""
    with psycopg.connect(admin_database_url, autocommit=True) as admin:
        return len(admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s", (application_name,)).fetchall())


def wait_for(condition, what: str, within_s: float = RECONNECTED_WITHIN_S) -> None:
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {within_s} s"
        time.sleep(0.02)


def test_after_its_backend_is_terminated_the_listener_listens_again_and_streams_resume_without_gap_or_double(
        listened, admin_database_url, stream_id):
    live, listeners = listened
    store = live.store
    store.append(stream_id, 0, events(3))
    streams = [LoopStream(live, stream_id, after) for after in (0, 2, 3)]
    wait_for(lambda: listeners and listeners[0].connections == 1, "listening")
    store.append(stream_id, 3, events(2))
    for stream in streams:
        assert stream.until(5, NOTIFIED_WITHIN_S) < NOTIFIED_WITHIN_S
    head = 5
    for _ in range(2):
        assert terminate(admin_database_url, LISTENER_NAME) >= 1
        # Written while nobody listens: the fallback, then the re-read after the
        # reconnection, bring them.
        store.append(stream_id, head, events(2))
        head += 2
        for stream in streams:
            stream.until(head, FALLBACK_S + 0.5)
        wait_for(lambda expected=2 + _: listeners[0].connections == expected, "the reconnection")
        # And notifications wake the streams again, not just the fallback.
        store.append(stream_id, head, events(3))
        head += 3
        for stream in streams:
            assert stream.until(head, NOTIFIED_WITHIN_S) < NOTIFIED_WITHIN_S
    for stream, after in zip(streams, (0, 2, 3)):
        assert stream.received == list(range(after + 1, head + 1))
    # A long-poll waiting when the listener was lost returns at the next write.
    returned = threading.Event()
    waiting = threading.Thread(target=lambda: (live.wait_after(stream_id, head, 10), returned.set()))
    waiting.start()
    time.sleep(0.1)
    terminate(admin_database_url, LISTENER_NAME)
    time.sleep(0.2)
    store.append(stream_id, head, events(1))
    assert returned.wait(FALLBACK_S + 0.5)
    waiting.join()


def test_the_followers_wakeups_listen_again_after_their_backend_is_terminated(database_url, admin_database_url):
    """The tournament manager sleeps until a notification names a stream it follows (or
    its safety net, 30 s): its listener must come back after the database dropped it."""
    from service.adapters.store.postgres import PostgresEventStore, open_pool

    wakeups = Wakeups(database_url, lambda stream_id: stream_id.startswith("followed-"))
    pool = open_pool(database_url, max_size=1)
    store = PostgresEventStore(pool)
    wakeups.start()
    try:
        assert wakeups.woken.wait(RECONNECTED_WITHIN_S)
        for attempt in range(2):
            wakeups.woken.clear()
            assert terminate(admin_database_url, WAKEUPS_NAME) >= 1
            # Woken once it listens again: whatever was appended meanwhile is read then.
            assert wakeups.woken.wait(RECONNECTED_WITHIN_S), "the listener did not come back"
            wakeups.woken.clear()
            store.append(f"followed-{attempt}-{time.monotonic_ns()}", 0, events(1))
            assert wakeups.woken.wait(NOTIFIED_WITHIN_S), "no wake-up from a notification"
    finally:
        wakeups.stop()
        pool.close()
