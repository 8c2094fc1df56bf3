"""What the application asks to have done later goes to the scheduler it was built with
(service.bootstrap injects the Celery one): the clock a write started, and a rating it
could not record."""
from __future__ import annotations

from datetime import datetime, timezone

from domain.live import table
from domain.ratings import Finish, GameResult
from domain.rules.betting import BettingStructure
from service.adapters.scheduler import APPLY_RATING_TASK, EXPIRE_CLOCK_TASK, CeleryScheduler
from service.adapters.store.memory import InMemoryEventStore
from service.application import commands
from service.application.application import application

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)


class Recording:
    def __init__(self) -> None:
        self.clocks: list[tuple[str, int, table.ClockStarted]] = []
        self.ratings: list[GameResult] = []

    def expire_clock_at_deadline(self, table_id: str, version: int, clock: table.ClockStarted) -> None:
        self.clocks.append((table_id, version, clock))

    def rate_later(self, result: GameResult) -> None:
        self.ratings.append(result)


def test_the_clock_a_write_starts_is_scheduled_at_the_version_it_is_pending_at():
    scheduler = Recording()
    app = application(InMemoryEventStore(), scheduler)
    seats = (table.TableSeat("ann", 1000), table.TableSeat("bob", 1000))
    commands.create_table(app, table.CreateTable("t1", "holdem", {}, NL, seats, action_clock_s=30))
    started = commands.start_next_hand(app, "t1", 1)
    [(table_id, version, clock)] = scheduler.clocks
    assert (table_id, version, clock) == ("t1", started.version, started.state.clock)


class Sent:
    def __init__(self) -> None:
        self.tasks: list[tuple[str, dict]] = []

    def send_task(self, name: str, **options) -> None:
        self.tasks.append((name, options))


def test_the_celery_scheduler_sends_the_expiry_with_an_eta_at_the_deadline_and_ratings_by_name():
    celery = Sent()
    scheduler = CeleryScheduler(celery)  # type: ignore[arg-type]
    clock = table.ClockStarted("t1.1", 0, "ann", 1_700_000_000_000)
    scheduler.expire_clock_at_deadline("t1", 4, clock)
    scheduler.rate_later(GameResult("t1", "holdem", (Finish("ann", 1), Finish("bob", 2))))
    (expiry, expiry_options), (rating, rating_options) = celery.tasks
    assert expiry == EXPIRE_CLOCK_TASK
    assert expiry_options["args"] == ["t1", 4, "t1.1", 0, 1_700_000_000_000]
    assert expiry_options["eta"] == datetime.fromtimestamp(1_700_000_000, tz=timezone.utc)
    assert rating == APPLY_RATING_TASK
    assert rating_options["args"] == ["holdem", "t1", [{"player_id": "ann", "place": 1},
                                                       {"player_id": "bob", "place": 2}]]
