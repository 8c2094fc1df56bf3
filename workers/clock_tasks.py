"""Action clocks: the watch and the sweep.

A clock's deadline is a fact in the table's log (ClockStarted), recorded in the same
append as the action that passed the turn, and the append's trigger keeps the running
ones in `open_clocks` (migration 0011). Nothing is sent anywhere per action: the web
process only appends. Two paths act on deadlines, both through the same application layer
as HTTP (service.application.commands.expire_clock), so the domain decides:
- the watch: a thread of each Celery worker's main process (one of them leads, holding a
  PostgreSQL advisory lock; the others wait to take over) sleeps until the earliest open
  deadline and expires the clocks due then, each deadline once;
- the sweep: beat runs `sweep_clocks` every second; it expires the open clocks whose
  deadline passed more than a moment ago: a clock the watch missed (its leader killed
  mid-expiry, a commit seen late) or refused to expire for a moment (a lost race).
Both may race for one clock, and a clock may be looked at after the player acted:
ExpireClock names the exact clock, so only the first expiry of a running, passed clock
records anything (exactly one ClockExpired); the others are refused or lose the version
race, and change nothing. A table whose stream this code cannot read (UnreadableStream:
/v1/status lists it) is passed over, logged once per process, its clock left open: the
watch and the sweep go on with the other clocks.

Why a watch that reads the log rather than a task with an ETA sent after each append: the
send cost the web process about a millisecond of CPU per action (a quarter of a table
action's), every action queued a task that a worker then held for the clock's length only
to find, nearly always, that the player had acted; and the watch costs two indexed
queries a wake, whatever the rate of actions. It wakes at the earliest deadline it knows
and at least every REREAD_S: a clock started meanwhile runs at least a second (whole
seconds, domain.live.table), so the watch reads it before it can be due.
"""
from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from domain.rules.violations import Violation
from service import wiring
from service.adapters.notifications import KEEPALIVE
from service.adapters.scheduler import CeleryScheduler
from service.adapters.store.base import VersionConflict
from service.application import clock_deadlines, commands
from service.application.handling import UnreadableStream
from service.application.metrics import CLOCK_LATENESS
from service.application.parts import Application
from service.config import Config
from workers.celery_app import app, resources, run_in_main_process

log = logging.getLogger(__name__)

SWEEP_TASK = "workers.clock_tasks.sweep_clocks"
# The sweep leaves a just-passed deadline to the watch for this long, so the two paths do
# not race for every clock.
SWEEP_GRACE_MS = 1000
SWEEP_BATCH = 500
REREAD_S = 0.5
"""The watch reads the open clocks at least this often: under the shortest clock (1 s), so
a clock started while it slept is read before its deadline."""
WATCH_BATCH = 500
EXPIRING_THREADS = wiring.WORKER_POOL_SIZE
"""Clocks due at one moment are expired side by side, a connection each."""
TAKE_OVER_CHECK_S = 1.0
"""How often a watch that does not lead asks for the lead (the leader's connection, and so
its lock, ends with its process)."""
WATCH_NAME = "cardroom-clock-watch"
"""The lead connection's application_name (pg_stat_activity). It carries TCP keepalives
(service.adapters.notifications.KEEPALIVE): a primary lost without a reset ends it within
seconds, and the watch asks for the lead again, on whichever server now takes writes."""
# A session-level advisory lock, held on the leader's own connection.
_TAKE_LEAD = "SELECT pg_try_advisory_lock(hashtextextended('cardroom clock watch', 0))"


UNREADABLE = "unreadable"


@app.task(name=SWEEP_TASK)
def sweep_clocks() -> int:
    """Expire every open clock whose deadline passed (the slow path); returns how many."""
    return sweep(resources().application, resources().pool, commands.now_ms() - SWEEP_GRACE_MS)


def sweep(application: Application, pool: ConnectionPool, due_by_ms: int) -> int:
    """Expire the open clocks whose deadline is `due_by_ms` or earlier; returns how many."""
    expired = 0
    for table_id, clock in clock_deadlines.due_clocks(pool, due_by_ms, SWEEP_BATCH):
        expired += expire(application, table_id, clock, "sweep") == "expired"
    if expired:
        log.info("sweep: expired %d clocks missed by the watch", expired)
    return expired


