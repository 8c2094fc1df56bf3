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

Between level deadlines the same sweep drives the tournaments' live tables
(service.application.tournament_tables.advance: report closed hands, apply moves, deal the next
hands) several times a second until the next sweep is due, so a hand on a tournament
table is followed by the next within a moment. Each pass reads the log afresh and acts
at the versions it read, so overlapping sweeps change nothing twice.
"""
from __future__ import annotations

import logging
import time

from domain.rules.violations import Violation
from domain.tournaments import tournament
from service.application import tournament_tables, tournaments
from service.application.application import Application
from service.adapters.store.base import VersionConflict
from workers.celery_app import app, resources

log = logging.getLogger(__name__)

# Drive the tables for a little less than the sweep interval (workers.celery_app), so
# consecutive sweeps barely overlap.
TABLES_FOR_S = 4.0
TABLES_EVERY_S = 0.1


@app.task(name="workers.tournament_tasks.sweep_tournaments")
def sweep_tournaments() -> int:
    """Act on every tournament's due deadlines; returns how many commands were recorded."""
    application = resources().application
    now = int(time.time())
    recorded = 0
    ids = tournaments.tournament_ids(application)
    for tournament_id in ids:
        recorded += _act(application, tournament_id, now)
    running = [t for t in ids if tournaments.load_tournament(application, t).state.status == tournament.RUNNING]
    until = time.monotonic() + TABLES_FOR_S
    while running and time.monotonic() < until:
        for tournament_id in running:
            recorded += _advance_tables(application, tournament_id)
        time.sleep(TABLES_EVERY_S)
    return recorded


def _advance_tables(application: Application, tournament_id: str) -> int:
    try:
        return tournament_tables.advance(application, tournament_id, time.time())
    except Exception:
        log.exception("tournament %s: driving its tables failed", tournament_id)
    return 0


def _act(application: Application, tournament_id: str, now: int) -> int:
    try:
        return len(tournaments.act_on_deadlines(application, tournament_id, now))
    except VersionConflict as lost:
        log.info("tournament %s: someone acted first (%s); the next sweep looks again", tournament_id, lost)
    except Violation as refused:
        log.warning("tournament %s: a due command was refused: %s", tournament_id, refused)
    except Exception:
        # One tournament's fault must not hold up every other tournament's clock.
        log.exception("tournament %s: acting on its deadlines failed", tournament_id)
    return 0
