"""A tournament stream this code cannot read is reported, never a crash of its reader:
one stored before the start was limited (a start in the year 33,658), and one holding an
event type the domain does not know. `/v1/status` answers 200 and lists them as
unreadable with the reason and the version refused, `cardroom status` prints them, a read
of one answers a 409 problem `unreadable_stream` (the readable one reads as before), and
the tournament follower parks them (logged) and goes on with the others: the readable
one, due, starts in the same batch.

On a database of its own: the shared test database's status, home page and followers
would meet these streams."""
from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import Any

import pytest

from domain.records import to_record
from domain.tournaments import commands as tournament_commands
from domain.tournaments import events as tournament_events
from domain.tournaments import tournament
from domain.tournaments.structure import Period
from service.adapters.store import trackings
from service.adapters.store.base import START, NewEvent
from service.adapters.store.postgres import PostgresEventStore
from service.application import process_managers, tournaments
from service.application.application import application
from tests.integration.conftest import ADMIN, ADMIN_KEY, assert_problem, printed_status

pytestmark = pytest.mark.integration

FAR_FUTURE = "far-future"  # TournamentCreated with a start past year 9999
RENAMED = "renamed"  # a readable start, then an event type this code does not know
READABLE = "readable"
METADATA = {"game": "holdem", "betting": "no-limit"}


@pytest.fixture(scope="module")
def client(own_database: tuple[str, str], own_store: PostgresEventStore) -> Any:
    from service.bootstrap import create_app
    from service.config import Config

    app = application(own_store)
    now = int(time.time())
    settings = tournament_commands.Settings(name="stored", structure=(Period.level(25, 50, 20),), starts_at=now,
                                            starting_stack=1000, buy_in=10, payout_percentages=("100",), auto_start=True)
    for tournament_id in (READABLE, RENAMED):
        tournaments.create_tournament(app, tournament_id, settings, "holdem", "no-limit")
        for player in ("ann", "bob"):
            tournaments.send(app, tournament_id, tournament_commands.Register(player, at=now))
    # As older code stored them: straight into the store, past the decider.
    far = to_record(tournament_events.TournamentCreated(FAR_FUTURE, replace(settings, starts_at=10**12)))
    own_store.append(tournaments.stream_id(FAR_FUTURE), 0, [NewEvent(*far, metadata=METADATA)])
    own_store.append(tournaments.stream_id(RENAMED), 3, [NewEvent("TournamentRenamed", {"name": "later"})])
    return create_app(Config(database_url=own_database[1], admin_key=ADMIN_KEY)).test_client()


def test_the_status_lists_the_streams_it_cannot_read_with_the_reason(client):
    response = client.get("/v1/status", headers=ADMIN)
    assert response.status_code == 200
    body = response.get_json()
    assert [t["id"] for t in body["tournaments"]] == [READABLE]
    refused = {t["id"]: t for t in body["unreadable"]}
    assert set(refused) == {FAR_FUTURE, RENAMED}
    assert refused[FAR_FUTURE]["version"] == 1 and "years 1-9999" in refused[FAR_FUTURE]["reason"]
    assert refused[RENAMED] == {"kind": "tournament", "id": RENAMED, "version": 4,
                                "reason": "TournamentRenamed: an event type this code does not know"}


def test_the_command_line_prints_them(client, own_database, tmp_path, monkeypatch):
    printed = printed_status(own_database[1], tmp_path, monkeypatch)
    assert f"unreadable: tournament {FAR_FUTURE} at version 1" in printed
    assert f"unreadable: tournament {RENAMED} at version 4: TournamentRenamed" in printed


@pytest.mark.parametrize("tournament_id", [FAR_FUTURE, RENAMED])
def test_a_read_of_one_is_a_problem_with_a_stable_code(client, tournament_id):
    problem = assert_problem(client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN), 409,
                             "unreadable_stream")
    assert problem["numbers"]["stream"] == tournaments.stream_id(tournament_id)
    assert client.get(f"/v1/tournaments/{READABLE}", headers=ADMIN).status_code == 200
    assert client.get("/").status_code == 200  # the room's home page lists it as unreadable


def test_the_follower_parks_them_and_goes_on_with_the_others(client, own_store, caplog):
    name = "unreadable-test"
    with own_store.transaction():
        trackings.PostgresTracking().claim(name)
        trackings.PostgresTracking().move(name, START)
    now = [time.time()]
    follower = process_managers.TournamentFollower(application(own_store), trackings.PostgresTracking(), name=name,
                                                   clock=lambda: now[0])
    with caplog.at_level(logging.ERROR, logger=process_managers.__name__):
        follower.handle_batch()
    assert set(follower.unreadable) == {FAR_FUTURE, RENAMED}
    logged = " ".join(record.getMessage() for record in caplog.records)
    assert f"tournament {FAR_FUTURE}: parked" in logged and f"tournament {RENAMED}: parked" in logged
    now[0] += process_managers.START_RETRY_S + 1  # the readable one's start, due, is looked at again
    follower.handle_batch()
    assert tournaments.load_tournament(application(own_store), READABLE).state.status == tournament.RUNNING
    assert set(follower.unreadable) == {FAR_FUTURE, RENAMED}
