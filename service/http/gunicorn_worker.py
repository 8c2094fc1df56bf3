"""gunicorn's threaded worker, with every request read whole before a thread sees it.

gunicorn's `gthread` worker gives a connection to a thread as soon as its first bytes
arrive; the thread then reads the headers and the body with blocking reads. A client
that sends its headers and stalls mid-body holds that thread for as long as it likes:
eight such connections held every request thread of `make run` and `/healthz` timed out.

`BufferingWorker` reads each request in the worker's event loop instead (non-blocking,
every connection in one selector), and hands the connection to a thread only once the
request is all there: the request line, the headers and the whole body (by
Content-Length, or to the last chunk). A request must be complete within
CARDROOM_REQUEST_READ_TIMEOUT_S (10 s) of its first byte (a new connection: of its opening), else it is
answered 408 and closed. A stalled socket then costs a file descriptor and its buffered
bytes, never a thread. Requests that cannot be served (a request line or headers over
the limits, a body over the app's maximum) are answered from the loop without a thread.

Every error the server itself produces is an RFC 9457 problem document, like the app's:
the parser's (malformed request line, NUL or an invalid character in a header, request
line too long: 414, headers too large: 431) as well as the loop's (408, 413).

Threads still write the answers with blocking sends; the kernel's SO_SNDTIMEO and
SO_RCVTIMEO on every connection bound each of those (a client that stops reading a large
answer, a body this loop framed differently from the parser) to SOCKET_IO_TIMEOUT_S.

Server-Sent Events streams (service.http.streams) are served from the same loop: the app's
stream view is offered (WSGI environ `ADOPT_STREAM`) to hand its EventStream over; the
thread then only writes the response head and what the client has not seen yet, and the
loop takes the connection. From then on the stream's notifications come to the loop
(through gunicorn's method queue), which writes with non-blocking sends: an open stream
costs a file descriptor and its buffered bytes, never a thread, and a client that stops
reading is dropped once MAX_BUFFERED_BYTES wait for it (it resumes with Last-Event-ID).
A stream's body ends with its connection (no chunked framing).

Not for TLS or HTTP/2 (gunicorn terminates neither here; a proxy would).
"""
from __future__ import annotations

import contextlib
import errno
import gc
import json
import selectors
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass
from functools import partial
from http import HTTPStatus

from gunicorn import util
from gunicorn.http import errors as http_errors
from gunicorn.workers.gthread import TConn, ThreadWorker

from service.config import Config
from service.http.problems import problem_body
from service.http.streams import ADOPT_STREAM, KEEP_ALIVE, KEEP_ALIVE_S, MAX_BUFFERED_BYTES, EventStream

SOCKET_IO_TIMEOUT_S = 10.0
GIL_SWITCH_INTERVAL_S = 0.0005
MAX_BODY_BYTES = 1024 * 1024
"""The app's own limit (service.bootstrap.MAX_BODY_BYTES): a larger body is refused unread."""
RECV_BYTES = 64 * 1024
MAX_CHUNK_SIZE_LINE = 1024


@dataclass(frozen=True)
class Limits:
    request_line: int
    header_block: int
    body: int


@dataclass(frozen=True)
class Refusal:
    """An answer the server gives itself, without the app."""
    status: int
    code: str
    detail: str


@dataclass(frozen=True)
class Framing:
    """What the bytes read so far hold: `end` is the length of the first whole request
    (None: more is needed); `expects_continue` if its headers are complete, its body is
    not, and the client waits for `100 Continue` before sending it."""
    end: int | None
    expects_continue: bool = False


NEED_MORE = Framing(None)


