"""What the service runs on, wired once per process: the pool, the store, the key and
session tables, the application and the live feeds of a web process (`web_parts`, which
service.bootstrap.create_app hands to the Flask app), and a Celery worker process's pool
and application (`worker_resources`, workers.celery_app). It imports no entry point: a
worker loads neither Flask nor the HTTP layer."""
from __future__ import annotations

import select
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import psycopg
from psycopg_pool import ConnectionPool

from domain.transparency import merkle
from service.adapters import scheduler as celery_scheduler
from service.adapters.integrity import chain_signer, data_cipher, open_store
from service.adapters.log_keys import LOG_KEY_FILE, NoteSigner, log_signer
from service.adapters.notifications import LiveFeeds, PostgresListener
from service.adapters.row_macs import RowSigners
from service.adapters.store.base import EventStore
from service.adapters.store.public_log import PostgresPublicLog
from service.adapters.store.upcasting import UpcastingStore
from service.adapters.witnesses import WitnessClient
from service.application import public_log
from service.application.api_keys import ApiKeys
from service.application.application import application
from service.application.commands import STREAM_PREFIX as TABLE_STREAM_PREFIX
from service.application.live_feeds import LiveFeed
from service.application.page_sessions import PageSessions
from service.application.parts import Application
from service.application.refused_rows import RefusedRows
from service.application.replay import IMPORTED_HAND_PREFIX
from service.application.scheduling import NoScheduler, Scheduler
from service.config import Config


@dataclass(frozen=True)
class WebParts:
    """What a web process's requests use, named as service.http.api.Resources names them."""
    pool: ConnectionPool
    store: EventStore
    keys: ApiKeys
    sessions: PageSessions
    application: Application
    live: LiveFeed
    refused_rows: RefusedRows
    public_log: public_log.PublicLog
    data_key_ids: tuple[str, ...]


def web_parts(config: Config, scheduler: Scheduler | None = None) -> WebParts:
    """A web process's parts, on the database of `config` (which names one). `scheduler`:
    what the application schedules on (default: the Celery broker of the configuration, or
    nothing without one)."""
    pool = _open_pool(config)
    store = event_store(pool, config)
    signers = RowSigners.under(chain_signer(config))
    keys = ApiKeys(pool, signers)
    sessions = PageSessions(pool, signers.page_sessions, keys)
    return WebParts(
        pool=pool, store=store, keys=keys, sessions=sessions,
        application=application(store, scheduler or broker_scheduler(config),
                                table_cache_size=config.table_cache_size),
        live=LiveFeed(LiveFeeds(store, listen=partial(PostgresListener, database_url=config.database_url))),
        refused_rows=RefusedRows(keys, sessions, signers),
        public_log=public_log_reader(pool, config),
        data_key_ids=tuple(data_cipher(config).key_ids))


def broker_scheduler(config: Config) -> Scheduler:
    """Ratings the web process could not record go to a worker through the broker (action
    clocks need nothing sent: the workers read their deadlines from the log)."""
    if not config.broker_url:
        return NoScheduler()
    return celery_scheduler.CeleryScheduler(celery_scheduler.sender(
        config.broker_url, config.broker_master_name, config.broker_queue_type))


WORKER_POOL_SIZE = 4


def event_store(pool: ConnectionPool, config: Config) -> EventStore:
    """The deployment's store, read through the upcaster: records written before
    positions were named read as written now, secrets encrypted on their way in and
    decrypted on their way out (service.adapters.store.upcasting)."""
    return UpcastingStore(open_store(pool, config), TABLE_STREAM_PREFIX,  # type: ignore[return-value]
                          IMPORTED_HAND_PREFIX, data_cipher(config))


def public_log_signer(config: Config) -> Callable[[bool], NoteSigner]:
    """The log's signing key, made in the data directory only while the log has no
    checkpoint (service.adapters.log_keys.log_signer)."""
    return partial(_log_signer, config)


def _log_signer(config: Config, create: bool) -> NoteSigner:
    return log_signer(config.log_key, config.data_dir / LOG_KEY_FILE, config.log_origin, create=create)


