"""The tournament clock worker: beat runs `sweep_tournaments` every few seconds; it starts
tournaments whose time has come, records level changes as they happen, and rates
finished tournaments that were not rated yet.

Deadlines are derivable from each tournament's events (the level in force is read from
them at any moment, recorded or not: the recorded `LevelStarted` is for the audit log and
for clients following the stream), so the sweep needs no timers of its own and nothing
is lost with a killed worker or broker: the next sweep finds what is due. Each
tournament is acted on at the version it was read at, so two sweeps racing (two beat
processes, a slow worker) record a deadline once; the loser's conflict is logged and
dropped.
"""
from __future__ import annotations

import logging
from functools import lru_cache
import time

from domain.violations import Violation
from service import tournaments
from service.store.base import EventStore, VersionConflict
from workers.celery_app import app
from workers.tasks import event_store

log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def _store() -> EventStore:
    # One store per worker process, so the folded states it caches outlive a task.
    return event_store()


@app.task(name="workers.tournament_tasks.sweep_tournaments")
def sweep_tournaments() -> int:
    """Act on every tournament's due deadlines; returns how many commands were recorded."""
    store = _store()
    now = int(time.time())
    recorded = 0
    for tournament_id in tournaments.tournament_ids(store):
        recorded += _act(store, tournament_id, now)
    return recorded


def _act(store: EventStore, tournament_id: str, now: int) -> int:
    try:
        return len(tournaments.act_on_deadlines(store, tournament_id, now))
    except VersionConflict as lost:
        log.info("tournament %s: someone acted first (%s); the next sweep looks again", tournament_id, lost)
    except Violation as refused:
        log.warning("tournament %s: a due command was refused: %s", tournament_id, refused)
    except Exception:
        # One tournament's fault must not hold up every other tournament's clock.
        log.exception("tournament %s: acting on its deadlines failed", tournament_id)
    return 0
