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
    assert devserver.get("/healthz") == (200, {"status": "ok", "database": "ok", "broker": "ok"})
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
