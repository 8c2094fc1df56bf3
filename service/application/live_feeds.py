"""Live feeds (live.md) as the HTTP layer's streams and long-polls take them: one
subscription per client, which reads its stream's shared feed (service.adapters.notifications:
one read per notification for every client of the stream in this process) and answers what
the client was not sent yet, rendered for its caller, and the caller's turn when it is theirs.

The HTTP layer (service.http.streams) frames what a subscription answers as Server-Sent
Events and serves it; it calls here, and this module calls the feeds: a message goes
http -> application -> adapter and back, once.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import partial
from typing import Any

from service.adapters.notifications import FALLBACK_S, Feed, LiveFeeds, Watcher
from service.adapters.store.base import RecordedEvent, Reveal

__all__ = ["FALLBACK_S", "FeedSource", "LiveFeed", "News", "Subscription", "Watcher"]

log = logging.getLogger(__name__)

Shown = list[dict[str, Any]]


@dataclass(frozen=True)
class FeedSource:
    """What a stream of one kind needs: its store stream, how the caller sees a batch of its
    events, and (tables) what to follow for the `turn` message and how to read it."""
    stream_id: str
    render: Callable[[list[RecordedEvent]], Shown]
    view: Hashable
    """Who the events are rendered for (a Viewer): streams of one stream and view share
    their encoded messages."""
    reveal: Reveal | None = None
    follow: Callable[[], Any] | None = None
    turn: Callable[[Any, int], dict[str, Any] | None] | None = None
    """(what `follow` last gave, the version just sent) -> the turn message, or None."""


@dataclass(frozen=True)
class News:
    events: bytes
    """The events since the last news, encoded (b"" when none)."""
    turn: dict[str, Any] | None
    """The caller's turn at the version just sent, told once per version."""


class Subscription:
    """One client's place in a stream's feed: what it was sent so far (`sent`, a version).
    `encode` writes a batch of shown events as the client reads them (the HTTP layer's SSE
    messages): encoded once per batch and view for all the stream's clients."""

    def __init__(self, feeds: LiveFeeds, source: FeedSource, after: int,
                 encode: Callable[[Shown], bytes]) -> None:
        self._feeds = feeds
        self._source = source
        self._encode = encode
        self.sent = after
        self._turn_sent_at: int | None = None
        self._feed: Feed | None = None
        self._watcher: Watcher | None = None

    def open(self, watcher: Watcher) -> None:
        """Subscribe (`watcher` is called on news) and read the feed. Reads the store: call
        it on a request thread."""
        self._watcher = watcher
        self._feed = self._feeds.subscribe(self._source.stream_id, watcher,
                                           reveal=self._source.reveal, follow=self._source.follow)
        assert self._feed is not None
        self._feed.refresh()

    def news(self, *, may_read: bool) -> News | None:
        """What the client was not sent yet. Events the feed no longer keeps are read from
        the store when `may_read`; otherwise None: the client cannot go on without a read."""
        assert self._feed is not None
        feed = self._feed
        records = feed.after(self.sent)
        if records is None:
            if not may_read:
                return None
            records = self._feeds.store.read_stream(self._source.stream_id, after_version=self.sent,
                                                    reveal=self._source.reveal)
            events = self._encoded(records)
        elif records:
            events = feed.shared((self._source.view, self.sent, records[-1].version),
                                 partial(self._encoded, records))
        else:
            events = b""
        if records:
            self.sent = records[-1].version
        return News(events, self._turn())

    def _encoded(self, records: list[RecordedEvent]) -> bytes:
        return self._encode(self._source.render(records))

    def _turn(self) -> dict[str, Any] | None:
        source, feed = self._source, self._feed
        if source.turn is None or feed is None or self._turn_sent_at == self.sent:
            return None
        try:
            turn = source.turn(feed.followed, self.sent)
        except Exception:  # noqa: BLE001 - the events are sent already: never lose them for a turn
            log.warning("No turn message for %s at version %s", source.stream_id, self.sent, exc_info=True)
            return None
        if turn is not None:
            self._turn_sent_at = self.sent
        return turn

    def refresh_if_stale(self) -> None:
        """Read the feed if nobody did for FALLBACK_S (a notification lost)."""
        assert self._feed is not None
        self._feed.refresh_if_stale()

    def close(self) -> bool:
        """Unsubscribe; True the first time (the subscription was open)."""
        if self._watcher is None:
            return False
        self._feeds.unsubscribe(self._source.stream_id, self._watcher)
        self._watcher = None
        return True


class LiveFeed:
    """This process's live feeds (one `LiveFeeds`, built once by service.wiring), for the
    streams and the long-polls."""

    def __init__(self, feeds: LiveFeeds) -> None:
        self._feeds = feeds

    def subscription(self, source: FeedSource, after: int, encode: Callable[[Shown], bytes]) -> Subscription:
        """A client's subscription to `source` from after version `after` (open it to start)."""
        return Subscription(self._feeds, source, after, encode)

    def wait_after(self, stream_id: str, version: int, wait_s: float) -> None:
        """The long-poll: returns as soon as `stream_id` has an event after `version`, or
        after `wait_s` (service.adapters.notifications.LiveFeeds.wait_after)."""
        self._feeds.wait_after(stream_id, version, wait_s)
