"""The event store on PostgreSQL (psycopg 3 with a connection pool).

An append is one round trip: one INSERT (see event_sql.APPEND_ONE and APPEND_BATCH) that checks
the expected version against the hash the chain continues from. Each event's data and
metadata are encoded to canonical JSON once, here; the server stores that text as jsonb,
and the store hashes the very same text (service.adapters.store.base.verify_chain recomputes it
from what is read back). The hash at the stream's head comes from what this process last
appended or read (`_StreamHeads`); without it, the append first reads it. A writer that
loses a race for the same version fails on the unique (stream_id, version) constraint;
that slow path costs a second query. An idempotent write's first append waits for its
transaction's COMMIT and goes in that round trip (service.adapters.store.held_back).

Global reading without skipping late commits: every event records the id of the
transaction that wrote it (`transaction_id xid8 DEFAULT pg_current_xact_id()`), and the
global log is ordered by (transaction_id, position). A reader only takes events whose
transaction id is below `pg_snapshot_xmin(pg_current_snapshot())`, the oldest transaction
still running: every transaction below it has finished, and every transaction that has
not yet committed has an id at or above it, so nothing can later appear below a
checkpoint. We chose this transaction-id high-water mark over serialising appends (a
table lock) because tables and tournaments are independent streams and must not queue
behind each other; the price is that a long-running writing transaction anywhere in the
database holds readers back until it ends. Positions may have gaps (a writer that lost a
version race, a rollback); readers never rely on them being dense.
"""
from __future__ import annotations

import itertools
import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import psycopg
from psycopg import pq
from psycopg_pool import ConnectionPool

from service.adapters.row_macs import RowSigner
from service.adapters.store import event_sql as sql
from service.adapters.store import failed_streams, idempotency, scope
from service.adapters.store import libpq_pipeline as libpq
from service.adapters.store.base import (
    END,
    GENESIS_HASH,
    START,
    AppendResult,
    ChainSigner,
    Checkpoint,
    Head,
    IntegrityFailure,
    NewEvent,
    RangeVerification,
    RecordedEvent,
    Reveal,
    Snapshot,
    Verification,
    VersionConflict,
    canonical_json,
    chained_hash,
    check_append_arguments,
    check_read,
    check_storable,
    event_metadata,
    format_recorded_at,
    utc_now,
    verify_chain,
    verify_range,
)
from service.adapters.store.failed_streams import FailedStreams
from service.adapters.store.held_back import Claim, HeldBack

log = logging.getLogger(__name__)


def open_pool(database_url: str, *, min_size: int = 1, max_size: int = 10) -> ConnectionPool:
    """A pool the store works best with: autocommit, so an append is one round trip."""
    pool = ConnectionPool(
        database_url,
        min_size=min_size,
        max_size=max_size,
        kwargs={"autocommit": True},
        open=False,
    )
    pool.open(wait=True)
    return pool




