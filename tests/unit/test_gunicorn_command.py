"""The web server command that `make run`, the benchmarks and the e2e tests share."""
from __future__ import annotations

import socket

import pytest

from service.adapters.embedded import free_port
from service.devserver import gunicorn_command


def test_each_worker_listens_on_its_own_reuse_port_socket():
    command = gunicorn_command("service.wsgi:app", free_port())

    assert "--reuse-port" in command
    assert command[command.index("--worker-class") + 1] == "service.http.gunicorn_worker.BufferingWorker"


def test_a_port_something_listens_on_is_refused_rather_than_shared():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]

        with pytest.raises(SystemExit, match=f"port {port} on 127.0.0.1 is taken"):
            gunicorn_command("service.wsgi:app", port)


def test_a_web_worker_freezes_what_the_app_holds_and_collects_less_often() -> None:
    import gc

    from service.http import gunicorn_worker

    thresholds = gc.get_threshold()
    try:
        gunicorn_worker._collect_less()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == gunicorn_worker.GC_THRESHOLDS
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
