"""API keys and roles: who a bearer key, or a page session's key, says the caller is.

A key is a high-entropy secret from `secrets`, shown once; only its sha256 is stored
(api_keys table), so a leaked database does not leak usable keys. A plain hash (no salt,
no slow KDF) is enough because the secret has 256 bits of entropy, and it keeps the
lookup a single indexed equality. `CARDROOM_ADMIN_KEY` works as a master admin key.

Each key row and each revocation carries a MAC under a key the database never holds
(service.adapters.row_macs): a key row the application's login inserts (an admin key minted
in SQL) answers 401 and is reported. A revocation is a row of its own (key_revocations),
which the login may add but never change or remove, so nothing un-revokes a key; any
revocation row refuses its key, and one whose MAC fails is reported too.

The HTTP layer (service.http.auth) reads the caller's key from the request and asks here.
"""
from __future__ import annotations

import hashlib
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from psycopg_pool import ConnectionPool

from service.adapters.row_macs import RowSigners
from service.adapters.store import scope

ROLES = ("admin", "organiser", "floor", "player", "spectator")
KEY_PREFIX = "crd_"


@dataclass(frozen=True)
class Principal:
    role: str
    player_id: str | None = None
    key_id: str | None = None
    """The id of the API key the caller sent (MASTER_KEY_ID for CARDROOM_ADMIN_KEY): whose
    Idempotency-Keys they are, and who a request's log line names."""


MASTER_KEY_ID = "CARDROOM_ADMIN_KEY"


def new_secret() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


KNOWN_KEYS_KEPT = 4096
# How often a worker asks which keys were revoked: a revocation takes effect on every
# worker (process) within this, at the cost of one indexed query per process and period.
# Revocations are only ever added, so within this every worker's answer for a key agrees.
KEY_CACHE_TTL_S = 0.5
REVOCATION_MARGIN_S = 5.0
"""Each ask reaches this far back before the last one: a revocation whose transaction
began before that ask (revoked_at is its start) but committed after it is still seen."""


@dataclass(frozen=True)
class IssuedKey:
    """A key as `GET /v1/keys` lists it: never its secret, which is shown once."""

    id: str
    role: str
    player_id: str | None
    created_at: datetime
    revoked_at: datetime | None


class Revoked:
    """What the key cache holds for a revoked key."""


REVOKED = Revoked()


