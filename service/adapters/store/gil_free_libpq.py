"""The libpq calls of the store's pipelines, made without holding the GIL.

psycopg's C implementation calls a few libpq functions while holding the GIL:
`get_result`, which blocks on the socket until the server answers, and `pipeline_sync`,
which writes the pipeline to the socket. Under load the write wakes the PostgreSQL
backend, the kernel often runs it at once on this core, and the writer is descheduled
still holding the GIL: every other thread of the process waits for the backend's work.
In the production table load these two calls held the GIL for a fifth of the samples.

`next_result` waits for the socket in `poll` (which releases the GIL) before asking
libpq; `pipeline_sync` calls libpq's own PQpipelineSync through ctypes, which releases the
GIL around foreign calls, on the libpq this process already loaded (the one psycopg's
connections live in), found in /proc/self/maps and checked by its version. Where it is
not found for certain (psycopg's pure-Python implementation, not Linux, two candidates),
psycopg's own call is used.
"""
from __future__ import annotations

import ctypes
import select
from collections.abc import Callable
from pathlib import Path

import psycopg
from psycopg import pq


def next_result(pgconn: pq.abc.PGconn) -> pq.abc.PGresult | None:
    """libpq's next result, the wait for it spent outside the GIL."""
    while pgconn.is_busy():
        wait_for(pgconn.socket, select.POLLIN)
        pgconn.consume_input()
    return pgconn.get_result()


def wait_for(fileno: int, events: int) -> int:
    """The events of `events` (select.POLLIN, POLLOUT) that came on `fileno`, waited for
    outside the GIL. poll, not select: a busy server's sockets pass select's 1,024."""
    poller = select.poll()
    poller.register(fileno, events)
    return poller.poll()[0][1]


def pipeline_sync(pgconn: pq.abc.PGconn) -> None:
    """libpq's PQpipelineSync (mark the pipeline's end and send it), outside the GIL."""
    if _PIPELINE_SYNC is None:
        pgconn.pipeline_sync()
        return
    sent = _PIPELINE_SYNC(pgconn.pgconn_ptr)
    if sent != 1:
        raise psycopg.OperationalError("failed to sync the pipeline")


def _libpq_pipeline_sync() -> Callable[[int], int] | None:
    if pq.__impl__ == "python":  # psycopg's ctypes calls already release the GIL
        return None
    path = _psycopgs_libpq()
    if path is None:
        return None
    libpq = ctypes.CDLL(path)
    if libpq.PQlibVersion() != pq.version():  # not the library psycopg's connections live in
        return None
    function = libpq.PQpipelineSync
    function.argtypes = [ctypes.c_void_p]
    function.restype = ctypes.c_int
    return function  # type: ignore[no-any-return]


def _psycopgs_libpq() -> str | None:
    """The path of the libpq psycopg uses, as mapped into this process: psycopg's binary
    wheel bundles its own (psycopg_binary.libs/libpq-<hash>.so.5...), psycopg's C build
    links the system's libpq.so.5. None when that is not one library (a PGconn must only
    ever meet the functions of the library that made it)."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    mapped = {line.rsplit(maxsplit=1)[-1] for line in maps.splitlines()}
    bundled = pq.__impl__ == "binary"
    found = [path for path in mapped if Path(path).name.startswith("libpq") and ".so" in path
             and ("psycopg_binary.libs" in path) == bundled]
    return found[0] if len(found) == 1 else None


# Found once, at import: importing psycopg (above) has loaded its libpq.
_PIPELINE_SYNC = _libpq_pipeline_sync()
