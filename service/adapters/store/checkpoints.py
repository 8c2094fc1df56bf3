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

The file is a witness, not a dependency: when it is missing (deleted under a running
service) or damaged, the service keeps serving and `verify` still checks every chain; it
warns, naming the file and what is lost (the heads recorded in it: a tail removed before
they are written again is not caught). A missing file is created again at the next flush,
with a note of the loss that every process reading the file then warns of.
"""
from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
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
# Each time a process found the file missing or unreadable and wrote it again: every
# process (and `cardroom verify`) reading the file then warns that heads were lost.
_LOSSES_SCHEMA = "CREATE TABLE IF NOT EXISTS losses (found_at TEXT NOT NULL, why TEXT NOT NULL)"
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
        self._lost: str | None = None  # why heads recorded before were lost, once found
        self._loss_written = False  # the loss noted in the file
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with closing(sqlite3.connect(path, timeout=10, isolation_level=None)) as db:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(_SCHEMA)
                db.execute(_LOSSES_SCHEMA)
        except sqlite3.Error as damaged:  # the service starts all the same; verify says so
            self._note_lost(f"it cannot be opened ({damaged})")
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
        """The recorded head of the stream, including any not yet flushed (only those when
        the file cannot be read: see `warnings`)."""
        found = []
        row = None
        try:
            with self._connect() as db:
                row = db.execute("SELECT version, hash, mac FROM heads WHERE stream_id = ?",
                                 (stream_id,)).fetchone()
        except sqlite3.Error as unreadable:
            self._note_lost(f"it cannot be read ({unreadable})")
        if row is not None:
            found.append(Head(stream_id, row[0], row[1], row[2]))
        with self._lock:
            pending = self._pending.get(stream_id)
        if pending is not None:
            found.append(Head(stream_id, *pending, self._signer.sign(stream_id, *pending)))
        return found

    def streams(self, prefix: str = "") -> list[str]:
        """The streams with a recorded head (those of the file that can be read)."""
        with self._lock:
            pending = [stream for stream in self._pending if stream.startswith(prefix)]
        try:
            with self._connect() as db:
                rows = db.execute("SELECT stream_id FROM heads WHERE substr(stream_id, 1, ?) = ?",
                                  (len(prefix), prefix)).fetchall()
        except sqlite3.Error as unreadable:
            self._note_lost(f"it cannot be read ({unreadable})")
            rows = []
        return sorted({*pending, *(row[0] for row in rows)})

    def warnings(self) -> list[str]:
        """What `verify` says beside its results: the file missing or damaged (found by
        this process, or noted in the file by the process that wrote it again), and what
        that loses. Empty when nothing was lost."""
        if not self._path.exists():
            self._note_lost("it is missing")
        with self._lock:
            found = [] if self._lost is None or self._loss_written else [self._lost]
        try:
            with self._connect() as db:
                found += [f"{why} (found {at})" for at, why in db.execute(
                    "SELECT found_at, why FROM losses ORDER BY found_at").fetchall()]
        except sqlite3.Error:
            pass  # unreadable: this process noted it above
        return [f"the head checkpoints {self._path}: {why}; the heads recorded there before are lost, so "
                "a tail removed from a stream before its next write is recorded is not caught (every "
                "chain is still checked)" for why in dict.fromkeys(found)]

    def _note_lost(self, why: str) -> None:
        with self._lock:
            if self._lost is None:
                log.error("head checkpoints %s: %s", self._path, why)
            self._lost = self._lost or why

    def flush(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
        if not pending:
            return
        rows = [(stream, version, hash_, self._signer.sign(stream, version, hash_))
                for stream, (version, hash_) in pending.items()]
        if not self._path.exists():
            self._note_lost("it is missing")
        with self._lock:
            loss = None if self._loss_written else self._lost
        try:
            with self._connect() as db:
                db.execute(_SCHEMA)  # a file deleted under the service is created again
                db.execute(_LOSSES_SCHEMA)
                db.execute("BEGIN IMMEDIATE")
                db.executemany(_UPSERT, rows)
                if loss is not None:
                    db.execute("INSERT INTO losses VALUES (datetime('now'), ?)", (f"{loss}, written again",))
                db.execute("COMMIT")
            if loss is not None:
                with self._lock:
                    self._loss_written = True
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
        if not self._path.exists():
            # sqlite would create an empty file: reading it says nothing, writing it is flush's.
            self._note_lost("it is missing")
        db = sqlite3.connect(self._path, timeout=10, isolation_level=None)
        try:
            yield db
        finally:
            db.close()
