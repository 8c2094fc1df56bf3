"""What a follower of the log needs on a thread of a Celery worker's main process (the
tournament manager, the public log's integrator): its own pool and application (built
after the pool processes were forked, never handed to them), its tracking records, the
append trigger's notifications that wake it, and a start and a stop."""
from __future__ import annotations

import threading
from collections.abc import Callable

from service import wiring
from service.adapters.integrity import chain_signer
from service.adapters.row_macs import RowSigner
from service.adapters.scheduler import CeleryScheduler
from service.adapters.store import jsonb_reads
from service.adapters.store.trackings import PostgresTracking
from service.adapters.wakeups import Wakeups
from service.config import Config
from workers.celery_app import app


class FollowingThread:
    def __init__(self, config: Config, name: str, wanted: Callable[[str], bool]) -> None:
        """`wanted`: whether an append to this stream may call for the follower."""
        jsonb_reads.read_as_utf8()  # each event of the log is read here, its documents parsed
        self.resources = wiring.worker_resources(config, CeleryScheduler(app))
        assert config.database_url is not None  # worker_resources refused to start without one
        self.tracking = PostgresTracking(RowSigner(chain_signer(config), "process_trackings"))
        self._wakeups = Wakeups(config.database_url, wanted)
        self.woken = self._wakeups.woken
        self.stopped = threading.Event()
        self._thread = threading.Thread(target=self.run, name=name, daemon=True)

    def start(self) -> None:
        self._wakeups.start()
        self._thread.start()

    def stop(self) -> None:
        self.stopped.set()
        self.woken.set()
        self._thread.join(timeout=10)
        self._wakeups.stop()
        self.resources.pool.close()

    def run(self) -> None:
        raise NotImplementedError
