"""kombu's Redis transport, with a worker that survives losing the broker while it holds
an unacknowledged task.

When a worker's connection to Redis breaks, Celery closes it, and kombu's channel then
tries to put the tasks it holds unacknowledged back on their queue (`acks_late`: a task
is acknowledged after it runs, and beat's sweep runs every second, so there nearly always
is one). That needs Redis, which is what just went away; kombu 5.7 fails there with an
AttributeError, which Celery takes as unrecoverable: the worker stopped, with its clock
watch and tournament manager, until something started it again, and it then waited for
the broker before starting them. Nothing is lost by not putting them back at that moment:
kombu keeps every unacknowledged message in Redis itself, and they come back on their
queue after the visibility timeout (service.adapters.scheduler), as for a worker killed.
A Redis reached through Sentinel (a sentinel:// URL) is the same Redis, with the same
channel and QoS underneath: it gets the same protection (SentinelTransport), kept across
reconnections by `on_the_same_transport`.
"""
from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from kombu.transport import redis

from service import broker_urls

log = logging.getLogger(__name__)


class QoS(redis.QoS):
    def restore_unacked_once(self, stderr: Any = None) -> None:
        try:
            super().restore_unacked_once(stderr)
        except Exception:  # noqa: BLE001 - kombu's own failure; the messages are safe in Redis
            log.warning("Could not put the unacknowledged tasks back on their queue now; they come "
                        "back after the visibility timeout", exc_info=True)


class Channel(redis.Channel):
    QoS = QoS


class Transport(redis.Transport):
    Channel = Channel


class SentinelChannel(redis.SentinelChannel):
    QoS = QoS


class SentinelTransport(redis.SentinelTransport):
    Channel = SentinelChannel


TRANSPORT = f"{__name__}:Transport"
"""Celery's `broker_transport` for a redis:// or rediss:// broker URL."""
SENTINEL_TRANSPORT = f"{__name__}:SentinelTransport"
"""Celery's `broker_transport` for a sentinel:// broker URL."""


def settings(broker_url: str | None) -> dict[str, Any]:
    """The Celery `broker_transport` setting for `broker_url`: this module's for Redis, none
    (kombu's own, from the URL's scheme) for the others."""
    if broker_urls.is_redis(broker_url):
        return {"broker_transport": TRANSPORT}
    if broker_urls.is_sentinel(broker_url):
        return {"broker_transport": SENTINEL_TRANSPORT, "broker_failover_strategy": on_the_same_transport}
    return {}


def on_the_same_transport(sentinel_urls: list[str]) -> Iterator[str]:
    """kombu's failover strategy for a Sentinel broker: reconnect through the same sentinels,
    on this module's transport. On a lost connection kombu switches to the next of the URLs
    `;` separates, and a URL it switches to names its transport by its scheme: from then on
    the worker ran kombu's own SentinelTransport, without the QoS above (seen in
    tests/integration/test_sentinel_broker.py: "Connected to sentinel://..." after a
    failover). Nothing is lost by not cycling: every connection asks all the sentinels
    in turn (kombu's SentinelChannel reads them all from the URL), and a host without a
    scheme keeps the transport the connection was made with."""
    return itertools.repeat(urlsplit(sentinel_urls[0]).hostname or "")
