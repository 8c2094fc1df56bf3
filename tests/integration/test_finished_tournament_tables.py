"""Tables of a tournament that finished before tournaments finished their tables: the log
holds the tournament's end and, on each of its tables, no TableFinished, so GET /v1/tables
listed them as waiting for a hand that never comes. A tournament manager that starts
appends what is missing: FinishTournamentTable on each (its TableFinished), once, at the
table's version, a batch's budget at a time; the tables then list as finished, and
neither a second batch nor another follower starting finishes one again.

On a database of its own: the follower looks at every tournament of its database."""
from __future__ import annotations

from typing import Any

import pytest

from service.adapters.store import trackings
from service.application import commands, process_managers, tournament_tables, tournaments
from service.application.application import application
from service.config import Config
from tests import applications
from tests.integration.conftest import ADMIN, ADMIN_KEY
from tests.integration.test_tournament_follower import follower_at_the_head
from tests.integration.test_tournament_tables import STACK, new_tournament, play_to_the_end

pytestmark = pytest.mark.integration

PLAYERS = 14  # three tables of six: two broken on the way, the final one


@pytest.fixture(scope="module")
def finished_the_old_way(own_store: Any) -> str:
    """A tournament played to its end by code that did not finish its tables."""
    with pytest.MonkeyPatch.context() as old_code:
        old_code.setattr(tournament_tables, "_finish_if_done", lambda *args: False)
        tournament_id = new_tournament(own_store, PLAYERS, table_size=6)
        play_to_the_end(own_store, tournament_id, PLAYERS)
    return tournament_id


def table_ids(store: Any, tournament_id: str) -> list[str]:
    prefix = commands.table_stream(f"{tournament_id}-table-")
    return [stream[len(commands.STREAM_PREFIX):] for stream in store.list_streams(prefix)]


def finishes(store: Any, table_id: str) -> int:
    return sum(r.type == "TableFinished" for r in store.read_stream(commands.table_stream(table_id)))


def listed(client: Any, status: str) -> set[str]:
    response = client.get(f"/v1/tables?status={status}&limit=100", headers=ADMIN)
    assert response.status_code == 200, response.get_data(as_text=True)
    return {t["id"] for t in response.get_json()["tables"]}


def follower(store: Any) -> process_managers.TournamentFollower:
    """A follower of its own tracking record, at the log's head: what it does, it does
    because it starts, not because of an event it reads."""
    return process_managers.TournamentFollower(application(store), trackings.PostgresTracking(),
                                               name=follower_at_the_head(store))


def test_a_starting_follower_finishes_each_table_of_a_tournament_finished_before_it_did_once(
        finished_the_old_way, own_store, own_database, monkeypatch):
    from service.bootstrap import create_app

    tournament_id = finished_the_old_way
    client = create_app(Config(database_url=own_database[1], admin_key=ADMIN_KEY)).test_client()
    tables = table_ids(own_store, tournament_id)
    assert len(tables) == 3
    assert all(finishes(own_store, t) == 0 for t in tables)
    assert set(tables) <= listed(client, "waiting")  # the symptom

    monkeypatch.setattr(process_managers, "COMMANDS_PER_BATCH", 1)  # one table a batch
    manager = follower(own_store)
    assert [manager.handle_batch().recorded for _ in range(4)] == [1, 1, 1, 0]

    for table_id in tables:
        assert finishes(own_store, table_id) == 1
        assert own_store.read_stream(commands.table_stream(table_id))[-1].type == "TableFinished"
        assert commands.load_table(applications.of(own_store), table_id).state.finished
    assert set(tables) <= listed(client, "finished") and not set(tables) & listed(client, "waiting")
    # The final table's standings: the winner first, with every chip.
    winner = tournaments.load_tournament(applications.of(own_store), tournament_id).state.finishing_order()[0]
    [final] = [t for t in tables if winner.player_id in commands.load_table(applications.of(own_store), t).state.players]
    [finished] = [r for r in own_store.read_stream(commands.table_stream(final)) if r.type == "TableFinished"]
    assert finished.data["standings"][0] == {"player_id": winner.player_id, "place": 1, "stack": PLAYERS * STACK}

    # Exactly once: nothing more from this follower, nor from one that starts afresh.
    versions = {t: own_store.stream_version(commands.table_stream(t)) for t in tables}
    assert manager.handle_batch().recorded == 0
    assert follower(own_store).handle_batch().recorded == 0
    assert {t: own_store.stream_version(commands.table_stream(t)) for t in tables} == versions
