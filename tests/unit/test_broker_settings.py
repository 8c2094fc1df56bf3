"""A highly available broker is configured from the environment: Redis through Sentinel
(CELERY_BROKER_URL=sentinel://...;sentinel://... and CARDROOM_BROKER_MASTER_NAME) and
RabbitMQ's quorum queues (CARDROOM_BROKER_QUEUE_TYPE=quorum); a setting that cannot work
stops start-up with one line naming it. The health check and the rate limits follow the
same Sentinel broker (tests/integration/test_sentinel_broker.py runs one)."""
from __future__ import annotations

import pytest
from redis.sentinel import SentinelConnectionPool

from service.broker_urls import Sentinels
from service.config import Config, ConfigError
from service.http.api.health import broker_client
from service.http.rate_limits import storage_options, storage_url

SENTINELS = "sentinel://s1:26379;sentinel://s2:26380;sentinel://s3"


def test_a_sentinel_broker_with_its_master_name_is_read():
    config = Config.from_env({"CELERY_BROKER_URL": SENTINELS, "CARDROOM_BROKER_MASTER_NAME": "cardroom"})
    assert (config.broker_url, config.broker_master_name) == (SENTINELS, "cardroom")
    assert config.broker_queue_type == "classic"


@pytest.mark.parametrize("env, message", [
    ({"CELERY_BROKER_URL": SENTINELS},
     "CARDROOM_BROKER_MASTER_NAME must be set with a sentinel:// CELERY_BROKER_URL"),
    ({"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "CARDROOM_BROKER_MASTER_NAME": "cardroom"},
     "CARDROOM_BROKER_MASTER_NAME='cardroom' is only for a sentinel:// CELERY_BROKER_URL"),
    ({"CELERY_BROKER_URL": "sentinel://s1:26379;redis://r1:6379", "CARDROOM_BROKER_MASTER_NAME": "m"},
     "CELERY_BROKER_URL='sentinel:...' is not a list of sentinels .every part must start with sentinel://"),
    ({"CELERY_BROKER_URL": "sentinel://:secret@s1:26379/cache", "CARDROOM_BROKER_MASTER_NAME": "m"},
     "the database after the first host must be a number"),
    ({"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "CARDROOM_BROKER_QUEUE_TYPE": "quorum"},
     "CARDROOM_BROKER_QUEUE_TYPE=quorum needs a RabbitMQ CELERY_BROKER_URL"),
    ({"CELERY_BROKER_URL": "amqp://guest@r1//", "CARDROOM_BROKER_QUEUE_TYPE": "stream"},
     "CARDROOM_BROKER_QUEUE_TYPE='stream' must be one of classic, quorum"),
    ({"CARDROOM_RATE_LIMIT_STORAGE_URL": "redis+cluster://r1:7000"},
     "must start with cardroom-memory:// or memory:// or redis:// or rediss:// or redis\\+sentinel://"),
])
def test_a_broker_setting_that_cannot_work_is_refused_naming_it(env, message):
    with pytest.raises(ConfigError, match=message) as refused:
        Config.from_env(env)
    assert "secret" not in str(refused.value)


def test_a_missing_master_name_stops_start_up_with_one_line(monkeypatch, capsys):
    from service.config import checked_from_env

    monkeypatch.setenv("CELERY_BROKER_URL", SENTINELS)
    monkeypatch.delenv("CARDROOM_BROKER_MASTER_NAME", raising=False)
    with pytest.raises(SystemExit) as stopped:
        checked_from_env()
    assert stopped.value.code == 3
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and line.startswith("cardroom: cannot start: CARDROOM_BROKER_MASTER_NAME ")


def test_quorum_queues_are_read_for_rabbitmq():
    config = Config.from_env({"CELERY_BROKER_URL": "amqp://u:p@r1//;amqp://u:p@r2//",
                              "CARDROOM_BROKER_QUEUE_TYPE": "Quorum"})
    assert config.broker_queue_type == "quorum"


def test_the_sentinels_and_the_masters_password_and_database_are_read_from_the_url():
    sentinels = Sentinels.of("sentinel://:p%40ss@s1:26379/2;sentinel://s2:26380;sentinel://s3")
    assert sentinels.addresses == (("s1", 26379), ("s2", 26380), ("s3", 26379))
    assert (sentinels.password, sentinels.username, sentinels.db) == ("p@ss", None, 2)
    assert sentinels.limits_url("card room") == "redis+sentinel://:p%40ss@s1:26379,s2:26380,s3:26379/card%20room"


def test_the_rate_limits_count_in_the_sentinel_brokers_master_by_default():
    config = Config.from_env({"CELERY_BROKER_URL": "sentinel://s1:26379/3;sentinel://s2:26379",
                              "CARDROOM_BROKER_MASTER_NAME": "cardroom"})
    url = storage_url(config)
    assert url == "redis+sentinel://s1:26379,s2:26379/cardroom"
    options = storage_options(url, config)
    assert options["db"] == 3  # the broker's database, which limits' sentinel URL cannot say
    assert options["socket_timeout"] == options["sentinel_kwargs"]["socket_timeout"] == 0.5


def test_a_sentinel_storage_of_its_own_is_taken_as_given():
    own = "redis+sentinel://:pw@t1:26379,t2:26379/limits"
    config = Config.from_env({"CELERY_BROKER_URL": SENTINELS, "CARDROOM_BROKER_MASTER_NAME": "cardroom",
                              "CARDROOM_RATE_LIMIT_STORAGE_URL": own})
    assert storage_url(config) == own
    assert "db" not in storage_options(own, config)
    assert storage_url(Config(broker_url="amqp://r1//")) == "cardroom-memory://"


def test_the_health_check_asks_the_sentinels_for_the_master():
    client = broker_client("sentinel://:pw@s1:26379/4;sentinel://s2:26380", "cardroom")
    pool = client.connection_pool
    assert isinstance(pool, SentinelConnectionPool)
    assert pool.service_name == "cardroom"
    assert [(c.connection_pool.connection_kwargs["host"], c.connection_pool.connection_kwargs["port"])
            for c in pool.sentinel_manager.sentinels] == [("s1", 26379), ("s2", 26380)]
    assert (pool.connection_kwargs["password"], pool.connection_kwargs["db"]) == ("pw", 4)
    assert pool.connection_kwargs["socket_timeout"] == 1.0
    assert broker_client("amqp://r1//", None) is None
