"""An operator sees which server the application reached, whether it is the primary, and
how its replication stands: /healthz, /v1/status and `cardroom status` say it, the
application's own login reads it (migration 0020's `cardroom_replication()`), and with a
multi-host connection string it names the host that answered, not the dead one before it."""
from __future__ import annotations

import socket

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from tests.integration.conftest import ADMIN, ADMIN_KEY, printed_status, with_the_apps_keys

pytestmark = pytest.mark.integration


def served_on(database_url: str, tmp_path) -> object:
    from service.bootstrap import create_app
    from service.config import Config

    return create_app(Config(database_url=database_url, admin_key=ADMIN_KEY, data_dir=with_the_apps_keys(tmp_path))).test_client()


def test_healthz_and_status_name_the_primary_reached_and_its_replication(database_url, tmp_path):
    params = conninfo_to_dict(database_url)
    client = served_on(database_url, tmp_path)
    server = client.get("/healthz").get_json()["database_server"]
    assert (server["host"], str(server["port"])) == (params.get("host"), str(params.get("port")))
    assert server["in_recovery"] is False
    with psycopg.connect(database_url) as connection:
        expected = connection.execute("SELECT count(*) FROM pg_stat_replication").fetchone()[0]
    assert len(server["standbys"]) == expected
    assert server["lag_s"] is None if expected == 0 else server["lag_s"] >= 0
    assert client.get("/v1/status", headers=ADMIN).get_json()["database_server"]["host"] == server["host"]


def test_with_a_dead_first_host_the_host_that_answered_is_named(database_url, tmp_path):
    params = conninfo_to_dict(database_url)
    with socket.socket() as dead:
        dead.bind(("127.0.0.1", 0))
        multi = make_conninfo(database_url, host=f"127.0.0.1,{params['host']}",
                              port=f"{dead.getsockname()[1]},{params['port']}", target_session_attrs="read-write")
        server = served_on(multi, tmp_path).get("/healthz").get_json()["database_server"]
    assert (server["host"], str(server["port"])) == (params["host"], str(params["port"]))


def test_the_application_login_may_read_the_replication_state_and_nothing_else_of_it(database_url):
    with psycopg.connect(database_url, autocommit=True) as app:
        app.execute("SELECT * FROM cardroom_replication()").fetchall()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            app.execute("ALTER FUNCTION cardroom_replication() SECURITY INVOKER")


def test_cardroom_status_prints_the_server_and_its_standbys(database_url, tmp_path, monkeypatch):
    params = conninfo_to_dict(database_url)
    printed = printed_status(database_url, tmp_path, monkeypatch)
    assert f"database: {params['host']}:{params['port']}" in printed and "is the primary" in printed
