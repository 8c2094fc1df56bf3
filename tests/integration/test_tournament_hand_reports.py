"""A table's report of its hand (FinishHand, sent by the tables' process manager) that the
tournament cannot apply is refused as a rule (a 422 problem over HTTP) and writes nothing;
the stream stays readable (real PostgreSQL)."""
from __future__ import annotations

from datetime import datetime

import pytest

from domain.rules.violations import Violation
from domain.tournaments import commands as tournament_commands
from service.application import tournaments
from service.http.problems import from_violation
from tests import applications
from tests.integration.conftest import ADMIN, assert_problem
from tests.integration.test_tournaments_http import running, view

pytestmark = pytest.mark.integration


def test_a_waiting_player_reported_busted_again_is_a_422_that_writes_nothing(client, postgres_store):
    tournament_id, _ = running(client, 3, tables="service", rebuy_price=100, rebuy_chips=10000,
                               rebuy_until_level=1)
    app, now = applications.of(postgres_store), int(datetime.now().timestamp())
    table = view(client, tournament_id)["tables"][0]
    busted = table["players"][0]["player_id"]
    for hand in range(2):
        tournaments.send(app, tournament_id, tournament_commands.DealHand(table["number"], at=now + hand))
        if hand == 0:
            tournaments.send(app, tournament_id, tournament_commands.FinishHand(
                table["number"], at=now, busted=(tournament_commands.Bust(busted, 10000),)))
    version = view(client, tournament_id)["version"]
    again = tournament_commands.FinishHand(table["number"], at=now + 2, busted=(tournament_commands.Bust(busted, 0),))
    with pytest.raises(Violation) as refused:  # was a KeyError: a 500 for whoever sent it
        tournaments.send(app, tournament_id, again)
    assert refused.value.code == "awaiting_rebuy"
    with client.application.test_request_context():
        problem = from_violation(refused.value)
    assert problem.status_code == 422 and problem.get_json()["numbers"]["table"] == table["number"]
    twice = tournament_commands.FinishHand(table["number"], at=now + 2, stacks=(
        tournament_commands.ChipCount(busted, 0), tournament_commands.ChipCount(busted, 0)))
    with pytest.raises(Violation) as refused:
        tournaments.send(app, tournament_id, twice)
    assert refused.value.code == "duplicate_player"
    assert view(client, tournament_id)["version"] == version
    # The floor's own report of that player (the endpoint that takes busts) is a 422 too.
    answer = client.post(f"/v1/tournaments/{tournament_id}/eliminations",
                         json={"player_id": busted, "counts": []}, headers=ADMIN)
    assert_problem(answer, 422, "awaiting_rebuy")
    assert view(client, tournament_id)["version"] == version


def test_an_undone_elimination_replays_over_http(client):
    tournament_id, names = running(client, 4, rebuy_price=100, rebuy_chips=10000, rebuy_until_level=1,
                                   rebuys_allowed=1)
    waiting = names[0]
    assert client.post(f"/v1/tournaments/{tournament_id}/rebuys/decline", json={"player_id": waiting},
                       headers=ADMIN).status_code == 422  # not waiting yet
    busts = {"busted": [{"player_id": waiting, "starting_stack": 0}], "counts": []}
    assert client.post(f"/v1/tournaments/{tournament_id}/eliminations", json=busts, headers=ADMIN).status_code == 201
    declined = client.post(f"/v1/tournaments/{tournament_id}/rebuys/decline", json={"player_id": waiting},
                           headers=ADMIN)
    assert declined.status_code == 201, declined.get_data(as_text=True)
    undone = client.post(f"/v1/tournaments/{tournament_id}/undo", json={}, headers=ADMIN)
    assert undone.status_code == 201, undone.get_data(as_text=True)
    shown = view(client, tournament_id)  # read back from the stream: the undo replays
    assert waiting in {p["player_id"] for t in shown["tables"] for p in t["players"]}
