"""Signed stream heads kept outside the database, so a removed tail is caught.

The MAC on every event (service.adapters.store.base.ChainSigner) catches an edited, inserted or
recomputed event, but not a tail cut off: what is left still verifies. So each process
notes the head (version, hash) of every stream it appends to, and a background thread
writes the heads noted since its last run, signed, to an SQLite file in the data directory
once a second (and on close). A head only moves forward. `verify` then expects the stream
to reach every recorded head with the same hash. Every write's answer carries the same
signed head as its receipt, so a client holds the same proof.

SQLite because it is in the standard library, safe for several processes on one host
(each gunicorn worker and Celery worker flushes into the same file) and outside the
PostgreSQL server an insider controls. Several hosts keep one file each; any of them
catches a tail removed after it last wrote.
"""
from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from service.adapters.store.base import ChainSigner, Head

log = logging.getLogger(__name__)

FLUSH_EVERY_S = 1.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS heads (
    stream_id TEXT PRIMARY KEY,
    version   INTEGER NOT NULL,
    hash      TEXT NOT NULL,
    mac       TEXT NOT NULL
)
"""
_UPSERT = """
INSERT INTO heads (stream_id, version, hash, mac) VALUES (?, ?, ?, ?)
ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, hash = excluded.hash,
                                      mac = excluded.mac
 WHERE excluded.version > heads.version
"""


class HeadCheckpoints:
    def __init__(self, path: Path, signer: ChainSigner, flush_every_s: float = FLUSH_EVERY_S) -> None:
        self._path = path
        self._signer = signer
        self._pending: dict[str, tuple[int, str]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)
        self._flusher = threading.Thread(target=self._run, args=(flush_every_s,),
                                         name="head-checkpoints", daemon=True)
        self._flusher.start()

    def note(self, stream_id: str, version: int, hash_: str) -> None:
        """A head this process wrote: kept in memory until the next flush (no I/O here)."""
        with self._lock:
            pending = self._pending.get(stream_id)
            if pending is None or pending[0] < version:
                self._pending[stream_id] = (version, hash_)

    def heads(self, stream_id: str) -> list[Head]:
        """The recorded head of the stream, including any not yet flushed."""
        found = []
        with self._connect() as db:
            row = db.execute("SELECT version, hash, mac FROM heads WHERE stream_id = ?",
                             (stream_id,)).fetchone()
        if row is not None:
            found.append(Head(stream_id, row[0], row[1], row[2]))
        with self._lock:
            pending = self._pending.get(stream_id)
        if pending is not None:
            found.append(Head(stream_id, *pending, self._signer.sign(stream_id, *pending)))
        return found

    def flush(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
        if not pending:
            return
        rows = [(stream, version, hash_, self._signer.sign(stream, version, hash_))
                for stream, (version, hash_) in pending.items()]
        try:
            with self._connect() as db:
                db.execute("BEGIN IMMEDIATE")
                db.executemany(_UPSERT, rows)
                db.execute("COMMIT")
        except sqlite3.Error:
            log.warning("could not write %d stream head checkpoints to %s; kept for the next try",
                        len(rows), self._path, exc_info=True)
            for stream, version, hash_, _ in rows:
                self.note(stream, version, hash_)

    def close(self) -> None:
        self._stop.set()
        self._flusher.join(timeout=5)
        self.flush()

    def _run(self, every_s: float) -> None:
        while not self._stop.wait(every_s):
            self.flush()

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection in autocommit mode (each statement its own transaction), closed after."""
        db = sqlite3.connect(self._path, timeout=10, isolation_level=None)
        try:
            yield db
        finally:
            db.close()
