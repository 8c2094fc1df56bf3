"""Which streams have new events, per server process: the notifications behind the live
feeds of live.md (streams and long-polls).

Every append notifies: on PostgreSQL the append's statement sends `pg_notify('cardroom_events',
'<stream id> <version>')` in its transaction (service.adapters.store.event_sql, migration 0022), and one listening
connection per process (`PostgresListener`) hears the writes of every app server; the
in-memory store calls `LiveFeeds.publish` itself after an append. A notification carries
no event: whoever is woken re-reads the log from the last version it delivered, so a
notification that is lost (a dropped listening connection) costs latency, never an event.
Besides, every feed is re-read at least every FALLBACK_S.

One `Feed` per stream per process reads the new events once for all of this process's
streams of it (live.md: not one database read per stream per write), and keeps the last
FEED_EVENTS of them for the streams to take from.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import psycopg

from service.adapters.store.base import EventStore, IntegrityFailure, RecordedEvent, Reveal

log = logging.getLogger(__name__)

CHANNEL = "cardroom_events"
FALLBACK_S = 2.0
"""A feed with subscribers is re-read at least this often, notified or not."""
DUE_CHECK_S = 0.5
"""How often the listener looks for feeds due a re-read: a feed is re-read once its last
read is FALLBACK_S - DUE_CHECK_S old, so a lost notification costs at most FALLBACK_S."""
FEED_EVENTS = 1024
"""The events a feed keeps: a subscriber further behind reads the store itself."""
RECONNECT_PAUSE_S = 1.0
LONG_POLLS_WAITING = 2
"""Long-polls that may wait at once in one process: half of gunicorn's request threads
(service.devserver.GUNICORN_THREADS), the other half always free for writes."""

Watcher = Callable[[], None]
"""Called (on the notifying thread: keep it short) when its stream may have news."""


def notification_payload(stream_id: str, version: int) -> str:
    return f"{stream_id} {version}"


def parse_payload(payload: str) -> tuple[str, int] | None:
    stream_id, _, version = payload.rpartition(" ")
    return (stream_id, int(version)) if stream_id and version.isdigit() else None


class Feed:
    """The latest events of one stream, read once for every subscriber in this process.
    `follow` (optional, e.g. a table's state for the `turn` messages: only players' streams
    need it) derives something from the store after each read that found new events;
    `followed` holds its last result."""

    def __init__(self, store: EventStore, stream_id: str, reveal: Reveal | None,
                 follow: Callable[[], Any] | None) -> None:
        self.stream_id = stream_id
        self._store = store
        self._reveal = reveal
        self._follow = follow
        self._reading = threading.Lock()
        self._lock = threading.Lock()
        self._records: list[RecordedEvent] = []
        self._shared: dict[Hashable, bytes] = {}
        self._version: int | None = None  # None: never read
        self.read_at = 0.0
        self.followed: Any = None

    def refresh(self) -> bool:
        """Reads what was appended since the last read; True if there was something. The
        first read only learns the stream's version: its older events come from the store,
        read by whichever subscriber needs them (`after` answers None for them). Reads are
        one at a time; `after` waits only for the swap, never for a read (the event loop
        calls it)."""
        with self._reading:
            if self._version is None:
                records: list[RecordedEvent] = []
                version = self._store.stream_version(self.stream_id)
            else:
                records = self._store.read_stream(self.stream_id, after_version=self._version,
                                                  reveal=self._reveal)
                version = records[-1].version if records else self._version
            with self._lock:
                self.read_at = time.monotonic()
                self._records = (self._records + records)[-FEED_EVENTS:]
                self._version = version
                if records:
                    self._shared.clear()
            # The events are kept before anything is followed: what is followed (a table's
            # state, for the `turn` messages) failing to load must never hold events back.
            follow = self._follow
            if follow is not None and (records or self.followed is None):
                self._follow_now(follow)
            return bool(records)

    def _follow_now(self, follow: Callable[[], Any]) -> None:
        try:
            followed = follow()
        except Exception:  # noqa: BLE001 - the events still go; the next read follows again
            log.warning("Could not follow %s after a read; its events go on without it",
                        self.stream_id, exc_info=True)
            return
        if followed is not None:
            with self._lock:
                self.followed = followed

    def shared(self, key: Hashable, build: Callable[[], bytes]) -> bytes:
        """What `build` makes for `key`, built once for all the subscribers that ask with
        that key until the next read brings events (the same batch seen the same way: the
        streams of one table and one view share their messages)."""
        with self._lock:
            found = self._shared.get(key)
        if found is None:
            found = build()
            with self._lock:
                self._shared[key] = found
        return found

    def follow_with(self, follow: Callable[[], Any]) -> None:
        """Follow from now on, if the feed did not yet (its first subscribers needed
        nothing followed); the next refresh fills `followed`."""
        with self._lock:
            if self._follow is None:
                self._follow = follow

    def refresh_if_stale(self) -> bool:
        if time.monotonic() - self.read_at >= FALLBACK_S:
            return self.refresh()
        return False

    def after(self, version: int) -> list[RecordedEvent] | None:
        """The kept events after `version`; None when some of those are no longer kept
        (or were never read here): then the caller reads the store."""
        with self._lock:
            if self._version is None:
                return None
            if version >= self._version:
                return []
            first = self._records[0].version if self._records else self._version + 1
            if version + 1 < first:
                return None
            return self._records[version + 1 - first:]


@dataclass
class _Subscription:
    feed: Feed | None
    watchers: set[Watcher]


class LiveFeeds:
    """This process's notifications and feeds. `listen` (PostgreSQL: `PostgresListener`)
    is started at the first subscription, so processes that never stream hold no
    listening connection."""

    def __init__(self, store: EventStore,
                 listen: Callable[[LiveFeeds], Any] | None = None) -> None:
        self.store = store
        self._listen = listen
        self._listening: Any = None
        self._lock = threading.Lock()
        self._subscriptions: dict[str, _Subscription] = {}
        self._long_polls = threading.BoundedSemaphore(LONG_POLLS_WAITING)

    def subscribe(self, stream_id: str, watcher: Watcher, *, reveal: Reveal | None = None,
                  follow: Callable[[], Any] | None = None, feed: bool = True) -> Feed | None:
        """`watcher` is called whenever `stream_id` may have news until `unsubscribe`;
        with `feed`, the stream's shared Feed (created here: the caller refreshes it)."""
        with self._lock:
            if self._listen is not None and self._listening is None:
                self._listening = self._listen(self)
            subscription = self._subscriptions.setdefault(stream_id, _Subscription(None, set()))
            subscription.watchers.add(watcher)
            if feed and subscription.feed is None:
                subscription.feed = Feed(self.store, stream_id, reveal, follow)
            elif feed and follow is not None:
                subscription.feed.follow_with(follow)
            return subscription.feed if feed else None

    def unsubscribe(self, stream_id: str, watcher: Watcher) -> None:
        with self._lock:
            subscription = self._subscriptions.get(stream_id)
            if subscription is None:
                return
            subscription.watchers.discard(watcher)
            if not subscription.watchers:
                del self._subscriptions[stream_id]

    def publish(self, stream_id: str, version: int | None = None) -> None:
        """`stream_id` has events up to `version` (None: may have): refresh its feed, if this
        process has one, then wake its watchers."""
        with self._lock:
            subscription = self._subscriptions.get(stream_id)
            if subscription is None:
                return
            feed, watchers = subscription.feed, tuple(subscription.watchers)
        if feed is not None:
            try:
                feed.refresh()
            except psycopg.Error as error:  # the fallback reads again within FALLBACK_S
                log.warning("Could not read %s for its subscribers: %s", stream_id, error)
                return
            except IntegrityFailure as failed:  # nothing more is sent from it; a reconnect gets the 409
                log.error("%s: not sent to its subscribers: %s", stream_id, failed)
                return
        for watcher in watchers:
            watcher()

    def due(self, force: bool = False) -> list[str]:
        """The fallback: the subscribed streams not read for FALLBACK_S - DUE_CHECK_S
        (`force`: all), to publish in case a notification was lost."""
        with self._lock:
            subscribed = [(stream_id, s.feed) for stream_id, s in self._subscriptions.items()]
        stale_since = time.monotonic() - (FALLBACK_S - DUE_CHECK_S)
        return [stream_id for stream_id, feed in subscribed
                if force or feed is None or feed.read_at <= stale_since]

    def wait_after(self, stream_id: str, version: int, wait_s: float) -> None:
        """Long-poll: returns as soon as `stream_id` has an event after `version`, or after
        `wait_s`, or at once for a stream that does not exist. It holds the calling request
        thread meanwhile, so at most LONG_POLLS_WAITING wait at once in a process; beyond
        that it returns at once (the client gets the answer it would have got without
        `wait`): long-polls never starve the writes of threads."""
        if not self._long_polls.acquire(blocking=False):
            return
        deadline = time.monotonic() + wait_s
        woken = threading.Event()
        self.subscribe(stream_id, woken.set, feed=False)
        try:
            while 0 < self.store.stream_version(stream_id) <= version:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                # Re-read at least every FALLBACK_S: a lost notification costs latency.
                woken.wait(min(remaining, FALLBACK_S))
                woken.clear()
        finally:
            self.unsubscribe(stream_id, woken.set)
            self._long_polls.release()


