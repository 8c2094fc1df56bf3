"""Server-Sent Events of a stream's log, as one caller may see it (live.md).

One SSE message per event: `id:` its version, `event:` its type, `data:` the event as
the caller may see it (rendered by the caller's `FeedSource`, i.e. the redaction of
`GET .../events`, read through the client's subscription to the live feed:
service.application.live_feeds). A table's stream also sends `event: turn` (no `id:`, so
it never moves `Last-Event-ID`) with `version`, `to_act` and `legal` whenever the caller is to act at the
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
import threading
import time
from collections.abc import Iterator
from typing import Any

from service.application.live_feeds import FALLBACK_S, FeedSource, LiveFeed, Watcher
from service.http.metrics import OPEN_STREAMS

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


def sse_events(shown: list[dict[str, Any]]) -> bytes:
    """Events as the caller may see them, one message each (`id:` the version)."""
    return b"".join(sse_message(event["type"], event, event["version"]) for event in shown)


class EventStream:
    """One client's stream, on its subscription to the live feed
    (service.application.live_feeds): what it was sent so far (`sent`, a version)."""

    def __init__(self, live: LiveFeed, source: FeedSource, after: int) -> None:
        self._subscription = live.subscription(source, after, sse_events)

    @property
    def sent(self) -> int:
        return self._subscription.sent

    def open(self, watcher: Watcher) -> bytes:
        """Subscribe (`watcher` is called on news) and answer what the client has not seen
        yet. Reads the store: call it on a request thread."""
        OPEN_STREAMS.inc()  # close() counts it out, whatever happens from here
        self._subscription.open(watcher)
        return f"retry: {RETRY_MS}\n\n".encode() + (self.catch_up(may_read=True) or b"")

    def catch_up(self, *, may_read: bool) -> bytes | None:
        """The messages since the last call (b"" when none). Events the feed no longer
        keeps are read from the store when `may_read`; otherwise None: the stream cannot
        go on without a read (the event loop then drops it, and the client resumes)."""
        news = self._subscription.news(may_read=may_read)
        if news is None:
            return None
        return news.events + (sse_message("turn", news.turn) if news.turn is not None else b"")

    def close(self) -> None:
        if self._subscription.close():
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
                self._subscription.refresh_if_stale()
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
