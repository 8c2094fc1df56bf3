"""The application: the store, one `Streams` per kind of stream (each with its cache) and
the scheduler, built once per process by service.wiring and handed to whatever sends
commands (the HTTP views through the Flask app, the Celery tasks through the Celery app).
The use cases take the `Application` from service.application.parts, below them.
"""
from __future__ import annotations

from service.adapters.store.base import EventStore
from service.application import commands, floor_rulings, players, ratings, series, tournaments
from service.application.handling import Streams
from service.application.parts import Application
from service.application.scheduling import NoScheduler, Scheduler


def application(store: EventStore, scheduler: Scheduler | None = None, *,
                table_cache_size: int = commands.CACHED_TABLES) -> Application:
    """The application over `store` (without a scheduler the sweeps alone act on deadlines),
    keeping `table_cache_size` table states (Config.table_cache_size)."""
    return Application(store, scheduler or NoScheduler(),
                       Streams(store, commands.TABLES, cached=table_cache_size),
                       Streams(store, tournaments.TOURNAMENTS), Streams(store, ratings.BOOKS),
                       Streams(store, players.PLAYERS), Streams(store, series.SERIES),
                       Streams(store, floor_rulings.RULINGS))