class _StreamHeads:
    """The latest (version, hash) this process saw of each stream, so an append needs no
    read to continue the chain. Only a hint: the append statement checks the hash against
    the database, and a stale or wrong hint only costs a read. Bounded, least recently
    used out; threads share it under a lock."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._heads: OrderedDict[str, tuple[int, str]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, stream_id: str) -> tuple[int, str] | None:
        with self._lock:
            return self._heads.get(stream_id)

    def remember(self, stream_id: str, version: int, hash_: str) -> None:
        with self._lock:
            head = self._heads.get(stream_id)
            if head is None or head[0] <= version:
                self._heads[stream_id] = (version, hash_)
            self._heads.move_to_end(stream_id)
            if len(self._heads) > self._capacity:
                self._heads.popitem(last=False)

    def forget(self, stream_id: str) -> None:
        with self._lock:
            self._heads.pop(stream_id, None)


STREAM_HEADS_KEPT = 4096


class PostgresEventStore:
    def __init__(self, pool: ConnectionPool, clock: Callable[[], datetime] = utc_now, *,
                 signer: ChainSigner | None = None) -> None:
        self._pool = pool
        self._clock = clock
        self._heads = _StreamHeads(STREAM_HEADS_KEPT)
        self.signer = signer
        self._record_signer = RowSigner(signer, "idempotency_records") if signer else None
        self.failed_streams = FailedStreams()
        self._records_written = itertools.count(1)  # next() is atomic: threads share it
        # The prepared statements: this store's own names, so two stores on one pool (tests)
        # never take each other's for theirs; each remembers the sessions it is prepared on.
        named = secrets.token_hex(4)
        (self._append_one, self._append_batch, self._append_one_required, self._append_batch_required,
         self._save_snapshot, self._claim_key, self._try_lock_key, self._select_record, self._purge_records,
         self._insert_record) = (
            libpq.PreparedStatement(f"cardroom_{purpose}_{named}".encode(), text, types)
            for purpose, text, types in (sql.APPEND_ONE, sql.APPEND_BATCH, sql.APPEND_ONE_REQUIRED,
                                         sql.APPEND_BATCH_REQUIRED, sql.SAVE_SNAPSHOT, *idempotency.STATEMENTS))

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency_key: str | None = None,
        actor: str | None = None,
    ) -> AppendResult:
        joined = scope.joined_transaction(self)
        if joined is not None:
            return self._append_in_savepoint(joined, stream_id, expected_version, events,
                                             idempotency_key, actor)
        with self._pool.connection() as connection:
            return self.append_on(
                connection,
                stream_id,
                expected_version,
                events,
                idempotency_key=idempotency_key,
                actor=actor,
            )

    def _append_in_savepoint(
        self, connection: psycopg.Connection[Any], stream_id: str, expected_version: int,
        events: Sequence[NewEvent], idempotency_key: str | None, actor: str | None,
    ) -> AppendResult:
        """An append inside the scope's transaction, under a savepoint (in the INSERT's own
        round trip): a lost race (which a caller may retry on fresh state) undoes this
        append only, not the transaction."""
        return self.append_on(connection, stream_id, expected_version, events,
                              idempotency_key=idempotency_key, actor=actor, in_savepoint=True)

    def transaction(self) -> _StoreTransaction:
        """One transaction that every append (and read) of this store in the block joins,
        with the idempotency records written in it (service.adapters.store.idempotency)."""
        return _StoreTransaction(self)

    def claim_key(self, owner: str, key: str, now: datetime) -> idempotency.IdempotencyRecord | None:
        """The key's lock, then its record (each statement its own snapshot, so the read
        sees whatever the lock's last holder committed), in one round trip."""
        self.claim_key_later(owner, key, now)
        return self.settled_claim()

    def claim_key_later(self, owner: str, key: str, now: datetime, *, with_commit: bool = False) -> None:
        """claim_key, sent in the round trip of the transaction's first append when that
        trip opens the transaction (before the append, which runs only in the same
        transaction: a refused claim rolls it back), else by settled_claim: an idempotent
        action's trips are the append's and the COMMIT's. `with_commit`: that append and the
        claim are held back to the COMMIT's round trip, one trip in all (held_back)."""
        self._joined().claim = Claim(owner, key, now, with_commit)

    def settled_claim(self, *, write_failed: bool = False) -> idempotency.IdempotencyRecord | None:
        """The record claim_key_later's claim found (sending it now if no append took it),
        or KeyInUse, RecordRefused as claim_key raises them. Held back with the first
        append: None (the COMMIT refuses the write if the key is taken or answered), unless
        `write_failed` (what the write appended rolls back): the claim is then sent alone."""
        opened = self._joined()
        claim = opened.claim
        if not isinstance(claim, Claim):
            raise RuntimeError("settled_claim follows claim_key_later, in its transaction")
        held = opened.held_back
        if isinstance(held, HeldBack) and held.claim is claim:
            if not write_failed:
                return None
            opened.held_back = None  # never sent: the appends it held roll back with the write
        if not claim.sent:
            connection = opened.connection
            if connection.pgconn.transaction_status == pq.TransactionStatus.INERROR:
                return None  # a statement failed: nothing of this transaction commits, its error tells
            self._settle(claim, libpq.in_savepoint(connection, self._claim_runs(claim)))
        if claim.refused is not None:
            raise claim.refused
        return claim.record

    def _claim_runs(self, claim: Claim) -> list[libpq.Run]:
        parameters = [claim.owner.encode(), claim.key.encode()]
        return [libpq.Run(self._try_lock_key, parameters),
                libpq.Run(self._select_record, [*parameters, claim.spelled_now.encode()])]

    def _settle(self, claim: Claim, results: list[pq.abc.PGresult]) -> None:
        """Keep what the claim's results say; raise its refusal (the key in use, a record
        failing its MAC)."""
        claim.sent = True
        locked, found = results
        if locked.get_value(0, 0) != b"t":
            claim.refused = idempotency.KeyInUse(claim.key)
        elif found.ntuples and found.get_value(0, found.nfields - 1) != b"t":
            claim.expired_found = True
        elif found.ntuples:
            record, mac = idempotency.record_from_text(
                claim.owner, claim.key, [found.get_value(0, column) for column in range(found.nfields - 1)])
            if self._record_signer and not self._record_signer.valid(mac, *idempotency.signed_fields(record)):
                self._record_signer.refused(f"Idempotency-Key {claim.key!r} of {claim.owner}")
                claim.refused = idempotency.RecordRefused(claim.key)
            claim.record = record
        if claim.refused is not None:
            raise claim.refused

    def _unsent_claim(self, connection: psycopg.Connection[Any]) -> Claim | None:
        """The open scope's claim when an append on `connection` takes it: not sent yet,
        and this append's trip opens the transaction. When something else opened it (a
        read), the claim is settled first, in its own trip: no append runs before it."""
        opened = scope.current()
        claim = None if opened is None or opened.store is not self else opened.claim
        if not isinstance(claim, Claim) or claim.sent or opened is None or opened.connection is not connection:
            return None
        if connection.pgconn.transaction_status == pq.TransactionStatus.IDLE:
            return claim
        first = self.settled_claim()
        if first is not None:
            raise idempotency.AnsweredBefore(first)
        return None

    def record_answer(self, record: idempotency.IdempotencyRecord) -> None:
        """The record, sent with the transaction's COMMIT in its round trip (nothing in the
        transaction reads the record back); before it, the removal of the key's expired
        record when the claim found one, and with one write in REMOVED_EVERY of expired
        ones in bulk (idempotency.REMOVED_EVERY)."""
        fingerprint, answer = record.fingerprint, record.answer
        opened = self._joined()
        headers_text = idempotency.headers_json(answer.headers)  # once: signed and stored
        mac = self._record_signer.sign(*idempotency.signed_fields(record, headers_text)) if self._record_signer else None
        owner, key = record.owner.encode(), record.key.encode()
        claim = opened.claim
        # The record is made at its claim's moment (live_writes.once): spelled once.
        created_at = (claim.spelled_now if isinstance(claim, Claim) and claim.now == record.created_at
                      else format_recorded_at(record.created_at)).encode()
        expires_at = format_recorded_at(record.expires_at).encode()
        replaces_expired = isinstance(claim, Claim) and claim.expired_found and (claim.owner, claim.key) == (
            record.owner, record.key)
        in_bulk = next(self._records_written) % idempotency.REMOVED_EVERY == 0
        if replaces_expired or in_bulk:
            at_most = idempotency.PURGED_PER_WRITE * idempotency.REMOVED_EVERY if in_bulk else 0
            opened.sent_with_commit.append(libpq.Run(self._purge_records, [owner, key, created_at, b"%d" % at_most]))
        opened.sent_with_commit.extend([
            libpq.Run(self._insert_record, [
                owner, key, fingerprint.method.encode(), fingerprint.path.encode(),
                fingerprint.body_sha256.encode(), b"%d" % answer.status, answer.body,
                headers_text.encode(), created_at, expires_at,
                None if mac is None else mac.encode()],
                 formats=idempotency.INSERT_FORMATS)])

    def _joined(self) -> scope.WriteScope:
        """The scope of this store's open transaction (sending nothing held back)."""
        opened = scope.scope_of(self)
        if opened is None or opened.connection is None:
            raise RuntimeError("idempotency records are kept inside store.transaction() only")
        return opened

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """The open transaction's connection when the block runs in one (a request reads
        what it wrote), else one from the pool."""
        joined = scope.joined_transaction(self)
        if joined is not None:
            yield joined
        else:
            with self._pool.connection() as connection:
                yield connection

    def append_on(
        self,
        connection: psycopg.Connection[Any],
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency_key: str | None = None,
        actor: str | None = None,
        in_savepoint: bool = False,
    ) -> AppendResult:
        """Append inside the caller's connection (and transaction, if one is open), e.g.
        to write a read model in the same transaction. A lost race aborts that transaction,
        unless the append runs `in_savepoint` (the store's own transactions)."""
        encoded = _EncodedAppend(stream_id, expected_version, events, idempotency_key, actor,
                                 self.signer)
        head = self._heads.get(stream_id)
        if head is not None and head[0] == expected_version:
            appended = self._insert(connection, encoded, head[1], in_savepoint)
            if appended is not None:
                return appended
            self._heads.forget(stream_id)  # a wrong hint: read the hash instead
        previous_hash = (
            GENESIS_HASH if expected_version == 0
            else _fetch_hash_at(connection, stream_id, expected_version)
        )
        if previous_hash is not None:
            appended = self._insert(connection, encoded, previous_hash, in_savepoint)
            if appended is not None:
                return appended
        # The stream is behind the expected version.
        return _refusal(connection, stream_id, expected_version, idempotency_key)

    def _insert(
        self, connection: psycopg.Connection[Any], encoded: _EncodedAppend, previous_hash: str,
        in_savepoint: bool,
    ) -> AppendResult | None:
        """The append chained from `previous_hash`; None (nothing written) when the event
        at the expected version does not have that hash or does not exist."""
        stream_id, expected_version = encoded.stream_id, encoded.expected_version
        parameters, last_hash, last_mac = encoded.parameters(previous_hash, self._clock())
        statement, formats = ((self._append_batch, sql.APPEND_BATCH_FORMATS) if len(encoded.types) > 1
                              else (self._append_one, None))
        claim = self._unsent_claim(connection) if in_savepoint else None
        if claim is not None and claim.with_commit:
            return self._held_back(connection, claim, encoded, parameters, last_hash, last_mac)
        try:
            if claim is not None:
                result = libpq.opening(connection, self._claim_runs(claim), [libpq.Run(statement, parameters, formats)],
                                       lambda results: self._settle(claim, results))[0]
                if claim.record is not None:  # answered before: what this append wrote rolls back
                    raise idempotency.AnsweredBefore(claim.record)
            else:
                result = (libpq.in_savepoint(connection, [libpq.Run(statement, parameters, formats)])[0]
                          if in_savepoint else statement.run(connection, parameters, formats))
        except psycopg.errors.UniqueViolation:  # another writer took the version, or the key
            if claim is not None and claim.record is not None:
                raise idempotency.AnsweredBefore(claim.record) from None
            if in_savepoint or _outside_transaction(connection):  # the connection goes on
                return _refusal(connection, stream_id, expected_version, encoded.idempotency_key)
            with self._pool.connection() as fresh:  # the caller's transaction is aborted
                return _refusal(fresh, stream_id, expected_version, encoded.idempotency_key)
        if result.ntuples == 0:
            return None
        last_version = expected_version + result.ntuples
        if _outside_transaction(connection):  # committed: later appends may chain from it
            self._committed(stream_id, last_version, last_hash)
        elif (joined := scope.scope_of(self)) is not None and joined.connection is connection:
            scope.after_commit(lambda: self._committed(stream_id, last_version, last_hash))
        gathered = scope.current()
        if gathered is not None:  # the receipt of the request's answer: the last event's MAC
            gathered.appended(Head(stream_id, last_version, last_hash, last_mac))
        positions = sorted(int(result.get_value(row, 0)) for row in range(result.ntuples))
        return AppendResult(stream_id, expected_version + 1, last_version, tuple(positions))

    def _held_back(self, connection: psycopg.Connection[Any], claim: Claim, encoded: _EncodedAppend,
                   parameters: list[bytes | None], last_hash: str, last_mac: str | None) -> AppendResult:
        """The append and its transaction's claim, held back to the COMMIT's round trip
        (held_back): its result is what the append will have written, but for the events'
        positions (), which only the server knows."""
        opened = self._joined()
        statement, formats = ((self._append_batch_required, sql.APPEND_BATCH_FORMATS) if len(encoded.types) > 1
                              else (self._append_one_required, None))
        opened.held_back = HeldBack(
            connection, claim, append=libpq.Run(statement, parameters, formats), claim_runs=self._claim_runs(claim),
            guarded=libpq.Run(self._claim_key, [claim.owner.encode(), claim.key.encode(), claim.spelled_now.encode()]),
            settle=lambda results: self._settle(claim, results))
        stream_id, last_version = encoded.stream_id, encoded.expected_version + len(encoded.types)
        opened.after_commit(lambda: self._committed(stream_id, last_version, last_hash))
        opened.appended(Head(stream_id, last_version, last_hash, last_mac))
        return AppendResult(stream_id, encoded.expected_version + 1, last_version, ())

    def _committed(self, stream_id: str, version: int, hash_: str) -> None:
        self._heads.remember(stream_id, version, hash_)

    def forget(self, stream_id: str) -> None:
        """Drop the head this process remembers of the stream (a rolled-back append)."""
        self._heads.forget(stream_id)

    def read_stream(
        self, stream_id: str, after_version: int = 0, up_to_version: int | None = None,
        *, reveal: Reveal | None = None, checked: bool = True,
    ) -> list[RecordedEvent]:
        """The events after `after_version` up to `up_to_version`, each checked before it
        is returned (base.check_read: an IntegrityFailure when one fails). `checked`
        False: as stored, for the audits that report what they find (verify, receipts)."""
        upper = sql.MAX_VERSION if up_to_version is None else up_to_version
        parameters = {"stream": stream_id, "after": after_version, "upper": upper}
        if not checked:
            query = sql.READ_STREAM.format(columns=sql.COLUMNS, checked=sql.sealed_column(reveal))
            with self._connection() as connection:
                return [sql.recorded(row) for row in sql.fetch(connection, query, parameters)]
        self.failed_streams.refuse(stream_id)
        query = sql.READ_STREAM.format(columns=sql.COLUMNS, checked=sql.checked_columns(reveal, sql.PREVIOUS_AFTER))
        with self._connection() as connection:
            rows = sql.fetch(connection, query, parameters)
        recorded = [self._checked(row) for row in rows]
        if recorded:
            self._heads.remember(stream_id, recorded[-1].version, recorded[-1].hash)
        return recorded

    def _checked(self, row: Sequence[Any]) -> RecordedEvent:
        """The event of a row read with sql.checked_columns, once base.check_read passed it."""
        event = sql.recorded(row[:11])
        stored_sealed, previous = row[11], row[12]
        try:
            check_read(event.stream_id, event, event.sealed if stored_sealed is None else stored_sealed,
                       None if previous is None else bytes(previous).hex(), self.signer)
        except IntegrityFailure as failed:
            raise self.failed_streams.found(failed) from None
        return event

    def refuse_failed(self, stream_id: str) -> None:
        self.failed_streams.refuse(stream_id)

    def integrity_failures(self) -> list[IntegrityFailure]:
        """The streams this process found failing their check on read (FailedStreams)."""
        return self.failed_streams.all()

    def read_hand(
        self, stream_id: str, hand_id: str, *, opened_by: str, reveal: Reveal | None = None,
    ) -> list[RecordedEvent]:
        """The events tagged with `hand_id` (metadata), from its opening event (type
        `opened_by`) to the stream's next opening event: one statement over two small
        indexes and the hand's own rows."""
        self.failed_streams.refuse(stream_id)
        query = sql.READ_HAND.format(columns=sql.E_COLUMNS, checked=sql.checked_columns(reveal, sql.PREVIOUS_HASH),
                                  opening=sql.sql_text_literal(opened_by))
        with self._connection() as connection:
            rows = sql.fetch(connection, query, {"stream": stream_id, "hand": hand_id})
        return [self._checked(row) for row in rows]

    def verify_hand(
        self, stream_id: str, hand_id: str, *, opened_by: str,
    ) -> RangeVerification | None:
        """The chain check of one hand's range (verify_range), read in one statement that
        costs the hand's events; None when the stream has no such hand. A tail removed is
        the public log's to catch (service.application.public_log.first_difference)."""
        query = sql.READ_HAND_CHAIN.format(columns=sql.E_COLUMNS, sealed=sql.ALL_SEALED,
                                        opening=sql.sql_text_literal(opened_by))
        with self._connection() as connection:
            rows = sql.fetch(connection, query, {"stream": stream_id, "hand": hand_id})
        if not rows:
            return None
        return verify_range(stream_id, [sql.recorded(row[1:]) for row in rows], rows[0][0], opened_by,
                            self.signer)

    def save_snapshot(self, snapshot: Snapshot) -> None:
        """Inside the open transaction when there is one (it commits or rolls back with
        the events it follows); once per (stream, schema, version), the first kept. Outside
        one, a snapshot that cannot be written is logged and let go: it is a cache."""
        mac = None if self.signer is None else self.signer.sign_snapshot(snapshot)
        parameters = [snapshot.stream_id.encode(), snapshot.schema.encode(), b"%d" % snapshot.version,
                      snapshot.body.encode(), None if mac is None else mac.encode()]
        opened = scope.scope_of(self)
        if opened is not None:
            # Nothing in the transaction reads it back: it goes with the COMMIT, in its round trip.
            opened.sent_with_commit.append(libpq.Run(self._save_snapshot, parameters))
            return
        try:
            with self._pool.connection() as connection:
                self._save_snapshot.run(connection, parameters)
        except psycopg.OperationalError:
            # A cache lost, not a write: the events it follows are committed already.
            log.warning("could not keep the snapshot of %s at version %s", snapshot.stream_id,
                        snapshot.version, exc_info=True)

    def newest_snapshot(
        self, stream_id: str, schema: str, up_to_version: int | None = None,
    ) -> Snapshot | None:
        """The newest snapshot at or below `up_to_version` under `schema`; with a chain
        key, one whose MAC is not the key's is passed over (and the next older read)."""
        upper = sql.MAX_VERSION if up_to_version is None else up_to_version
        with self._connection() as connection:
            while upper >= 1:
                rows = sql.fetch(connection, sql.NEWEST_SNAPSHOT, (stream_id, schema, upper))
                if not rows:
                    return None
                version, body, mac = rows[0]
                found = Snapshot(stream_id, version, schema, body)
                if self.signer is None or self.signer.valid_snapshot(found, mac):
                    return found
                failed_streams.snapshot_passed_over(found)
                upper = version - 1
        return None

    def read_from_snapshot(
        self, stream_id: str, schema: str, up_to_version: int | None = None,
    ) -> tuple[Snapshot | None, list[RecordedEvent]]:
        """The newest snapshot at or below `up_to_version` and the events after it up to
        that version, sealed fields revealed (the owner's replay): one statement. A newest
        snapshot whose MAC is not the chain key's is passed over as newest_snapshot does."""
        upper = sql.MAX_VERSION if up_to_version is None else up_to_version
        self.failed_streams.refuse(stream_id)
        query = sql.FROM_SNAPSHOT.format(columns=sql.E_COLUMNS, checked=sql.checked_columns(Reveal.ALL, sql.PREVIOUS_OF_SNAPSHOT))
        with self._connection() as connection:
            rows = sql.fetch(connection, query, {"stream": stream_id, "schema": schema, "upper": upper})
        version, body, mac = rows[0][:3]
        found = None if version is None else Snapshot(stream_id, version, schema, body)
        if found is not None and self.signer is not None and not self.signer.valid_snapshot(found, mac):
            failed_streams.snapshot_passed_over(found)
            older = self.newest_snapshot(stream_id, schema, found.version - 1)
            return older, self.read_stream(stream_id, 0 if older is None else older.version,
                                           up_to_version, reveal=Reveal.ALL)
        return found, [self._checked(row[3:]) for row in rows if row[3] is not None]

    def stream_version(self, stream_id: str) -> int:
        with self._connection() as connection:
            return sql.fetch(connection, sql.STREAM_VERSION, (stream_id,))[0][0]

    def read_all(
        self, after: Checkpoint | None = None, limit: int = 1000, *, until: Checkpoint = END
    ) -> tuple[list[RecordedEvent], Checkpoint]:
        after = after or START
        # Inside a transaction (a follower's batch) on its connection, so the batch's
        # reads, commands and checkpoint share one transaction.
        with self._connection() as connection:
            rows = sql.fetch(connection, sql.READ_ALL, (str(after.transaction_id), after.position,
                                                  str(until.transaction_id), until.position, limit))
            if not rows:
                return [], after
            checked = self._checked_batch(connection, rows)
        last = rows[-1]
        return checked, Checkpoint(int(last[-1]), last[2])

    def _checked_batch(self, connection: psycopg.Connection[Any], rows: Sequence[Sequence[Any]]) -> list[RecordedEvent]:
        """A batch of the global log, each event checked, chained from the event before it
        in the batch or else from the stored one (read for all of them in one statement):
        the events of a stream that fails (from its failing event on, and every later
        batch's) are left out, and the failure kept, so its readers meet it when they next
        read that stream."""
        last_seen: dict[str, tuple[int, bytes]] = {}
        wanted: set[tuple[str, int]] = set()
        for row in rows:
            stream_id, version, hash_ = row[0], row[1], row[8]
            seen = last_seen.get(stream_id)
            if version > 1 and (seen is None or seen[0] != version - 1):
                wanted.add((stream_id, version - 1))
            last_seen[stream_id] = (version, hash_)
        stored = {}
        if wanted:
            streams, versions = zip(*sorted(wanted))
            stored = {(found[0], found[1]): found[2] for found in sql.fetch(
                connection, sql.PREVIOUS_HASHES, (list(streams), list(versions)))}
        before: dict[str, tuple[int, bytes]] = {}
        checked = []
        for row in rows:
            stream_id, version = row[0], row[1]
            chained = before.get(stream_id)
            previous = chained[1] if chained is not None and chained[0] == version - 1 \
                else stored.get((stream_id, version - 1))
            before[stream_id] = (version, row[8])
            if self.failed_streams.failed(stream_id):
                continue
            try:
                checked.append(self._checked([*row[:12], previous]))
            except IntegrityFailure as failed:
                log.error("left out of the global log's batch: %s", failed)
        return checked

    def verify_stream(self, stream_id: str, receipts: Sequence[Head] = ()) -> Verification:
        """The chain recomputed, every MAC checked (with a chain key), and the stream checked
        to reach every head shown (receipts). A tail removed with no receipt shown is the
        public log's to catch (service.application.public_log.first_difference)."""
        events = self.read_stream(stream_id, reveal=Reveal.ALL, checked=False)
        return verify_chain(stream_id, events, self.signer, receipts)

    def list_streams(self, prefix: str = "") -> list[str]:
        with self._connection() as connection:
            return sql.streams_of(connection, "events", prefix)