def request_framing(data: bytes, limits: Limits) -> Framing | Refusal:
    """Where the first HTTP/1.x request in `data` ends. Framing it cannot make sense of
    (conflicting or invalid lengths, another transfer coding, a malformed chunk) is left
    to gunicorn's parser, which refuses it with the right error: the request is then
    taken as ending where the data does. A chunked body is checked here, chunk by chunk:
    gunicorn's parser would only find a bad chunk while the app reads the body."""
    head_end = data.find(b"\r\n\r\n")
    if head_end < 0:
        line_end = data.find(b"\r\n")
        if line_end > limits.request_line or (line_end < 0 and len(data) > limits.request_line):
            return Refusal(414, "uri_too_long",
                           f"the request line is longer than {limits.request_line} bytes")
        if len(data) > limits.header_block:
            return Refusal(431, "header_fields_too_large",
                           f"the request's headers are larger than {limits.header_block} bytes")
        return NEED_MORE
    body_start = head_end + 4
    lengths: list[bytes] = []
    codings: list[bytes] = []
    expects_continue = False
    for line in data[:head_end].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.lower()
        if name == b"content-length":
            lengths.append(value.strip())
        elif name == b"transfer-encoding":
            codings.append(value.strip().lower())
        elif name == b"expect":
            expects_continue = value.strip().lower() == b"100-continue"
    if codings:
        if lengths or codings != [b"chunked"]:
            return Framing(len(data))
        return _chunked_end(data, body_start, limits, expects_continue)
    if not lengths:
        return Framing(body_start)
    if len(lengths) > 1 or not lengths[0].isdigit():
        return Framing(len(data))
    length = int(lengths[0])
    if length > limits.body:
        return _too_large(limits)
    end = body_start + length
    return Framing(end) if len(data) >= end else Framing(None, expects_continue and len(data) == body_start)


def _chunked_end(data: bytes, position: int, limits: Limits, expects_continue: bool) -> Framing | Refusal:
    body_start = position
    total = 0
    while True:
        line_end = data.find(b"\r\n", position)
        if line_end < 0:
            if len(data) - position > MAX_CHUNK_SIZE_LINE:
                return _malformed_chunk("a chunk size line is too long")
            return Framing(None, expects_continue and position == body_start == len(data))
        size_text = data[position:line_end].partition(b";")[0].rstrip(b" \t")
        if not size_text or size_text.strip(b"0123456789abcdefABCDEF"):
            return _malformed_chunk(f"invalid chunk size {bytes(size_text[:20])!r}")
        size = int(size_text, 16)
        if size == 0:
            # Trailer fields, then an empty line.
            if data.startswith(b"\r\n", line_end + 2):
                return Framing(line_end + 4)
            trailers_end = data.find(b"\r\n\r\n", line_end)
            if trailers_end < 0:
                if len(data) - line_end > limits.header_block:
                    return Refusal(431, "header_fields_too_large",
                                   f"the request's trailers are larger than {limits.header_block} bytes")
                return NEED_MORE
            return Framing(trailers_end + 4)
        total += size
        if total > limits.body:
            return _too_large(limits)
        data_end = line_end + 2 + size
        position = data_end + 2
        if len(data) < position:
            if len(data) > data_end and not b"\r\n".startswith(data[data_end:position]):
                return _malformed_chunk("a chunk is longer than its size")
            return NEED_MORE
        if data[data_end:position] != b"\r\n":
            return _malformed_chunk("a chunk is longer than its size")


def _malformed_chunk(detail: str) -> Refusal:
    return Refusal(400, "malformed_body", detail)


def _too_large(limits: Limits) -> Refusal:
    return Refusal(413, "payload_too_large", f"the body is larger than {limits.body} bytes")


