"""Action clocks: the fast path and the sweep.

A clock's deadline is a fact in the table's log (ClockStarted), recorded in the same
append as the action that passed the turn. Two paths act on it, both through the same
application layer as HTTP (service.application.commands.expire_clock), so the domain decides:
- fast path: right after that append, `expire_clock` is sent with an ETA at the deadline;
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
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

from celery import Celery

from domain.live import table
from domain.rules.violations import Violation
from service.application import clock_deadlines, commands
from service.config import Config
from service.http.metrics import CLOCK_LATENESS
from service.adapters.store.base import EventStore, VersionConflict
from workers.celery_app import app, make_celery
from workers.tasks import pool, event_store

log = logging.getLogger(__name__)

EXPIRE_TASK = "workers.clock_tasks.expire_clock"
SWEEP_TASK = "workers.clock_tasks.sweep_clocks"
# The sweep leaves a just-passed deadline to its ETA task for this long, so the two paths
# do not race for every clock.
SWEEP_GRACE_MS = 1000
SWEEP_BATCH = 500
# ETA tasks may reach the worker slightly early (clocks of two hosts); wait that out
# rather than be refused, up to this much.
EARLY_WAIT_LIMIT_S = 2.0


def clock_sender(celery: Celery, producers: _KeptProducers | None = None) -> commands.ClockScheduler:
    """The fast path: schedule `expire_clock` at the clock's deadline on `celery`'s broker
    (through `producers`' producer of the calling thread, else one from Celery's pool)."""
    def send(table_id: str, version: int, clock: table.ClockStarted) -> None:
        producer = None if producers is None else producers.of_this_thread()
        args = [table_id, version, clock.hand_id, clock.seat, clock.deadline_at_ms]
        try:
            celery.send_task(
                EXPIRE_TASK,
                args=args,
                eta=datetime.fromtimestamp(clock.deadline_at_ms / 1000, tz=timezone.utc),
                # A broker that is down must not hold up the write that started the clock:
                # fail at once, the sweep acts on the deadline.
                retry=False,
                producer=producer,
            )
        except Exception:
            if producers is not None:
                producers.drop()  # its connection may be broken: the next send opens another
            raise
    return send


class _KeptProducers(threading.local):
    """A producer per thread, kept from one send to the next, whose channel keeps its Redis
    client. Celery's pool lends a producer per send, and kombu's Redis channel builds a new
    redis-py client for every message it publishes (`conn_or_acquire`): together about a
    third of the CPU a send costs (200 of 650 us measured), on every action of a table with
    an action clock. The message sent is the same."""

    def __init__(self, celery: Celery) -> None:
        self._celery = celery
        self._producer: Any = None

    def of_this_thread(self) -> Any:
        if self._producer is None:
            producer = self._celery.amqp.Producer(self._celery.connection_for_write(), auto_declare=False)
            channel = producer.channel
            if hasattr(channel, "conn_or_acquire"):  # kombu's Redis transport
                client = channel._create_client()

                @contextmanager
                def kept_client(given: Any = None) -> Iterator[Any]:
                    yield given or client

                channel.conn_or_acquire = kept_client
            self._producer = producer
        return self._producer

    def drop(self) -> None:
        producer, self._producer = self._producer, None
        if producer is not None:
            try:
                producer.connection.release()
            except Exception:  # noqa: BLE001 - already broken: nothing to release
                log.debug("clock sender: releasing a broken broker connection failed", exc_info=True)


SEND_TIMEOUT_S = 0.5
"""How long the web app's send of a clock's task may take: a broker that is down costs
the write that started the clock this much at most (kombu's defaults took 6 s)."""


def clock_sender_for(broker_url: str) -> commands.ClockScheduler:
    """The fast path for a process that is not a worker (the web app, a test, a bench)."""
    celery = make_celery(Config(broker_url=broker_url))
    celery.conf.broker_connection_timeout = SEND_TIMEOUT_S
    celery.conf.broker_transport_options = {
        **celery.conf.broker_transport_options,
        "socket_connect_timeout": SEND_TIMEOUT_S,
        "socket_timeout": SEND_TIMEOUT_S,
        "max_retries": 0,
    }
    return clock_sender(celery, _KeptProducers(celery))


@app.task(name=EXPIRE_TASK)
def expire_clock(table_id: str, version: int, hand_id: str, seat: int, deadline_at_ms: int) -> str:
    """Expire one clock (the fast path); returns what happened, for the log."""
    early_s = deadline_at_ms / 1000 - time.time()
    if 0 < early_s <= EARLY_WAIT_LIMIT_S:
        time.sleep(early_s)
    return expire(event_store(), table_id, version, hand_id, seat, deadline_at_ms)


@app.task(name=SWEEP_TASK)
def sweep_clocks() -> int:
    """Expire every open clock whose deadline passed (the slow path); returns how many."""
    store = event_store()
    due_by = commands.now_ms() - SWEEP_GRACE_MS
    expired = 0
    for table_id, clock in due_clocks(due_by):
        outcome = expire(store, table_id, None, clock["hand_id"], clock["seat"], clock["deadline_at_ms"])
        expired += outcome == "expired"
    if expired:
        log.info("sweep: expired %d clocks missed by the fast path", expired)
    return expired


def due_clocks(due_by_ms: int) -> list[tuple[str, dict]]:
    """(table id, ClockStarted data) of open clocks with a deadline at or before `due_by_ms`."""
    return clock_deadlines.due_clocks(pool(), due_by_ms, SWEEP_BATCH)


def expire(store: EventStore, table_id: str, version: int | None, hand_id: str, seat: int,
           deadline_at_ms: int) -> str:
    """"expired", or why not: the refusal's code, or "conflict" when a writer got there
    first twice (the sweep looks again)."""
    # First at the version the clock started at; if the table moved on (someone sat out,
    # say), once more at its current version: ExpireClock names the exact clock, so the
    # domain refuses it if the clock is no longer the running one.
    for expected in dict.fromkeys((version, None)):
        try:
            commands.expire_clock(store, table_id, expected, hand_id, seat, deadline_at_ms)
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


# Clocks started by this worker's own commands (the next player's, after an expiry) get
# their fast path too.
commands.schedule_clocks_with(clock_sender(app))
