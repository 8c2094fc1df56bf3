"""The application's Scheduler (service.application.scheduling) on the Celery broker:
tasks are sent by name, so this process needs the broker, never the workers' code. The
workers (workers.rating_tasks) implement the tasks named here.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Any

from celery import Celery

from domain.ratings import GameResult
from service.adapters import broker_transport

log = logging.getLogger(__name__)

APPLY_RATING_TASK = "workers.rating_tasks.apply_rating"

# No task is sent with an ETA (action clocks are read from the log, workers.clock_tasks),
# but a task is "unacked" while it runs (task_acks_late): if the visibility timeout were
# shorter than a run, the broker would redeliver it to a second worker. An hour is far
# beyond any task.
LONGEST_TASK_S = 3600
VISIBILITY_TIMEOUT_S = LONGEST_TASK_S + 600

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
"""How long the web app's send of a task (a rating it could not record) may take: a broker
that is down costs the write this much at most (kombu's defaults took 6 s)."""


def broker_settings(broker_url: str, master_name: str | None = None,
                    queue_type: str = "classic") -> dict[str, Any]:
    """The Celery settings every process on the broker shares (workers add theirs).

    `master_name`: with a sentinel:// broker, the name the sentinels monitor the Redis
    master under. `queue_type` "quorum" (RabbitMQ): Celery declares its queues as quorum
    queues, which RabbitMQ replicates over its nodes, and a send waits for the broker's
    confirmation (a quorum queue confirms once a majority of its nodes hold the task).
    They do not take a global QoS (the prefetch per channel): Celery finds them among its
    queues (worker_detect_quorum_queues) and sets the prefetch per consumer instead, which
    worker_prefetch_multiplier = 1 makes one task per worker process either way. They do
    not take Celery's ETA and countdown tasks either (held in the worker, not the queue):
    Cardroom sends none (ARCHITECTURE, "The broker may fail"), and should one come, Celery's
    native delayed delivery, which it turns on with quorum queues, needs the topic exchange
    set here (it refuses direct ones)."""
    return {
        **broker_transport.settings(broker_url),
        "broker_url": broker_url,
        # Celery prefers the CELERY_BROKER_URL environment variable over broker_url; the
        # read and write URLs win over both, so the URL given here is the one used.
        "broker_read_url": broker_url,
        "broker_write_url": broker_url,
        "broker_transport_options": transport_options(master_name, queue_type),
        **({"task_default_queue_type": "quorum", "task_create_missing_queue_type": "quorum",
            "task_default_exchange_type": "topic", "worker_detect_quorum_queues": True}
           if queue_type == "quorum" else {}),
        "result_backend": None,
        "task_ignore_result": True,
        "task_serializer": "json",
        "accept_content": ["json"],
        "timezone": "UTC",
        "enable_utc": True,
    }


def transport_options(master_name: str | None, queue_type: str = "classic", **overrides: Any) -> dict[str, Any]:
    """BROKER_TRANSPORT_OPTIONS with `overrides`; publisher confirms with quorum queues; for a
    Sentinel broker its master's name and the same timeouts on the connections to the
    sentinels (kombu gives the master's connections the options' timeouts, the sentinels'
    only what `sentinel_kwargs` says)."""
    options = {**BROKER_TRANSPORT_OPTIONS, **overrides}
    if queue_type == "quorum":
        options["confirm_publish"] = True
    if master_name is None:
        return options
    return {**options, "master_name": master_name,
            "sentinel_kwargs": {"socket_timeout": options["socket_timeout"],
                                "socket_connect_timeout": options["socket_connect_timeout"]}}


def sender(broker_url: str, master_name: str | None = None, queue_type: str = "classic") -> Celery:
    """A Celery client that only sends (the web app, a test, a bench), failing fast. It
    declares the queue it sends to as the workers do (RabbitMQ refuses a queue declared
    again with another type)."""
    celery = Celery("cardroom")
    celery.conf.update(broker_settings(broker_url, master_name, queue_type))
    celery.conf.broker_connection_timeout = SEND_TIMEOUT_S
    celery.conf.broker_transport_options = transport_options(
        master_name, queue_type, socket_connect_timeout=SEND_TIMEOUT_S, socket_timeout=SEND_TIMEOUT_S, max_retries=0)
    return celery


RESEND_EVERY_S = 5.0
"""How often a rating the broker did not take is offered to it again."""


class CeleryScheduler:
    """Schedules on `celery`'s broker: a rating the application could not record itself.

    A send the broker does not take (it is down) is kept in this process and sent again
    every RESEND_EVERY_S until it is taken, on a thread of its own, so the write that
    finished the table is answered at once and the rating is not lost to an outage of
    the broker. A result id is rated once, so a send that reached the broker although it
    seemed to fail changes nothing when sent again."""

    def __init__(self, celery: Celery) -> None:
        self.celery = celery
        self._unsent: list[GameResult] = []
        self._lock = threading.Lock()
        self._resending = False

    def rate_later(self, result: GameResult) -> None:
        try:
            self._send(result)
        except Exception:  # noqa: BLE001 - the broker is down: kept and sent again
            log.warning("the broker did not take the rating of %s; it is sent again every %g s",
                        result.result_id, RESEND_EVERY_S, exc_info=True)
            with self._lock:
                self._unsent.append(result)
                if self._resending:
                    return
                self._resending = True
            threading.Thread(target=self._resend, name="rating-resend", daemon=True).start()

    def unsent(self) -> int:
        """Ratings waiting for the broker in this process."""
        with self._lock:
            return len(self._unsent)

    def _send(self, result: GameResult) -> None:
        self.celery.send_task(
            APPLY_RATING_TASK,
            args=[result.game, result.result_id, [{"player_id": f.player_id, "place": f.place}
                                                  for f in result.finishes]],
            retry=False,
            confirm_timeout=SEND_TIMEOUT_S,  # with publisher confirms (quorum queues)
        )

    def _resend(self) -> None:
        while True:
            time.sleep(RESEND_EVERY_S)
            with self._lock:
                waiting = list(self._unsent)
            for result in waiting:
                try:
                    self._send(result)
                except Exception:  # noqa: BLE001 - still down: all of them next time
                    break
                with self._lock:
                    self._unsent.remove(result)
                log.info("the broker took the rating of %s", result.result_id)
            with self._lock:
                if not self._unsent:
                    self._resending = False
                    return
