"""A primary and a real streaming standby (the embedded PostgreSQL's own binaries,
`pg_basebackup -R`), without Patroni: what the application shows of them, what it does
on the standby, and how its pool finds the new primary after a failover by itself.

- /v1/status, reached through a multi-host string listing the standby first, names the
  primary and its synchronous standby streaming, with the lag;
- on the standby alone a write is a 503 to retry (read-only), and /healthz says in recovery;
- the primary killed (SIGKILL) and the standby promoted, the same app (its string lists
  both nodes, target_session_attrs=read-write) answers only 201s and 503s, and writes
  again on the new primary without a restart."""
from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from service.adapters.embedded.postgres import EmbeddedPostgres, _namespace_prefix, binaries_dir
from tests.integration.conftest import ADMIN, ADMIN_KEY, assert_problem

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("standby_failover")]

SETTINGS = {"fsync": "off", "full_page_writes": "off"}
FAILOVER_WITHIN_S = 30


@dataclass
class Cluster:
    primary: EmbeddedPostgres
    standby: EmbeddedPostgres

    def conninfo(self, *nodes: EmbeddedPostgres, dbname: str = "postgres", **extra: str) -> str:
        ports = ",".join(str(node.port) for node in nodes)
        hosts = ",".join("127.0.0.1" for _ in nodes)
        return psycopg.conninfo.make_conninfo(host=hosts, port=ports, user="postgres", dbname=dbname, **extra)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """The primary, then its standby from a base backup, then the standby made synchronous."""
    scratch = tmp_path_factory.mktemp("cluster")
    primary = EmbeddedPostgres(scratch / "primary", settings=SETTINGS)
    primary.start()
    standby = EmbeddedPostgres(scratch / "standby", settings=SETTINGS)
    try:
        _base_backup(primary, scratch / "standby")
        standby.start()
        with psycopg.connect(primary.url, autocommit=True) as admin:
            admin.execute("ALTER SYSTEM SET synchronous_standby_names = '*'")
            admin.execute("SELECT pg_reload_conf()")
            _wait_for(lambda: admin.execute("SELECT sync_state FROM pg_stat_replication").fetchone() == ("sync",),
                      "the standby to stream synchronously")
        yield Cluster(primary, standby)
    finally:
        standby.stop()
        primary.stop()


def _base_backup(primary: EmbeddedPostgres, target: Path) -> None:
    completed = subprocess.run(
        [*_namespace_prefix(), str(binaries_dir() / "pg_basebackup"), "-D", str(target),
         "-d", f"host=127.0.0.1 port={primary.port} user=postgres application_name=standby1",
         "-R", "-X", "stream", "-c", "fast", "--no-sync"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr


def _wait_for(condition: Any, what: str, within_s: float = 20) -> None:
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, f"waited {within_s} s for {what}"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def database(cluster: Cluster) -> Iterator[tuple[str, str]]:
    """(admin, application) strings of a migrated database, both listing the standby first."""
    from tests.conftest import _fresh_database_on

    yield from _fresh_database_on(cluster.conninfo(cluster.standby, cluster.primary, target_session_attrs="read-write"))


def app_on(conninfo: str, tmp_path: Path) -> Any:
    from service.bootstrap import create_app
    from service.config import Config

    return create_app(Config(database_url=conninfo, admin_key=ADMIN_KEY, data_dir=tmp_path)).test_client()


def test_status_names_the_primary_and_its_synchronous_standby(cluster, database, tmp_path):
    server = app_on(database[1], tmp_path).get("/v1/status", headers=ADMIN).get_json()["database_server"]
    assert (server["port"], server["in_recovery"]) == (cluster.primary.port, False)
    assert server["synchronous_standbys"] == 1
    [standby] = server["standbys"]
    assert (standby["application_name"], standby["client_addr"], standby["state"], standby["sync_state"]) == (
        "standby1", "127.0.0.1", "streaming", "sync")
    assert server["lag_s"] is not None and server["lag_s"] >= 0 and server["lag_bytes"] >= 0


def test_on_the_standby_a_write_is_a_503_and_health_says_in_recovery(cluster, database, tmp_path):
    on_standby = psycopg.conninfo.make_conninfo(database[1], host="127.0.0.1", port=str(cluster.standby.port),
                                                target_session_attrs="any")
    client = app_on(on_standby, tmp_path)
    health = client.get("/healthz").get_json()
    assert (health["database_server"]["port"], health["database_server"]["in_recovery"]) == (cluster.standby.port, True)
    assert health["database_server"]["lag_s"] is not None
    refused = client.post("/v1/players", json={"name": "Ann"}, headers=ADMIN)
    assert_problem(refused, 503, "database_unavailable")
    assert client.get("/v1/tables", headers=ADMIN).status_code == 200


def test_after_the_primary_dies_and_the_standby_is_promoted_the_app_writes_on_it(cluster, database, tmp_path):
    client = app_on(database[1], tmp_path)
    first = client.post("/v1/players", json={"name": "Before"}, headers=ADMIN)
    assert first.status_code == 201, first.get_data(as_text=True)
    promoted_port = cluster.standby.port

    cluster.primary.stop(how=signal.SIGKILL)
    with psycopg.connect(cluster.standby.url, autocommit=True) as standby:
        assert standby.execute("SELECT pg_promote(true, 30)").fetchone() == (True,)

    answers: list[int] = []
    deadline = time.monotonic() + FAILOVER_WITHIN_S
    while not answers or answers[-1] != 201:
        assert time.monotonic() < deadline, f"no write on the new primary within {FAILOVER_WITHIN_S} s: {answers}"
        answer = client.post("/v1/players", json={"name": f"After {len(answers)}"}, headers=ADMIN)
        answers.append(answer.status_code)
        if answer.status_code == 503:
            assert answer.headers["Retry-After"].isdigit()
            time.sleep(0.2)
    assert set(answers) <= {201, 503}, answers
    server = client.get("/healthz").get_json()["database_server"]
    assert (server["port"], server["in_recovery"]) == (promoted_port, False)
    player = client.get(f"/v1/players/{first.get_json()['id']}", headers=ADMIN)
    assert player.status_code == 200, "the write acknowledged before the failover is on the new primary"
