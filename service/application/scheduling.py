"""What the application asks to have done later, as an interface: the adapter that does
it (service.adapters.scheduler, on the Celery broker the workers consume) is given to the
application at start-up (service.wiring), so the application layer knows no queue and
`service` never imports `workers`.

Whatever is scheduled is also a fact in the log (a TableFinished's results): scheduling is
a way to get it done sooner, never the only one. Action clocks need no scheduling at all:
their deadlines are in the log, and the workers' clock watch reads them there
(workers.clock_tasks).
"""
from __future__ import annotations

from typing import Protocol

from domain.ratings import GameResult


class Scheduler(Protocol):
    def rate_later(self, result: GameResult) -> None:
        """Have a finished game rated by a worker (rating it here failed; a result id is
        rated once, so a duplicate changes nothing)."""


class NoScheduler:
    """Nothing scheduled (no broker configured)."""

    def rate_later(self, result: GameResult) -> None:
        return None
