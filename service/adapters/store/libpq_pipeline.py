"""The store's own path to PostgreSQL: libpq's prepared statements and pipeline mode,
called through psycopg.pq instead of psycopg's cursors and `conn.pipeline()`.

Why by hand: one idempotent action's transaction (the key's claim, the append under a
savepoint, the record with the COMMIT; three round trips then, two since the claim goes in
the append's trip, `opening`, one since both wait for the COMMIT's, `one_trip`) costs the client 445 us of CPU
this way against 1,153 us through psycopg's `conn.pipeline()` with `prepare=True` and
nested `transaction()` savepoints, the same statements (issue 37, 2026-12-05; the cursor
machinery costs about 90 us a statement). Everything hand-made lives in this module; the
store (service.adapters.store.postgres) only names statements and runs them.

The waits are made without holding the GIL. psycopg's C implementation calls a few libpq
functions while holding it: `get_result`, which blocks on the socket until the server
answers, and `pipeline_sync`, which writes the pipeline to the socket. Under load the
write wakes the PostgreSQL backend, the kernel often runs it at once on this core, and the
writer is descheduled still holding the GIL: every other thread of the process waits for
the backend's work. In the production table load these two calls held the GIL for a fifth
of the samples.

`next_result` waits for the socket in `poll` (which releases the GIL) before asking
libpq; `pipeline_sync` calls libpq's own PQpipelineSync through ctypes, which releases the
GIL around foreign calls, on the libpq this process already loaded (the one psycopg's
connections live in), found in /proc/self/maps and checked by its version. Where it is
not found for certain (psycopg's pure-Python implementation, not Linux, two candidates),
psycopg's own call is used. The ctypes call costs no measurable CPU over psycopg's (505
against 494 us per transaction above, within the rounds' spread).
"""
from __future__ import annotations

import ctypes
import select
import struct
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from psycopg import pq

from service.adapters.store import scope

_SQLSTATE = pq.DiagnosticField.SQLSTATE
_NO_SUCH_STATEMENT = b"26000"  # invalid_sql_statement_name

# Parameter type oids: text, integer, their arrays, timestamp with time zone.
TEXT, INTEGER, TEXT_ARRAY, INTEGER_ARRAY, TIMESTAMPTZ = 25, 23, 1009, 1007, 1184
_OK = (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK)


