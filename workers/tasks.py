"""Celery tasks. A task never changes state by itself: it sends a command through the
same application layer as HTTP (load, decide, append with the expected version)."""
from __future__ import annotations

import logging
from functools import lru_cache

from psycopg_pool import ConnectionPool

from service.application import commands
from service.http.api.players import register_player as register_player_command
from service.config import Config
from service.adapters.store.base import EventStore
from service.adapters.integrity import open_store
from workers.celery_app import app

log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def pool() -> ConnectionPool:
    # One pool per worker process, opened on first use (after the prefork fork, so no
    # connection is shared between processes).
    config = Config.from_env()
    if not config.database_url:
        raise RuntimeError("DATABASE_URL is not set for the worker")
    return ConnectionPool(config.database_url, min_size=1, max_size=4, kwargs={"autocommit": True})


@lru_cache(maxsize=1)
def event_store() -> EventStore:
    # One store per process: it keeps the heads it noted for the checkpoint file.
    config = Config.from_env()
    commands.keep_tables(config.table_cache_size)
    return open_store(pool(), config)


@app.task(name="workers.tasks.ping")
def ping() -> str:
    """Beat's health ping: proves the worker consumes and reaches the database."""
    with pool().connection(timeout=5) as conn:
        conn.execute("SELECT 1")
    log.debug("ping: worker and database are up")
    return "pong"


@app.task(name="workers.tasks.register_player")
def register_player(player_id: str, name: str, idempotency_key: str | None = None) -> int:
    """Register a player from a worker (bulk imports); a redelivered task is a no-op
    thanks to the idempotency key."""
    return register_player_command(
        event_store(), player_id, name, actor="worker", idempotency_key=idempotency_key
    )
