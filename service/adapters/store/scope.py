"""One request's writes, gathered: the signed head of every stream it appended to (the
receipts its answer carries) and, for an idempotent request, the open transaction its
appends join, so its events and its idempotency record commit together or not at all.

A scope lives in a context variable: the store finds it without every caller passing it
down (a view calls commands, which call the store). What a request decided inside an
open transaction is kept in the scope (`uncommitted`) and shared once it commits; a cache
that remembers something else of the transaction must not keep it when it rolls back: it
gives the open scope a `forgetter`, told each stream the rolled-back transaction appended
to (registered with the scope, not with this module, so nothing here outlives one
transaction).
"""
from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from service.adapters.store.base import Head

Forgetter = Callable[[str], None]
"""stream id -> drop what is cached about that stream."""


@dataclass
class WriteScope:
    store: Any = None
    """The store whose transaction is open (None: appends commit one by one)."""
    connection: Any = None
    """That transaction's connection (PostgreSQL), or None."""
    heads: dict[str, Head] = field(default_factory=dict)
    """stream id -> its head after this scope's last append there (a receipt)."""
    sent_with_commit: list[Any] = field(default_factory=list)
    """What the store writes in the COMMIT's own round trip, read by nothing before it (an
    idempotency record, the request's last write; a snapshot: service.adapters.store.postgres)."""
    claim: Any = None
    """The claim of the request's Idempotency-Key, in the store's own form (its
    claim_key_later and settled_claim)."""
    uncommitted: dict[Any, Any] = field(default_factory=dict)
    """What the application decided in this transaction and keeps for it alone until it
    commits (service.application.handling: the states it appended), so that no other
    request acts on a write that may still be refused or rolled back."""
    held_back: Any = None
    """What the store holds back to send in the COMMIT's round trip (an idempotent write's
    claim and first append: service.adapters.store.held_back), until something else needs
    the connection: `send()` sends it in a trip of its own, `commit(runs)` with the runs and
    the COMMIT in one."""
    refusal: BaseException | None = None
    """Why this transaction must not commit (what was held back, sent early, was refused),
    raised again at its end, so that code which caught it cannot commit the rest."""
    statements_from: int | None = None
    """The store's: its statements prepared on this transaction's session at or after this
    moment (time.monotonic_ns) are there (service.adapters.store.libpq_pipeline)."""
    _after_commit: list[Callable[[], None]] = field(default_factory=list)
    _at_end: list[Callable[[], None]] = field(default_factory=list)
    _forgetters: list[Forgetter] = field(default_factory=list)

    def send_held_back(self) -> None:
        """Send what the store held back (if anything), before the connection is used."""
        held, self.held_back = self.held_back, None
        if held is None:
            return
        try:
            held.send()
        except BaseException as refused:
            self.refusal = refused
            raise

    def appended(self, head: Head) -> None:
        self.heads[head.stream_id] = head

    def after_commit(self, action: Callable[[], None]) -> None:
        """Run `action` once the transaction commits; at once without one."""
        if self.store is None:
            action()
        else:
            self._after_commit.append(action)

    def forget_on_rollback(self, forgetter: Forgetter) -> None:
        """Tell `forgetter` each stream this transaction appended to, if it rolls back
        (once per forgetter, however often it is given)."""
        if self.store is not None and forgetter not in self._forgetters:
            self._forgetters.append(forgetter)

    def at_end(self, action: Callable[[], None]) -> None:
        """Run `action` when the transaction ends, committed or not."""
        self._at_end.append(action)

    def committed(self) -> None:
        for action in self._after_commit:
            action()
        self._ended()

    def rolled_back(self) -> None:
        for stream_id in self.heads:
            for forgetter in self._forgetters:
                forgetter(stream_id)
        self.heads.clear()
        self._ended()

    def _ended(self) -> None:
        for action in self._at_end:
            action()


_current: ContextVar[WriteScope | None] = ContextVar("write_scope", default=None)


def current() -> WriteScope | None:
    return _current.get()


def joined_transaction(store: Any) -> Any:
    """The connection of the transaction `store` has open in this context, or None; what
    the store held back is sent first (the caller is about to use the connection)."""
    scope = _current.get()
    if scope is None or scope.store is not store:
        return None
    scope.send_held_back()
    return scope.connection


def scope_of(store: Any) -> WriteScope | None:
    """The scope of the transaction `store` has open in this context, or None, sending
    nothing: for the store's own bookkeeping, which does not use the connection."""
    scope = _current.get()
    return scope if scope is not None and scope.store is store else None


def current_connection() -> Any:
    """The connection of whatever transaction is open in this context (same database), or
    None; what a store held back is sent first."""
    scope = _current.get()
    if scope is None:
        return None
    scope.send_held_back()
    return scope.connection


def after_commit(action: Callable[[], None]) -> None:
    """Run `action` when the current transaction commits (at once outside one)."""
    scope = _current.get()
    if scope is None:
        action()
    else:
        scope.after_commit(action)


def transaction_of(store: Any, connection: Any = None) -> _Current:
    """A scope for `store`'s open transaction (on `connection`): the caller commits or
    rolls back inside the block, which then tells the scope which of the two happened
    (once it is no longer the current one)."""
    return _Current(WriteScope(store=store, connection=connection), ends_transaction=True)


def gathering(scope: WriteScope | None = None) -> _Current:
    """Make `scope` (a fresh one by default) the current one for the block."""
    return _Current(scope or WriteScope(), ends_transaction=False)


class _Current:
    """The block that `scope` is current for; a class, not a generator's context manager,
    which costs about three times as much to enter and leave (issue 37: every idempotent
    write runs two of these)."""

    __slots__ = ("_scope", "_ends_transaction", "_token")

    def __init__(self, scope: WriteScope, *, ends_transaction: bool) -> None:
        self._scope = scope
        self._ends_transaction = ends_transaction

    def __enter__(self) -> WriteScope:
        self._token = _current.set(self._scope)
        return self._scope

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: Any) -> None:
        _current.reset(self._token)
        if not self._ends_transaction:
            return
        if kind is None:
            self._scope.committed()
        else:  # the error goes on
            self._scope.rolled_back()
