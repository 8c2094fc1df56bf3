"""Idempotency records, as payments APIs keep them: keyed by (the caller's API key id, the
request's Idempotency-Key), each holds the request's fingerprint (method, path, a SHA-256
of the body) and the first answer (status, body, the headers that matter), until it expires.

The contract both stores keep, inside `store.transaction()`:
- `claim_key(owner, key, now)` takes the key for this transaction, or raises
  KeyInUse when another transaction holds it (a request with that key is still running);
  it returns the live record of an earlier request with the key, if one exists;
- `claim_key_later(owner, key, now, with_commit=...)` and `settled_claim(write_failed=...)`:
  the same claim, which the PostgreSQL store sends in the round trip of the transaction's
  first append (the append then raises KeyInUse, or AnsweredBefore when the key has its
  first answer, and writes nothing that commits), or `with_commit`, holds back with that
  append to the COMMIT's round trip (service.adapters.store.held_back: the COMMIT then
  raises KeyInUse, or HeldBackRefused); settled_claim gives what claim_key would have,
  sending the claim then when no append took it (None while it is held back, unless the
  write failed: then the claim goes alone);
- `record_answer(record)` writes the record in the same transaction as the events it
  answers for, replacing an expired one: a crash leaves both or neither.
Each costs one indexed statement, so the work per write does not grow with the table.
Expired records of anyone's go in bulk: the in-memory store removes at most PURGED_PER_WRITE
with each write, the PostgreSQL store up to PURGED_PER_WRITE * REMOVED_EVERY with every
REMOVED_EVERY-th write of the process (one statement then instead of one each write); a
key's own expired record, which its new record replaces, goes with that record's write.

In PostgreSQL the records are insert-only for the application (migration 0016): expired
ones are removed by `idempotency_records_remove_expired`, a function of the owner role that
deletes nothing still live, and each record carries a MAC (service.adapters.row_macs), so an
answer changed in the database is refused (RecordRefused), never replayed.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from service import json_text

if TYPE_CHECKING:
    from service.adapters.row_macs import RowSigner

PURGED_PER_WRITE = 2
"""Expired records removed per write beside its own: more than one, so the table shrinks
back after a burst; few, so no write pays for many."""

REMOVED_EVERY = 64
"""The PostgreSQL store removes expired records with one write in this many (up to
PURGED_PER_WRITE for each): a statement per write cost more than the records it removed
(issue 37: 0.079 of 0.569 ms of statements per table action)."""


@dataclass(frozen=True)
class Fingerprint:
    method: str
    path: str
    """The path with its query string (`?store=true` changes what a request does)."""
    body_sha256: str

    @classmethod
    def of(cls, method: str, path: str, body: bytes) -> Fingerprint:
        return cls(method, path, hashlib.sha256(body).hexdigest())


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class IdempotencyRecord:
    owner: str
    """The id of the API key that sent the first request."""
    key: str
    fingerprint: Fingerprint
    answer: Answer
    created_at: datetime
    expires_at: datetime


class KeyInUse(Exception):
    """Another request with the same (owner, key) is still running."""


class AnsweredBefore(Exception):
    """The claim, sent with the transaction's first append, found the first answer to
    the key: the write stops there and its transaction rolls back (the answer replays)."""

    def __init__(self, record: IdempotencyRecord) -> None:
        super().__init__(record.key)
        self.record = record


class HeldBackRefused(Exception):
    """What the PostgreSQL store held back to the COMMIT's round trip (the claim and the
    first append: service.adapters.store.held_back) was refused there, or sent early and
    found the append refused: nothing committed. Running the write again without holding
    back answers as that trip could not (a replay, a conflict)."""


class RecordRefused(Exception):
    """The stored record of (owner, key) fails its MAC: it was written or changed in the
    database, not by the service."""


def signed_fields(record: IdempotencyRecord, headers_text: str | None = None) -> tuple[str | int | bytes | datetime, ...]:
    """What a record's MAC covers: all of it (the answer's body by its SHA-256).
    `headers_text`: headers_json of the answer's headers, when the caller has it already."""
    fingerprint, answer = record.fingerprint, record.answer
    return (record.owner, record.key, fingerprint.method, fingerprint.path, fingerprint.body_sha256,
            answer.status, hashlib.sha256(answer.body).digest(),
            headers_json(answer.headers) if headers_text is None else headers_text,
            record.created_at, record.expires_at)


# json.dumps's own spelling (the stored and signed text), without its new C encoder a call.
_HEADERS = json_text.encoder()


def headers_json(headers: tuple[tuple[str, str], ...]) -> str:
    return _HEADERS([list(header) for header in headers])


