"""The streams this process found failing their integrity check on read, and the counts
/metrics serves (`cardroom_integrity_failures_total`).

Both stores check every event they return (base.check_read) and keep here the first
failure of each stream: a later read of that stream is refused at once, without a read,
and a read of the global log leaves its events out, so nothing acts on a stream after its
log failed. The log only grows and the failing event stays in it, so the failure stands
until the process starts again (after the floor repaired the log).
"""
from __future__ import annotations

import logging
import threading

from prometheus_client import Counter

from service.adapters.store.base import IntegrityFailure, Snapshot

log = logging.getLogger(__name__)

INTEGRITY_FAILURES = Counter(
    "cardroom_integrity_failures_total",
    "Streams whose log failed its integrity check on read (an event's hash, link or MAC): "
    "found=new, a stream first found failing by a process; found=again, every later read "
    "or write refused for it", ["found"])
SNAPSHOTS_PASSED_OVER = Counter(
    "cardroom_snapshots_passed_over_total",
    "Snapshots whose MAC is not the chain key's, passed over for an older one or the log")


def snapshot_passed_over(snapshot: Snapshot) -> None:
    """A snapshot the chain key did not sign (written behind the store's back): never
    loaded, said and counted."""
    log.error("%s: the snapshot at version %s does not carry the chain key's MAC; passed over",
              snapshot.stream_id, snapshot.version)
    SNAPSHOTS_PASSED_OVER.inc()


class FailedStreams:
    def __init__(self) -> None:
        self._failed: dict[str, IntegrityFailure] = {}
        self._lock = threading.Lock()

    def refuse(self, stream_id: str) -> None:
        """Raise the stream's failure again when it has one."""
        with self._lock:
            failure = self._failed.get(stream_id)
        if failure is not None:
            INTEGRITY_FAILURES.labels("again").inc()
            raise failure

    def failed(self, stream_id: str) -> bool:
        with self._lock:
            return stream_id in self._failed

    def found(self, failure: IntegrityFailure) -> IntegrityFailure:
        """Kept (the first failure of a stream stays its failure), counted and returned for
        the caller to raise."""
        with self._lock:
            kept = self._failed.setdefault(failure.stream_id, failure)
        INTEGRITY_FAILURES.labels("new" if kept is failure else "again").inc()
        return kept

    def all(self) -> list[IntegrityFailure]:
        with self._lock:
            return sorted(self._failed.values(), key=lambda failure: failure.stream_id)
