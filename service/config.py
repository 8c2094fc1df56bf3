"""Settings from the environment: read once, checked, then passed around as a frozen value.

A wrong value stops the start-up with a `ConfigError` naming the variable, the value and
what it should be (the dev server, gunicorn and Celery print it instead of a traceback).
"""
from __future__ import annotations

import logging
import os
import string
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from service import broker_urls

DEFAULT_PORT = 8000
SERVICE_URL_FILE = "service-url"
"""Where `make run` (service.devserver) writes the URL it serves, in its data folder: the
command line finds the local service there."""
LOG_FORMATS = ("json", "text")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
QUEUE_TYPES = ("classic", "quorum")
# Far above what one client does (a player acts every few seconds), and above what the
# test suites do: a test client in a loop makes ~2,500 requests a second from one address,
# the redaction race's readers several hundred a second per key. They stop a runaway
# script or a flood; lower them in the environment where the clients are known.
DEFAULT_RATE_LIMIT_PER_KEY = "1000/second"
DEFAULT_RATE_LIMIT_PER_ADDRESS = "10000/second"
DEFAULT_LOG_ORIGIN = "cardroom.localhost/log"
"""The origin `make run` signs under; production names its own host (CARDROOM_LOG_ORIGIN)."""

T = TypeVar("T")


class ConfigError(ValueError):
    """A setting that cannot be used, said so a person can fix it."""