class _StoreTransaction:
    """PostgresEventStore.transaction's block: a connection of the pool, the scope of the
    transaction on it (scope.transaction_of) and the transaction (libpq.transaction), left
    in the reverse order, each told how the one inside it ended, as nested `with` blocks
    are. A class, not a generator's context manager, and the pool's getconn and putconn,
    not its `connection()` (another generator's, whose commit or rollback on the way out
    has nothing to do: libpq.transaction leaves the connection idle, or closes it), issue 37."""

    __slots__ = ("_pool", "_connection", "_scope", "_transaction", "_store")

    def __init__(self, store: PostgresEventStore) -> None:
        self._store = store
        self._pool = store._pool

    def __enter__(self) -> scope.WriteScope:
        connection = self._connection = self._pool.getconn()
        try:
            self._scope = scope.transaction_of(self._store, connection)
            opened = self._scope.__enter__()
        except BaseException:
            self._pool.putconn(connection)
            raise
        self._transaction = libpq.transaction(connection, opened)
        try:
            self._transaction.__enter__()
        except BaseException as failed:
            self._scope.__exit__(type(failed), failed, failed.__traceback__)
            self._pool.putconn(connection)
            raise
        opened.forget_on_rollback(self._store.forget)
        return opened

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: Any) -> None:
        try:
            try:
                self._transaction.__exit__(kind, error, traceback)
            except BaseException as failed:  # its COMMIT failed: the scope's transaction did not commit
                self._scope.__exit__(type(failed), failed, failed.__traceback__)
                raise
            self._scope.__exit__(kind, error, traceback)
        finally:
            self._pool.putconn(self._connection)


