"""The embedded PostgreSQL and Redis launchers start, serve, stop, and never leave a
server behind, even when their owner is killed with SIGKILL.

These start real processes (a few seconds in all); they need no database fixture.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import psycopg
import pytest

from service.adapters.embedded.broker import EmbeddedBroker
from service.adapters.embedded.postgres import FAST_UNSAFE_SETTINGS, EmbeddedPostgres, EmbeddedPostgresUnavailable

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def wait_for_exit(pids: list[int], timeout_s: float = 15.0) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def server_tree(pid: int) -> list[int]:
    return [pid] + [c.pid for c in psutil.Process(pid).children(recursive=True)]


def test_postgres_serves_keeps_its_data_across_restarts_and_leaves_no_process(tmp_path):
    server = EmbeddedPostgres(tmp_path / "data", settings=FAST_UNSAFE_SETTINGS)
    with server as url:
        assert url.startswith("postgresql://postgres@127.0.0.1:")
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("CREATE TABLE kept (n int)")
            connection.execute("INSERT INTO kept VALUES (42)")
        processes = server_tree(server.pid)
        assert len(processes) > 1  # the postmaster and its helpers
    assert wait_for_exit(processes, timeout_s=0.5) == []

    # A postmaster.pid left by a server that died must not block the next start.
    (tmp_path / "data" / "postmaster.pid").write_text("999999\n")
    with server as url:
        with psycopg.connect(url) as connection:
            assert connection.execute("SELECT n FROM kept").fetchone() == (42,)
        processes = server_tree(server.pid)
    assert wait_for_exit(processes, timeout_s=0.5) == []


def test_postgres_listens_on_loopback_tcp_only(tmp_path):
    with EmbeddedPostgres(tmp_path / "data", settings=FAST_UNSAFE_SETTINGS) as url, psycopg.connect(url) as connection:
        settings = dict(
            connection.execute(
                "SELECT name, setting FROM pg_settings"
                " WHERE name IN ('listen_addresses', 'unix_socket_directories')"
            ).fetchall()
        )
    assert settings == {"listen_addresses": "127.0.0.1", "unix_socket_directories": ""}


def _owner_script(launcher: str) -> str:
    return "\n".join(
        [
            "import sys, time",
            "from pathlib import Path",
            f"sys.path.insert(0, {str(PROJECT_ROOT)!r})",
            launcher,
            "server.start()",
            "print(server.pid, flush=True)",
            "time.sleep(120)",
        ]
    )


@pytest.mark.parametrize(
    "launcher",
    [
        "from service.adapters.embedded.postgres import EmbeddedPostgres as Server\n"
        "server = Server(Path(sys.argv[1]) / 'data')",
        "from service.adapters.embedded.broker import EmbeddedBroker as Server\n"
        "server = Server(Path(sys.argv[1]) / 'broker')",
    ],
    ids=["postgres", "redis"],
)
def test_a_server_dies_with_its_owner_killed_by_sigkill(tmp_path, launcher):
    owner = subprocess.Popen(
        [sys.executable, "-c", _owner_script(launcher), str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        server_pid = int(owner.stdout.readline())
        processes = server_tree(server_pid)
        owner.send_signal(signal.SIGKILL)
        owner.wait()
        assert wait_for_exit(processes) == []
    finally:
        owner.kill()
        owner.wait()
        owner.stdout.close()


def test_broker_serves_redis_on_loopback_tcp_and_leaves_no_process(tmp_path):
    import redis

    broker = EmbeddedBroker(tmp_path / "broker")
    with broker as url:
        assert url.startswith("redis://127.0.0.1:") and url.endswith("/0")
        client = redis.Redis.from_url(url)
        client.set("queued", "task-1")
        assert client.get("queued") == b"task-1"
        assert client.info("server")["redis_version"].startswith("6.")
        client.close()
        pid = broker.pid
    assert wait_for_exit([pid], timeout_s=0.5) == []


def test_without_user_namespaces_root_is_told_to_set_database_url(tmp_path, monkeypatch):
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    unshare = fake_bin / "unshare"
    unshare.write_text("#!/bin/sh\necho 'unshare: unshare failed: Operation not permitted' >&2\nexit 1\n")
    unshare.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(os, "geteuid", lambda: 0)

    with pytest.raises(EmbeddedPostgresUnavailable, match="DATABASE_URL") as refused:
        EmbeddedPostgres(tmp_path / "data").start()
    assert "Operation not permitted" in str(refused.value)
    assert not (tmp_path / "data").exists()
