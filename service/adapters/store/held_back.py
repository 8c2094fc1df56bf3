"""An idempotent write in one round trip (issue 37): its claim and first append held back
until the COMMIT, then sent with it.

An idempotent write's transaction is the key's claim, the append, the record of the answer
and the COMMIT. Everything the answer says is known before the append's result comes back
(the versions, the hashes and MACs the store computes itself, the receipts made of them),
so the PostgreSQL store holds the claim and the first append back (PostgresEventStore._insert)
and sends them in the COMMIT's round trip: BEGIN, `idempotency_key_claim`, the append,
the record, COMMIT (libpq_pipeline.one_trip). What the client can no longer read before the
COMMIT goes, the server refuses itself (migration 0023): the claim fails while another
request holds the key or when its first answer is live, the append fails when it wrote
nothing; a failure aborts the transaction and the COMMIT behind it commits nothing.

A key in use is the 409 it always was (KeyInUse). Any other refusal there is
HeldBackRefused: the write runs again, the long way (service.application.live_writes.once),
which reads what the trip could not (the first answer to replay, the conflict to report,
the head a stale hint missed) and answers as before.

Until the COMMIT, anything else that needs the transaction's connection (a read, a second
append, a snapshot read, a follower's checkpoint) sends what was held back first
(scope.joined_transaction), in the trip an append sends without holding back: BEGIN, the
claim's lock and read, the append; its refusals are raised there, and kept on the scope
(WriteScope.refusal) so the transaction cannot commit even if the caller catches them.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg import pq

from service.adapters.store import idempotency
from service.adapters.store import libpq_pipeline as libpq
from service.adapters.store.base import format_recorded_at

_APPEND_REFUSED = "CR409"  # events_require_appended (migration 0023): nothing appended


@dataclass
class Claim:
    """An Idempotency-Key's claim (claim_key_later), and once sent what it found."""
    owner: str
    key: str
    now: datetime
    with_commit: bool = False
    """Its first append may hold it back to the COMMIT's round trip (HeldBack)."""
    sent: bool = False
    record: idempotency.IdempotencyRecord | None = None
    refused: Exception | None = None
    expired_found: bool = False
    """The key's record was there, expired by `now`: the new record's write removes it."""

    @functools.cached_property
    def spelled_now(self) -> str:
        """format_recorded_at(now), spelled once for the claim's read and the record's write."""
        return format_recorded_at(self.now)


class HeldBack:
    """A claim and the first append of its transaction, not sent yet (the module's
    docstring): the scope's `held_back`."""

    def __init__(self, connection: psycopg.Connection[Any], claim: Claim, *, guarded: libpq.Run,
                 claim_runs: list[libpq.Run], append: libpq.Run,
                 settle: Callable[[list[pq.abc.PGresult]], None]) -> None:
        self._connection = connection
        self.claim = claim
        self._guarded = guarded
        """idempotency_key_claim's run: the claim as the server refuses it itself."""
        self._claim_runs = claim_runs
        """The claim as the client reads it (the key's lock, its record), for `send`."""
        self._append = append
        self._settle = settle

    def send(self) -> None:
        """Sent now, in a trip of its own (something else needs the connection): the
        claim's lock and read, then the append, as an append that holds nothing back sends
        them (libpq.opening). Raises what that append would: KeyInUse, RecordRefused,
        AnsweredBefore; HeldBackRefused when the append wrote nothing."""
        claim = self.claim
        try:
            libpq.opening(self._connection, self._claim_runs, [self._append], self._settle)
        except psycopg.Error as failed:
            if claim.record is not None:
                raise idempotency.AnsweredBefore(claim.record) from None
            if failed.sqlstate in (_APPEND_REFUSED, psycopg.errors.UniqueViolation.sqlstate):
                raise idempotency.HeldBackRefused(claim.key) from failed
            raise
        if claim.record is not None:  # answered before: what the append wrote rolls back
            raise idempotency.AnsweredBefore(claim.record)

    def commit(self, runs: list[libpq.Run]) -> None:
        """The claim (refused by the server), the append, then `runs` (the record, a
        snapshot) and the COMMIT, in one round trip."""
        claim = self.claim
        try:
            libpq.one_trip(self._connection, [self._guarded, self._append, *runs])
        except libpq.RunFailed as failed:
            if failed.index == 0 and isinstance(failed.error, psycopg.errors.LockNotAvailable):
                raise idempotency.KeyInUse(claim.key) from None
            if failed.index < 2:  # the key answered meanwhile, or the append wrote nothing
                raise idempotency.HeldBackRefused(claim.key) from failed.error
            raise failed.error from None
        claim.sent = True