def public_log_reader(pool: ConnectionPool, config: Config) -> public_log.PublicLog:
    """What the public endpoints read: the tree, the log's verifier key when this host has
    the signing key (else the checkpoints say it), the witnesses and their policy."""
    key = None
    if config.log_key or (config.data_dir / LOG_KEY_FILE).is_file():
        key = _log_signer(config, False).verifier
    return public_log.PublicLog(PostgresPublicLog(pool), key, public_log.parse_witnesses(config.witnesses),
                                config.witness_policy)


def witness_client(config: Config, tree: PostgresPublicLog) -> WitnessClient | None:
    """The witnesses the integrator asks to cosign each checkpoint (None: none named)."""
    witnesses = public_log.parse_witnesses(config.witnesses)
    if not witnesses:
        return None
    return WitnessClient(witnesses, tree, lambda old, new: public_log.fetched(
        tree, partial(merkle.consistency_proof, old, new)))


@dataclass(frozen=True)
class WorkerResources:
    """What a worker process's tasks use: its pool (the health ping, the clock sweep's
    query) and the application."""
    pool: ConnectionPool
    application: Application


def worker_resources(config: Config, scheduler: Scheduler) -> WorkerResources:
    """A worker process's resources, on its own pool (built on the process's first task,
    after the prefork fork, so no connection is shared between processes)."""
    if not config.database_url:
        raise RuntimeError("DATABASE_URL is not set for the worker")
    pool = ConnectionPool(config.database_url, min_size=1, max_size=WORKER_POOL_SIZE,
                          kwargs={"autocommit": True}, check=check_idle_connection, open=True)
    return WorkerResources(pool, application(event_store(pool, config), scheduler,
                                             table_cache_size=config.table_cache_size))


POOL_WAIT_S = 1.5
"""How long a request waits for a database connection before it is a 503: a request
thread never waits for a connection in normal running (the pool holds more connections
than the worker has threads), so waiting means the database is unreachable."""
RECONNECT_GIVE_UP_S = 3.0
WANTS_THE_PRIMARY = ("read-write", "primary")
CONNECT_TIMEOUT_S = 2


def _open_pool(config: Config) -> ConnectionPool:
    # open=True starts connecting in the background: the app serves /healthz (as
    # "database down") even when PostgreSQL is not up yet, and recovers when it is.
    return ConnectionPool(
        config.database_url,
        min_size=1,
        max_size=config.database_pool_size,
        open=True,
        timeout=POOL_WAIT_S,
        check=check_idle_connection,
        # The pool retries a failed connection with a growing back-off (1, 2, 4 ... s). It
        # gives up on this one after a few seconds instead of five minutes, so that once
        # the database is back the next request opens a fresh connection at once rather
        # than wait out a long back-off.
        reconnect_timeout=RECONNECT_GIVE_UP_S,
        kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S},
    )


def check_idle_connection(conn: psycopg.Connection) -> None:
    """The pool's check before it lends a connection. A connection the server has closed
    (PostgreSQL stopped or restarted) has the server's goodbye, or its end, waiting on the
    socket: only then is a round trip made, which fails and makes the pool drop it (and try
    another). Without a check, the first request on each such connection would fail; with
    psycopg_pool's own check, every request would pay a round trip.

    When the connection string asks for the primary (`target_session_attrs=read-write` or
    `primary`), a connection to a server now in recovery (a primary demoted to a standby,
    which PostgreSQL 14+ reports on the connection as `in_hot_standby`, without a round
    trip) is dropped too: the pool's next connection asks libpq again, which skips the
    standbys for the new primary. A string that asks for any server keeps its standby
    (reads answer, writes are 503s, /healthz says it is in recovery)."""
    if conn.closed or select.select([conn.fileno()], [], [], 0)[0]:
        ConnectionPool.check_connection(conn)
    if (conn.info.parameter_status("in_hot_standby") == "on"
            and conn.info.get_parameters().get("target_session_attrs") in WANTS_THE_PRIMARY):
        raise psycopg.OperationalError(f"{conn.info.host}:{conn.info.port} is a standby now, not the primary")