class _EncodedAppend:
    """An append's events checked and encoded once (canonical JSON, as stored and hashed);
    `statement` chains them from a given hash."""

    def __init__(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        idempotency_key: str | None,
        actor: str | None,
        signer: ChainSigner | None,
    ) -> None:
        check_append_arguments(expected_version, events)
        self.types = [event.type for event in events]
        # libpq sends text parameters as C strings: refuse here, as the in-memory store does,
        # text PostgreSQL cannot hold (NUL, lone surrogates) rather than let a NUL cut it short.
        # Without a key (an idempotent write's key is in its claim, not its appends) the
        # texts are checked as one joined text; a None among them fails that join (a
        # TypeError raised and caught, then text by text: issue 37).
        check_storable([stream_id, *self.types] if idempotency_key is None else [stream_id, idempotency_key, *self.types])
        self.stream_id = stream_id
        self.expected_version = expected_version
        self.idempotency_key = idempotency_key
        self.schema_versions = [event.schema_version for event in events]
        self.data = [canonical_json(event.data) for event in events]
        self.metadata = [
            canonical_json(event_metadata(event, idempotency_key, actor)) for event in events
        ]
        self.sealed = [canonical_json(event.sealed) if event.sealed else None for event in events]
        self.signer = signer

    def parameters(
        self, previous_hash: str, recorded_at: datetime
    ) -> tuple[list[bytes | None], str, str | None]:
        """The append statement's parameters (event_sql.APPEND_ONE's, or APPEND_BATCH's for
        more than one event), the last event's hash and its MAC (the write's receipt)."""
        moment = format_recorded_at(recorded_at)
        hashes = []
        chained_from = previous_hash
        macs: list[str | None] = []
        for offset, (type_, schema_version, data, metadata, sealed) in enumerate(
            zip(self.types, self.schema_versions, self.data, self.metadata, self.sealed), start=1
        ):
            version = self.expected_version + offset
            chained_from = chained_hash(self.stream_id, version, type_, schema_version, data,
                                        metadata, chained_from, moment, sealed)
            hashes.append(chained_from)
            macs.append(None if self.signer is None
                        else self.signer.sign(self.stream_id, version, chained_from))
        key = None if self.idempotency_key is None else self.idempotency_key.encode()
        common = [self.stream_id.encode(), b"%d" % self.expected_version, key]
        checks = [previous_hash.encode(), moment.encode()]
        if len(hashes) == 1:
            return [
                *common,
                self.types[0].encode(),
                b"%d" % self.schema_versions[0],
                self.data[0].encode(),
                self.metadata[0].encode(),
                *checks,
                hashes[0].encode(),
                None if self.sealed[0] is None else self.sealed[0].encode(),
                None if macs[0] is None else macs[0].encode(),
            ], chained_from, macs[0]
        return [
            *common,
            libpq.text_array(self.types),
            ("{" + ",".join(str(v) for v in self.schema_versions) + "}").encode(),
            libpq.text_array(self.data),
            libpq.text_array(self.metadata),
            *checks,
            ("{" + ",".join(hashes) + "}").encode(),
            libpq.text_array(self.sealed),
            libpq.text_array(macs),
        ], chained_from, macs[-1]


