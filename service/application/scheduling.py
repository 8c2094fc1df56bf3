"""What the application asks to have done later, as an interface: the adapter that does
it (service.adapters.scheduler, on the Celery broker the workers consume) is given to the
application at start-up (service.bootstrap), so the application layer knows no queue and
`service` never imports `workers`.

Whatever is scheduled is also a fact in the log (a ClockStarted's deadline, a
TableFinished's results), and the workers' sweeps act on a deadline if the scheduled task
is lost: scheduling is the fast path, never the only one, so a scheduler that fails or is
missing costs latency, not a deadline.
"""
from __future__ import annotations

from typing import Protocol

from domain.live.table import ClockStarted
from domain.ratings import GameResult


class Scheduler(Protocol):
    def expire_clock_at_deadline(self, table_id: str, version: int, clock: ClockStarted) -> None:
        """Have the clock (pending at the table's `version`) expired at its deadline."""

    def rate_later(self, result: GameResult) -> None:
        """Have a finished game rated by a worker (rating it here failed; a result id is
        rated once, so a duplicate changes nothing)."""


class NoScheduler:
    """Nothing scheduled: the sweeps alone act on deadlines (no broker configured)."""

    def expire_clock_at_deadline(self, table_id: str, version: int, clock: ClockStarted) -> None:
        return None

    def rate_later(self, result: GameResult) -> None:
        return None
