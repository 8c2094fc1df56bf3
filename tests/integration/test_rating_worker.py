"""Real Celery workers: a rating task sent twice (a redelivery) applies the result once,
and the tournament clock sweep starts a due tournament once however often it runs."""
from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from domain.tournaments import tournament
from domain.tournaments.structure import Period
from service import ratings, tournaments
from service.config import Config
from service.store.postgres import PostgresEventStore, open_pool
from workers.celery_app import make_celery

pytestmark = pytest.mark.integration

PROJECT_ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 30


@pytest.fixture(scope="module")
def store(database_url):
    pool = open_pool(database_url, max_size=2)
    yield PostgresEventStore(pool)
    pool.close()


@pytest.fixture(scope="module")
def worker(database_url, broker_url, tmp_path_factory):
    env = {**os.environ, "DATABASE_URL": database_url, "CELERY_BROKER_URL": broker_url}
    log = tmp_path_factory.mktemp("rating-worker") / "worker.log"
    with log.open("w") as output:
        # Two pool processes, so the two deliveries can really run at the same time.
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker",
             "--concurrency=2", "--loglevel=INFO", "--without-gossip", "--without-mingle"],
            cwd=PROJECT_ROOT, env=env, stdout=output, stderr=subprocess.STDOUT,
        )
    yield process, log
    process.terminate()  # the main process only: it stops its pool itself
    try:
        process.wait(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def sender(broker_url):
    return make_celery(Config(broker_url=broker_url))


def wait_until(condition, log: Path, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"{what} never happened:\n{log.read_text()}"
        time.sleep(0.1)


def succeeded(log: Path, task: str) -> int:
    return sum(1 for line in log.read_text().splitlines() if task in line and "succeeded" in line)


def test_a_rating_task_sent_twice_applies_the_result_once(worker, store, sender):
    process, log = worker
    game = "worker-" + uuid.uuid4().hex[:10]
    finishes = [{"player_id": "ann", "place": 1}, {"player_id": "bob", "place": 2},
                {"player_id": "cat", "place": 2}]
    before = succeeded(log, "workers.rating_tasks.apply_rating")
    for _ in range(2):
        sender.send_task("workers.rating_tasks.apply_rating", args=[game, "final-table-7", finishes])
    wait_until(lambda: succeeded(log, "workers.rating_tasks.apply_rating") >= before + 2, log,
               "both deliveries")
    events = store.read_stream(ratings.stream_id(game))
    assert [(e.type, e.data["result_id"], e.metadata["actor"]) for e in events] == [
        ("RatingsUpdated", "final-table-7", "worker")]
    book = ratings.load_book(store, game)
    assert {p: r.games for p, r in book.players.items()} == {"ann": 1, "bob": 1, "cat": 1}
    assert book.players["ann"].rating == pytest.approx(1516.0)
    assert process.poll() is None, log.read_text()


def test_the_clock_sweep_starts_a_due_tournament_once_however_often_it_runs(worker, store, sender):
    process, log = worker
    tournament_id = "sweep-" + uuid.uuid4().hex[:10]
    settings = tournament.Settings(
        name="Turbo", structure=(Period.level(25, 50, 10), Period.level(50, 100, 10)),
        starts_at=int(time.time()) - 1, starting_stack=5000, buy_in=10, payout_percentages=("100",))
    tournaments.create_tournament(store, tournament_id, settings, "holdem", "no-limit")
    for player in ("ann", "bob", "cat"):
        tournaments.send(store, tournament_id, tournament.Register(player, at=int(time.time())))
    before = succeeded(log, "workers.tournament_tasks.sweep_tournaments")
    for _ in range(3):
        sender.send_task("workers.tournament_tasks.sweep_tournaments")
    wait_until(lambda: succeeded(log, "workers.tournament_tasks.sweep_tournaments") >= before + 3, log,
               "three sweeps")
    types = [e.type for e in store.read_stream(tournaments.stream_id(tournament_id))]
    assert types == ["TournamentCreated", "PlayerRegistered", "PlayerRegistered", "PlayerRegistered",
                     "TournamentStarted", "LevelStarted"]
