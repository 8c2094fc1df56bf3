"""A real Celery worker process consumes from the broker and writes through the store."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from service.config import Config
from service.store.postgres import PostgresEventStore, open_pool
from workers.celery_app import BROKER_TRANSPORT_OPTIONS, LONGEST_COUNTDOWN_S, make_celery

# One worker process for the module: keep its tests on one xdist worker (--dist loadgroup).
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("celery_worker")]

PROJECT_ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 30


def child_pids(pid: int) -> set[int]:
    children = set()
    for status in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = status.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.add(int(status.parent.name))
    return children


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture(scope="module")
def store(database_url):
    pool = open_pool(database_url, max_size=2)
    yield PostgresEventStore(pool)
    pool.close()


@pytest.fixture(scope="module")
def worker(database_url, broker_url, tmp_path_factory):
    env = {**os.environ, "DATABASE_URL": database_url, "CELERY_BROKER_URL": broker_url}
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker",
             "--concurrency=2", "--loglevel=INFO", "--without-gossip", "--without-mingle"],
            cwd=PROJECT_ROOT, env=env, stdout=output, stderr=subprocess.STDOUT,
        )
    yield process, log
    if process.poll() is None:
        process.kill()
        process.wait()


def wait_for_version(store, stream_id: str, version: int) -> None:
    deadline = time.monotonic() + WAIT_S
    while store.stream_version(stream_id) < version:
        assert time.monotonic() < deadline, f"{stream_id} never reached version {version}"
        time.sleep(0.1)


def test_the_broker_keeps_an_unacked_task_longer_than_the_longest_countdown():
    assert BROKER_TRANSPORT_OPTIONS["visibility_timeout"] > LONGEST_COUNTDOWN_S
    conf = make_celery(Config(broker_url="redis://127.0.0.1:1/0")).conf
    assert conf.task_acks_late and conf.worker_prefetch_multiplier == 1
    assert conf.broker_transport_options["unacked_restore_interval"] <= 10


def test_a_worker_registers_a_player_through_the_store_and_ignores_the_redelivery(
    worker, store, broker_url
):
    process, log = worker
    sender = make_celery(Config(broker_url=broker_url))
    player_id = str(uuid.uuid4())
    for _ in range(2):  # the same task delivered twice (a broker redelivery)
        sender.send_task(
            "workers.tasks.register_player",
            args=[player_id, "Ann"],
            kwargs={"idempotency_key": f"import-{player_id}"},
        )
    wait_for_version(store, f"player-{player_id}", 1)
    sender.send_task("workers.tasks.ping")
    deadline = time.monotonic() + WAIT_S
    while log.read_text().count("succeeded") < 3:  # both deliveries and the ping
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)
    events = store.read_stream(f"player-{player_id}")
    assert [(e.type, e.data["name"], e.metadata["actor"]) for e in events] == [
        ("PlayerRegistered", "Ann", "worker")
    ]
    assert process.poll() is None, log.read_text()


def test_signalling_the_main_process_stops_the_worker_and_its_children(worker):
    process, log = worker
    deadline = time.monotonic() + WAIT_S
    while not (children := child_pids(process.pid)):  # the pool forks once the worker is up
        assert time.monotonic() < deadline, f"a prefork worker has pool processes\n{log.read_text()}"
        time.sleep(0.1)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=WAIT_S) == 0, log.read_text()
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in children):
        assert time.monotonic() < deadline, f"orphaned pool processes: {children}"
        time.sleep(0.1)
