"""What the application asks to have done later goes to the scheduler it was built with
(service.wiring injects the Celery one): a rating it could not record. A clock a write
starts is not scheduled at all: its deadline is in the log, where the workers' clock
watch reads it."""
from __future__ import annotations

import time

from domain.live import table_commands
from domain.ratings import Finish, GameResult
from domain.rules.betting import BettingStructure
from service.adapters.scheduler import APPLY_RATING_TASK, CeleryScheduler
from service.adapters.store.memory import InMemoryEventStore
from service.application import commands
from service.application.application import application

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)


class Recording:
    def __init__(self) -> None:
        self.ratings: list[GameResult] = []

    def rate_later(self, result: GameResult) -> None:
        self.ratings.append(result)


def test_the_clock_a_write_starts_is_only_recorded_in_the_log_with_its_deadline():
    store = InMemoryEventStore()
    scheduler = Recording()
    app = application(store, scheduler)
    seats = (table_commands.TableSeat("ann", 1000), table_commands.TableSeat("bob", 1000))
    commands.create_table(app, table_commands.CreateTable("t1", "holdem", {}, NL, seats, action_clock_s=30))
    started = commands.start_next_hand(app, "t1", 1)
    [clock] = [r for r in store.read_stream(commands.table_stream("t1")) if r.type == "ClockStarted"]
    assert clock.data["deadline_at_ms"] == started.state.clock.deadline_at_ms
    assert scheduler.ratings == []


class Sent:
    def __init__(self) -> None:
        self.tasks: list[tuple[str, dict]] = []

    def send_task(self, name: str, **options) -> None:
        self.tasks.append((name, options))


def test_the_celery_scheduler_sends_ratings_by_name():
    celery = Sent()
    scheduler = CeleryScheduler(celery)  # type: ignore[arg-type]
    scheduler.rate_later(GameResult("t1", "holdem", (Finish("ann", 1), Finish("bob", 2))))
    [(rating, rating_options)] = celery.tasks
    assert rating == APPLY_RATING_TASK
    assert rating_options["args"] == ["holdem", "t1", [{"player_id": "ann", "place": 1},
                                                       {"player_id": "bob", "place": 2}]]


class Down(Sent):
    """A broker that refuses sends until `up` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.up = False

    def send_task(self, name: str, **options) -> None:
        if not self.up:
            raise ConnectionRefusedError("the broker is down")
        super().send_task(name, **options)


def test_a_rating_the_broker_does_not_take_is_sent_again_once_it_is_back(monkeypatch):
    from service.adapters import scheduler as scheduling_adapter

    monkeypatch.setattr(scheduling_adapter, "RESEND_EVERY_S", 0.05)
    celery = Down()
    scheduler = CeleryScheduler(celery)  # type: ignore[arg-type]
    results = [GameResult(f"t{n}", "holdem", (Finish("ann", 1), Finish("bob", 2))) for n in range(3)]
    for result in results:
        scheduler.rate_later(result)  # answered at once, kept
    time.sleep(0.2)
    assert (celery.tasks, scheduler.unsent()) == ([], 3)
    celery.up = True
    deadline = time.monotonic() + 2
    while scheduler.unsent():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert [options["args"][1] for _, options in celery.tasks] == ["t0", "t1", "t2"]