LISTENER_NAME = "cardroom-listener"
"""The listening connections' application_name (pg_stat_activity: an operator, or a test,
finds them by it)."""
KEEPALIVE = {"keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2, "keepalives_count": 3}
"""TCP keepalives on a listening connection. It only reads, so when its server's machine
is lost (a failover that sends no reset) nothing would ever fail on it: the kernel's
probes declare it dead within about 11 s, then it connects again (to the new primary).
A server that restarts or ends the session (pg_terminate_backend) fails it at once."""


@contextmanager
def listening_connection(database_url: str, name: str) -> Iterator[psycopg.Connection[Any]]:
    """A connection LISTENing on CHANNEL, closed on leaving the block."""
    with psycopg.connect(database_url, autocommit=True, connect_timeout=2, application_name=name,
                         **KEEPALIVE) as connection:
        connection.execute(f"LISTEN {CHANNEL}")
        yield connection


class PostgresListener:
    """One connection per process, LISTENing on CHANNEL, on a daemon thread. Notified
    streams wait (once each, in arrival order) for REFRESHERS threads to publish them (LiveFeeds.publish reads
    the feed, then wakes its watchers): notifications of one stream that arrive while it
    waits make one read, and the listener never waits for a read. Every DUE_CHECK_S the
    streams `due` are added too. A lost connection is opened again; meanwhile
    notifications may have been missed, so every subscribed stream is then re-read. No
    failure ends the listening thread or a refresher: either would hold every feed of the
    process back (the fallback runs on the listening thread)."""

    REFRESHERS = 2

    def __init__(self, live: LiveFeeds, database_url: str) -> None:
        self.connections = 0
        """How many times it connected (a test sees a reconnect)."""
        self._live = live
        self._database_url = database_url
        self._pending: dict[str, None] = {}  # a set in arrival order: first come, first read
        self._arrived = threading.Condition()
        self._stopped = threading.Event()
        threading.Thread(target=self._listen, name="cardroom-listener", daemon=True).start()
        for index in range(self.REFRESHERS):
            threading.Thread(target=self._refresh, name=f"cardroom-feeds-{index}", daemon=True).start()

    def stop(self) -> None:
        """Stop listening (within FALLBACK_S); the app's processes listen until they exit."""
        self._stopped.set()

    def _listen(self) -> None:
        while not self._stopped.is_set():
            try:
                with listening_connection(self._database_url, LISTENER_NAME) as connection:
                    self.connections += 1
                    self._add(self._live.due(force=True))
                    self._follow(connection)
            except psycopg.Error as error:
                log.warning("The notification listener lost its connection: %s", error)
            except Exception:  # noqa: BLE001 - a bug must not end live feeds: listen again
                log.exception("The notification listener failed; it listens again")
            self._add(self._live.due())  # the fallback goes on while it connects again
            self._stopped.wait(RECONNECT_PAUSE_S)

    def _follow(self, connection: psycopg.Connection) -> None:
        while not self._stopped.is_set():
            for notify in connection.notifies(timeout=DUE_CHECK_S):
                parsed = parse_payload(notify.payload)
                if parsed is not None:
                    self._add([parsed[0]])
            self._add(self._live.due())

    def _add(self, stream_ids: list[str]) -> None:
        if stream_ids:
            with self._arrived:
                self._pending.update(dict.fromkeys(stream_ids))
                self._arrived.notify(len(stream_ids))

    def _refresh(self) -> None:
        while True:
            with self._arrived:
                while not self._pending:
                    self._arrived.wait()
                stream_id = next(iter(self._pending))
                del self._pending[stream_id]
            try:
                self._live.publish(stream_id)
            except Exception:  # noqa: BLE001 - a refresher that ended would hold back every feed
                log.exception("Could not publish %s; the fallback reads it again", stream_id)
