"""A tournament's tables on the action clock, with real processes: a celery worker (beat
included) deals the tournament's hands and expires its clocks; one absent player, marked
away by the floor, costs the table no clock at all (TDA 2024 30: dealt in, blinds posted,
the hand dead: folded at once, a free check or not), and nobody acting at all costs seconds
a turn."""
from __future__ import annotations

import time

import pytest

from domain.live import table
from service.application import commands, tournament_tables
from tests import applications
from tests.integration.conftest import ADMIN, CeleryWorker, key_for
from tests.integration.test_action_clock_worker import LEADING
from tests.integration.test_tournaments_http import running

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("clock_worker")]

CLOCK_S = 2
LEVEL_CLOCK_S = 3
BANK_S = 4
WAIT_S = 120  # the worker's safety net wakes it 30 s after a lost notification


@pytest.fixture(scope="module")
def worker(database_url, broker_url, tmp_path_factory):
    started = CeleryWorker(tmp_path_factory.mktemp("tournament-clock-worker"), database_url, broker_url, beat=True)
    yield started
    started.stop()


def records(store, table_id: str, type_name: str):
    return [r for r in store.read_stream(commands.table_stream(table_id)) if r.type == type_name]


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)


def test_a_tournament_table_runs_on_its_levels_action_clock_and_an_absent_player_costs_no_clock(
        client, postgres_store, worker):
    worker.wait_for_log(LEADING)
    levels = [{"small_blind": 25, "big_blind": 50, "minutes": 20, "action_clock_s": LEVEL_CLOCK_S},
              {"small_blind": 50, "big_blind": 100, "minutes": 20}]
    tournament_id, names = running(client, 3, tables="service", table_size=6, levels=levels,
                                   action_clock_s=CLOCK_S, time_bank_s=BANK_S)
    assert client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()["action_clock_s"] == CLOCK_S
    table_id = tournament_tables.table_id_for(tournament_id, 1)
    wait_for(lambda: records(postgres_store, table_id, "ClockStarted"), "the worker dealt a hand on the clock")
    shown = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
    assert shown["action_clock_s"] == LEVEL_CLOCK_S  # the level's own clock beats the tournament's

    away = names[0]
    marked = client.post(f"/v1/tournaments/{tournament_id}/absences", json={"player_id": away},
                         headers=key_for(client, "floor"))
    assert marked.status_code == 201, marked.get_data(as_text=True)
    assert marked.get_json()["table_id"] == table_id and marked.get_json()["events"][0] == "PlayerSatOut"
    marked_at = marked.get_json()["version"]
    # Nobody acts from here on: the clock plays the hands until the others, having missed
    # two clocks each, are away too; then the table is dealt no more (every hand would be
    # dead, the blinds passed round an empty table for ever).
    hands_then = shown["hands_played"]

    def everyone_away_and_done() -> bool:
        state = commands.load_table(applications.of(postgres_store), table_id).state
        return table.everyone_away(state) and not state.hand_in_progress
    wait_for(everyone_away_and_done, "every player away, the last hand over")
    hands_now = commands.load_table(applications.of(postgres_store), table_id).state.hands_played
    assert hands_now > hands_then
    time.sleep(2)
    assert commands.load_table(applications.of(postgres_store), table_id).state.hands_played == hands_now
    log = postgres_store.read_stream(commands.table_stream(table_id), after_version=marked_at)
    clocks_for_away = [r for r in log if r.type == "ClockStarted" and r.data["player_id"] == away]
    played_for_away = [r for r in log if r.type == "AutomaticAction" and r.data["player_id"] == away]
    assert clocks_for_away == [] and played_for_away  # killed at once, never waited for
    assert {r.data["reason"] for r in played_for_away} == {"dead_hand"}
    # A dead hand: every turn of theirs is a fold, never a check, a call or a show.
    played = [next(r for r in log if r.version > marker.version) for marker in played_for_away]
    assert {(r.type, r.data["action"]) for r in played} == {("ActionTaken", "fold")}
    # The others miss two clocks each and are then away too: a handful of clocks in all.
    expired = [r for r in log if r.type == "ClockExpired"]
    assert 1 <= len(expired) <= 4
    banks = [r for r in log if r.type == "TimeBankUsed"]
    assert away not in {r.data["player_id"] for r in banks} and len(banks) <= 2  # once each, before the clock acts
    # Killed at once: the away player's turn is played in the append that reached it.
    for record in played_for_away:
        before = next(r for r in reversed(log) if r.version < record.version)
        assert (record.recorded_at - before.recorded_at).total_seconds() < 0.5
