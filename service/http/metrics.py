"""Prometheus metrics: what `/metrics` tells, and the names other modules count with.

Hook in by importing the metric and counting where the thing happens:
    from service.http.metrics import OPEN_STREAMS
    OPEN_STREAMS.inc() / OPEN_STREAMS.dec()   # an SSE stream opened / closed
Appends, lost races and the store's idempotent replays are counted by the store
(service.adapters.store.metered, every store the app and the workers open), 409s by the
problem handler, request latencies by the app, clock lateness by the clock worker
(service.application.metrics holds what the application and the workers count).

Under gunicorn's several workers (and with the Celery processes) the numbers are kept
in files in PROMETHEUS_MULTIPROC_DIR (prometheus-client's multiprocess mode; `make run`
sets it) and `/metrics` adds up every process's. Without it, each process tells its own.
Gauges of the moment (readiness, queue depth) are measured when scraped.
"""
from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

# Registered with prometheus-client's registry on import, so /metrics serves them too (the
# store's counters with them).
from service.application import metrics as application_metrics  # noqa: F401

REQUEST_SECONDS = Histogram(
    "cardroom_http_request_duration_seconds", "Time to answer a request, by route and status",
    ["route", "method", "status"],
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0))
OPEN_STREAMS = Gauge("cardroom_open_streams", "Event streams (SSE) open now",
                     multiprocess_mode="livesum")
POOL_CONNECTIONS = Gauge("cardroom_db_pool_connections",
                         "Database connections of the web workers' pools, open and idle",
                         ["state"], multiprocess_mode="livesum")
POOL_WAITING = Gauge("cardroom_db_pool_waiting", "Requests waiting for a database connection",
                     multiprocess_mode="livesum")

POOL_SAMPLE_EVERY_S = 1.0
CELERY_QUEUE = "celery"


class _Readiness(Collector):
    """Measured at each scrape: /healthz's answer as gauges, and the Celery queue depth."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from service.http.api import health

        database, broker = health.database_state(), health.broker_state()
        status = health.overall(database, broker)
        ready = GaugeMetricFamily("cardroom_health", "/healthz: 1 for the status it answers now",
                                  labels=["status"])
        for state in ("ok", "degraded", "down"):
            ready.add_metric([state], 1.0 if state == status else 0.0)
        yield ready
        up = GaugeMetricFamily("cardroom_dependency_up", "1 when the dependency answers",
                               labels=["dependency"])
        up.add_metric(["database"], 1.0 if database == "ok" else 0.0)
        up.add_metric(["broker"], 1.0 if broker == "ok" else 0.0)
        yield up
        depth = health.queue_depth(CELERY_QUEUE) if broker == "ok" else None
        if depth is not None:
            yield GaugeMetricFamily("cardroom_celery_queue_depth",
                                    "Tasks waiting in the Celery queue (not those held for an ETA)",
                                    value=float(depth))


def _registry() -> CollectorRegistry:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry = CollectorRegistry(auto_describe=True)
        registry.register(_ThisProcess())
    registry.register(_Readiness())
    return registry


class _ThisProcess(Collector):
    def collect(self) -> Iterable[Any]:
        return REGISTRY.collect()


def metrics_view() -> Response:
    """`GET /metrics`: Prometheus' text format (no key: it tells counts, never cards)."""
    return Response(generate_latest(_registry()), mimetype=CONTENT_TYPE_LATEST)


class _RequestMetrics:
    """The after-request hook: the request's latency, and the pool's counts at most once
    a second per process (get_stats takes the pool's lock)."""

    def __init__(self) -> None:
        self._pool_sampled_at = 0.0
        # The histogram's child per (route, method, status), found here by one dict lookup
        # rather than by `labels` (which takes the metric's lock and checks the names).
        self._latencies: dict[tuple[str, str, int], Any] = {}

    def __call__(self, response: Response) -> Response:
        # The objects behind Flask's proxies: an attribute read through a proxy first misses
        # on the proxy, which raises and formats an AttributeError (issue 37).
        started = g._get_current_object().get("request_started")
        if started is not None:
            served = request._get_current_object()  # type: ignore[attr-defined]  # one proxy lookup
            route = served.url_rule.rule if served.url_rule else "unmatched"
            labels = (route, served.method, response.status_code)
            latencies = self._latencies.get(labels)
            if latencies is None:
                latencies = self._latencies[labels] = REQUEST_SECONDS.labels(route, labels[1], str(labels[2]))
            latencies.observe(time.perf_counter() - started)
        now = time.monotonic()
        if now - self._pool_sampled_at >= POOL_SAMPLE_EVERY_S:
            self._pool_sampled_at = now
            self._sample_pool()
        return response

    @staticmethod
    def _sample_pool() -> None:
        from service.http.api import resources

        pool = resources().pool
        if pool is None:
            return
        stats = pool.get_stats()
        POOL_CONNECTIONS.labels("open").set(stats.get("pool_size", 0))
        POOL_CONNECTIONS.labels("idle").set(stats.get("pool_available", 0))
        POOL_WAITING.set(stats.get("requests_waiting", 0))


def install(app: Flask) -> None:
    app.add_url_rule("/metrics", "metrics", metrics_view, methods=["GET"])
    app.after_request(_RequestMetrics())
