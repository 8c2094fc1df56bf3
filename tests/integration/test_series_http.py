"""The series API's refusals (docs/series.md): each a problem with its stable code and
nothing written; who may write; a player's results."""
from __future__ import annotations

from tests.integration.conftest import ADMIN, assert_problem, key_for, register_player
from tests.integration.test_tournaments_http import running, schedule

WINDOW = {"registration_opens_at": "2030-01-01T18:00:00Z", "registration_closes_at": "2030-01-01T21:00:00Z"}


def _series(client, **formula) -> str:
    created = client.post("/v1/series", json={"name": "Spring league", "formula": formula}, headers=ADMIN)
    assert created.status_code == 201, created.get_data(as_text=True)
    return created.get_json()["id"]


def test_refused_series_and_events_are_problems_with_stable_codes(client):
    body = assert_problem(client.post("/v1/series", json={"name": "x", "formula": {"kind": "table", "table": [5, 9]}},
                                      headers=ADMIN), 422, "invalid_formula")
    assert body["numbers"]["table"] == [5, 9]
    assert_problem(client.post("/v1/series", json={"name": "x", "formula": {"kind": "dice"}}, headers=ADMIN),
                   400, "validation_error")
    series_id = _series(client, kind="linear", scale=1)
    tournament_id = schedule(client, starts_in_s=3600)
    path = f"/v1/series/{series_id}/events"
    assert_problem(client.post(path, json={"tournament_id": "nope", **WINDOW}, headers=ADMIN),
                   422, "unknown_tournament")
    backwards = {"registration_opens_at": WINDOW["registration_closes_at"],
                 "registration_closes_at": WINDOW["registration_opens_at"]}
    assert_problem(client.post(path, json={"tournament_id": tournament_id, **backwards}, headers=ADMIN),
                   422, "invalid_registration_window")
    assert_problem(client.post("/v1/series/nope/events", json={"tournament_id": tournament_id, **WINDOW},
                               headers=ADMIN), 404, "not_found")
    opens_now = {"registration_opens_at": "now", "registration_closes_at": "2099-01-01T00:00:00Z"}
    assert client.post(path, json={"tournament_id": tournament_id, **opens_now}, headers=ADMIN).status_code == 201
    assert_problem(client.post(path, json={"tournament_id": tournament_id, **opens_now}, headers=ADMIN),
                   422, "event_scheduled")
    shown = client.get(f"/v1/series/{series_id}", headers=ADMIN).get_json()
    assert [(e["tournament_id"], e["phase"], e["registration_open"]) for e in shown["events"]] == [
        (tournament_id, "coming", True)]
    assert_problem(client.get("/v1/series/nope", headers=ADMIN), 404, "not_found")


def test_only_organisers_make_series_and_anyone_reads_them(client):
    series_id = _series(client)
    player = key_for(client, "player", register_player(client, "Reader"))
    assert_problem(client.post("/v1/series", json={"name": "mine"}, headers=player), 403, "forbidden")
    assert client.get(f"/v1/series/{series_id}/standings", headers=player).status_code == 200
    organiser = key_for(client, "organiser")
    assert client.post("/v1/series", json={"name": "theirs"}, headers=organiser).status_code == 201


def test_a_players_results_list_every_finished_event_with_the_series_points(client):
    series_id = _series(client, kind="field_root", scale=10)
    tournament_id, (first, second, third, fourth) = running(client, 4)
    window = {"registration_opens_at": "2020-01-01T00:00:00Z", "registration_closes_at": "now"}
    added = client.post(f"/v1/series/{series_id}/events", json={"tournament_id": tournament_id, **window},
                        headers=ADMIN)
    assert added.status_code == 201, added.get_data(as_text=True)
    for out in (fourth, third, second):
        response = client.post(f"/v1/tournaments/{tournament_id}/eliminations", json={"player_id": out},
                               headers=ADMIN)
        assert response.status_code == 201, response.get_data(as_text=True)
    results = client.get(f"/v1/players/{third}/results", headers=ADMIN).get_json()["results"]
    # 10 × √(4 / 3) = 11.547…; 65/35 pays the first two only.
    assert [(r["tournament_id"], r["place"], r["prize"], r["series"][0]["points"]) for r in results] == [
        (tournament_id, 3, 0, "11.55")]
    assert client.get(f"/v1/players/{first}/results", headers=ADMIN).get_json()["results"][0]["series"][0][
        "points"] == "20.00"
    assert_problem(client.get("/v1/players/nobody/results", headers=ADMIN), 404, "not_found")