class PreparedStatement:
    """A statement prepared under its own name on each connection that runs it.

    A session can lose it: psycopg sends DEALLOCATE ALL after a rollback it sees once it
    holds prepared statements of its own (the store's transactions and savepoints go
    through libpq, so psycopg sees none of theirs; a caller's own may). Outside a
    transaction, a run that finds it gone prepares it again; inside the caller's own
    transaction, where a failed statement would abort it, the server is asked first; under
    the store's savepoint (`in_savepoint`), the savepoint is undone and the run sent again;
    with the COMMIT, a statement known there (`present`) goes without a savepoint.
    """

    def __init__(self, name: bytes, sql: str, parameter_types: Sequence[int]) -> None:
        self.name = name
        self._sql = sql.encode()
        self._parameter_types = parameter_types
        self._prepared_on: weakref.WeakKeyDictionary[pq.abc.PGconn, int] = weakref.WeakKeyDictionary()
        """The sessions it is prepared on, each with when (time.monotonic_ns)."""

    def run(self, connection: psycopg.Connection[Any], parameters: Sequence[bytes | None],
            formats: Sequence[int] | None = None) -> pq.abc.PGresult:
        """The one-row result; a failure raises psycopg's error for it (e.g. UniqueViolation).
        `formats`: as Run's."""
        pgconn = connection.pgconn
        with connection.lock:
            if not connection.autocommit and pgconn.transaction_status == pq.TransactionStatus.IDLE:
                _checked(connection, pgconn.exec_(_begin_command(connection)))
            if pgconn.transaction_status == pq.TransactionStatus.IDLE:
                if pgconn in self._prepared_on:
                    result = pgconn.exec_prepared(self.name, parameters, param_formats=formats)
                    if result.error_field(_SQLSTATE) != _NO_SUCH_STATEMENT:
                        return _checked(connection, result)
                self._prepare(connection)
            elif pgconn not in self._prepared_on or not self._on_server(connection):
                self._prepare(connection)
            return _checked(connection, pgconn.exec_prepared(self.name, parameters, param_formats=formats))

    def _prepare(self, connection: psycopg.Connection[Any]) -> None:
        pgconn = connection.pgconn
        _checked(connection, pgconn.prepare(self.name, self._sql, self._parameter_types))
        self._prepared_on[pgconn] = time.monotonic_ns()

    def send(self, pgconn: pq.abc.PGconn, run: Run, expected: list[PreparedStatement | Run | None]) -> None:
        """In pipeline mode: its PREPARE first where this session has not got it, then the
        run; `expected` gets an entry per result to come (the statement for a PREPARE, the
        run for the run). Prepared once a pipeline: a second run of it there (two snapshots
        sent with one COMMIT) finds the PREPARE queued already."""
        if pgconn not in self._prepared_on and not any(queued is self for queued in expected):
            pgconn.send_prepare(self.name, self._sql, self._parameter_types)
            expected.append(self)
        pgconn.send_query_prepared(self.name, run.parameters, param_formats=run.formats)
        expected.append(run)

    def prepared(self, pgconn: pq.abc.PGconn, result: pq.abc.PGresult) -> None:
        if result.status == pq.ExecStatus.COMMAND_OK:
            self._prepared_on[pgconn] = time.monotonic_ns()

    def ran(self, pgconn: pq.abc.PGconn) -> None:
        """It ran on the session: in the store's open transaction, every statement prepared
        there since it was is there too (WriteScope.statements_from). A DEALLOCATE ALL
        (psycopg's, the only way a session loses the store's statements) since would have
        taken it, and inside the store's transaction nothing sends one after its first
        statement."""
        place = self._prepared_on.get(pgconn)
        opened = scope.current()
        if place is None or opened is None or opened.connection is None or opened.connection.pgconn is not pgconn:
            return
        if opened.statements_from is None or place < opened.statements_from:
            opened.statements_from = place

    def present(self, pgconn: pq.abc.PGconn) -> bool:
        """Whether a run of it in the store's open transaction cannot fail for want of it
        on the session: prepared in the run's own pipeline (not prepared there yet), or
        since a statement that ran in this transaction was (`ran`)."""
        place = self._prepared_on.get(pgconn)
        opened = scope.current()
        proven = None if opened is None else opened.statements_from
        return place is None or (proven is not None and place >= proven)

    def lost(self, pgconn: pq.abc.PGconn) -> None:
        self._prepared_on.pop(pgconn, None)

    def _on_server(self, connection: psycopg.Connection[Any]) -> bool:
        found = _checked(connection, connection.pgconn.exec_params(
            b"SELECT FROM pg_prepared_statements WHERE name = $1", [self.name]))
        return found.ntuples == 1


@dataclass(frozen=True)
class Run:
    """A prepared statement's parameters (text, or binary where `formats` says 1)."""
    statement: PreparedStatement
    parameters: Sequence[bytes | None]
    formats: Sequence[int] | None = None


_SAVEPOINT = b"SAVEPOINT cardroom_statements"
_RELEASE = b"RELEASE SAVEPOINT cardroom_statements"
_UNDO = b"ROLLBACK TO SAVEPOINT cardroom_statements; RELEASE SAVEPOINT cardroom_statements"


