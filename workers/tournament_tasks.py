"""The tournament manager in the worker: a follower of the log
(service.application.process_managers.TournamentFollower) on a thread of each Celery
worker's main process, started when the worker is ready.

It handles a batch when the append trigger's notification names a tournament or one of
its tables (a hand over, a registration, a floor's move), when a tournament's clock next
has something due (its start, a level's end: the follower knows when), soon again when a
batch found events the log's gap-safe order does not give yet (a transaction that began
before them still runs, anywhere on the server), and, as a safety net for a lost
notification only, after SAFETY_NET_S of silence. No loop polls the tables:
between those moments the thread waits.

Several workers run one follower each; they share one tracking record and take turns on
its lock, so each position of the log is handled once whichever worker is up. A worker
killed mid-batch leaves nothing of that batch behind: the next follower does it again.
"""
from __future__ import annotations

import logging
import time

from service.application import commands, process_managers, tournaments
from service.config import Config
from workers.celery_app import run_in_main_process
from workers.following import FollowingThread

log = logging.getLogger(__name__)

SAFETY_NET_S = 30.0
HELD_BACK_RETRY_S = 0.1
"""The first look again at events held back by a transaction still running (Batch.held_back),
doubling up to 1.6 s while it runs: without it, the notified events waited for the next
notification or the safety net, up to 30 s."""
RETRY_PAUSE_S = 1.0
"""After a failed batch (the database away, a bug): wait this long, then from the checkpoint."""


def follows(stream_id: str) -> bool:
    """A stream whose appends may call for the tournament manager: a tournament or its table."""
    if stream_id.startswith(tournaments.STREAM_PREFIX):
        return True
    return stream_id.startswith(commands.STREAM_PREFIX) and \
        process_managers.tournament_of_table(stream_id[len(commands.STREAM_PREFIX):]) is not None


class TournamentManager(FollowingThread):
    """The follower, its notifications and its own application and connection pool
    (workers.following)."""

    def __init__(self, config: Config) -> None:
        super().__init__(config, "tournament-manager", follows)
        self._follower = process_managers.TournamentFollower(self.resources.application, self.tracking)

    def run(self) -> None:
        woken = self.woken
        held_back = 0  # batches in a row that found events the log's order does not give yet
        while not self.stopped.is_set():
            woken.clear()  # before reading: a notification from here on wakes the next wait
            try:
                batch = self._follower.handle_batch()
            except Exception:
                log.exception("the tournament manager's batch failed; it starts again from its checkpoint")
                self.stopped.wait(RETRY_PAUSE_S)
                continue
            if batch.recorded:
                log.info("tournament manager: %d events read, %d commands recorded", batch.events, batch.recorded)
            if batch.full or batch.recorded:
                continue  # more log to read, or our own writes to follow up
            held_back = held_back + 1 if batch.held_back else 0
            if held_back:
                # Their notification came and went: look again soon, until they are read.
                woken.wait(min(self._wait_s(), HELD_BACK_RETRY_S * 2 ** min(held_back - 1, 4)))
            else:
                woken.wait(self._wait_s())

    def _wait_s(self) -> float:
        deadline = self._follower.next_deadline()
        if deadline is None:
            return SAFETY_NET_S
        return max(0.0, min(SAFETY_NET_S, deadline - time.time()))


run_in_main_process("cardroom_tournament_manager", TournamentManager)