@dataclass(frozen=True)
class Config:
    # None means "not configured": the app still builds (e.g. to print its OpenAPI
    # document) and /healthz reports the missing dependency as down.
    database_url: str | None = None
    # `make run` only: the application's own login (least privilege), when DATABASE_URL is
    # an administrator's; without it, `cardroom_<database>_app` is set up (service.adapters.migrate).
    app_database_url: str | None = None
    broker_url: str | None = None
    broker_master_name: str | None = None
    """With a sentinel:// broker: the name the sentinels monitor the Redis master under."""
    broker_queue_type: str = "classic"
    """With a RabbitMQ broker: "quorum" declares Celery's queues as quorum queues (replicated)."""
    admin_key: str | None = None
    port: int = DEFAULT_PORT
    data_dir: Path = Path(".data")
    database_pool_size: int = 8
    chain_key: str | None = None
    """The key of the log's HMAC chain (service.adapters.integrity); None: <data_dir>/chain-key."""
    data_key: str | None = None
    """The key the events' secrets and the snapshots are encrypted under at rest (64 hex
    digits, service.adapters.integrity); None: <data_dir>/data-key."""
    data_keys_old: tuple[str, ...] = ()
    """Retired data keys, which only decrypt what they sealed (CARDROOM_DATA_KEYS_OLD,
    comma-separated; the files of <data_dir>/data-keys/ are retired keys as well)."""
    request_read_timeout_s: float = 10.0
    """How long the web server waits for a whole request, from its first byte (a new
    connection: from its opening), before it answers 408 and closes."""
    idempotency_window_s: float = 24 * 3600
    """How long an Idempotency-Key's record (and so its first answer) is kept."""
    table_cache_size: int = 2048
    """Table states each process keeps (service.application.application): enough for
    a 10,000-player tournament's 1,112 tables; a state not kept loads from its snapshot."""
    log_format: str = "json"
    """Request and application logs: one JSON object a line (production), or "text" for
    a person at a terminal (`make run`)."""
    log_level: str = "INFO"
    sweep_log_level: str = "DEBUG"
    """The level of the workers' routine lines (each periodic sweep and ping received and
    done): at DEBUG they no longer drown the terminal; INFO shows them."""
    rate_limit_per_key: str = DEFAULT_RATE_LIMIT_PER_KEY
    rate_limit_per_address: str = DEFAULT_RATE_LIMIT_PER_ADDRESS
    """Limit strings of the `limits` library ("1000/second", "5000 per minute;100/second");
    "" for none."""
    log_origin: str = DEFAULT_LOG_ORIGIN
    """The public log's origin: the first line of its checkpoints and its key's name
    (service.application.public_log). A new origin is a new log."""
    log_key: str | None = None
    """The public log's signing key (PRIVATE+KEY+<origin>+...); None: <data_dir>/log-key."""
    witnesses: str = ""
    """The witnesses the log asks to cosign: "<url> <verifier key>" pairs, comma-separated."""
    witness_policy: int = 0
    """How many of them must cosign a checkpoint before GET /v1/log/checkpoint serves it."""
    rate_limit_storage_url: str | None = None
    """Where the rate limits count (service.http.rate_limits): by default the broker when it is
    Redis (also through Sentinel), else each process's own memory."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        env = os.environ if environ is None else environ
        read = _Reader(env)
        return cls(
            database_url=read.conninfo("DATABASE_URL"),
            app_database_url=read.conninfo("APP_DATABASE_URL"),
            broker_url=read.broker_url("CELERY_BROKER_URL"),
            broker_master_name=read.master_name("CARDROOM_BROKER_MASTER_NAME", env.get("CELERY_BROKER_URL")),
            broker_queue_type=read.queue_type("CARDROOM_BROKER_QUEUE_TYPE", env.get("CELERY_BROKER_URL")),
            admin_key=read.text("CARDROOM_ADMIN_KEY"),
            port=read.number("PORT", int, DEFAULT_PORT, low=1, high=65535),
            data_dir=Path(env.get("CARDROOM_DATA_DIR") or ".data"),
            database_pool_size=read.number("CARDROOM_DB_POOL_SIZE", int, 8, low=1, high=1000),
            chain_key=read.text("CARDROOM_CHAIN_KEY"),
            data_key=read.hex_key("CARDROOM_DATA_KEY", digits=64),
            data_keys_old=read.hex_keys("CARDROOM_DATA_KEYS_OLD", digits=64),
            request_read_timeout_s=read.number("CARDROOM_REQUEST_READ_TIMEOUT_S", float, 10.0,
                                               low=0.1, high=3600),
            idempotency_window_s=read.number("CARDROOM_IDEMPOTENCY_WINDOW_S", float, 24 * 3600.0,
                                             low=1, high=366 * 24 * 3600),
            table_cache_size=read.number("CARDROOM_TABLE_CACHE_SIZE", int, 2048, low=1, high=10**7),
            log_format=read.choice("CARDROOM_LOG_FORMAT", LOG_FORMATS, "json"),
            log_level=read.choice("CARDROOM_LOG_LEVEL", LOG_LEVELS, "INFO"),
            sweep_log_level=read.choice("CARDROOM_SWEEP_LOG_LEVEL", LOG_LEVELS, "DEBUG"),
            rate_limit_per_key=read.limit("CARDROOM_RATE_LIMIT_PER_KEY", DEFAULT_RATE_LIMIT_PER_KEY),
            rate_limit_per_address=read.limit("CARDROOM_RATE_LIMIT_PER_ADDRESS",
                                              DEFAULT_RATE_LIMIT_PER_ADDRESS),
            log_origin=read.text("CARDROOM_LOG_ORIGIN") or DEFAULT_LOG_ORIGIN,
            log_key=read.text("CARDROOM_LOG_KEY"),
            witnesses=env.get("CARDROOM_WITNESSES", ""),
            witness_policy=read.number("CARDROOM_WITNESS_POLICY", int, 0, low=0, high=100),
            rate_limit_storage_url=read.text("CARDROOM_RATE_LIMIT_STORAGE_URL",
                                             prefixes=("cardroom-memory://", "memory://", "redis://",
                                                       "rediss://", "redis+sentinel://")),
        )


def checked_from_env() -> Config:
    """For a process's start-up (gunicorn's app, Celery's app): the configuration, or one
    line naming the wrong setting and exit status 3 (gunicorn's "worker failed to boot",
    which stops its master instead of restarting workers forever)."""
    try:
        return Config.from_env()
    except ConfigError as wrong:
        print(f"cardroom: cannot start: {wrong}", file=sys.stderr, flush=True)
        raise SystemExit(3) from None


class _Reader:
    """Reads one variable at a time, refusing a value that cannot be meant."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = env

    def text(self, name: str, prefixes: tuple[str, ...] = ()) -> str | None:
        value = self._env.get(name) or None
        if value is not None and prefixes and not value.startswith(prefixes):
            raise ConfigError(f"{name}={_shown(name, value)} must start with {' or '.join(prefixes)}")
        return value

    def broker_url(self, name: str) -> str | None:
        value = self._env.get(name) or None
        if value is not None and broker_urls.is_sentinel(value):
            try:
                broker_urls.Sentinels.of(value)
            except ValueError as wrong:
                raise ConfigError(f"{name}={_shown(name, value)} is not a list of sentinels ({wrong}); "
                                  "give sentinel://s1:26379;sentinel://s2:26379") from None
        return value

    def master_name(self, name: str, broker_url: str | None) -> str | None:
        """Needed with a sentinel:// broker (kombu cannot find the master without it), and
        meaningless with any other."""
        value = (self._env.get(name) or "").strip() or None
        if broker_urls.is_sentinel(broker_url) and value is None:
            raise ConfigError(f"{name} must be set with a sentinel:// CELERY_BROKER_URL: the name "
                              "the sentinels monitor the Redis master under (sentinel.conf's "
                              "`sentinel monitor <name> ...`)")
        if value is not None and not broker_urls.is_sentinel(broker_url):
            raise ConfigError(f"{name}={value!r} is only for a sentinel:// CELERY_BROKER_URL")
        return value

    def queue_type(self, name: str, broker_url: str | None) -> str:
        """"quorum" only on RabbitMQ: the other transports have no queue types."""
        value = self.choice(name, QUEUE_TYPES, "classic")
        if value == "quorum" and not broker_urls.is_amqp(broker_url):
            raise ConfigError(f"{name}=quorum needs a RabbitMQ CELERY_BROKER_URL (amqp://)")
        return value

    def conninfo(self, name: str) -> str | None:
        """A connection string as libpq takes it (service.adapters.connection_strings): a
        postgresql:// URL, with several hosts if need be, or key=value pairs."""
        value = self._env.get(name) or None
        if value is None:
            return None
        from service.adapters.connection_strings import EXAMPLE, problem

        wrong = problem(value)
        if wrong:
            raise ConfigError(f"{name} is not a PostgreSQL connection string ({wrong}); "
                              f"give a URL such as {EXAMPLE} or key=value pairs such as "
                              "'host=db1,db2 port=5432,5432 dbname=cardroom'")
        return value

    def hex_key(self, name: str, *, digits: int) -> str | None:
        """A key of exactly `digits` hex digits (never shown back: it is a secret)."""
        value = self._env.get(name) or None
        if value is not None and (len(value) != digits or any(c not in string.hexdigits for c in value)):
            raise ConfigError(f"{name} must be {digits} hex digits (the value is not shown)")
        return value

    def hex_keys(self, name: str, *, digits: int) -> tuple[str, ...]:
        """Comma-separated keys of exactly `digits` hex digits each (never shown back)."""
        keys = tuple(key.strip() for key in (self._env.get(name) or "").split(",") if key.strip())
        if any(len(key) != digits or any(c not in string.hexdigits for c in key) for key in keys):
            raise ConfigError(f"{name} must be keys of {digits} hex digits, comma-separated (the values are not shown)")
        return keys

    def number(self, name: str, kind: Callable[[str], T], default: T, *, low: float, high: float) -> T:
        raw = self._env.get(name)
        if not raw:
            return default
        try:
            value = kind(raw)
        except ValueError:
            raise ConfigError(f"{name}={raw!r} is not a {'whole ' if kind is int else ''}number") from None
        if not low <= value <= high:  # type: ignore[operator]
            raise ConfigError(f"{name}={raw!r} must be between {low:g} and {high:g}")
        return value

    def choice(self, name: str, choices: tuple[str, ...], default: str) -> str:
        raw = self._env.get(name)
        if not raw:
            return default
        value = raw.upper() if choices == LOG_LEVELS else raw.lower()
        if value not in choices:
            raise ConfigError(f"{name}={raw!r} must be one of {', '.join(choices)}")
        return value

    def limit(self, name: str, default: str) -> str:
        raw = self._env.get(name)
        if raw is None:
            return default
        from limits import parse_many

        try:
            parse_many(raw) if raw.strip() else None
        except ValueError:
            raise ConfigError(f"{name}={raw!r} is not a rate limit such as '100/second' or "
                              "'5000 per minute;100/second' (empty: no limit)") from None
        return raw.strip()


def _shown(name: str, value: str) -> str:
    # URLs carry passwords: name the scheme only.
    return repr(value.split(":", 1)[0] + ":...") if "URL" in name else repr(value)


def level_number(level: str) -> int:
    return logging.getLevelNamesMapping()[level]