def in_savepoint(connection: psycopg.Connection[Any], runs: Sequence[Run], *,
                  commit: bool = False) -> list[pq.abc.PGresult]:
    """Each run's result, in the open transaction under a savepoint, in one round trip
    (libpq's pipeline mode; a statement this session has not got is prepared in the same
    trip, the transaction's BEGIN when nothing began it yet, and with `commit` its COMMIT
    after the runs). A failed run undoes the savepoint, so the transaction goes on
    without the runs, and raises psycopg's error for it (e.g. UniqueViolation); runs that
    found their statement gone from the session are prepared and sent again, once.

    When this trip's BEGIN opens the transaction, the runs are all it holds: no savepoint
    (two statements fewer for the server, two results fewer to read); a failed run rolls
    the transaction back instead, which leaves it as the savepoint would have, empty. Nor
    with the COMMIT when every run's statement is `present`: there a failed run can only
    fail the transaction whole (a savepoint is for the statements found gone, sent again)."""
    pgconn = connection.pgconn
    with connection.lock:
        for attempt in range(2):
            begin = ([_begin_command(connection)]
                     if not connection.autocommit and pgconn.transaction_status == pq.TransactionStatus.IDLE else [])
            ending = [b"COMMIT"] if commit else []
            bare = commit and not begin and all(run.statement.present(pgconn) for run in runs)
            before, after = (begin, ending) if begin or bare else ([_SAVEPOINT], [_RELEASE, *ending])
            results = pipelined(pgconn, before, runs, after)
            failed = next((result for result in results if result.status not in _OK), None)
            if failed is None:
                return results[len(before):len(before) + len(runs)]
            if bare or any(failed is result for result in results[:len(before)]) or (commit and failed is results[-1]):
                # The transaction itself: it had failed before, or its COMMIT did (or a run
                # before it, with no savepoint): the caller rolls it back.
                raise psycopg.errors.error_from_result(failed, encoding=connection.info.encoding)
            _checked(connection, pgconn.exec_(b"ROLLBACK" if begin else _UNDO))
            if attempt or failed.error_field(_SQLSTATE) != _NO_SUCH_STATEMENT:
                raise psycopg.errors.error_from_result(failed, encoding=connection.info.encoding)
            for run in runs:  # deallocated all at once, those after the failed one too
                run.statement.lost(pgconn)
    raise AssertionError("unreachable: the second attempt returns or raises")


def opening(connection: psycopg.Connection[Any], leading: Sequence[Run], runs: Sequence[Run],
            settle: Callable[[list[pq.abc.PGresult]], None]) -> list[pq.abc.PGresult]:
    """The runs' results, in a round trip that opens the transaction (its status is idle)
    with the `leading` runs (an Idempotency-Key's claim) before them: BEGIN, the leading
    runs, the runs; no savepoint (two statements fewer for the server, two results fewer to
    read). `settle` is given the leading runs' results before anything is raised about the
    runs (it may raise instead: the transaction then rolls back with whatever the runs
    wrote). A failed run rolls the transaction back, and the leading runs are sent again in
    the ROLLBACK's round trip, so the transaction goes on holding them only, as a savepoint
    undone would have left it (a claim let go for that instant is taken again, or found
    taken or answered by whoever took it: what settle then raises)."""
    pgconn = connection.pgconn
    with connection.lock:
        begin = _begin_command(connection)
        results = _pipelined(pgconn, [begin, *leading, *runs])
        failed = next((result for result in results if result.status not in _OK), None)
        if failed is not None and (failed.error_field(_SQLSTATE) == _NO_SUCH_STATEMENT
                                   or not any(failed is result for result in results[1 + len(leading):])):
            # BEGIN or a leading run failed (the transaction itself), or a statement was gone.
            pgconn.exec_(b"ROLLBACK")
            if failed.error_field(_SQLSTATE) != _NO_SUCH_STATEMENT:
                raise psycopg.errors.error_from_result(failed, encoding=connection.info.encoding)
            for run in (*leading, *runs):
                run.statement.lost(pgconn)
            return opening(connection, leading, runs, settle)  # prepared again: cannot recur
        claimed = results[1:1 + len(leading)]
        if failed is not None:
            again = _pipelined(pgconn, [b"ROLLBACK", begin, *leading])
            refused = next((result for result in again if result.status not in _OK), None)
            if refused is not None:
                pgconn.exec_(b"ROLLBACK")
                raise psycopg.errors.error_from_result(refused, encoding=connection.info.encoding)
            claimed = again[2:]
        settle(claimed)
    if failed is None:
        return results[1 + len(leading):]
    raise psycopg.errors.error_from_result(failed, encoding=connection.info.encoding)


class RunFailed(Exception):
    """Run `index` of `one_trip`'s runs failed with `error`: nothing of the transaction
    committed, and it is rolled back."""

    def __init__(self, index: int, error: psycopg.Error) -> None:
        super().__init__(index, error)
        self.index = index
        self.error = error


