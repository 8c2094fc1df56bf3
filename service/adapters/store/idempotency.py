"""Idempotency records, as payments APIs keep them: keyed by (the caller's API key id, the
request's Idempotency-Key), each holds the request's fingerprint (method, path, a SHA-256
of the body) and the first answer (status, body, the headers that matter), until it expires.

The contract both stores keep, inside `store.transaction()`:
- `claim_key(owner, key, now)` takes the key for this transaction, or raises
  KeyInUse when another transaction holds it (a request with that key is still running);
  it returns the live record of an earlier request with the key, if one exists;
- `record_answer(record)` writes the record in the same transaction as the events it
  answers for, replacing an expired one: a crash leaves both or neither.
Each costs one indexed statement (and a write removes at most PURGED_PER_WRITE expired
records of anyone's), so the work per write does not grow with the table.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import threading
from dataclasses import dataclass
from datetime import datetime, timezone

PURGED_PER_WRITE = 2
"""Expired records a write removes beside its own: more than one, so the table shrinks
back after a burst; few, so no write pays for many."""


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

# Text columns, the times as seconds since the epoch.
_SELECT = """
SELECT method, path, encode(body_sha256, 'hex'), status, encode(body, 'hex'), headers::text,
       extract(epoch FROM created_at)::text, extract(epoch FROM expires_at)::text
  FROM idempotency_records
 WHERE owner = $1 AND key = $2 AND expires_at > $3
"""

_PURGE = """
DELETE FROM idempotency_records
 WHERE ctid = ANY (ARRAY (SELECT ctid FROM idempotency_records WHERE expires_at <= $1
                          ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED))
"""

# An expired record of the same key is replaced; a live one cannot be there (the claim
# found none while holding the key's lock).
_INSERT = """
INSERT INTO idempotency_records (owner, key, method, path, body_sha256, status, body, headers,
                                 created_at, expires_at)
VALUES ($1, $2, $3, $4, decode($5, 'hex'), $6, $7, $8, $9, $10)
ON CONFLICT (owner, key) DO UPDATE
   SET method = excluded.method, path = excluded.path, body_sha256 = excluded.body_sha256,
       status = excluded.status, body = excluded.body, headers = excluded.headers,
       created_at = excluded.created_at, expires_at = excluded.expires_at
 WHERE idempotency_records.expires_at <= excluded.created_at
"""

STATEMENTS = (
    ("try_lock_key", _TRY_LOCK, (25, 25)),
    ("select_record", _SELECT, (25, 25, 1184)),
    ("purge_records", _PURGE, (1184, 23)),
    ("insert_record", _INSERT, (25, 25, 25, 25, 25, 23, 17, 3802, 1184, 1184)),
)
INSERT_FORMATS = (0, 0, 0, 0, 0, 0, 1, 0, 0, 0)
"""The answer's body travels as bytes (binary bytea); every other parameter as text."""


def record_from_text(owner: str, key: str, row: list[bytes | None]) -> IdempotencyRecord:
    """A record from _SELECT's columns, as libpq gives them (text)."""
    method, path, body_sha256, status, body, headers, created_at, expires_at = (
        b"" if value is None else value for value in row)
    return IdempotencyRecord(owner, key, Fingerprint(method.decode(), path.decode(), body_sha256.decode()),
                             Answer(int(status), bytes.fromhex(body.decode()),
                                    tuple(tuple(h) for h in json.loads(headers))),
                             datetime.fromtimestamp(float(created_at), timezone.utc),
                             datetime.fromtimestamp(float(expires_at), timezone.utc))
