"""A database named as libpq names it: a primary behind a dead first host (the multi-host
URL a Patroni cluster is reached by) and key=value pairs. The migrations, the roles' set-up
and the application all connect with the string as given; a table is served on it."""
from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from tests.integration.conftest import ADMIN, ADMIN_KEY, register_players, with_the_apps_keys

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def dead_port() -> Iterator[int]:
    """A port bound but never listened on while the tests run: a connection is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


def _server(admin_database_url: str) -> tuple[str, str, dict[str, str]]:
    params = {k: str(v) for k, v in conninfo_to_dict(admin_database_url).items()}
    return params.get("host") or "127.0.0.1", params.get("port") or "5432", params


def multi_host_url(admin_database_url: str, dead_port: int) -> str:
    """postgresql://user@127.0.0.1:<dead>,<host>:<port>/<db>?target_session_attrs=read-write"""
    host, port, params = _server(admin_database_url)
    login = params.get("user", "")
    if params.get("password"):
        login += ":" + params["password"]
    return (f"postgresql://{login}@127.0.0.1:{dead_port},{host}:{port}/{params['dbname']}"
            "?target_session_attrs=read-write")


def keyword_string(admin_database_url: str, dead_port: int) -> str:
    host, port, params = _server(admin_database_url)
    return make_conninfo(admin_database_url, host=f"127.0.0.1,{host}", port=f"{dead_port},{port}",
                         target_session_attrs="read-write")


@pytest.mark.parametrize("form", [multi_host_url, keyword_string])
def test_a_database_behind_a_dead_first_host_is_migrated_and_serves_a_table(
        form, admin_database_url, dead_port, tmp_path):
    from service.bootstrap import create_app
    from service.config import Config
    from tests.conftest import _fresh_database_on

    server = form(admin_database_url, dead_port)
    assert Config.from_env({"DATABASE_URL": server}).database_url == server
    fresh = _fresh_database_on(server)  # creates, migrates (alembic), sets up the login role
    admin_url, app_url = next(fresh)
    try:
        for derived in (admin_url, app_url):
            assert conninfo_to_dict(derived)["port"].startswith(f"{dead_port},")
        client = create_app(Config(database_url=app_url, admin_key=ADMIN_KEY, data_dir=with_the_apps_keys(tmp_path))).test_client()
        health = client.get("/healthz")
        assert health.status_code == 200, health.get_data(as_text=True)
        players = register_players(client, "Ann", "Bob")
        table = client.post("/v1/tables", headers=ADMIN, json={
            "game": "holdem", "settings": {}, "ranked": False, "action_clock_s": None,
            "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
            "seats": [{"player_id": p, "stack": 10000} for p in players]})
        assert table.status_code == 201, table.get_data(as_text=True)
        table_id = table.get_json()["id"]
        dealt = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
        assert dealt.status_code == 201, dealt.get_data(as_text=True)
        view = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
        assert view["version"] == dealt.get_json()["version"] and view["hand"]["id"] == f"{table_id}.1"
    finally:
        fresh.close()
