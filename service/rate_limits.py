"""Rate limits per API key and per client address (flask-limiter), answered as 429
problem documents with `Retry-After`.

- Per key (CARDROOM_RATE_LIMIT_PER_KEY, default 100/second): counted by the key's hash
  (never the secret) over the whole API. The deployment's own CARDROOM_ADMIN_KEY is not
  limited per key (the operator's scripts and the benchmarks use it); its address still is.
- Per address (CARDROOM_RATE_LIMIT_PER_ADDRESS, default 2000/second): every request,
  keyed by the peer address (behind a proxy that is the proxy's: limit there instead, or
  raise this). Health, metrics and the docs are never limited: probes must not be refused.
- Where they count (CARDROOM_RATE_LIMIT_STORAGE_URL, else): in the broker when it is Redis,
  so every worker and host shares one count; with no broker, or a RabbitMQ one (which
  cannot count), in each web process's memory: then a client may get up to workers x
  the limit, which is the documented choice rather than a second server to run.
- A counting store that is down lets requests through (an outage of Redis must not stop
  play); the limiter falls back to per-process memory until it is back.
"""
from __future__ import annotations

import hashlib
import hmac
import time
from typing import Any, Callable

from flask import Flask, Response, request
from flask_limiter import ApplicationLimit, Limiter
from flask_limiter.errors import RateLimitExceeded
from limits.storage import MemoryStorage

from service.config import Config
from service.problems import problem_response

UNLIMITED_ENDPOINTS = frozenset({"health.healthz", "health.livez", "metrics", "docs_asset",
                                 "api-docs.openapi_swagger_ui", "api-docs.openapi_json", "home"})
STORAGE_TIMEOUT_S = 0.5


MEMORY_URL = "cardroom-memory://"
MEMORY_SWEEP_EVERY_S = 10.0


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


def install(app: Flask, config: Config) -> Limiter | None:
    if not (config.rate_limit_per_key or config.rate_limit_per_address):
        return None
    admin_key = config.admin_key

    def key_of_request() -> str:
        return hashlib.sha256(_bearer_secret().encode()).hexdigest()[:32]

    def no_key_to_count() -> bool:
        secret = _bearer_secret()
        return not secret or bool(admin_key and hmac.compare_digest(secret.encode(), admin_key.encode()))

    limits: list[str | Callable[[], str] | ApplicationLimit] = []
    if config.rate_limit_per_key:
        limits.append(ApplicationLimit(limit_provider=config.rate_limit_per_key, scope="key",
                                       key_function=key_of_request, exempt_when=no_key_to_count))
    if config.rate_limit_per_address:
        limits.append(ApplicationLimit(limit_provider=config.rate_limit_per_address, scope="address",
                                       key_function=lambda: request.remote_addr or "unknown"))
    url = storage_url(config)
    # Passed on to redis-py, which takes seconds as floats (flask-limiter's hint says ints).
    storage_options: dict[str, Any] = {} if "memory" in url else {
        "socket_connect_timeout": STORAGE_TIMEOUT_S, "socket_timeout": STORAGE_TIMEOUT_S}
    limiter = Limiter(
        key_func=lambda: request.remote_addr or "unknown",
        app=app,
        application_limits=limits,
        storage_uri=url,
        storage_options=storage_options,
        strategy="fixed-window",
        swallow_errors=True,
        in_memory_fallback_enabled=True,
        key_prefix="cardroom",
    )
    limiter.request_filter(lambda: request.endpoint in UNLIMITED_ENDPOINTS)

    def too_many_requests(error: RateLimitExceeded) -> Response:
        current = limiter.current_limit
        # reset_at is a whole second rounded up: the wait is at least a second, never more than the window.
        wait_s = max(1, int(current.reset_at - time.time())) if current else 1
        scope = "key" if error.limit.scope == "key" else "address"
        return problem_response(
            429, "rate_limited",
            f"more than {error.description} from this {'API key' if scope == 'key' else 'address'}; "
            f"retry after {wait_s} s",
            headers={"Retry-After": str(wait_s)}, limit=error.description, per=scope,
            retry_after_s=wait_s)

    app.register_error_handler(RateLimitExceeded, too_many_requests)
    return limiter