def one_trip(connection: psycopg.Connection[Any], runs: Sequence[Run]) -> None:
    """BEGIN, the runs and COMMIT in one round trip, on a connection with no transaction
    open: a statement that fails aborts the transaction, so the COMMIT behind it in the
    pipeline commits nothing (the runs that decide whether to commit fail instead of
    answering). A failed run raises RunFailed, a failed BEGIN or COMMIT psycopg's error;
    either way the transaction has ended. Runs that found their statement gone from the
    session are prepared and sent again, once."""
    pgconn = connection.pgconn
    begin = _begin_command(connection)
    with connection.lock:
        for attempt in range(2):
            results = _pipelined(pgconn, [begin, *runs, b"COMMIT"])
            failed = next((result for result in results if result.status not in _OK), None)
            if failed is None:
                return
            if pgconn.transaction_status != pq.TransactionStatus.IDLE:
                _checked(connection, pgconn.exec_(b"ROLLBACK"))
            if failed.error_field(_SQLSTATE) == _NO_SUCH_STATEMENT and not attempt:
                for run in runs:  # deallocated all at once
                    run.statement.lost(pgconn)
                continue
            error = psycopg.errors.error_from_result(failed, encoding=connection.info.encoding)
            # Up to the first failure one result per command (a PREPARE's only if it failed:
            # then its run's statement could not be prepared, the run's failure too).
            index = next(i for i, result in enumerate(results) if result is failed) - 1
            if 0 <= index < len(runs):
                raise RunFailed(index, error)
            raise error
    raise AssertionError("unreachable: the second attempt returns or raises")


def pipelined(pgconn: pq.abc.PGconn, before: Sequence[bytes], runs: Sequence[Run],
               after: Sequence[bytes]) -> list[pq.abc.PGresult]:
    """The results of the commands `before`, of each run and of the commands `after`: sent
    at once, then read in order (a command after a failed one is PIPELINE_ABORTED). A
    PREPARE sent on the way is left out, unless it failed: then its result is the failure."""
    return _pipelined(pgconn, [*before, *runs, *after])


def _pipelined(pgconn: pq.abc.PGconn, sent: Sequence[bytes | Run]) -> list[pq.abc.PGresult]:
    """pipelined's work: each of `sent` (a command or a run) in its order."""
    expected: list[PreparedStatement | Run | None] = []
    pgconn.enter_pipeline_mode()
    try:
        for item in sent:
            if isinstance(item, Run):
                item.statement.send(pgconn, item, expected)
            else:
                pgconn.send_query_params(item, None)
                expected.append(None)
        pipeline_sync(pgconn)
        while pgconn.flush():  # the session is non-blocking: wait until the pipeline is sent
            if wait_for(pgconn.socket, select.POLLIN | select.POLLOUT) & select.POLLIN:
                pgconn.consume_input()
        results = []
        for expecting in expected:  # a PREPARE's statement, a run, or None (a command)
            result = next_result(pgconn)
            if result is None:
                raise psycopg.OperationalError("the server ended a pipeline early")
            next_result(pgconn)  # the end of this command's results
            if isinstance(expecting, PreparedStatement):
                expecting.prepared(pgconn, result)
            elif expecting is not None and result.status in _OK:
                expecting.statement.ran(pgconn)
            if not isinstance(expecting, PreparedStatement) or result.status not in _OK:
                results.append(result)
        next_result(pgconn)  # the pipeline's sync
    finally:
        pgconn.exit_pipeline_mode()
    return results


def transaction(connection: psycopg.Connection[Any], opened: scope.WriteScope) -> _Transaction:
    """The block's statements in one transaction, through libpq where the store runs them:
    begun by the first statement (psycopg sends its BEGIN itself outside autocommit; the
    store's pipelines carry theirs), committed at the end (when a statement ran) in one
    round trip with the runs `opened.sent_with_commit` holds, or rolled back when the block
    raises (and those runs never sent). libpq's BEGIN, statements and COMMIT cost a fifth
    of psycopg's client CPU (20 against 90 us for BEGIN, two statements and COMMIT), and
    psycopg, seeing no rollback, keeps every prepared statement of the session."""
    return _Transaction(connection, opened)


