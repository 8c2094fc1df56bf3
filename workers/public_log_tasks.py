"""The public log's integrator in the worker (service.application.public_log.Integrator):
a follower of the global log on a thread of each Celery worker's main process, started
when the worker is ready, as the tournament manager is (workers.tournament_tasks).

Every worker runs one; they share one tracking record and take turns on one advisory lock, so
exactly one integrates at a time, whichever worker is up, and a failover of the database
carries the lock with it. It wakes on every append's notification, gathers what came for
public_log.gathering_s (a batch, and a checkpoint, every CHECKPOINT_EVERY_S while events
arrive, each over all that came meanwhile), and, as a safety net for a lost notification,
after SAFETY_NET_S of silence.
A host given no log key while the log has checkpoints refuses to sign (and says so)
and integrates nothing: another host, with the key, does.
"""
from __future__ import annotations

import logging
import time

from service import wiring
from service.adapters.log_keys import LogKeyMissing
from service.adapters.store.public_log import ForgedRows, PostgresPublicLog
from service.application import public_log
from service.config import Config
from workers.celery_app import run_in_main_process
from workers.following import FollowingThread

log = logging.getLogger(__name__)

SAFETY_NET_S = 30.0
HELD_BACK_RETRY_S = 0.1
RETRY_PAUSE_S = 1.0
REFUSED_PAUSE_S = 30.0
"""After a refusal an operator must see to (no key, a forged or changed row): look again this late."""


class PublicLogIntegrator(FollowingThread):
    def __init__(self, config: Config) -> None:
        super().__init__(config, "public-log", lambda _stream: True)
        tree = PostgresPublicLog(self.resources.pool)
        witnesses = wiring.witness_client(config, tree)
        self._integrator = public_log.Integrator(self.resources.application, self.tracking, tree,
                                                 wiring.public_log_signer(config),
                                                 after_signing=witnesses.ask if witnesses else None)

    def run(self) -> None:
        woken = self.woken
        held_back = 0
        while not self.stopped.is_set():
            woken.clear()
            began = time.monotonic()
            try:
                batch = self._integrator.handle_batch()
            except (LogKeyMissing, ForgedRows, public_log.LogDamaged) as refused:
                log.error("the public log's integrator stops: %s", refused)
                self.stopped.wait(REFUSED_PAUSE_S)
                continue
            except Exception:
                log.exception("the public log's batch failed; it starts again from its checkpoint")
                self.stopped.wait(RETRY_PAUSE_S)
                continue
            if batch.full:
                continue
            held_back = held_back + 1 if batch.held_back else 0
            waited = not woken.is_set()  # nothing was appended during the batch
            if held_back:
                woken.wait(HELD_BACK_RETRY_S * 2 ** min(held_back - 1, 4))
            elif woken.wait(SAFETY_NET_S):
                self.stopped.wait(public_log.gathering_s(began, time.monotonic(), waited=waited))


run_in_main_process("cardroom_public_log", PublicLogIntegrator)