def expire(application: Application, table_id: str, clock: dict[str, Any], path: str) -> str:
    """"expired", or why not: the refusal's code, "conflict" when a writer got there
    first every time (the sweep looks again), or "unreadable" for a table this code cannot
    read (logged once per process; its clock stays open, and the others go on).
    ExpireClock names the exact clock, so the domain refuses it if the clock is no longer
    the running one."""
    if application.tables.unreadable(commands.table_stream(table_id)) is not None:
        return UNREADABLE  # said when first met: the sweep meets it every second
    try:
        commands.expire_clock(application, table_id, None, clock["hand_id"], clock["seat"], clock["deadline_at_ms"])
    except VersionConflict:
        return "conflict"
    except Violation as refused:
        log.info("table %s: clock of seat %s ending %s not expired: %s", table_id, clock["seat"],
                 clock["deadline_at_ms"], refused.code)
        return refused.code
    except UnreadableStream as refused:
        log.error("table %s: clock of seat %s ending %s not expired, the table cannot be read: %s",
                  table_id, clock["seat"], clock["deadline_at_ms"], refused)
        return UNREADABLE
    CLOCK_LATENESS.labels(path).observe(max(0.0, time.time() - clock["deadline_at_ms"] / 1000))
    return "expired"


class ClockWatch:
    """The watch, with its own application and pool (built in the worker's main process,
    after the pool processes were forked, and never handed to them) and, while it leads,
    its own connection holding the lead."""

    def __init__(self, config: Config) -> None:
        built = wiring.worker_resources(config, CeleryScheduler(app))
        assert config.database_url is not None  # worker_resources refused to start without one
        self._database_url = config.database_url
        self._pool = built.pool
        self._application = built.application
        self._expiring = ThreadPoolExecutor(EXPIRING_THREADS, thread_name_prefix="clock-expiry")
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="clock-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=10)
        self._expiring.shutdown()
        self._pool.close()

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                with psycopg.connect(self._database_url, autocommit=True, connect_timeout=2,
                                     application_name=WATCH_NAME, **KEEPALIVE) as lead:
                    while not self._stopped.is_set():
                        if lead.execute(_TAKE_LEAD).fetchone()[0]:
                            log.info("clock watch: leading")
                            self._watch(lead)
                        else:
                            self._stopped.wait(TAKE_OVER_CHECK_S)
            except Exception:  # noqa: BLE001 - the database away, a bug: the sweep covers meanwhile
                log.warning("the clock watch stopped; it asks for the lead again", exc_info=True)
                self._stopped.wait(TAKE_OVER_CHECK_S)

    def _watch(self, lead: psycopg.Connection[Any]) -> None:
        """Expire each clock once as its deadline comes, from the overdue ones on, until
        stopped or the lead's connection fails."""
        looked_up_to = -1
        while not self._stopped.is_set():
            now = commands.now_ms()
            due = clock_deadlines.due_clocks(self._pool, now, WATCH_BATCH, after_ms=looked_up_to)
            outcomes = list(self._expiring.map(
                lambda found: expire(self._application, found[0], found[1], "watch"), due))
            if len(due) == WATCH_BATCH:  # more due at once: on from the last one looked at
                looked_up_to = due[-1][1]["deadline_at_ms"] - 1
                continue
            looked_up_to = now
            if outcomes.count("expired"):
                log.info("clock watch: expired %d clocks", outcomes.count("expired"))
            # On the lead's connection: if it broke, so did the lock, and the lead ends here.
            upcoming = clock_deadlines.next_deadline(lead, looked_up_to)
            until_s = REREAD_S if upcoming is None else (upcoming - commands.now_ms()) / 1000
            self._stopped.wait(max(0.0, min(REREAD_S, until_s)))


run_in_main_process("cardroom_clock_watch", ClockWatch)
