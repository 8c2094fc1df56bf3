"""`GET /healthz`: is the process up, and can it reach the database and the broker?"""
from __future__ import annotations

import logging

import marshmallow as ma
import redis
from kombu import Connection

from service.http.api import Blueprint, resources

blp = Blueprint("health", __name__, description="Liveness and dependencies")

CHECK_TIMEOUT_S = 1.0
STATES = ("ok", "down")

log = logging.getLogger(__name__)


class HealthSchema(ma.Schema):
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(("ok", "degraded", "down")))
    database = ma.fields.String(required=True, validate=ma.validate.OneOf(STATES))
    broker = ma.fields.String(required=True, validate=ma.validate.OneOf(STATES))


def database_state() -> str:
    pool = resources().pool
    if pool is None:
        return "down"
    try:
        with pool.connection(timeout=CHECK_TIMEOUT_S) as conn:
            conn.execute("SELECT 1")
    except Exception as error:  # any failure to reach it is "down"; the reason is logged
        log.warning("health: database down: %s", error)
        return "down"
    return "ok"


def broker_client(url: str | None) -> redis.Redis | None:
    """The client /healthz pings a Redis broker with, made once at start-up (service.bootstrap):
    a fresh kombu connection per check costs ~10 ms, a PING on a pooled redis connection
    well under 1 ms. None for another broker (kombu connects per check) or none."""
    if url is None or not url.startswith(("redis://", "rediss://")):
        return None
    return redis.Redis.from_url(url, socket_connect_timeout=CHECK_TIMEOUT_S, socket_timeout=CHECK_TIMEOUT_S)


def broker_state() -> str:
    url, client = resources().config.broker_url, resources().broker_client
    if url is None:
        return "down"
    try:
        if client is not None:
            client.ping()
        else:  # any other Celery transport (e.g. RabbitMQ): let kombu connect
            with Connection(url, connect_timeout=CHECK_TIMEOUT_S) as connection:
                connection.ensure_connection(max_retries=1, timeout=CHECK_TIMEOUT_S)
    except Exception as error:
        log.warning("health: broker down: %s", error)
        return "down"
    return "ok"


def overall(database: str, broker: str) -> str:
    """`down` without the database; `degraded` when only the broker is down."""
    if database == "down":
        return "down"
    return "ok" if broker == "ok" else "degraded"


def queue_depth(queue: str) -> int | None:
    """Messages waiting in a Celery queue (None when the broker cannot tell): Redis keeps
    a queue as a list; other brokers answer a passive declaration with the count."""
    url, client = resources().config.broker_url, resources().broker_client
    if url is None:
        return None
    try:
        if client is not None:
            return int(client.llen(queue))
        with Connection(url, connect_timeout=CHECK_TIMEOUT_S) as connection:
            return int(connection.default_channel.queue_declare(queue, passive=True).message_count)
    except Exception as error:  # noqa: BLE001 - a scrape must not fail for one gauge
        log.warning("health: queue depth of %s unknown: %s", queue, error)
        return None


@blp.route("/healthz", methods=["GET"])
@blp.response(200, HealthSchema, description="`ok`, or `degraded`: the broker is down, so "
              "tasks for the workers (the beat sweeps, ratings a write could not record) wait for it, "
              "but reads, writes and action clocks go on")
@blp.alt_response(503, schema=HealthSchema, description="`down`: the database is unreachable, "
                  "every request that needs it is a 503 `database_unavailable`")
def healthz() -> tuple[dict, int]:
    """Health of the service and its connections (no key needed)."""
    database, broker = database_state(), broker_state()
    status = overall(database, broker)
    body = {"status": status, "database": database, "broker": broker}
    return body, 503 if status == "down" else 200


class LiveSchema(ma.Schema):
    status = ma.fields.String(required=True, validate=ma.validate.Equal("ok"))


@blp.route("/livez", methods=["GET"])
@blp.response(200, LiveSchema)
def livez() -> dict:
    """The process answers (no dependency checked): for liveness probes, which must not
    restart a web process because the database is down."""
    return {"status": "ok"}
