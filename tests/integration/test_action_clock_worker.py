"""Action clocks with real processes: a `celery -A workers.celery_app worker -B` process on
the test broker and database acts on deadlines recorded in the tables' logs."""
from __future__ import annotations

import time
import uuid

import pytest

from domain.live import table_commands, table_events
from domain.rules.betting import BettingStructure
from service.application import commands
from service.application.application import application
from tests.integration.conftest import CeleryWorker

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("clock_worker")]

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
CLOCK_S = 2
WAIT_S = 20
# After the deadline: the clock watch acts at once, the sweep (every second, leaving a
# second's grace to the watch) within about two more. Waiting past both shows that
# neither records a second timeout.
SETTLE_S = 3.5
LEADING = "clock watch: leading"


# tests/e2e/test_tournament_e2e.py imports the worker from here.
Worker = CeleryWorker


@pytest.fixture
def app(postgres_store):
    """An application as the web app's: it appends, and schedules nothing."""
    return application(postgres_store)


@pytest.fixture(scope="module")
def worker(database_url, broker_url, tmp_path_factory):
    started = CeleryWorker(tmp_path_factory.mktemp("clock-worker"), database_url, broker_url, beat=True)
    yield started
    started.stop()


def clocked_table(app, clock_s: int = CLOCK_S) -> tuple[str, table_events.ClockStarted]:
    """A heads-up table with a `clock_s` clock and a hand started: the button's clock runs."""
    table_id = f"clock-{uuid.uuid4().hex[:12]}"
    seats = (table_commands.TableSeat("ann", 1000), table_commands.TableSeat("bob", 1000))
    commands.create_table(app, table_commands.CreateTable(table_id, "holdem", {}, NL, seats, action_clock_s=clock_s))
    result = commands.start_next_hand(app, table_id, 1)
    clock = result.state.clock
    assert clock is not None and clock.player_id == "ann"
    return table_id, clock


def records(store, table_id: str, type_name: str):
    return [r for r in store.read_stream(commands.table_stream(table_id)) if r.type == type_name]


