"""Rate limits per API key and per client address, answered as 429 problem documents
with `Retry-After`.

- Per key (CARDROOM_RATE_LIMIT_PER_KEY, default 1000/second): counted by the key's hash
  (never the secret) over the whole API. The deployment's own CARDROOM_ADMIN_KEY is not
  limited per key (the operator's scripts and the benchmarks use it); its address still is.
- Per address (CARDROOM_RATE_LIMIT_PER_ADDRESS, default 10000/second): every request,
  keyed by the peer address (behind a proxy that is the proxy's: limit there instead, or
  raise this). Health, metrics and the docs are never limited: probes must not be refused.
- Where they count (CARDROOM_RATE_LIMIT_STORAGE_URL, else): in the broker when it is Redis
  (also through Sentinel: `limits`' redis+sentinel:// URL of the same sentinels and master),
  so every worker and host shares one count; with no broker, or a RabbitMQ one (which
  cannot count), in each web process's memory: then a client may get up to workers x
  the limit, which is the documented choice rather than a second server to run.
- In Redis a process takes a window's requests in leases of a hundredth of the limit
  (LEASE_PARTS; at least one) and spends them locally: one round trip per lease, not per
  request. The count in Redis is what was leased, so summed over every process a client
  never gets more than the limit in a window; a lease another process holds unspent can
  refuse a client early, by at most (lease - 1) requests per other process and window (1%
  of the limit each). Limits under LEASE_PARTS per window lease one request at a time:
  counted exactly, as before. A lease ends with the window it was taken in, and a count
  past its limit is remembered here until that window ends (a flood costs no round trips).
- A counting store that is down lets requests through (an outage of Redis must not stop
  play): for STORAGE_RETRY_S the counts are kept in this process's memory instead.

Decided: the `limits` library (flask-limiter's engine: the same limit strings and
storages) called from one before-request hook, not flask-limiter itself. flask-limiter
cost 310 us of CPU per request (resolving route and application limits, its context
objects); this hook costs about 30 us in memory. See the report of issue 19.
"""
from __future__ import annotations

import hmac
import logging
import math
import threading
import time
from typing import Any

from flask import Flask, Request, request
from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage, RedisStorage, storage_from_string
from limits.strategies import FixedWindowRateLimiter
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service import broker_urls
from service.config import Config
from service.http.key_hashes import request_key_hash
from service.http.problems import Problem

UNLIMITED_ENDPOINTS = frozenset({"health.healthz", "health.livez", "metrics", "docs_asset",
                                 "api-docs.openapi_swagger_ui", "api-docs.openapi_json", "pages.static"})
STORAGE_TIMEOUT_S = 0.5
STORAGE_RETRY_S = 5.0
MEMORY_URL = "cardroom-memory://"
MEMORY_SWEEP_EVERY_S = 10.0
NAMESPACE = "cardroom-limits"

log = logging.getLogger(__name__)


class QuietMemoryStorage(MemoryStorage):
    """limits' in-process counters without their expiry thread. MemoryStorage starts a
    thread every 10 ms while counters change, and each start waits for the new thread to
    run: under load that is a GIL hand-over in a third of the requests. Here an expired
    counter is dropped when read (MemoryStorage.get does so already) and the others are
    swept at most every MEMORY_SWEEP_EVERY_S by the request that finds it due."""

    STORAGE_SCHEME = ["cardroom-memory"]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: str) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self.timer.cancel()
        self._swept_at = time.monotonic()

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        self.get(key)
        with self.locks[key]:
            self.storage[key] += amount
            if self.storage[key] == amount:
                self.expirations[key] = time.time() + expiry
            count = self.storage[key]
        if time.monotonic() - self._swept_at >= MEMORY_SWEEP_EVERY_S:
            self._swept_at = time.monotonic()
            for expired in [k for k, at in list(self.expirations.items()) if at <= time.time()]:
                self.get(expired)
        return count


def storage_url(config: Config) -> str:
    if config.rate_limit_storage_url:
        return config.rate_limit_storage_url
    if broker_urls.is_redis(config.broker_url):
        return config.broker_url
    if broker_urls.is_sentinel(config.broker_url) and config.broker_master_name:
        return broker_urls.Sentinels.of(config.broker_url).limits_url(config.broker_master_name)
    return MEMORY_URL


def storage_options(url: str, config: Config) -> dict[str, Any]:
    """redis-py's options for the storage at `url`: short timeouts (redis-py takes seconds as
    floats), also on the connections to the sentinels, and the broker's database when the
    storage follows a Sentinel broker (limits' sentinel URL has no room for it)."""
    if url == MEMORY_URL or url.startswith(("memory://", "cardroom-memory://")):
        return {}
    timeouts = {"socket_connect_timeout": STORAGE_TIMEOUT_S, "socket_timeout": STORAGE_TIMEOUT_S}
    if not url.startswith("redis+sentinel://"):
        return timeouts
    database = {}
    if not config.rate_limit_storage_url and broker_urls.is_sentinel(config.broker_url):
        database = {"db": broker_urls.Sentinels.of(config.broker_url).db}
    return {**timeouts, **database, "sentinel_kwargs": timeouts}


