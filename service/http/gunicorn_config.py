"""gunicorn's server hooks (`--config python:service.http.gunicorn_config`, service.devserver).

- The master's "Listening at:" line names the address: with --reuse-port each worker
  binds its own socket and the master holds none, so gunicorn printed "Listening at:  (pid)".
- A worker that exits is marked dead for the metrics (prometheus-client's multiprocess
  mode), so its gauges (open streams, pool connections) stop counting.
"""
from __future__ import annotations

import logging
import os
from typing import Any


class _NamedAddress(logging.Filter):
    def __init__(self, addresses: str) -> None:
        super().__init__()
        self.addresses = addresses

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == "Listening at: %s (%s)" and isinstance(record.args, tuple) and not record.args[0]:
            record.args = (f"{self.addresses} (one SO_REUSEPORT socket per worker)", record.args[1])
        return True


def on_starting(server: Any) -> None:
    addresses = ",".join(f"http://{address}" for address in server.cfg.bind)
    server.log.error_log.addFilter(_NamedAddress(addresses))


def child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