class _Transaction:
    """`transaction`'s block; a class, not a generator's context manager, which costs about
    three times as much to enter and leave (issue 37: one every idempotent write)."""

    __slots__ = ("_connection", "_opened")

    def __init__(self, connection: psycopg.Connection[Any], opened: scope.WriteScope) -> None:
        self._connection = connection
        self._opened = opened

    def __enter__(self) -> None:
        self._connection.autocommit = False

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: Any) -> None:
        connection = self._connection
        pgconn = connection.pgconn
        try:
            if kind is not None:
                with connection.lock:
                    if pgconn.transaction_status in (pq.TransactionStatus.INTRANS, pq.TransactionStatus.INERROR):
                        pgconn.exec_(b"ROLLBACK")
                return  # the block's error is the one to tell: it goes on
            self._commit(connection, pgconn)
        finally:
            if pgconn.transaction_status == pq.TransactionStatus.IDLE:
                connection.autocommit = True
            else:  # a connection in an unknown state: the pool opens another instead
                connection.close()

    def _commit(self, connection: psycopg.Connection[Any], pgconn: pq.abc.PGconn) -> None:
        opened = self._opened
        with connection.lock:
            if opened.refusal is not None:  # what the store held back was refused: caught, not undone
                if pgconn.transaction_status != pq.TransactionStatus.IDLE:
                    pgconn.exec_(b"ROLLBACK")
                raise opened.refusal
            if pgconn.transaction_status == pq.TransactionStatus.INERROR:  # COMMIT would roll back silently
                pgconn.exec_(b"ROLLBACK")
                raise psycopg.errors.InFailedSqlTransaction("a statement of the transaction failed: rolled back")
        held, opened.held_back = opened.held_back, None
        if held is not None:  # nothing sent yet: the store's trip ends in the COMMIT
            held.commit(opened.sent_with_commit)
        elif opened.sent_with_commit:
            try:
                in_savepoint(connection, opened.sent_with_commit, commit=True)
            except BaseException:
                with connection.lock:
                    if pgconn.transaction_status in (pq.TransactionStatus.INTRANS, pq.TransactionStatus.INERROR):
                        pgconn.exec_(b"ROLLBACK")
                raise
        elif pgconn.transaction_status == pq.TransactionStatus.INTRANS:
            with connection.lock:
                _checked(connection, pgconn.exec_(b"COMMIT"))


def _checked(connection: psycopg.Connection[Any], result: pq.abc.PGresult) -> pq.abc.PGresult:
    if result.status in (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK):
        return result
    raise psycopg.errors.error_from_result(result, encoding=connection.info.encoding)


def _begin_command(connection: psycopg.Connection[Any]) -> bytes:
    """The BEGIN psycopg itself sends before the first statement outside autocommit."""
    parts = ["BEGIN"]
    if connection.isolation_level is not None:
        parts.append("ISOLATION LEVEL " + connection.isolation_level.name.replace("_", " "))
    if connection.read_only is not None:
        parts.append("READ ONLY" if connection.read_only else "READ WRITE")
    if connection.deferrable is not None:
        parts.append("DEFERRABLE" if connection.deferrable else "NOT DEFERRABLE")
    return " ".join(parts).encode()


# A one-dimensional array's binary header: dimensions (1), whether it holds a NULL, the
# element type, the length and the lower bound (1); then each element's length (-1: NULL)
# and bytes.
_ARRAY_HEADER = struct.Struct("!iiiii")
_NULL_ELEMENT = struct.pack("!i", -1)


def text_array(items: Sequence[str | None]) -> bytes:
    """A PostgreSQL text[] of one or more texts (None is NULL) in the binary format, its
    parameter's format 1: the texts as they are, where the text format's literal quotes
    each and escapes its " and \\ (two scans and copies of each text, the events' JSON
    full of quotes: issue 37)."""
    elements = []
    has_null = 0
    for item in items:
        if item is None:
            elements.append(_NULL_ELEMENT)
            has_null = 1
        else:
            encoded = item.encode()
            elements += (len(encoded).to_bytes(4, "big"), encoded)
    return _ARRAY_HEADER.pack(1, has_null, TEXT, len(items), 1) + b"".join(elements)


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
