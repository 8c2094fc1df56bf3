"""A real Celery worker process consumes from the broker and writes through the store."""
from __future__ import annotations

import signal
import time
import uuid
from pathlib import Path

import pytest

from service.adapters.scheduler import BROKER_TRANSPORT_OPTIONS, LONGEST_TASK_S
from service.config import Config
from workers.celery_app import make_celery

# One worker process for the module: keep its tests on one xdist worker (--dist loadgroup).
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("celery_worker")]

WAIT_S = 30


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for_version(store, stream_id: str, version: int) -> None:
    deadline = time.monotonic() + WAIT_S
    while store.stream_version(stream_id) < version:
        assert time.monotonic() < deadline, f"{stream_id} never reached version {version}"
        time.sleep(0.1)


def test_the_broker_keeps_an_unacked_task_longer_than_the_longest_task_runs():
    assert BROKER_TRANSPORT_OPTIONS["visibility_timeout"] > LONGEST_TASK_S
    conf = make_celery(Config(broker_url="redis://127.0.0.1:1/0")).conf
    assert conf.task_acks_late and conf.worker_prefetch_multiplier == 1
    assert conf.broker_transport_options["unacked_restore_interval"] <= 10


def test_a_worker_registers_a_player_through_the_store_and_ignores_the_redelivery(
    celery_worker, postgres_store, broker_url
):
    sender = make_celery(Config(broker_url=broker_url))
    player_id = str(uuid.uuid4())
    for _ in range(2):  # the same task delivered twice (a broker redelivery)
        sender.send_task(
            "workers.tasks.register_player",
            args=[player_id, "Ann"],
            kwargs={"idempotency_key": f"import-{player_id}"},
        )
    wait_for_version(postgres_store, f"player-{player_id}", 1)
    sender.send_task("workers.tasks.ping")
    celery_worker.wait_until(lambda: celery_worker.succeeded() >= 3,  # both deliveries and the ping
                             "three tasks done")
    events = postgres_store.read_stream(f"player-{player_id}")
    assert [(e.type, e.data["name"], e.metadata["actor"]) for e in events] == [
        ("PlayerRegistered", "Ann", "worker")
    ]
    assert celery_worker.process.poll() is None, celery_worker.text()


def test_signalling_the_main_process_stops_the_worker_and_its_children(celery_worker):
    process = celery_worker.process
    celery_worker.wait_until(celery_worker.pool_pids,  # the pool forks once the worker is up
                             "a prefork worker has pool processes")
    children = celery_worker.pool_pids()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=WAIT_S) == 0, celery_worker.text()
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in children):
        assert time.monotonic() < deadline, f"orphaned pool processes: {children}"
        time.sleep(0.1)