class ApiKeys:
    """The api_keys and key_revocations tables (migrations 0002 and 0016).

    What a lookup found (a principal, or REVOKED) is remembered by hash, so a player's
    requests do not each cost a database round trip; every KEY_CACHE_TTL_S the first
    request to find it due asks which keys were revoked since the last ask (one indexed
    query, however many keys are remembered; the database's clock on both sides) and
    forgets nothing else: a key's row never changes, and a revocation is never removed. So a key revoked
    through any worker stops working on every worker within that time, as when each key
    was looked up again every period (a player acting every few seconds cost a lookup per
    request). The hot path is one dict lookup and one clock read. Unknown keys are not
    remembered (random keys would only push real ones out). Up to KNOWN_KEYS_KEPT hashes
    are kept; past that the memory is emptied, which costs one lookup per key in use.
    """

    def __init__(self, pool: ConnectionPool, signers: RowSigners, ttl_s: float = KEY_CACHE_TTL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._pool = pool
        self._keys = signers.api_keys
        self._revocations = signers.key_revocations
        self._ttl_s = ttl_s
        self._clock = clock
        self._known: dict[str, Principal | Revoked] = {}
        self._asked_due_at = 0.0
        self._revoked_since: datetime | None = None
        """The database's time of the last ask, less REVOCATION_MARGIN_S (None: never asked)."""
        self._asking = threading.Lock()

    def create(self, role: str, player_id: str | None = None) -> tuple[IssuedKey, str]:
        """Store a new key; returns it and its secret (the only time the secret is visible)."""
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}")
        if (role == "player") != (player_id is not None):
            raise ValueError("a player key needs a player id, and only a player key has one")
        secret = new_secret()
        key_id, hashed = str(uuid.uuid4()), key_hash(secret)
        with self._connection() as conn:
            row = conn.execute(
                "INSERT INTO api_keys (id, key_hash, role, player_id, mac) VALUES (%s, %s, %s, %s, %s)"
                " RETURNING id, role, player_id, created_at, NULL::timestamptz",
                (key_id, hashed, role, player_id, self._keys.sign(key_id, hashed, role, player_id)),
            ).fetchone()
        assert row is not None
        return IssuedKey(*row), secret

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """The request's open transaction when there is one (an idempotent key creation
        commits with its record), else a connection from the pool."""
        joined = scope.current_connection()
        if joined is not None:
            yield joined
        else:
            with self._pool.connection() as conn:
                yield conn

    def listed(self, limit: int, after: str | None = None) -> list[IssuedKey]:
        """Keys in the order they were issued (created_at, then id), `limit` of them from
        the one after the key `after`. A row whose MAC fails (minted or changed in SQL) is
        not a key the service issued: it is left out, and reported (GET /v1/status lists it)."""
        found: list[IssuedKey] = []
        while len(found) < limit:
            wanted = limit - len(found)
            with self._pool.connection() as conn:
                rows = conn.execute(
                    "SELECT k.key_hash, k.mac, " + _KEY_COLUMNS + " FROM api_keys k"
                    " LEFT JOIN key_revocations r ON r.key_id = k.id"
                    " WHERE %(after)s::text IS NULL"
                    "    OR (k.created_at, k.id) > (SELECT created_at, id FROM api_keys WHERE id = %(after)s)"
                    " ORDER BY k.created_at, k.id LIMIT %(limit)s",
                    {"after": after, "limit": wanted},
                ).fetchall()
            for hashed, mac, *shown in rows:
                key = IssuedKey(*shown)
                if self.valid_row(key.id, hashed, key.role, key.player_id, mac):
                    found.append(key)
            if len(rows) < wanted:
                break
            after = rows[-1][2]
        return found

    def get(self, key_id: str) -> IssuedKey | None:
        with self._pool.connection() as conn:
            row = conn.execute(_SELECT_KEY, (key_id,)).fetchone()
        return IssuedKey(*row) if row else None

    def revoke(self, key_id: str) -> IssuedKey | None:
        """Revoke the key (once: revoking again keeps the first time); None if unknown."""
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO key_revocations (key_id, mac) SELECT id, %s FROM api_keys WHERE id = %s"
                " ON CONFLICT (key_id) DO NOTHING",
                (self._revocations.sign(key_id), key_id),
            )
            row = conn.execute(_SELECT_KEY, (key_id,)).fetchone()
        return IssuedKey(*row) if row else None

    def find(self, secret: str) -> Principal | Revoked | None:
        """The key's principal, REVOKED, or None for a key never issued."""
        return self.find_by_hash(key_hash(secret))

    def find_by_hash(self, hashed: str) -> Principal | Revoked | None:
        """`find` of the key whose key_hash is `hashed` (for a caller that hashed it already)."""
        if self._clock() >= self._asked_due_at:
            self._ask_for_revocations()
        known = self._known.get(hashed)
        if known is not None:
            return known
        found = self._look_up(hashed)
        if found is not None:
            if len(self._known) >= KNOWN_KEYS_KEPT:
                self._known.clear()
            self._known[hashed] = found
        return found

    def _ask_for_revocations(self) -> None:
        """Mark the remembered keys revoked since the last ask (one thread asks; the others
        go on meanwhile with what is remembered)."""
        if not self._asking.acquire(blocking=False):
            return
        try:
            with self._pool.connection() as conn:
                asked_at, revoked = conn.execute(
                    "SELECT statement_timestamp(), array(SELECT k.key_hash FROM key_revocations r"
                    " JOIN api_keys k ON k.id = r.key_id WHERE r.revoked_at >= %s::timestamptz)",
                    (self._revoked_since or "infinity",),
                ).fetchone()
            for hashed in revoked:
                if hashed in self._known:
                    self._known[hashed] = REVOKED
            self._revoked_since = asked_at - timedelta(seconds=REVOCATION_MARGIN_S)
            self._asked_due_at = self._clock() + self._ttl_s
        finally:
            self._asking.release()

    def _look_up(self, hashed: str) -> Principal | Revoked | None:
        """The key's principal (its row's MAC verified), REVOKED, or None for a key never
        issued or whose row fails its MAC (refused and reported)."""
        with self._pool.connection() as conn:
            row = conn.execute(
                "SELECT k.id, k.role, k.player_id, k.mac, r.key_id IS NOT NULL, r.mac FROM api_keys k"
                " LEFT JOIN key_revocations r ON r.key_id = k.id WHERE k.key_hash = %s",
                (hashed,),
            ).fetchone()
        if row is None:
            return None
        key_id, role, player_id, mac, revoked, revocation_mac = row
        if revoked:
            if not self._revocations.valid(revocation_mac, key_id):
                self._revocations.refused(f"key {key_id}", "its MAC does not verify; the key stays refused")
            return REVOKED
        if not self._keys.valid(mac, key_id, hashed, role, player_id):
            self._keys.refused(f"key {key_id}")
            return None
        return Principal(role=role, player_id=player_id, key_id=key_id)

    def valid_row(self, key_id: str, hashed: str, role: str, player_id: str | None, mac: str | None) -> bool:
        """Whether a key row read elsewhere (a page session's key) is one the service
        issued; a row that is not is reported."""
        if self._keys.valid(mac, key_id, hashed, role, player_id):
            return True
        self._keys.refused(f"key {key_id}")
        return False

    def refused_rows(self) -> list[dict[str, str]]:
        """Every key row and revocation whose MAC fails (for GET /v1/status)."""
        with self._pool.connection() as conn:
            keys = conn.execute("SELECT id, key_hash, role, player_id, mac FROM api_keys").fetchall()
            revocations = conn.execute("SELECT key_id, mac FROM key_revocations").fetchall()
        return ([{"table": "api_keys", "row": key_id}
                 for key_id, hashed, role, player_id, mac in keys
                 if not self._keys.valid(mac, key_id, hashed, role, player_id)]
                + [{"table": "key_revocations", "row": key_id}
                   for key_id, mac in revocations if not self._revocations.valid(mac, key_id)])


_KEY_COLUMNS = "k.id, k.role, k.player_id, k.created_at, r.revoked_at"
_SELECT_KEY = ("SELECT " + _KEY_COLUMNS + " FROM api_keys k LEFT JOIN key_revocations r ON r.key_id = k.id"
               " WHERE k.id = %s")
