"""A Redis broker behind Sentinel, as production runs one (README, "The broker."): a worker
on `sentinel://` with CARDROOM_BROKER_MASTER_NAME runs the tasks sent to it, /healthz pings
the master the sentinel names, the rate limits count there; and when the master dies and
the sentinel promotes its replica, the worker, the health check and the senders go on with
the new master, nothing restarted.

Everything runs on servers this test starts on free ports in its own directory (a master, a
replica, a sentinel watching them) and stops by their pids: never the machine's Redis.
"""
from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from service.adapters.embedded import free_port
from service.bootstrap import create_app
from service.config import Config
from tests.integration.conftest import CeleryWorker
from workers.celery_app import make_celery

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("sentinel_broker"),
              pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")]

MASTER_NAME = "cardroom-test"
WAIT_S = 60


def wait_for(condition, what: str, timeout_s: float = WAIT_S):
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            found = condition()
        except (redis.RedisError, OSError):
            found = None
        if found:
            return found
        assert time.monotonic() < deadline, f"{what} never happened"
        time.sleep(0.1)


class RedisServers:
    """The redis-server processes of this test (master, replica, sentinel), by pid."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.processes: dict[str, subprocess.Popen] = {}

    def start(self, name: str, *args: str) -> int:
        port = free_port()
        home = self.directory / name
        home.mkdir()
        with (home / "server.log").open("w") as log:
            self.processes[name] = subprocess.Popen(
                ["redis-server", *args, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(home),
                 "--save", "", "--appendonly", "no"], stdout=log, stderr=subprocess.STDOUT)
        wait_for(lambda: redis.Redis(port=port, socket_timeout=1).ping(), f"{name} answering on {port}")
        return port

    def kill(self, name: str) -> None:
        process = self.processes[name]
        process.kill()
        process.wait()

    def stop_all(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@pytest.fixture
def sentinel_broker(tmp_path: Path) -> Iterator[tuple[RedisServers, int, int, int]]:
    """(servers, master's port, replica's port, sentinel's port)."""
    servers = RedisServers(tmp_path)
    try:
        master = servers.start("master")
        replica = servers.start("replica", "--replicaof", "127.0.0.1", str(master))
        wait_for(lambda: redis.Redis(port=replica).info("replication")["master_link_status"] == "up",
                 "the replica following the master")
        conf = tmp_path / "sentinel.conf"  # the sentinel rewrites it: its own file
        conf.write_text(f"sentinel monitor {MASTER_NAME} 127.0.0.1 {master} 1\n"
                        f"sentinel down-after-milliseconds {MASTER_NAME} 1000\n"
                        f"sentinel failover-timeout {MASTER_NAME} 10000\n")
        sentinel = servers.start("sentinel", str(conf), "--sentinel")
        wait_for(lambda: redis.Redis(port=sentinel).sentinel_slaves(MASTER_NAME),
                 "the sentinel knowing the replica")
        yield servers, master, replica, sentinel
    finally:
        servers.stop_all()


def test_a_worker_on_sentinel_runs_tasks_and_goes_on_after_a_failover(
        sentinel_broker, database_url, tmp_path, monkeypatch):
    servers, master, replica, sentinel = sentinel_broker
    # the second sentinel named is down: kombu and redis-py ask the next one
    url = f"sentinel://127.0.0.1:{free_port()};sentinel://127.0.0.1:{sentinel}"
    monkeypatch.setenv("CARDROOM_BROKER_MASTER_NAME", MASTER_NAME)
    config = Config.from_env({"CELERY_BROKER_URL": url, "CARDROOM_BROKER_MASTER_NAME": MASTER_NAME,
                              "DATABASE_URL": database_url})
    worker = CeleryWorker(tmp_path / "worker", database_url, url)
    try:
        sender = make_celery(config)
        sender.send_task("workers.tasks.ping")
        worker.wait_until(lambda: worker.succeeded("workers.tasks.ping") >= 1, "a ping through Sentinel")
        assert redis.Redis(port=master).exists("_kombu.binding.celery")  # the queue is on the master

        client = create_app(config).test_client()
        health = client.get("/healthz").get_json()
        assert (health["status"], health["broker"]) == ("ok", "ok")
        client.get("/v1/players/nobody")  # counted by the rate limits, in the master
        assert redis.Redis(port=master).keys("LIMITS:*")

        servers.kill("master")
        assert client.get("/healthz").get_json()["broker"] == "down"
        wait_for(lambda: redis.Redis(port=sentinel).sentinel_get_master_addr_by_name(MASTER_NAME)[1]
                 == replica, "the sentinel promoting the replica")
        assert redis.Redis(port=replica).info("replication")["role"] == "master"

        wait_for(lambda: client.get("/healthz").get_json()["broker"] == "ok", "/healthz on the new master",
                 timeout_s=10)
        pinged = worker.succeeded("workers.tasks.ping")
        wait_for(lambda: sender.send_task("workers.tasks.ping") and True, "a send to the new master")
        worker.wait_until(lambda: worker.succeeded("workers.tasks.ping") > pinged,
                          "a ping run after the failover")
        assert worker.process.poll() is None, worker.text()
        connected = [line for line in worker.text().splitlines() if "Connected to" in line]
        assert len(connected) >= 2 and all("broker_transport:SentinelTransport" in line for line in connected), \
            connected  # reconnected on the transport that keeps a lost broker from stopping it
        client.get("/v1/players/nobody")
        assert wait_for(lambda: redis.Redis(port=replica).keys("LIMITS:*"), "a count in the new master", 10)
    finally:
        worker.stop()
