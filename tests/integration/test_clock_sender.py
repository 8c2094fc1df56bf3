"""The web app's clock sender (service.bootstrap.broker_scheduler) keeps a producer (and its Redis client) per thread: what it
puts on the broker must be what Celery's own send puts there, and a broker that is down
must still fail each send fast, without breaking the sends after it."""
from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timezone

import pytest
import redis

from domain.live import table
from service.adapters.scheduler import EXPIRE_CLOCK_TASK as EXPIRE_TASK
from service.bootstrap import broker_scheduler
from service.config import Config
from workers.celery_app import make_celery

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("clock_worker")]

QUEUE = "celery"
UNREACHABLE_BROKER = "redis://127.0.0.1:1/0"


def send(broker_url: str):
    """What the web app does after an append that started a clock."""
    return broker_scheduler(Config(broker_url=broker_url)).expire_clock_at_deadline


def _clock() -> table.ClockStarted:
    return table.ClockStarted("hand-1", 2, "p2", int(time.time() * 1000) + 3_600_000)


def _comparable(raw: bytes) -> dict:
    """A queued message without what differs from one send to the next (its ids, the
    sending app's reply queue)."""
    message = json.loads(raw)
    headers = {k: v for k, v in message["headers"].items() if k not in ("id", "root_id")}
    properties = {k: v for k, v in message["properties"].items()
                  if k not in ("correlation_id", "delivery_tag", "reply_to")}
    return {**message, "headers": headers, "properties": properties}


@pytest.fixture
def queue(broker_url):
    broker = redis.Redis.from_url(broker_url)
    broker.delete(QUEUE)
    yield broker
    broker.delete(QUEUE)


def test_the_kept_producer_sends_what_celery_sends(broker_url, queue):
    clock = _clock()
    send(broker_url)("2f0c3c1e-8f4c-4a49-9a36-1c3f4b0d9e11", 7, clock)
    # Celery's own send, its defaults untouched (its pool's producer, its saferepr of the args).
    make_celery(Config(broker_url=broker_url)).send_task(
        EXPIRE_TASK, args=["2f0c3c1e-8f4c-4a49-9a36-1c3f4b0d9e11", 7, clock.hand_id, clock.seat,
                           clock.deadline_at_ms],
        eta=datetime.fromtimestamp(clock.deadline_at_ms / 1000, tz=timezone.utc), retry=False)
    kept, pooled = (_comparable(raw) for raw in queue.lrange(QUEUE, 0, -1))
    assert kept == pooled
    assert kept["headers"]["task"] == "workers.clock_tasks.expire_clock"


def test_each_thread_sends_on_its_own_producer(broker_url, queue):
    send_clock = send(broker_url)
    threads = [threading.Thread(target=lambda: [send_clock("table-1", v, _clock()) for v in range(20)])
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert queue.llen(QUEUE) == 80


def test_a_broker_that_is_down_fails_every_send_fast():
    send_clock = send(UNREACHABLE_BROKER)
    for _ in range(3):
        began = time.monotonic()
        with pytest.raises(Exception):  # noqa: B017 - kombu's or redis-py's connection error
            send_clock("table-1", 1, _clock())
        assert time.monotonic() - began < 1.5
