"""Celery tasks. A task never changes state by itself: it sends a command through the
same application layer as HTTP (load, decide, append with the expected version)."""
from __future__ import annotations

import logging

from service.application import players
from workers.celery_app import app, resources

log = logging.getLogger(__name__)


@app.task(name="workers.tasks.ping")
def ping() -> str:
    """Beat's health ping: proves the worker consumes and reaches the database."""
    with resources().pool.connection(timeout=5) as conn:
        conn.execute("SELECT 1")
    log.debug("ping: worker and database are up")
    return "pong"


@app.task(name="workers.tasks.register_player")
def register_player(player_id: str, name: str, idempotency_key: str | None = None) -> int:
    """Register a player from a worker (bulk imports); a redelivered task is a no-op
    thanks to the idempotency key."""
    return players.register_player(resources().application, player_id, name, actor="worker",
                                   idempotency_key=idempotency_key)
