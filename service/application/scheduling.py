"""What the application asks to have done later, as an interface: the adapter that does
it (service.adapters.scheduler, on the Celery broker the workers consume) is given to the
application at start-up (service.bootstrap), so the application layer knows no queue and
`service` never imports `workers`.

Whatever is scheduled is also a fact in the log (a ClockStarted's deadline), and the
workers' sweeps act on it if the scheduled task is lost: scheduling is the fast path,
never the only one, so a scheduler that fails or is missing costs latency, not a deadline.
"""
from __future__ import annotations

from typing import Protocol

from domain.live.table import ClockStarted


class Scheduler(Protocol):
    def expire_clock_at_deadline(self, table_id: str, version: int, clock: ClockStarted) -> None:
        """Have the clock (pending at the table's `version`) expired at its deadline."""


class NoScheduler:
    """Nothing scheduled: the sweeps alone act on deadlines (no broker configured)."""

    def expire_clock_at_deadline(self, table_id: str, version: int, clock: ClockStarted) -> None:
        return None
