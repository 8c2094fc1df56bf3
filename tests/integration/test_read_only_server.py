"""A write that reaches a server refusing writes (a standby: a primary demoted under an
open connection, or a connection string without target_session_attrs=read-write that
landed on one) is a 503 `database_unavailable` with Retry-After, as a lost connection is,
never a 500; reads still answer."""
from __future__ import annotations

import pytest

from service.adapters.connection_strings import with_server_option
from tests.integration.conftest import ADMIN, ADMIN_KEY, assert_problem, with_the_apps_keys

pytestmark = pytest.mark.integration


def test_a_write_refused_as_read_only_is_a_503_to_retry(own_database, tmp_path):
    from service.bootstrap import create_app
    from service.config import Config

    read_only = with_server_option(own_database[1], "-c default_transaction_read_only=on")
    client = create_app(Config(database_url=read_only, admin_key=ADMIN_KEY, data_dir=with_the_apps_keys(tmp_path))).test_client()
    refused = client.post("/v1/players", json={"name": "Ann"}, headers=ADMIN)
    body = assert_problem(refused, 503, "database_unavailable")
    assert refused.headers["Retry-After"].isdigit(), body
    assert client.get("/v1/tables", headers=ADMIN).status_code == 200
