"""RabbitMQ with quorum queues (CARDROOM_BROKER_QUEUE_TYPE=quorum): the worker declares
Celery's queue as a quorum queue, takes its prefetch per consumer (quorum queues refuse a
global QoS), and runs what the web app's sender sends, which declares the queue the same
way (RabbitMQ refuses a queue declared again with another type).

On the machine's RabbitMQ, in a virtual host of this test's own, made and deleted with
rabbitmqctl: nothing of another vhost is touched.
"""
from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator

import pytest

from service.adapters.scheduler import sender
from service.bootstrap import create_app
from service.config import Config
from tests.integration.conftest import CeleryWorker

RABBITMQ = "127.0.0.1:5672"


def rabbitmqctl(*args: str) -> str:
    return subprocess.run(["rabbitmqctl", "-q", *args], check=True, capture_output=True, text=True,
                          timeout=60).stdout


def rabbitmq_reachable() -> bool:
    if shutil.which("rabbitmqctl") is None:
        return False
    try:
        rabbitmqctl("list_vhosts")
    except (subprocess.SubprocessError, OSError):
        return False
    return True


pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("quorum_queues"),
              pytest.mark.skipif(not rabbitmq_reachable(), reason="needs RabbitMQ and rabbitmqctl")]


@pytest.fixture
def own_vhost() -> Iterator[str]:
    vhost = f"cardroom-test-{uuid.uuid4().hex[:12]}"
    rabbitmqctl("add_vhost", vhost)
    try:
        rabbitmqctl("set_permissions", "-p", vhost, "guest", ".*", ".*", ".*")
        yield vhost
    finally:
        rabbitmqctl("delete_vhost", vhost)


def test_a_worker_on_quorum_queues_runs_what_the_web_app_sends(own_vhost, database_url, tmp_path, monkeypatch):
    url = f"amqp://guest:guest@{RABBITMQ}/{own_vhost}"
    monkeypatch.setenv("CARDROOM_BROKER_QUEUE_TYPE", "quorum")
    config = Config.from_env({"CELERY_BROKER_URL": url, "CARDROOM_BROKER_QUEUE_TYPE": "quorum",
                              "DATABASE_URL": database_url})
    worker = CeleryWorker(tmp_path / "worker", database_url, url)
    try:
        queues = dict(line.split("\t") for line in rabbitmqctl("list_queues", "-p", own_vhost, "--no-table-headers",
                                                               "name", "type").splitlines())
        assert queues["celery"] == "quorum"
        assert "Global QoS is disabled" in worker.text()  # per consumer: quorum queues refuse a global one
        assert "native delayed delivery do not support" not in worker.text()  # a topic exchange

        web_sender = sender(config.broker_url, queue_type=config.broker_queue_type)
        web_sender.send_task("workers.tasks.ping", retry=False, confirm_timeout=5)  # confirmed by RabbitMQ
        worker.wait_until(lambda: worker.succeeded("workers.tasks.ping") >= 1, "a ping through a quorum queue")
        assert worker.process.poll() is None, worker.text()

        health = create_app(config).test_client().get("/healthz").get_json()
        assert (health["status"], health["broker"]) == ("ok", "ok")
    finally:
        worker.stop()
