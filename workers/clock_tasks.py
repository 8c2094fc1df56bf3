"""Action clocks: the fast path and the sweep.

A clock's deadline is a fact in the table's log (ClockStarted), recorded in the same
append as the action that passed the turn. Two paths act on it, both through the same
application layer as HTTP (service.application.commands.expire_clock), so the domain decides:
- fast path: right after that append, `expire_clock` is sent with an ETA at the deadline
  (service.adapters.scheduler, the application's Scheduler);
- slow path: beat runs `sweep_clocks` every second; it finds the deadlines in the log
  that passed more than a moment ago and are still open, and expires them. This covers a
  task lost with a killed worker (Redis would only redeliver it after the visibility
  timeout, an hour later) or a send that failed.
Both may race for one clock, and a task may arrive late, twice or after the player
acted: ExpireClock names the exact clock, so only the first expiry of a running,
passed clock records anything (exactly one ClockExpired); the others are refused or lose
the version race, and change nothing.
"""
from __future__ import annotations

import logging
import time

from domain.rules.violations import Violation
from service.application import clock_deadlines, commands
from service.application.application import Application
from service.adapters.scheduler import EXPIRE_CLOCK_TASK
from service.http.metrics import CLOCK_LATENESS
from service.adapters.store.base import VersionConflict
from workers.celery_app import app, resources

log = logging.getLogger(__name__)

SWEEP_TASK = "workers.clock_tasks.sweep_clocks"
# The sweep leaves a just-passed deadline to its ETA task for this long, so the two paths
# do not race for every clock.
SWEEP_GRACE_MS = 1000
SWEEP_BATCH = 500
# ETA tasks may reach the worker slightly early (clocks of two hosts); wait that out
# rather than be refused, up to this much.
EARLY_WAIT_LIMIT_S = 2.0


@app.task(name=EXPIRE_CLOCK_TASK)
def expire_clock(table_id: str, version: int, hand_id: str, seat: int, deadline_at_ms: int) -> str:
    """Expire one clock (the fast path); returns what happened, for the log."""
    early_s = deadline_at_ms / 1000 - time.time()
    if 0 < early_s <= EARLY_WAIT_LIMIT_S:
        time.sleep(early_s)
    return expire(resources().application, table_id, version, hand_id, seat, deadline_at_ms)


@app.task(name=SWEEP_TASK)
def sweep_clocks() -> int:
    """Expire every open clock whose deadline passed (the slow path); returns how many."""
    application = resources().application
    due_by = commands.now_ms() - SWEEP_GRACE_MS
    expired = 0
    for table_id, clock in due_clocks(due_by):
        outcome = expire(application, table_id, None, clock["hand_id"], clock["seat"], clock["deadline_at_ms"])
        expired += outcome == "expired"
    if expired:
        log.info("sweep: expired %d clocks missed by the fast path", expired)
    return expired


def due_clocks(due_by_ms: int) -> list[tuple[str, dict]]:
    """(table id, ClockStarted data) of open clocks with a deadline at or before `due_by_ms`."""
    return clock_deadlines.due_clocks(resources().pool, due_by_ms, SWEEP_BATCH)


def expire(application: Application, table_id: str, version: int | None, hand_id: str, seat: int,
           deadline_at_ms: int) -> str:
    """"expired", or why not: the refusal's code, or "conflict" when a writer got there
    first twice (the sweep looks again)."""
    # First at the version the clock started at; if the table moved on (someone sat out,
    # say), once more at its current version: ExpireClock names the exact clock, so the
    # domain refuses it if the clock is no longer the running one.
    for expected in dict.fromkeys((version, None)):
        try:
            commands.expire_clock(application, table_id, expected, hand_id, seat, deadline_at_ms)
            CLOCK_LATENESS.labels("sweep" if version is None else "fast").observe(
                max(0.0, time.time() - deadline_at_ms / 1000))
            return "expired"
        except VersionConflict:
            continue
        except Violation as refused:
            log.info("table %s: clock of seat %s ending %s not expired: %s", table_id, seat,
                     deadline_at_ms, refused.code)
            return refused.code
    return "conflict"