def response_bytes(refusal: Refusal) -> bytes:
    """A whole HTTP/1.1 answer carrying `refusal` as a problem document; closes."""
    body = json.dumps(problem_body(refusal.status, refusal.code, refusal.detail)).encode()
    return (
        f"HTTP/1.1 {refusal.status} {_phrase(refusal.status)}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/problem+json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode("latin-1") + body


def _phrase(status: int) -> str:
    return HTTPStatus(status).phrase


_DETAIL_LIMIT = 200
_CLIENT_ERRORS: tuple[tuple[type[Exception], int, str], ...] = (
    (http_errors.LimitRequestLine, 414, "uri_too_long"),
    (http_errors.LimitRequestHeaders, 431, "header_fields_too_large"),
    (http_errors.InvalidHeaderName, 400, "invalid_header"),
    (http_errors.InvalidHeader, 400, "invalid_header"),
    (http_errors.ObsoleteFolding, 400, "invalid_header"),
    (http_errors.InvalidRequestLine, 400, "malformed_request"),
    (http_errors.InvalidRequestMethod, 400, "malformed_request"),
    (http_errors.InvalidHTTPVersion, 400, "malformed_request"),
    (http_errors.InvalidSchemeHeaders, 400, "malformed_request"),
    (http_errors.InvalidChunkSize, 400, "malformed_body"),
    (http_errors.ChunkMissingTerminator, 400, "malformed_body"),
    (http_errors.InvalidChunkExtension, 400, "malformed_body"),
    (http_errors.UnsupportedTransferCoding, 501, "unsupported_transfer_coding"),
    (http_errors.ExpectationFailed, 417, "expectation_failed"),
)


def refusal_for(error: Exception) -> Refusal | None:
    """The problem for an error gunicorn's parser raised (None: not the client's fault).
    Errors about the response the app produced are the server's (a 500)."""
    if isinstance(error, (http_errors.InvalidResponseHeader, http_errors.InvalidResponseHeaderName)):
        return None
    for kind, status, code in _CLIENT_ERRORS:
        if isinstance(error, kind):
            detail = f"{_phrase(status).lower()}: {error}"
            if len(detail) > _DETAIL_LIMIT:
                detail = detail[:_DETAIL_LIMIT] + "..."
            return Refusal(status, code, detail)
    return None


_INTERNAL = Refusal(500, "internal_error", "the server failed to handle this request")
_TIMEVAL = struct.pack("ll", int(SOCKET_IO_TIMEOUT_S), 0)


GC_THRESHOLDS = (20_000, 20, 100)
"""The cyclic collector's thresholds in a web worker (Python's: 700, 10, 10)."""


def _collect_less() -> None:
    """What the app holds once it is loaded (modules, the game registry, the wiring: some
    190,000 objects) is never garbage: frozen, the collector never walks it again. And a
    request's garbage is freed by reference counting or in the young generation; at
    Python's thresholds the collector also ran every 700 allocations and walked the whole
    heap every few seconds (50-75 ms each), a tenth of a worker's CPU under the production
    load (issue 37: 0.19 s of collection per worker in a bench.action_profile run, 0.02 s
    with these settings). Cycles still go within GC_THRESHOLDS' counts of allocations."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


class BufferingWorker(ThreadWorker):
    """See the module docstring. Connections being read wait in `reading` (connection ->
    deadline, in the order they began, hence of their deadlines) and in the selector."""

    def init_process(self) -> None:
        if self.cfg.is_ssl:
            raise RuntimeError("BufferingWorker serves plain HTTP/1.x only")
        self.reading: dict[TConn, float] = {}
        self.read_timeout_s = Config.from_env().request_read_timeout_s
        self.timed_out = Refusal(408, "request_timeout",
                                 f"the request was not complete within {self.read_timeout_s:g} s")
        line = self.cfg.limit_request_line
        self.limits = Limits(
            request_line=line + 2,
            header_block=line + 2 + self.cfg.limit_request_fields * (self.cfg.limit_request_field_size + 2) + 2,
            body=MAX_BODY_BYTES,
        )
        self.answering = threading.local()
        # The loop thread makes a system call per stream per batch and so gives up the GIL
        # each time; at Python's default 5 ms it then waits behind the request threads
        # for up to that long, again and again. 1,000 streams beside 200 actions/s
        # (bench.streams): delivery p99 380 ms at 5 ms, 122 ms at 0.5 ms.
        sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
        super().init_process()

    def enqueue_req(self, conn: TConn) -> None:
        """Called for a new connection, a kept-alive one that became readable, and one
        with the next request already read ahead: read the request, then a thread."""
        if not conn.initialized:
            conn.init()  # creates the HTTP/1 parser; without TLS it does no I/O
            conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, _TIMEVAL)
            conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, _TIMEVAL)
        conn.pending = bytearray(conn.parser.unreader.take_buffered())
        conn.sent_continue = False
        conn.sock.setblocking(False)
        self.reading[conn] = time.monotonic() + self.read_timeout_s
        # Usually the request is already there (a kept-alive connection became readable,
        # or it came with the connection): read it now rather than after another poll.
        if self._read_available(conn) and not self._framed(conn):
            self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_readable, conn))

    def _on_readable(self, conn: TConn, _sock: socket.socket) -> None:
        if self._read_available(conn):
            self._framed(conn)

    def _read_available(self, conn: TConn) -> bool:
        """Reads what the socket holds; False if the connection is gone (then dropped)."""
        try:
            while True:
                chunk = conn.sock.recv(RECV_BYTES)
                if not chunk:  # the client closed
                    self._drop(conn, None)
                    return False
                conn.pending += chunk
                if len(chunk) < RECV_BYTES:
                    return True
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            self._drop(conn, None)
            return False

    def _framed(self, conn: TConn) -> bool:
        """True once the connection has left the loop: to a thread, or refused."""
        framing = request_framing(conn.pending, self.limits)
        if isinstance(framing, Refusal):
            self._drop(conn, framing)
            return True
        if framing.end is None:
            if framing.expects_continue and not conn.sent_continue:
                conn.sent_continue = True
                self._send_quietly(conn, b"HTTP/1.1 100 Continue\r\n\r\n")
            return False
        self._leave_loop(conn)
        conn.parser.unreader.unread(bytes(conn.pending))
        conn.pending = None
        conn.data_ready = True
        super().enqueue_req(conn)
        return True

    def _leave_loop(self, conn: TConn) -> None:
        del self.reading[conn]
        with contextlib.suppress(KeyError):  # framed before it was ever registered
            self.poller.unregister(conn.sock)

    def _drop(self, conn: TConn, refusal: Refusal | None) -> None:
        self._leave_loop(conn)
        if refusal is not None:
            log = self.log.debug if refusal.status == 408 else self.log.warning
            log("Refused a request from %s: %s %s", conn.client, refusal.status, refusal.detail)
            self._send_quietly(conn, response_bytes(refusal))
        self.nr_conns -= 1
        conn.close()

    @staticmethod
    def _send_quietly(conn: TConn, data: bytes) -> None:
        # A small answer fits the socket's buffer; a client that cannot take it loses it.
        with contextlib.suppress(OSError):
            conn.sock.send(data)

    def murder_pending(self) -> None:
        super().murder_pending()
        now = time.monotonic()
        self._tend_streams(now)
        while self.reading:
            conn, deadline = next(iter(self.reading.items()))
            if deadline > now:
                break
            # Nothing sent at all: just close, as for an idle kept-alive connection.
            self._drop(conn, self.timed_out if conn.pending else None)

    def handle(self, conn: TConn):  # noqa: ANN201 - gunicorn's signature
        self.answering.done = False
        self.answering.conn = conn
        conn.stream = None
        conn.stream_opened = False
        return super().handle(conn)

    def handle_request(self, req, conn: TConn) -> bool:  # noqa: ANN001
        keep_alive = super().handle_request(req, conn)
        self.answering.done = True
        # The head and the backlog are out: the loop may take the stream.
        conn.stream_opened = conn.stream is not None
        return keep_alive

    # ------------------------------------------------------------- streams in the loop

    def load_wsgi(self) -> None:
        super().load_wsgi()
        _collect_less()
        self.streams: dict[TConn, None] = {}  # in the order they were adopted
        self.newsworthy: dict[TConn, None] = {}
        self.news_lock = threading.Lock()
        self.next_stream_tending = 0.0
        app = self.wsgi
        self.wsgi = partial(self._offering_the_loop, app)

    def _offering_the_loop(self, app, environ: dict, start_response):  # noqa: ANN001, ANN202 - WSGI
        conn = self.answering.conn
        response = start_response.__self__  # gunicorn's Response
        environ[ADOPT_STREAM] = partial(self._adopt_later, conn)
        body = app(environ, start_response)
        if conn.stream is not None:
            # The body goes on after this request's thread: it ends with the connection.
            response.chunked = False
            response.force_close()
        return body

    def _adopt_later(self, conn: TConn, stream: EventStream):  # noqa: ANN202
        """On the request thread: the view gives its stream; news for it go to the loop."""
        conn.stream = stream
        return partial(self._news_for, conn)

    def _news_for(self, conn: TConn) -> None:
        """On a notifying thread: the streams with news wait in `newsworthy`, and the loop
        is woken once for all of them (one wake-up per batch of news, not per stream)."""
        with self.news_lock:
            wake = not self.newsworthy
            self.newsworthy[conn] = None
        if wake:
            self.method_queue.defer(self._deliver_news)

    def _deliver_news(self) -> None:
        with self.news_lock:
            conns, self.newsworthy = self.newsworthy, {}
        for conn in conns:
            self._stream_news(conn)

    def finish_request(self, conn: TConn, fs) -> None:  # noqa: ANN001 - gunicorn's signature
        stream = getattr(conn, "stream", None)
        if stream is None:
            return super().finish_request(conn, fs)
        if not conn.stream_opened or not self.alive:
            stream.close()
            return super().finish_request(conn, fs)
        conn.sock.setblocking(False)
        conn.unsent = bytearray()
        conn.wrote_at = time.monotonic()
        conn.polled = selectors.EVENT_READ
        self.streams[conn] = None
        self.poller.register(conn.sock, conn.polled, partial(self._on_stream_socket, conn))
        self._stream_news(conn)  # whatever came while the thread was opening it
        return None

    def _stream_news(self, conn: TConn) -> None:
        if conn not in self.streams:  # not adopted yet (adoption catches up), or gone
            return
        data = conn.stream.catch_up(may_read=False)
        if data is None:  # further behind than the feed keeps: the client resumes
            self._drop_stream(conn)
        elif data:
            self._send_stream(conn, data)

    def _send_stream(self, conn: TConn, data: bytes) -> None:
        conn.unsent += data
        conn.wrote_at = time.monotonic()
        self._flush_stream(conn)

    def _flush_stream(self, conn: TConn) -> None:
        try:
            while conn.unsent:
                sent = conn.sock.send(conn.unsent)
                del conn.unsent[:sent]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._drop_stream(conn)
            return
        if len(conn.unsent) > MAX_BUFFERED_BYTES:
            self.log.debug("Dropped a stream to %s that does not read", conn.client)
            self._drop_stream(conn)
            return
        wanted = selectors.EVENT_READ | (selectors.EVENT_WRITE if conn.unsent else 0)
        if wanted != conn.polled:
            conn.polled = wanted
            self.poller.modify(conn.sock, wanted, partial(self._on_stream_socket, conn))

    def _on_stream_socket(self, conn: TConn, _sock: socket.socket) -> None:
        """Readable (the client closed, or sent what a stream does not read) or writable."""
        if conn.unsent:
            self._flush_stream(conn)
            if conn not in self.streams:
                return
        try:
            if conn.sock.recv(RECV_BYTES) == b"":
                self._drop_stream(conn)
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._drop_stream(conn)

    def _drop_stream(self, conn: TConn) -> None:
        del self.streams[conn]
        conn.stream.close()
        with contextlib.suppress(KeyError, ValueError):
            self.poller.unregister(conn.sock)
        self.nr_conns -= 1
        conn.close()

    def _tend_streams(self, now: float) -> None:
        """Once a second: keep-alives for quiet streams; when the worker stops, close them."""
        if not self.alive:
            for conn in list(self.streams):
                self._drop_stream(conn)
            return
        if now < self.next_stream_tending:
            return
        self.next_stream_tending = now + 1.0
        for conn in list(self.streams):
            if conn in self.streams and now - conn.wrote_at >= KEEP_ALIVE_S:
                self._send_stream(conn, KEEP_ALIVE)

    def handle_error(self, req, client, addr, exc) -> None:  # noqa: ANN001 - gunicorn's signature
        if self.answering.done:
            # The answer is sent; the error came after (draining the rest of a body the app
            # did not read). A second answer would be read as the next one's: just close.
            self.log.warning("After answering %s: %s", getattr(req, "uri", ""), exc)
            return
        refusal = refusal_for(exc)
        if refusal is None:
            self.log.exception("Error handling request %s", getattr(req, "uri", "(no URI read)"))
            refusal = _INTERNAL
        else:
            self.log.warning("Invalid request from %s: %s", (addr or ("",))[0], exc)
        try:
            util.write_nonblock(client, response_bytes(refusal))
        except OSError as error:
            if error.errno not in (errno.EPIPE, errno.ECONNRESET, errno.EAGAIN):
                self.log.debug("Failed to send error message: %s", error)