def _outside_transaction(connection: psycopg.Connection[Any]) -> bool:
    return connection.pgconn.transaction_status == pq.TransactionStatus.IDLE


def _fetch_hash_at(connection: psycopg.Connection[Any], stream_id: str, version: int) -> str | None:
    rows = sql.fetch(connection, sql.HASH_AT, (stream_id, version))
    return rows[0][0] if rows else None


def _refusal(
    connection: psycopg.Connection[Any],
    stream_id: str,
    expected_version: int,
    idempotency_key: str | None,
) -> AppendResult:
    """Why an append wrote nothing: the key's first result (a retry), else the conflict."""
    if idempotency_key is not None:
        found = _found_by_key(connection, stream_id, idempotency_key)
        if found is not None:
            return found
    actual = sql.fetch(connection, sql.STREAM_VERSION, (stream_id,))[0][0]
    raise VersionConflict(stream_id, expected_version, actual)


def _found_by_key(
    connection: psycopg.Connection[Any], stream_id: str, idempotency_key: str
) -> AppendResult | None:
    """The result of the append that recorded this key, if one did."""
    rows = sql.fetch(connection, sql.FIND_BY_KEY, (stream_id, idempotency_key))
    if not rows:
        return None
    first_version, positions, last_version = rows[0]
    return AppendResult(stream_id, first_version, last_version, tuple(positions), deduplicated=True)
