"""`make run`: starts everything on embedded defaults, stops everything on Ctrl-C,
keeps the data across restarts."""
from __future__ import annotations

import stat
import time

import pytest

pytestmark = pytest.mark.e2e


def stop_and_assert_nothing_is_left(devserver) -> None:
    before = devserver.record_processes()
    assert len(before) >= 6, f"expected devserver, postgres, redis, gunicorn, celery: {before}"
    assert devserver.interrupt() == 0, devserver.log()
    deadline = time.monotonic() + 5
    while devserver.still_running():
        assert time.monotonic() < deadline, f"left running: {devserver.still_running()}\n{devserver.log()}"
        time.sleep(0.1)


def test_make_run_serves_stops_cleanly_and_keeps_its_data(devserver):
    devserver.start()
    assert _health(devserver) == (200, "ok", "ok", "ok")
    key_file = devserver.data_dir / "admin-key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert str(key_file) in devserver.log(), "the admin key's location is printed"
    # The migrations ran as the owner; the API and the worker log in with the least rights.
    assert stat.S_IMODE((devserver.data_dir / "database-app-password").stat().st_mode) == 0o600
    assert "connect as cardroom_app (least privilege)" in devserver.log()
    admin_key = devserver.admin_key()
    status, created = devserver.request("POST", "/v1/players", {"name": "Ann"}, key=admin_key)
    assert status == 201, created

    stop_and_assert_nothing_is_left(devserver)

    devserver.start()
    assert devserver.admin_key() == admin_key, "the admin key is created once"
    assert devserver.get(f"/v1/players/{created['id']}", key=admin_key) == (
        200,
        {"id": created["id"], "name": "Ann"},
    )
    stop_and_assert_nothing_is_left(devserver)


def _health(devserver) -> tuple[int, str | None, str | None, str | None]:
    """/healthz's status code and states (its database_server part left out)."""
    status, health = devserver.get("/healthz")
    return status, health.get("status"), health.get("database"), health.get("broker")


def _children_of(devserver, mentioning: str) -> list[int]:
    """Processes of the dev server's tree whose command line mentions `mentioning`."""
    from tests.e2e.conftest import _mentions
    from tests.processes import process_tree

    return sorted(pid for pid in process_tree(devserver.process.pid) if _mentions(pid, mentioning))


def _direct_child(devserver, mentioning: str) -> int:
    from tests.e2e.conftest import _mentions
    from tests.processes import parents

    [pid] = [pid for pid, parent in parents().items()
             if parent == devserver.process.pid and _mentions(pid, mentioning)]
    return pid


def _wait_for(condition, what: str, devserver, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"{what}\n{devserver.log()}"
        time.sleep(0.2)


def test_make_run_restarts_what_died_says_which_and_leaves_no_orphan(devserver):
    import os
    import signal

    devserver.start()
    admin_key = devserver.admin_key()
    status, created = devserver.request("POST", "/v1/players", {"name": "Kit"}, key=admin_key)
    assert status == 201, created
    devserver.record_processes()

    # Celery's main process: its beat and pool children must not outlive it.
    celery_main = _direct_child(devserver, "celery")
    left_behind = [pid for pid in _children_of(devserver, "celery") if pid != celery_main]
    assert left_behind, "beat and pool processes run under the Celery main process"
    os.kill(celery_main, signal.SIGKILL)
    _wait_for(lambda: "the Celery worker (with beat) is running again" in devserver.log(),
              "Celery was not started again", devserver)
    assert "the Celery worker (with beat) stopped (killed by SIGKILL)" in devserver.log()
    assert not [pid for pid in left_behind if devserver.seen.get(pid) and pid in devserver.still_running()], \
        "the dead Celery main's children were left running"

    # PostgreSQL: noticed, started again on the same port with the same data.
    postgres = _direct_child(devserver, "bin/postgres")
    os.kill(postgres, signal.SIGKILL)
    _wait_for(lambda: "PostgreSQL (embedded) is running again" in devserver.log(),
              "PostgreSQL was not started again", devserver)
    assert "PostgreSQL (embedded) stopped (killed by SIGKILL)" in devserver.log()
    _wait_for(lambda: devserver.get(f"/v1/players/{created['id']}", key=admin_key)[0] == 200,
              "the data did not come back with PostgreSQL", devserver)

    # gunicorn's master.
    os.kill(_direct_child(devserver, "gunicorn"), signal.SIGKILL)
    _wait_for(lambda: "the web server (gunicorn) is running again" in devserver.log(),
              "gunicorn was not started again", devserver)
    _wait_for(lambda: _health(devserver) == (200, "ok", "ok", "ok"), "not healthy after the restarts", devserver)

    stop_and_assert_nothing_is_left(devserver)