def wait_for_timeout(store, table_id: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not records(store, table_id, "ClockExpired"):
        assert time.monotonic() < deadline, f"table {table_id}: the clock never expired"
        time.sleep(0.05)


def test_a_two_second_clock_folds_the_player_exactly_once(postgres_store, app, worker):
    worker.wait_for_log(LEADING)
    table_id, clock = clocked_table(app)
    wait_for_timeout(postgres_store, table_id)
    time.sleep(SETTLE_S)
    [expired] = records(postgres_store, table_id, "ClockExpired")
    assert expired.data["deadline_at_ms"] == clock.deadline_at_ms
    lateness_s = expired.recorded_at.timestamp() - clock.deadline_at_ms / 1000
    assert 0 <= lateness_s < 1.0  # the watch's, not the sweep's (a second's grace, every second)
    log = postgres_store.read_stream(commands.table_stream(table_id), after_version=expired.version)
    assert (log[0].type, log[0].data["reason"]) == ("AutomaticAction", "clock_expired")
    assert (log[1].type, log[1].data["action"], log[1].metadata["automatic"]) == ("ActionTaken", "fold", True)
    assert {r.metadata["actor"] for r in log[:2]} == {"clock"}
    assert log[-1].type == "HandClosed"


def test_an_action_in_time_leaves_no_timeout(postgres_store, app, worker):
    table_id, clock = clocked_table(app)
    commands.execute(app, table_id, commands.load_table(app, table_id).version, table_commands.Act("ann", "fold"))
    time.sleep(max(0.0, clock.deadline_at_ms / 1000 - time.time()) + SETTLE_S)
    assert records(postgres_store, table_id, "ClockExpired") == []
    # The hand's end closed the clock in the log: nothing even tried to expire it.
    assert f"table {table_id}" not in worker.text()


def test_over_http_a_player_sits_out_the_computer_acts_and_the_view_shows_the_clock(database_url):
    from service.bootstrap import create_app
    from service.config import Config

    admin = {"Authorization": "Bearer clock-admin-key"}
    client = create_app(Config(database_url=database_url, admin_key="clock-admin-key")).test_client()
    players = [client.post("/v1/players", json={"name": n}, headers=admin).get_json()["id"] for n in ("Ann", "Bob")]
    table_id = client.post("/v1/tables", headers=admin, json={
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": 1000} for p in players], "action_clock_s": 30}).get_json()["id"]
    client.post(f"/v1/tables/{table_id}/hands", json={}, headers=admin)
    shown = client.get(f"/v1/tables/{table_id}", headers=admin).get_json()
    assert shown["clock"]["player_id"] == players[0]
    assert shown["clock"]["deadline_at_ms"] / 1000 == pytest.approx(time.time() + 30, abs=5)

    sat_out = client.post(f"/v1/tables/{table_id}/absences", json={"player_id": players[0]}, headers=admin)
    assert sat_out.status_code == 201, sat_out.get_data(as_text=True)
    assert [e["type"] for e in sat_out.get_json()["events"]][:3] == ["PlayerSatOut", "AutomaticAction", "ActionTaken"]
    again = client.post(f"/v1/tables/{table_id}/absences", json={"player_id": players[0]}, headers=admin)
    assert (again.status_code, again.get_json()["code"]) == (422, "already_sitting_out")
    shown = client.get(f"/v1/tables/{table_id}", headers=admin).get_json()
    assert [seat["sitting_out"] for seat in shown["seats"]] == [True, False]

    back = client.delete(f"/v1/tables/{table_id}/absences/{players[0]}", headers=admin)
    assert back.status_code == 200, back.get_data(as_text=True)
    assert [e["type"] for e in back.get_json()["events"]] == ["PlayerReturned"]
    unknown = client.delete(f"/v1/tables/no-such-table/absences/{players[0]}", headers=admin)
    assert unknown.status_code == 404


def test_a_waiting_worker_takes_the_watch_over_from_a_killed_one_and_expires_its_clock_once(
        postgres_store, app, worker, database_url, broker_url, tmp_path):
    worker.stop()  # the only workers left are the one about to be killed and its successor
    doomed = CeleryWorker(tmp_path / "doomed", database_url, broker_url, beat=False)
    doomed.wait_for_log(LEADING)
    successor = CeleryWorker(tmp_path / "successor", database_url, broker_url, beat=False)
    try:
        time.sleep(1.5)  # past its first asks for the lead
        assert LEADING not in successor.text()  # it waits while the other leads
        table_id, clock = clocked_table(app)
        doomed.kill()
        wait_for_timeout(postgres_store, table_id)
        time.sleep(SETTLE_S)
        [expired] = records(postgres_store, table_id, "ClockExpired")
        assert expired.data["deadline_at_ms"] == clock.deadline_at_ms
        assert LEADING in successor.text()
    finally:
        successor.stop()


def test_clocks_pending_when_the_worker_and_its_beat_are_killed_each_expire_exactly_once(
        postgres_store, app, worker, database_url, broker_url, tmp_path):
    """kill -9 of the leading worker, with beat, while a dozen clocks run: half were due
    before a new worker is up, half after; each one times out exactly once."""
    worker.stop()
    doomed = CeleryWorker(tmp_path / "doomed", database_url, broker_url, beat=True)
    doomed.wait_for_log(LEADING)
    clocks = [clocked_table(app, CLOCK_S) for _ in range(6)]
    clocks += [clocked_table(app, 4 * CLOCK_S) for _ in range(6)]
    doomed.kill()
    successor = CeleryWorker(tmp_path / "successor", database_url, broker_url, beat=True)
    try:
        for table_id, _ in clocks:
            wait_for_timeout(postgres_store, table_id)
        time.sleep(SETTLE_S)
        for table_id, clock in clocks:
            [expired] = records(postgres_store, table_id, "ClockExpired")
            assert expired.data["deadline_at_ms"] == clock.deadline_at_ms
    finally:
        successor.stop()


def test_with_the_broker_down_a_write_that_starts_a_clock_is_still_answered_at_once(database_url):
    """A write that starts a clock sends nothing to the broker: it is answered at once,
    and the workers' watch reads the deadline from the log."""
    from service.bootstrap import create_app
    from service.config import Config

    admin = {"Authorization": "Bearer clock-admin-key"}
    app = create_app(Config(database_url=database_url, broker_url="redis://127.0.0.1:1/0",
                            admin_key="clock-admin-key"))
    client = app.test_client()
    players = [client.post("/v1/players", json={"name": n}, headers=admin).get_json()["id"] for n in "AB"]
    table_id = client.post("/v1/tables", headers=admin, json={
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": 1000} for p in players], "action_clock_s": 30}).get_json()["id"]
    started = time.monotonic()
    answer = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=admin)
    took = time.monotonic() - started
    assert answer.status_code == 201, answer.get_data(as_text=True)
    assert took < 1.0, took
    health = client.get("/healthz").get_json()
    assert (health["status"], health["database"], health["broker"]) == ("degraded", "ok", "down")
