"""The event store's own metrics (an adapter: the HTTP layer's /metrics serves them with
its own, service.http.metrics): appends, events written, lost races, idempotent replays."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prometheus_client import Counter

from service.adapters.store import scope
from service.adapters.store.base import AppendResult, VersionConflict
from service.adapters.store.forwarding import Forwarded

APPENDS = Counter("cardroom_appends_total", "Appends to the event log that wrote events")
EVENTS_APPENDED = Counter("cardroom_events_appended_total", "Events written to the log")
VERSION_CONFLICTS = Counter(
    "cardroom_version_conflicts_total",
    "Stale expected versions: at=request, requests answered 409 version_conflict; at=log, "
    "appends that lost a race at the log (retried inside or answered 409)", ["at"])
IDEMPOTENT_REPLAYS = Counter("cardroom_idempotent_replays_total",
                             "Retries with a known Idempotency-Key answered with the first result")


class MeteredStore:
    """An event store that counts its appends, conflicts and idempotent replays; anything
    else goes straight to the store it wraps."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    # What every idempotent write asks for, found here without a miss (store.forwarding).
    transaction = Forwarded("_store")
    claim_key_later = Forwarded("_store")
    settled_claim = Forwarded("_store")
    record_answer = Forwarded("_store")
    refuse_failed = Forwarded("_store")
    stream_version = Forwarded("_store")
    save_snapshot = Forwarded("_store")
    read_stream = Forwarded("_store")
    read_from_snapshot = Forwarded("_store")

    def append(self, *args: Any, **kwargs: Any) -> AppendResult:
        return _metered(self._store.append, *args, **kwargs)

    def append_on(self, *args: Any, **kwargs: Any) -> AppendResult:
        return _metered(self._store.append_on, *args, **kwargs)


def _metered(append: Callable[..., AppendResult], *args: Any, **kwargs: Any) -> AppendResult:
    try:
        appended = append(*args, **kwargs)
    except VersionConflict:
        VERSION_CONFLICTS.labels("log").inc()
        raise
    if appended.deduplicated:
        IDEMPOTENT_REPLAYS.inc()
    else:
        # Counted once it commits: inside a transaction an append may still roll back, or
        # be refused in the COMMIT's round trip it was held back to (held_back).
        scope.after_commit(lambda: _count(appended))
    return appended


def _count(appended: AppendResult) -> None:
    APPENDS.inc()
    EVENTS_APPENDED.inc(appended.last_version - appended.first_version + 1)