class InMemoryIdempotency:
    """The records of the in-memory store; a claim lasts until its scope ends (`release`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: dict[tuple[str, str], IdempotencyRecord] = {}
        self._claimed: set[tuple[str, str]] = set()

    def claim(self, owner: str, key: str, now: datetime) -> IdempotencyRecord | None:
        with self._lock:
            if (owner, key) in self._claimed:
                raise KeyInUse(key)
            self._claimed.add((owner, key))
            record = self._records.get((owner, key))
            if record is not None and record.expires_at <= now:
                del self._records[(owner, key)]
                return None
            return record

    def record(self, record: IdempotencyRecord) -> None:
        with self._lock:
            # Oldest first (a claim removes an expired record, so a renewed key moves to
            # the end): the expired ones are at the front.
            expired = [k for k in itertools.islice(self._records, PURGED_PER_WRITE)
                       if self._records[k].expires_at <= record.created_at]
            for old in expired:
                del self._records[old]
            self._records[(record.owner, record.key)] = record

    def release(self, owner: str, key: str) -> None:
        with self._lock:
            self._claimed.discard((owner, key))

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)


# Statements of the PostgreSQL store (service.adapters.store.postgres prepares them):
# (purpose, SQL, parameter type oids: text 25, integer 23, timestamptz 1184, bytea 17, jsonb 3802).
#
# The key's lock is a transaction-scoped advisory lock on a 64-bit hash of (owner, key):
# taken without waiting, so a second request with the key is told at once (409) instead of
# holding a thread and a connection; released by the commit or rollback, after which the
# record is visible to whoever takes the lock next (the read is a statement of its own,
# after the lock: its snapshot sees what the lock's last holder committed).
_TRY_LOCK = "SELECT pg_try_advisory_xact_lock(hashtextextended($1 || chr(10) || $2, 0))"

# Text columns, the times as microseconds since the epoch (exactly as stored).
_COLUMNS = """method, path, encode(body_sha256, 'hex'), status::text, encode(body, 'hex'), headers::text,
       (extract(epoch FROM created_at) * 1000000)::bigint::text,
       (extract(epoch FROM expires_at) * 1000000)::bigint::text, mac"""
# An expired record is found too (its last column false): the new record's write removes it.
_SELECT = f"""
SELECT {_COLUMNS}, expires_at > $3
  FROM idempotency_records
 WHERE owner = $1 AND key = $2
"""

# The key's own expired record (which the new one replaces) and up to $4 others: the owner's
# function (migration 0016), the application may not DELETE.
_PURGE = "SELECT idempotency_records_remove_expired($1, $2, $3, $4)"

# A live record of the key cannot be there (the claim found none while holding the key's
# lock), and an expired one the claim found was removed just before; unless this process's clock is ahead
# of the database's, which then still counts the old one live: it stays, and the write
# commits without a record of its own (as a record is never replaced in place).
_INSERT = """
INSERT INTO idempotency_records (owner, key, method, path, body_sha256, status, body, headers,
                                 created_at, expires_at, mac)
VALUES ($1, $2, $3, $4, decode($5, 'hex'), $6, $7, $8, $9, $10, $11)
ON CONFLICT (owner, key) DO NOTHING
"""

# The claim as the server refuses it itself (migration 0023), for the round trip that ends
# in the COMMIT: fails while the key is in use or answered, removes its expired record.
_CLAIM = "SELECT idempotency_key_claim($1, $2, $3)"

STATEMENTS = (
    ("claim_key", _CLAIM, (25, 25, 1184)),
    ("try_lock_key", _TRY_LOCK, (25, 25)),
    ("select_record", _SELECT, (25, 25, 1184)),
    ("purge_records", _PURGE, (25, 25, 1184, 23)),
    ("insert_record", _INSERT, (25, 25, 25, 25, 25, 23, 17, 3802, 1184, 1184, 25)),
)
INSERT_FORMATS = (0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0)
"""The answer's body travels as bytes (binary bytea); every other parameter as text."""


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def record_from_text(owner: str, key: str, row: list[bytes | None]) -> tuple[IdempotencyRecord, str | None]:
    """A record from _SELECT's columns, as libpq gives them (text), and its MAC."""
    *columns, mac = row
    method, path, body_sha256, status, body, headers, created_at, expires_at = (
        b"" if value is None else value for value in columns)
    record = IdempotencyRecord(owner, key, Fingerprint(method.decode(), path.decode(), body_sha256.decode()),
                               Answer(int(status), bytes.fromhex(body.decode()),
                                      tuple(tuple(h) for h in json.loads(headers))),
                               _EPOCH + timedelta(microseconds=int(created_at)),
                               _EPOCH + timedelta(microseconds=int(expires_at)))
    return record, None if mac is None else mac.decode()


RECORDS_AUDITED = 10_000


def refused_records(connection: Any, signer: RowSigner) -> list[dict[str, str]]:
    """The live records (the RECORDS_AUDITED latest) whose MAC fails, for GET /v1/status."""
    rows = connection.execute(
        f"SELECT owner, key, {_COLUMNS} FROM idempotency_records WHERE expires_at > now()"
        " ORDER BY created_at DESC LIMIT %s", (RECORDS_AUDITED,)).fetchall()
    refused = []
    for owner, key, *columns in rows:
        record, mac = record_from_text(owner, key, [None if c is None else c.encode() for c in columns])
        if not signer.valid(mac, *signed_fields(record)):
            refused.append({"table": "idempotency_records", "row": f"Idempotency-Key {key!r} of {owner}"})
    return refused
