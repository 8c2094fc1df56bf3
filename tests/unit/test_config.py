"""The configuration is checked at start-up: a wrong value is named with what it should be."""
from __future__ import annotations

import pytest

from service.config import Config, ConfigError


@pytest.mark.parametrize("name, value, message", [
    ("PORT", "80a", "PORT='80a' is not a whole number"),
    ("PORT", "70000", "PORT='70000' must be between 1 and 65535"),
    ("CARDROOM_DB_POOL_SIZE", "0", "CARDROOM_DB_POOL_SIZE='0' must be between 1 and 1000"),
    ("CARDROOM_REQUEST_READ_TIMEOUT_S", "soon", "is not a number"),
    ("CARDROOM_LOG_FORMAT", "xml", "must be one of json, text"),
    ("CARDROOM_LOG_LEVEL", "loud", "must be one of DEBUG, INFO, WARNING, ERROR"),
    ("CARDROOM_RATE_LIMIT_PER_KEY", "lots", "is not a rate limit"),
    ("DATABASE_URL", "mysql://root:secret@db/x", "DATABASE_URL is not a PostgreSQL connection string"),
    ("APP_DATABASE_URL", "host=db colour=blue", r'invalid connection option "\.\.\."'),
    ("DATABASE_URL", "postgresql://u@db1:5432,db2:x/cardroom", "port 'x' is not a number"),
])
def test_a_wrong_value_is_refused_naming_the_variable(name, value, message):
    with pytest.raises(ConfigError, match=message):
        Config.from_env({name: value})


@pytest.mark.parametrize("value", ["mysql://root:secret@db/x", "host=db password=not secret"])
def test_a_refused_connection_string_does_not_repeat_its_password(value):
    with pytest.raises(ConfigError) as refused:
        Config.from_env({"DATABASE_URL": value})
    assert "secret" not in str(refused.value)


@pytest.mark.parametrize("value", [
    "postgresql://postgres@127.0.0.1:1,127.0.0.1:5432/db?target_session_attrs=read-write",
    "host=127.0.0.1,127.0.0.1 port=1,5432 dbname=db target_session_attrs=read-write",
    "postgresql://",  # everything from PGHOST, PGDATABASE...
    "service=cardroom",  # from PGSERVICEFILE
])
def test_every_connection_string_libpq_takes_is_accepted(value):
    assert Config.from_env({"DATABASE_URL": value, "APP_DATABASE_URL": value}).database_url == value


def test_the_defaults_and_readable_values():
    config = Config.from_env({"CARDROOM_LOG_LEVEL": "debug", "CARDROOM_RATE_LIMIT_PER_KEY": "",
                              "CARDROOM_RATE_LIMIT_PER_ADDRESS": "5000 per minute;100/second"})
    assert config.log_level == "DEBUG" and config.log_format == "json"
    assert config.rate_limit_per_key == ""
    assert config.rate_limit_per_address == "5000 per minute;100/second"
    assert Config.from_env({}) == Config()


def test_a_server_with_a_wrong_value_stops_with_one_line_naming_it(monkeypatch, capsys):
    from service.config import checked_from_env

    monkeypatch.setenv("CARDROOM_LOG_FORMAT", "yaml")
    with pytest.raises(SystemExit) as stopped:
        checked_from_env()
    assert stopped.value.code == 3
    assert capsys.readouterr().err == (
        "cardroom: cannot start: CARDROOM_LOG_FORMAT='yaml' must be one of json, text\n")
