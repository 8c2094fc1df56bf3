"""Rate limits per API key and per client address, answered as 429 problem documents
with `Retry-After`.

- Per key (CARDROOM_RATE_LIMIT_PER_KEY, default 1000/second): counted by the key's hash
  (never the secret) over the whole API. The deployment's own CARDROOM_ADMIN_KEY is not
  limited per key (the operator's scripts and the benchmarks use it); its address still is.
- Per address (CARDROOM_RATE_LIMIT_PER_ADDRESS, default 10000/second): every request,
  keyed by the peer address (behind a proxy that is the proxy's: limit there instead, or
  raise this). Health, metrics and the docs are never limited: probes must not be refused.
- Where they count (CARDROOM_RATE_LIMIT_STORAGE_URL, else): in the broker when it is Redis,
  so every worker and host shares one count; with no broker, or a RabbitMQ one (which
  cannot count), in each web process's memory: then a client may get up to workers x
  the limit, which is the documented choice rather than a second server to run.
- A counting store that is down lets requests through (an outage of Redis must not stop
  play): for STORAGE_RETRY_S the counts are kept in this process's memory instead.

Decided: the `limits` library (flask-limiter's engine: the same limit strings and
storages) called from one before-request hook, not flask-limiter itself. flask-limiter
cost 310 us of CPU per request (resolving route and application limits, its context
objects); this hook costs about 30 us in memory. See the report of issue 19.
"""
from __future__ import annotations

import hashlib
import hmac
import logging
import math
import time
from typing import Any

from flask import Flask, request
from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage, RedisStorage, storage_from_string
from limits.strategies import FixedWindowRateLimiter

from service.config import Config
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
    if config.broker_url and config.broker_url.startswith(("redis://", "rediss://")):
        return config.broker_url
    return MEMORY_URL


def _bearer_secret() -> str:
    return request.headers.get("Authorization", "").partition(" ")[2].strip()


# limits' incr_expire.lua for several counters at once: each key's count after adding
# one, its expiry set when the window starts (ARGV[i]: that key's window in seconds).
_INCR_EXPIRE_EACH = b"""
local counts = {}
for i, key in ipairs(KEYS) do
    local count = redis.call("incrby", key, 1)
    if count == 1 then
        redis.call("expire", key, ARGV[i])
    end
    counts[i] = count
end
return counts
"""


class RateLimits:
    """The before-request hook: one hit per limit that applies, a 429 Problem past one."""

    def __init__(self, config: Config) -> None:
        url = storage_url(config)
        # Passed on to redis-py, which takes seconds as floats.
        options: dict[str, Any] = {} if url == MEMORY_URL else {
            "socket_connect_timeout": STORAGE_TIMEOUT_S, "socket_timeout": STORAGE_TIMEOUT_S}
        counted = storage_from_string(url, **options)
        self._counted = FixedWindowRateLimiter(counted)
        self._script = (counted.get_connection().register_script(_INCR_EXPIRE_EACH)
                        if isinstance(counted, RedisStorage) else None)
        self._fallback = FixedWindowRateLimiter(QuietMemoryStorage())
        self._storage_down_until = 0.0
        self._per_key = tuple(parse_many(config.rate_limit_per_key)) if config.rate_limit_per_key else ()
        self._per_address = (tuple(parse_many(config.rate_limit_per_address))
                             if config.rate_limit_per_address else ())
        self._admin_key = config.admin_key.encode() if config.admin_key else None

    def __call__(self) -> None:
        if request.endpoint in UNLIMITED_ENDPOINTS:
            return
        hits = [(item, "address", request.remote_addr or "unknown") for item in self._per_address]
        secret = _bearer_secret()
        if self._per_key and secret and not (
                self._admin_key is not None and hmac.compare_digest(secret.encode(), self._admin_key)):
            key = hashlib.sha256(secret.encode()).hexdigest()[:32]
            hits += [(item, "key", key) for item in self._per_key]
        if not hits:
            return
        limiter = self._counted if time.monotonic() >= self._storage_down_until else self._fallback
        try:
            counts = _counts_after(limiter, self._script, hits)
        except Exception as error:  # noqa: BLE001 - the counting store is down: count here
            log.warning("rate limits: the counting store failed (%s); counting in memory for %g s",
                        error, STORAGE_RETRY_S)
            self._storage_down_until = time.monotonic() + STORAGE_RETRY_S
            limiter = self._fallback
            counts = _counts_after(limiter, None, hits)
        for (item, per, who), count in zip(hits, counts):
            if count > item.amount:
                reset_at = limiter.get_window_stats(item, NAMESPACE, per, who).reset_time
                wait_s = min(max(1, math.ceil(reset_at - time.time())), item.get_expiry())
                raise Problem(
                    429, "rate_limited",
                    f"more than {item} from this {'API key' if per == 'key' else 'address'}; "
                    f"retry after {wait_s} s",
                    headers={"Retry-After": str(wait_s)}, limit=str(item), per=per, retry_after_s=wait_s)


def _counts_after(limiter: FixedWindowRateLimiter, script: Any,
                  hits: list[tuple[RateLimitItem, str, str]]) -> list[int]:
    """Each limit's count in its window once this request is counted (limits' fixed
    window, with its keys). In Redis (`script`: _INCR_EXPIRE_EACH registered there), every
    limit of the request is counted in one round trip: a round trip per limit (address and
    key) through limits' `hit` cost 240 us of CPU a request, this 140; there every limit
    that applies counts the request, also when another one refuses it. In memory, the
    counting stops at the first limit passed."""
    storage = limiter.storage
    if script is not None and isinstance(storage, RedisStorage):
        keys = [storage.prefixed_key(item.key_for(NAMESPACE, per, who)) for item, per, who in hits]
        return [int(count) for count in script(keys, [item.get_expiry() for item, _, _ in hits])]
    counts = []
    for item, per, who in hits:
        counts.append(storage.incr(item.key_for(NAMESPACE, per, who), item.get_expiry()))
        if counts[-1] > item.amount:
            break
    return counts


def install(app: Flask, config: Config) -> None:
    if config.rate_limit_per_key or config.rate_limit_per_address:
        app.before_request(RateLimits(config))
