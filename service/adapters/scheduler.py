"""The application's Scheduler (service.application.scheduling) on the Celery broker:
tasks are sent by name, so this process needs the broker, never the workers' code. The
workers (workers.clock_tasks) implement the tasks named here.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

from celery import Celery

from domain.live.table import ClockStarted
from domain.ratings import GameResult

log = logging.getLogger(__name__)

EXPIRE_CLOCK_TASK = "workers.clock_tasks.expire_clock"
APPLY_RATING_TASK = "workers.rating_tasks.apply_rating"

# The longest countdown/ETA any task is scheduled with (level clocks are the longest
# timers, well under an hour). Redis hands an ETA task to a worker at once and keeps
# it "unacked" until then; if the visibility timeout were shorter than the countdown the
# broker would redeliver it to a second worker and it would run twice.
LONGEST_COUNTDOWN_S = 3600
VISIBILITY_TIMEOUT_S = LONGEST_COUNTDOWN_S + 600

BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": VISIBILITY_TIMEOUT_S,
    # kombu scans for unacked messages past their visibility timeout every
    # interval * throttle seconds (10 * 10 by default); scan every 5 s instead so a
    # message held by a killed worker is redelivered promptly once its timeout passes.
    # Deadlines never depend on this alone: the event log holds them and acting on one
    # is idempotent.
    "unacked_restore_interval": 5,
    "unacked_restore_throttle": 1,
    # Fail fast instead of hanging when the broker vanishes without closing the socket.
    "socket_timeout": 30,
    "socket_connect_timeout": 5,
}

SEND_TIMEOUT_S = 0.5
"""How long the web app's send of a clock's task may take: a broker that is down costs
the write that started the clock this much at most (kombu's defaults took 6 s)."""


def broker_settings(broker_url: str) -> dict[str, Any]:
    """The Celery settings every process on the broker shares (workers add theirs)."""
    return {
        "broker_url": broker_url,
        # Celery prefers the CELERY_BROKER_URL environment variable over broker_url; the
        # read and write URLs win over both, so the URL given here is the one used.
        "broker_read_url": broker_url,
        "broker_write_url": broker_url,
        "broker_transport_options": BROKER_TRANSPORT_OPTIONS,
        "result_backend": None,
        "task_ignore_result": True,
        "task_serializer": "json",
        "accept_content": ["json"],
        "timezone": "UTC",
        "enable_utc": True,
    }


def sender(broker_url: str) -> Celery:
    """A Celery client that only sends (the web app, a test, a bench), failing fast."""
    celery = Celery("cardroom")
    celery.conf.update(broker_settings(broker_url))
    celery.conf.broker_connection_timeout = SEND_TIMEOUT_S
    celery.conf.broker_transport_options = {
        **BROKER_TRANSPORT_OPTIONS,
        "socket_connect_timeout": SEND_TIMEOUT_S,
        "socket_timeout": SEND_TIMEOUT_S,
        "max_retries": 0,
    }
    return celery


class KeptProducers(threading.local):
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


class CeleryScheduler:
    """Schedules on `celery`'s broker: the clock's expiry task with an ETA at its deadline,
    a rating the application could not record itself. With `producers` (the web app) each
    thread sends through its own kept producer, else through one from Celery's pool."""

    def __init__(self, celery: Celery, producers: KeptProducers | None = None) -> None:
        self.celery = celery
        self.producers = producers

    def expire_clock_at_deadline(self, table_id: str, version: int, clock: ClockStarted) -> None:
        producer = None if self.producers is None else self.producers.of_this_thread()
        try:
            self.celery.send_task(
                EXPIRE_CLOCK_TASK,
                args=[table_id, version, clock.hand_id, clock.seat, clock.deadline_at_ms],
                eta=datetime.fromtimestamp(clock.deadline_at_ms / 1000, tz=timezone.utc),
                # A broker that is down must not hold up the write that started the clock:
                # fail at once, the sweep acts on the deadline.
                retry=False,
                producer=producer,
            )
        except Exception:
            if self.producers is not None:
                self.producers.drop()  # its connection may be broken: the next send opens another
            raise

    def rate_later(self, result: GameResult) -> None:
        self.celery.send_task(
            APPLY_RATING_TASK,
            args=[result.game, result.result_id, [{"player_id": f.player_id, "place": f.place}
                                                  for f in result.finishes]],
            retry=False,
        )
