"""How every process of the service logs: JSON lines in production, text at a terminal.

`configure` sets up the root logger once per process (gunicorn's workers, Celery, the dev
server, the command line); `create_app` never does, so tests and embedders keep their
own logging. A record's `fields` (service.http.request_log) become top-level JSON keys.

`RoutineLines` moves the workers' routine lines (a periodic sweep or ping received,
sent by beat, done) to CARDROOM_SWEEP_LOG_LEVEL: at INFO they were ~220 lines a minute
and hid everything else; what a sweep *did* (a clock expired, a level started) is still
logged by the task at its own level.
"""
from __future__ import annotations

import logging
import sys

from service.config import Config, level_number
from service.log_lines import JsonFormatter

# The periodic tasks whose every run is routine (workers.celery_app's beat schedule).
ROUTINE_TASKS = (
    "workers.clock_tasks.sweep_clocks",
    "workers.tasks.ping",
)
# Where Celery reports a task received, sent by beat, expired, and done.
CELERY_ROUTINE_LOGGERS = ("celery.worker.strategy", "celery.worker.request", "celery.app.trace",
                          "celery.beat")


class TextFormatter(logging.Formatter):
    """For a person: time, level, logger, message, then the request's ids."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%H:%M:%S")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        fields = getattr(record, "fields", None)
        if fields:
            ids = " ".join(f"{k}={v}" for k, v in fields.items()
                           if v is not None and k not in ("method", "path", "status", "duration_ms"))
            text = f"{text}  [{ids}]"
        return text


def formatter_for(config: Config) -> logging.Formatter:
    return JsonFormatter() if config.log_format == "json" else TextFormatter()


def configure(config: Config) -> None:
    """The root logger to stderr in the configured format and level (once per process)."""
    root = logging.getLogger()
    if any(getattr(h, "cardroom", False) for h in root.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter_for(config))
    handler.cardroom = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level_number(config.log_level))


class RoutineLines(logging.Filter):
    """Gives a routine task's lines the routine level, and drops them below `threshold`
    (a logger filter runs before the logger's level check is repeated by handlers)."""

    def __init__(self, routine_level: int, threshold: int) -> None:
        super().__init__()
        self.routine_level = routine_level
        self.threshold = threshold

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO or not any(t in record.getMessage() for t in ROUTINE_TASKS):
            return True
        record.levelno, record.levelname = self.routine_level, logging.getLevelName(self.routine_level)
        return self.routine_level >= self.threshold


def quiet_routine_tasks(config: Config, threshold: int) -> None:
    """Install RoutineLines on Celery's loggers (`threshold`: the worker's --loglevel)."""
    routine = RoutineLines(level_number(config.sweep_log_level), threshold)
    for name in CELERY_ROUTINE_LOGGERS:
        logging.getLogger(name).addFilter(routine)
