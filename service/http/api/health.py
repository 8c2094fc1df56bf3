"""`GET /healthz`: is the process up, and can it reach the database and the broker?"""
from __future__ import annotations

import logging
from typing import Any

import marshmallow as ma
import redis
from kombu import Connection
from redis.sentinel import Sentinel

from service import broker_urls
from service.application.database_server import database_server
from service.http.api import Blueprint, resources

blp = Blueprint("health", __name__, description="Liveness and dependencies")

CHECK_TIMEOUT_S = 1.0
STATES = ("ok", "down")

log = logging.getLogger(__name__)


class StandbySchema(ma.Schema):
    application_name = ma.fields.String(allow_none=True, required=True)
    client_addr = ma.fields.String(allow_none=True, required=True)
    state = ma.fields.String(allow_none=True, required=True, metadata={"description": "streaming, catchup, ..."})
    sync_state = ma.fields.String(allow_none=True, required=True, metadata={"description": "sync, quorum, potential, async"})
    write_lag_s = ma.fields.Float(allow_none=True, required=True)
    flush_lag_s = ma.fields.Float(allow_none=True, required=True)
    replay_lag_s = ma.fields.Float(allow_none=True, required=True)
    replay_lag_bytes = ma.fields.Integer(allow_none=True, required=True)


class DatabaseServerSchema(ma.Schema):
    host = ma.fields.String(allow_none=True, required=True, metadata={
        "description": "the connection string's host the connection got (of several: the primary)"})
    port = ma.fields.Integer(allow_none=True, required=True)
    server_address = ma.fields.String(allow_none=True, required=True, metadata={
        "description": "inet_server_addr():inet_server_port(), as the server sees itself"})
    in_recovery = ma.fields.Boolean(required=True, metadata={"description": "a standby: writes are refused"})
    synchronous_standbys = ma.fields.Integer(required=True)
    standbys = ma.fields.List(ma.fields.Nested(StandbySchema), required=True,
                              metadata={"description": "pg_stat_replication"})
    lag_s = ma.fields.Float(allow_none=True, required=True, metadata={
        "description": "the largest replay lag of the standbys (on a standby: since its last replayed commit); "
                       "null without standbys"})
    lag_bytes = ma.fields.Integer(allow_none=True, required=True)


class HealthSchema(ma.Schema):
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(("ok", "degraded", "down")))
    database = ma.fields.String(required=True, validate=ma.validate.OneOf(STATES))
    broker = ma.fields.String(required=True, validate=ma.validate.OneOf(STATES))
    database_server = ma.fields.Nested(DatabaseServerSchema, allow_none=True, required=True, metadata={
        "description": "the server reached and its replication; null when the database is down"})


def database_state() -> str:
    return database_check()[0]


def database_check() -> tuple[str, dict[str, Any] | None]:
    """("ok", the server and its replication), or ("down", None)."""
    pool = resources().pool
    if pool is None:
        return "down", None
    try:
        with pool.connection(timeout=CHECK_TIMEOUT_S) as conn:
            return "ok", database_server(conn)
    except Exception as error:  # any failure to reach it is "down"; the reason is logged
        log.warning("health: database down: %s", error)
        return "down", None


def broker_client(url: str | None, master_name: str | None = None) -> redis.Redis | None:
    """The client /healthz pings a Redis broker with, made once at start-up (service.bootstrap):
    a fresh kombu connection per check costs ~10 ms, a PING on a pooled redis connection
    well under 1 ms. Through Sentinel (a sentinel:// URL and its master's name), the client
    asks the sentinels for the master, again after a connection to it fails, so the check
    follows a failover as the workers do. None for another broker (kombu connects per
    check) or none."""
    timeouts = {"socket_connect_timeout": CHECK_TIMEOUT_S, "socket_timeout": CHECK_TIMEOUT_S}
    if url is None:
        return None
    if broker_urls.is_sentinel(url) and master_name is not None:
        sentinels = broker_urls.Sentinels.of(url)
        return Sentinel(list(sentinels.addresses), sentinel_kwargs=timeouts).master_for(
            master_name, password=sentinels.password, username=sentinels.username, db=sentinels.db, **timeouts)
    if not broker_urls.is_redis(url):
        return None
    return redis.Redis.from_url(url, **timeouts)


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
    (database, server), broker = database_check(), broker_state()
    status = overall(database, broker)
    body = {"status": status, "database": database, "broker": broker, "database_server": server}
    return body, 503 if status == "down" else 200


class LiveSchema(ma.Schema):
    status = ma.fields.String(required=True, validate=ma.validate.Equal("ok"))


@blp.route("/livez", methods=["GET"])
@blp.response(200, LiveSchema)
def livez() -> dict:
    """The process answers (no dependency checked): for liveness probes, which must not
    restart a web process because the database is down."""
    return {"status": "ok"}
