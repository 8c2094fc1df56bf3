"""Real Celery workers: a rating task sent twice (a redelivery) applies the result once,
and the worker's tournament manager starts a tournament at its time, once."""
from __future__ import annotations

import time
import uuid

import pytest

from domain.tournaments import commands as tournament_commands
from domain.tournaments.structure import Period
from service.application import ratings, tournaments
from service.config import Config
from tests import applications
from workers.celery_app import make_celery

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def sender(broker_url):
    return make_celery(Config(broker_url=broker_url))


def test_a_rating_task_sent_twice_applies_the_result_once(celery_worker, postgres_store, sender):
    game = "worker-" + uuid.uuid4().hex[:10]
    finishes = [{"player_id": "ann", "place": 1}, {"player_id": "bob", "place": 2},
                {"player_id": "cat", "place": 2}]
    before = celery_worker.succeeded("workers.rating_tasks.apply_rating")
    for _ in range(2):
        sender.send_task("workers.rating_tasks.apply_rating", args=[game, "final-table-7", finishes])
    celery_worker.wait_until(
        lambda: celery_worker.succeeded("workers.rating_tasks.apply_rating") >= before + 2,
        "both deliveries")
    events = postgres_store.read_stream(ratings.stream_id(game))
    assert [(e.type, e.data["result_id"], e.metadata["actor"]) for e in events] == [
        ("RatingsUpdated", "final-table-7", "worker")]
    book = ratings.load_book(applications.of(postgres_store), game)
    assert {p: r.games for p, r in book.players.items()} == {"ann": 1, "bob": 1, "cat": 1}
    assert book.players["ann"].rating == pytest.approx(1516.0)
    assert celery_worker.process.poll() is None, celery_worker.text()


def test_the_workers_tournament_manager_starts_a_due_tournament_once_and_deals_its_first_hand(
        celery_worker, postgres_store):
    tournament_id = "manager-" + uuid.uuid4().hex[:10]
    settings = tournament_commands.Settings(
        name="Turbo", structure=(Period.level(25, 50, 10), Period.level(50, 100, 10)),
        starts_at=int(time.time()) + 1, starting_stack=5000, buy_in=10, payout_percentages=("100",), auto_start=True)
    app = applications.of(postgres_store)
    tournaments.create_tournament(app, tournament_id, settings, "holdem", "no-limit")
    for player in ("ann", "bob", "cat"):
        tournaments.send(app, tournament_id, tournament_commands.Register(player, at=int(time.time())))

    def types() -> list[str]:
        return [e.type for e in postgres_store.read_stream(tournaments.stream_id(tournament_id))]

    # Woken by the registrations, the manager learns the start time and waits for it.
    celery_worker.wait_until(lambda: "HandDealt" in types(), "the start and the first deal")
    time.sleep(1)  # whatever a second pass would add
    assert types() == ["TournamentCreated", "PlayerRegistered", "PlayerRegistered", "PlayerRegistered",
                       "TournamentStarted", "LevelStarted", "HandDealt"]
