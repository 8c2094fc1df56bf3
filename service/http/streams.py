"""Server-Sent Events of a stream's log, as one caller may see it (live.md).

One SSE message per event: `id:` its version, `event:` its type, `data:` the event as
the caller may see it (rendered by the caller's `Source`, i.e. the redaction of
`GET .../events`). A table's stream also sends `event: turn` (no `id:`, so it never moves
`Last-Event-ID`) with `version`, `to_act` and `legal` whenever the caller is to act at the
version it has just been sent. A comment (`: keep-alive`) goes out after KEEP_ALIVE_S
without a message.

An `EventStream` is served one of two ways:
- from a gunicorn `BufferingWorker`'s event loop (service.http.gunicorn_worker): the request thread
  only opens it (the events after the client's version, read from the store) and leaves;
  the loop then writes whatever the feed brings, without a thread, and drops a client
  that does not read (its buffer beyond MAX_BUFFERED_BYTES) or that fell further behind
  than the feed keeps: the client resumes with `Last-Event-ID` and loses nothing;
- elsewhere (the development server, the test client): in the request's thread, which it
  holds until the client leaves (`in_thread`).
"""
from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from service.http.metrics import OPEN_STREAMS
from service.adapters.notifications import FALLBACK_S, Feed, LiveFeeds, Watcher
from service.adapters.store.base import RecordedEvent, Reveal

log = logging.getLogger(__name__)

KEEP_ALIVE_S = 15.0
RETRY_MS = 1000
MAX_BUFFERED_BYTES = 1024 * 1024
"""What the loop holds for a client that does not read, before it drops the client."""
KEEP_ALIVE = b": keep-alive\n\n"
CONTENT_TYPE = "text/event-stream"
ADOPT_STREAM = "cardroom.adopt_stream"
"""The WSGI environ key of the server's offer to serve a stream from its event loop
(service.http.gunicorn_worker): called with the EventStream, it answers the stream's watcher."""
# A proxy must neither buffer nor cache a stream (live.md); nginx reads X-Accel-Buffering.
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def sse_message(event: str, data: Any, event_id: int | None = None) -> bytes:
    """One SSE message. The data is one line of JSON (json.dumps escapes newlines)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


@dataclass(frozen=True)
class Source:
    """What a stream of one kind needs: its store stream, how the caller sees a batch of its
    events, and (tables) what to follow for the `turn` message and how to read it."""
    stream_id: str
    render: Callable[[list[RecordedEvent]], list[dict[str, Any]]]
    view: Hashable
    """Who the events are rendered for (a Viewer): streams of one stream and view share
    their rendered messages."""
    reveal: Reveal | None = None
    follow: Callable[[], Any] | None = None
    turn: Callable[[Any, int], dict[str, Any] | None] | None = None
    """(what `follow` last gave, the version just sent) -> the turn message, or None."""


class EventStream:
    """One client's stream: what it was sent so far (`sent`, a version)."""

    def __init__(self, live: LiveFeeds, source: Source, after: int) -> None:
        self._live = live
        self._source = source
        self.sent = after
        self._turn_sent_at: int | None = None
        self._feed: Feed | None = None
        self._watcher: Watcher | None = None

    def open(self, watcher: Watcher) -> bytes:
        """Subscribe (`watcher` is called on news) and answer what the client has not seen
        yet. Reads the store: call it on a request thread."""
        self._watcher = watcher
        OPEN_STREAMS.inc()  # close() counts it out, whatever happens from here
        self._feed = self._live.subscribe(self._source.stream_id, watcher,
                                          reveal=self._source.reveal, follow=self._source.follow)
        assert self._feed is not None
        self._feed.refresh()
        return f"retry: {RETRY_MS}\n\n".encode() + (self.catch_up(may_read=True) or b"")

    def catch_up(self, *, may_read: bool) -> bytes | None:
        """The messages since the last call (b"" when none). Events the feed no longer
        keeps are read from the store when `may_read`; otherwise None: the stream cannot
        go on without a read (the event loop then drops it, and the client resumes)."""
        assert self._feed is not None
        feed = self._feed
        records = feed.after(self.sent)
        if records is None:
            if not may_read:
                return None
            records = self._live.store.read_stream(self._source.stream_id, after_version=self.sent,
                                                   reveal=self._source.reveal)
            events = self._messages(records)
        elif records:
            events = feed.shared((self._source.view, self.sent, records[-1].version),
                                 partial(self._messages, records))
        else:
            events = b""
        if records:
            self.sent = records[-1].version
        return events + self._turn()

    def _messages(self, records: list[RecordedEvent]) -> bytes:
        return b"".join(sse_message(shown["type"], shown, shown["version"])
                        for shown in self._source.render(records))

    def _turn(self) -> bytes:
        source, feed = self._source, self._feed
        if source.turn is None or feed is None or self._turn_sent_at == self.sent:
            return b""
        try:
            turn = source.turn(feed.followed, self.sent)
        except Exception:  # noqa: BLE001 - the events are sent already: never lose them for a turn
            log.warning("No turn message for %s at version %s", source.stream_id, self.sent, exc_info=True)
            return b""
        if turn is None:
            return b""
        self._turn_sent_at = self.sent
        return sse_message("turn", turn)

    def close(self) -> None:
        if self._watcher is not None:
            self._live.unsubscribe(self._source.stream_id, self._watcher)
            self._watcher = None
            OPEN_STREAMS.dec()

    def in_thread(self) -> Iterator[bytes]:
        """The whole stream on the calling thread, until the client leaves."""
        woken = threading.Event()
        try:
            yield self.open(woken.set)
            quiet_since = time.monotonic()
            while True:
                woken.wait(FALLBACK_S)
                woken.clear()
                assert self._feed is not None
                self._feed.refresh_if_stale()
                data = self.catch_up(may_read=True)
                now = time.monotonic()
                if data:
                    yield data
                    quiet_since = now
                elif now - quiet_since >= KEEP_ALIVE_S:
                    yield KEEP_ALIVE
                    quiet_since = now
        finally:
            self.close()
