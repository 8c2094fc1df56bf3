"""What the application and its workers count (Prometheus), apart from the web's /metrics
(service.http.metrics, which serves these with its own): a Celery worker counts here
without loading Flask. The store's counters are kept by service.adapters.store.metered
(every store the app and the workers open) and named here for the problem handler."""
from __future__ import annotations

from prometheus_client import Histogram

from service.adapters.store.metered import VERSION_CONFLICTS

__all__ = ["CLOCK_LATENESS", "VERSION_CONFLICTS"]

CLOCK_LATENESS = Histogram(
    "cardroom_clock_lateness_seconds", "How long after its deadline an action clock was expired",
    ["path"], buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0))