def _bearer_secret(served: Request) -> str:
    header: str = served.environ.get("HTTP_AUTHORIZATION", "")  # as auth reads it
    return header.partition(" ")[2].strip()


LEASE_PARTS = 100
"""A lease is this part of a limit (service.http.rate_limits' docstring: the tolerance)."""

# limits' incr_expire.lua for several counters at once, each by its lease: each key's
# count after adding the lease and the milliseconds left in its window, the expiry set when
# the window starts (ARGV[2i-1]: key i's lease, ARGV[2i]: its window in seconds).
_LEASE_EACH = b"""
local counted = {}
for i, key in ipairs(KEYS) do
    local lease = tonumber(ARGV[2 * i - 1])
    local count = redis.call("incrby", key, lease)
    if count == lease then
        redis.call("expire", key, ARGV[2 * i])
    end
    counted[i] = {count, redis.call("pttl", key)}
end
return counted
"""


class _Lease:
    """Requests this process may still let through in a window of one counter."""

    __slots__ = ("left", "until", "past_limit")

    def __init__(self, left: int, until: float, past_limit: bool) -> None:
        self.left = left
        self.until = until
        """time.monotonic() at which the window ends, as Redis told it (from before asking)."""
        self.past_limit = past_limit
        """Redis granted nothing: refused until the window ends."""


LEASES_KEPT = 100_000
"""Counters with a lease in one process (clients in the last window or so); past that the
leases are dropped, which costs each a round trip."""


class _LeaseScript:
    """_LEASE_EACH run by EVALSHA on a connection of the calling thread's own, made by the
    client's pool (its address, Sentinel's master, timeouts) and kept by the thread: a
    call through redis-py's client (the pool's checkout and health check, its retries and
    response callbacks) cost 124 us of CPU, this 36 us (issue 37). As the client would, a
    call whose connection fails is retried once on a new one (redis-py's connection
    closes itself on any failure mid-call, so no answer is ever left unread on it), and
    the script is loaded when the server does not know it."""

    def __init__(self, client: Any) -> None:  # a redis-py client (limits types it as a protocol)
        self._pool = client.connection_pool
        self._sha = client.register_script(_LEASE_EACH).sha
        self._own = threading.local()

    def __call__(self, keys: list[str], arguments: list[int]) -> Any:
        connection = getattr(self._own, "connection", None)
        if connection is None:
            connection = self._own.connection = self._pool.make_connection()
        try:
            return self._evalsha(connection, keys, arguments)
        except (RedisConnectionError, RedisTimeoutError):
            connection.disconnect()
            return self._evalsha(connection, keys, arguments)  # it connects again

    def _evalsha(self, connection: Any, keys: list[str], arguments: list[int]) -> Any:
        # Connected here, not by send_command: a Sentinel-managed connection finds the
        # master in `connect`, which send_command's own connecting skips (it would go to
        # localhost:6379).
        connection.connect()
        try:
            connection.send_command("EVALSHA", self._sha, len(keys), *keys, *arguments)
            return connection.read_response()
        except NoScriptError:
            connection.send_command("SCRIPT", "LOAD", _LEASE_EACH)
            connection.read_response()
            connection.send_command("EVALSHA", self._sha, len(keys), *keys, *arguments)
            return connection.read_response()


