"""The one way a live write runs (every POST and DELETE of the API, through
service.http.api.writes): its appends gathered into receipts, and, with an
Idempotency-Key, in one store transaction with the key's claim and the first answer's
record, so that a crash keeps both or neither (service.adapters.store.scope and
service.adapters.store.idempotency hold how).

The HTTP layer says what the write is and what its answer looks like; this module owns the
transaction: claim the key (KeyInUse while another request holds it), hand back the first
answer of the same request (`Replayed`), refuse the key's reuse for another request
(`KeyReused`), or run the write and keep its answer, or roll back when the answer is one
not to keep (the key then stays free).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Generic, NoReturn, TypeVar

from service.adapters.store import scope
from service.adapters.store.base import Head, utc_now
from service.adapters.store.idempotency import Answer, AnsweredBefore, Fingerprint, HeldBackRefused, IdempotencyRecord, KeyInUse, RecordRefused
from service.adapters.store.metered import IDEMPOTENT_REPLAYS

__all__ = ["Answer", "Fingerprint", "KeyInUse", "KeyReused", "RecordRefused", "Replayed", "Written", "once",
           "receipted"]

Result = TypeVar("Result")


@dataclass(frozen=True)
class Written(Generic[Result]):
    result: Result
    heads: tuple[Head, ...]
    """The head of every stream the write appended to, after it (its receipts)."""


@dataclass(frozen=True)
class Replayed:
    """The first answer to this request, kept under its Idempotency-Key: nothing ran."""
    answer: Answer


class KeyReused(Exception):
    """The Idempotency-Key was first used for another request (method, path or body)."""

    def __init__(self, first: Fingerprint, now: Fingerprint) -> None:
        super().__init__(first, now)
        self.first = first
        self.now = now


def receipted(write: Callable[[], Result]) -> Written[Result]:
    """Run `write` (its appends commit one by one) and gather its receipts."""
    with scope.gathering() as gathered:
        result = write()
    return Written(result, tuple(gathered.heads.values()))


class _RolledBack(Exception):
    def __init__(self, outcome: object) -> None:
        self.outcome = outcome


def once(store: Any, owner: str, key: str, fingerprint: Fingerprint, window: timedelta,
         write: Callable[[], Result], answer: Callable[[Written[Result]], Answer | None]) -> Result | Replayed:
    """Run `write` once for the Idempotency-Key `key` of the API key `owner`, in one
    transaction of `store` (a store that keeps idempotency records: memory, PostgreSQL)
    with the key's claim. `answer` says what to record of what the
    write gave (None: an answer not to keep, so the transaction rolls back and the key stays
    free); the record lives for `window`.

    The claim and the write's first append go in the COMMIT's round trip, one trip in all
    (service.adapters.store.held_back). Refused there (the key answered meanwhile, the
    stream moved on), nothing committed: the write runs again with the claim sent in the
    first append's trip, which answers as a first trip does (a replay, a conflict)."""
    try:
        return _once(store, owner, key, fingerprint, window, write, answer, with_commit=True)
    except HeldBackRefused:
        return _once(store, owner, key, fingerprint, window, write, answer, with_commit=False)


def _once(store: Any, owner: str, key: str, fingerprint: Fingerprint, window: timedelta,
          write: Callable[[], Result], answer: Callable[[Written[Result]], Answer | None], *,
          with_commit: bool) -> Result | Replayed:
    try:
        with store.transaction() as opened:
            now = utc_now()
            # The claim goes with the write's first append (one round trip fewer); it is
            # settled before anything commits or answers, so a key in use or answered
            # before still rolls back whatever the write did.
            store.claim_key_later(owner, key, now, with_commit=with_commit)
            try:
                result = write()
            except AnsweredBefore as answered:
                _replay(answered.record, fingerprint)
            except Exception:
                # A refusal may be this key's replay (the state moved on since): its
                # first answer, if there is one, is the answer.
                first = store.settled_claim(write_failed=True)
                if first is not None:
                    _replay(first, fingerprint)
                raise
            first = store.settled_claim()
            if first is not None:
                _replay(first, fingerprint)
            kept = answer(Written(result, tuple(opened.heads.values())))
            if kept is None:
                raise _RolledBack(result)
            store.record_answer(IdempotencyRecord(owner, key, fingerprint, kept, now, now + window))
    except _RolledBack as rolled_back:
        return rolled_back.outcome  # type: ignore[return-value]
    return result


def _replay(first: IdempotencyRecord, fingerprint: Fingerprint) -> NoReturn:
    """Raise what the first answer to the key says: its replay, or KeyReused."""
    if first.fingerprint != fingerprint:
        raise KeyReused(first.fingerprint, fingerprint)
    IDEMPOTENT_REPLAYS.inc()
    raise _RolledBack(Replayed(first.answer))
