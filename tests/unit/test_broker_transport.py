"""A worker that loses the broker while it holds an unacknowledged task goes on
(service.adapters.broker_transport). Seen in tests/integration/test_broker_outage.py with
kombu 5.7: closing the broken connection tried to put the task back on the queue, which
needs the broker, and failed with `AttributeError: 'NoneType' object has no attribute
'hostname'`; Celery logged "Unrecoverable error" and stopped the worker."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from kombu.transport import redis

from service.adapters import broker_transport
from service.adapters.scheduler import broker_settings, sender


class Delivered(dict):
    """The QoS's record of the messages delivered and not yet acknowledged."""


def holding_a_task(qos_class: type) -> redis.QoS:
    """A channel's QoS, without a connection, holding one unacknowledged task."""
    qos = qos_class.__new__(qos_class)
    qos._delivered = Delivered({"tag": "a task"})
    qos._on_collect = SimpleNamespace(cancel=lambda: None)
    qos._flush = lambda: None
    qos.restore_at_shutdown = True
    qos.channel = SimpleNamespace(do_restore=True)
    return qos


def test_putting_back_unacknowledged_tasks_on_a_lost_broker_does_not_stop_the_worker(monkeypatch):
    def broker_gone(self) -> None:
        raise AttributeError("'NoneType' object has no attribute 'hostname'")

    monkeypatch.setattr(redis.QoS, "restore_unacked", broker_gone)
    with pytest.raises(AttributeError):  # kombu's own: Celery takes it as unrecoverable
        holding_a_task(redis.QoS).restore_unacked_once()
    holding_a_task(broker_transport.QoS).restore_unacked_once()  # logged; the task stays in Redis


def test_a_redis_broker_url_takes_this_transport_and_others_keep_theirs():
    assert broker_settings("redis://127.0.0.1:6379/3")["broker_transport"] == broker_transport.TRANSPORT
    assert broker_settings("rediss://cache:6380/0")["broker_transport"] == broker_transport.TRANSPORT
    assert "broker_transport" not in broker_settings("amqp://guest@rabbit//")
    connection = sender("redis://127.0.0.1:1/0").connection_for_write()
    assert isinstance(connection.transport, broker_transport.Transport)


def test_a_sentinel_broker_takes_the_same_protection_and_its_master_name():
    url = "sentinel://s1:26379;sentinel://s2:26379/0"
    settings = broker_settings(url, "cardroom")
    assert settings["broker_transport"] == broker_transport.SENTINEL_TRANSPORT
    assert settings["broker_transport_options"]["master_name"] == "cardroom"
    # the sentinels too answer within the timeouts, not kombu's none
    assert settings["broker_transport_options"]["sentinel_kwargs"] == {"socket_timeout": 30,
                                                                      "socket_connect_timeout": 5}
    connection = sender(url, "cardroom").connection_for_write()
    assert isinstance(connection.transport, broker_transport.SentinelTransport)
    assert connection.transport.Channel.QoS is broker_transport.QoS
    assert [alternative.split("/")[2] for alternative in connection.alt] == ["s1:26379", "s2:26379"]
    connection.maybe_switch_next()  # as on a lost connection: still this transport, all sentinels
    assert isinstance(connection.transport, broker_transport.SentinelTransport)
    assert (connection.hostname, connection.port, len(connection.alt)) == ("s1", 26379, 2)
    options = connection.transport_options
    assert (options["master_name"], options["socket_timeout"], options["max_retries"]) == ("cardroom", 0.5, 0)
    assert options["sentinel_kwargs"]["socket_connect_timeout"] == 0.5


def test_quorum_queues_declare_celerys_queue_as_quorum_with_per_consumer_prefetch():
    from celery.utils.quorum_queues import detect_quorum_queues

    from service.config import Config
    from workers.celery_app import make_celery

    url = "amqp://guest:guest@rabbit1//;amqp://guest:guest@rabbit2//"
    quorum = make_celery(Config(broker_url=url, broker_queue_type="quorum"))
    assert quorum.conf.task_default_queue_type == "quorum"
    assert quorum.conf.task_create_missing_queue_type == "quorum"
    assert quorum.conf.worker_detect_quorum_queues is True
    assert quorum.conf.worker_prefetch_multiplier == 1
    assert quorum.conf.task_default_exchange_type == "topic"  # native delayed delivery refuses direct
    assert quorum.conf.broker_transport_options["confirm_publish"] is True
    assert quorum.amqp.queues["celery"].queue_arguments == {"x-queue-type": "quorum"}
    assert detect_quorum_queues(quorum, "amqp") == (True, "celery")  # so no global QoS
    # the web app's sender declares the queue it sends to with the same type
    web = sender(url, queue_type="quorum")
    assert web.amqp.queues["celery"].queue_arguments == {"x-queue-type": "quorum"}
    assert web.conf.broker_transport_options["confirm_publish"] is True
    classic = make_celery(Config(broker_url=url))
    assert not classic.amqp.queues["celery"].queue_arguments
    assert "confirm_publish" not in classic.conf.broker_transport_options
    assert detect_quorum_queues(classic, "amqp") == (False, "")