class LeasedCounts:
    """Counting in Redis by leases (the module's docstring): each hit takes a request from
    this process's lease of its counter, leasing the counters without one in one round trip."""

    def __init__(self, storage: RedisStorage) -> None:
        self._storage = storage
        self._script = _LeaseScript(storage.get_connection())
        self._leases: dict[str, _Lease] = {}
        self._lock = threading.Lock()
        self._key_around: dict[tuple[RateLimitItem, str], tuple[str, str]] = {}

    def _key(self, item: RateLimitItem, per: str, who: str) -> str:
        """The storage's key of `item` for `who`, as limits builds it (prefixed_key of
        key_for), from the text around `who` built once per limit."""
        around = self._key_around.get((item, per))
        if around is None:
            head, _, tail = self._storage.prefixed_key(item.key_for(NAMESPACE, per, "\x00")).partition("\x00")
            around = self._key_around[item, per] = (head, tail)
        return around[0] + who + around[1]

    def take(self, hits: list[tuple[RateLimitItem, str, str]]) -> list[float | None]:
        """For each hit, None when it may pass, else the seconds until its window ends."""
        keys = [self._key(item, per, who) for item, per, who in hits]
        outcomes: list[float | None] = [None] * len(hits)
        unleased = []
        now = time.monotonic()
        with self._lock:
            for index, key in enumerate(keys):
                lease = self._leases.get(key)
                if lease is None or lease.until <= now or not (lease.left or lease.past_limit):
                    unleased.append(index)
                elif lease.left:
                    lease.left -= 1
                else:
                    outcomes[index] = lease.until - now
        if not unleased:
            return outcomes
        sizes = [max(1, hits[index][0].amount // LEASE_PARTS) for index in unleased]
        arguments: list[int] = []
        for index, size in zip(unleased, sizes):
            arguments += [size, hits[index][0].get_expiry()]
        asked_at = time.monotonic()
        counted = self._script([keys[index] for index in unleased], arguments)
        with self._lock:
            if len(self._leases) >= LEASES_KEPT:
                self._leases.clear()
            for index, size, (count, left_ms) in zip(unleased, sizes, counted):
                item = hits[index][0]
                window_s = left_ms / 1000 if left_ms > 0 else item.get_expiry()
                granted = max(0, min(size, item.amount - (int(count) - size)))
                self._leases[keys[index]] = _Lease(max(0, granted - 1), asked_at + window_s, not granted)
                if not granted:
                    outcomes[index] = window_s
        return outcomes


class RateLimits:
    """The before-request hook: one hit per limit that applies, a 429 Problem past one."""

    def __init__(self, config: Config) -> None:
        url = storage_url(config)
        counted = storage_from_string(url, **storage_options(url, config))
        self._counted: LeasedCounts | FixedWindowRateLimiter = (
            LeasedCounts(counted) if isinstance(counted, RedisStorage) else FixedWindowRateLimiter(counted))
        self._fallback = FixedWindowRateLimiter(QuietMemoryStorage())
        self._storage_down_until = 0.0
        self._per_key = tuple(parse_many(config.rate_limit_per_key)) if config.rate_limit_per_key else ()
        self._per_address = (tuple(parse_many(config.rate_limit_per_address))
                             if config.rate_limit_per_address else ())
        self._admin_key = config.admin_key.encode() if config.admin_key else None

    def __call__(self) -> None:
        served = request._get_current_object()  # type: ignore[attr-defined]  # one proxy lookup
        if served.endpoint in UNLIMITED_ENDPOINTS:
            return
        hits = [(item, "address", served.remote_addr or "unknown") for item in self._per_address]
        secret = _bearer_secret(served)
        if self._per_key and secret and not (
                self._admin_key is not None and hmac.compare_digest(secret.encode(), self._admin_key)):
            key = request_key_hash(served, secret)[:32]
            hits += [(item, "key", key) for item in self._per_key]
        if not hits:
            return
        counter = self._counted if time.monotonic() >= self._storage_down_until else self._fallback
        try:
            waits = _waits(counter, hits)
        except Exception as error:  # noqa: BLE001 - the counting store is down: count here
            log.warning("rate limits: the counting store failed (%s); counting in memory for %g s",
                        error, STORAGE_RETRY_S)
            self._storage_down_until = time.monotonic() + STORAGE_RETRY_S
            waits = _waits(self._fallback, hits)
        for (item, per, _), wait in zip(hits, waits):
            if wait is not None:
                wait_s = min(max(1, math.ceil(wait)), item.get_expiry())
                raise Problem(
                    429, "rate_limited",
                    f"more than {item} from this {'API key' if per == 'key' else 'address'}; "
                    f"retry after {wait_s} s",
                    headers={"Retry-After": str(wait_s)}, limit=str(item), per=per, retry_after_s=wait_s)


def _waits(counter: LeasedCounts | FixedWindowRateLimiter,
           hits: list[tuple[RateLimitItem, str, str]]) -> list[float | None]:
    """For each limit, None when this request is within it, else the seconds until its
    window ends. By leases in Redis (LeasedCounts: every limit that applies counts the
    request, also when another one refuses it); in memory, limits' fixed window, stopping
    at the first limit passed."""
    if isinstance(counter, LeasedCounts):
        return counter.take(hits)
    waits: list[float | None] = []
    for item, per, who in hits:
        if counter.storage.incr(item.key_for(NAMESPACE, per, who), item.get_expiry()) <= item.amount:
            waits.append(None)
            continue
        waits.append(counter.get_window_stats(item, NAMESPACE, per, who).reset_time - time.time())
        break
    return waits


def install(app: Flask, config: Config) -> None:
    if config.rate_limit_per_key or config.rate_limit_per_address:
        app.before_request(RateLimits(config))
