"""Running a real event over HTTP (real PostgreSQL): level control, rebuys and add-ons
that credit chips, queued floor moves, starts in the past, problems a person can read,
the event log and CSV exports. Every refusal is a 4xx problem that writes nothing."""
from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest

from domain.tournaments import commands as tournament_commands
from service.application import tournaments
from tests import applications
from tests.integration.conftest import ADMIN, assert_problem, key_for, register_player
from tests.integration.test_tournaments_http import STRUCTURE, iso, running, schedule, view

pytestmark = pytest.mark.integration


def post(client, tournament_id: str, path: str, body: dict, headers: dict = ADMIN):
    return client.post(f"/v1/tournaments/{tournament_id}/{path}", json=body, headers=headers)


def refused_writes_nothing(client, tournament_id: str, response, status: int, code: str) -> dict:
    version = view(client, tournament_id)["version"]
    body = assert_problem(response, status, code)
    assert view(client, tournament_id)["version"] == version
    return body


def test_a_start_in_the_past_is_refused_in_iso_and_now_starts_at_once(client):
    past = iso((datetime.now(UTC) - timedelta(hours=1)).replace(microsecond=0))
    body = {"name": "Late", "game": "holdem", "levels": STRUCTURE, "starting_stack": 1000,
            "payout_percentages": ["100"], "starts_at": past}
    problem = assert_problem(client.post("/v1/tournaments", json=body, headers=ADMIN), 422, "starts_in_past")
    assert problem["numbers"]["starts_at"] == past and problem["numbers"]["now"].endswith("Z")
    assert "rule" not in problem
    created = client.post("/v1/tournaments", json={**body, "starts_at": "now"}, headers=ADMIN)
    assert created.status_code == 201, created.get_data(as_text=True)


@pytest.mark.parametrize("starts_at", ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00"])
def test_a_start_outside_the_years_of_utc_is_a_400_naming_it(client, starts_at):
    # Found by trying: the first was created and every read of it (and `cardroom status`)
    # answered 500; the second was a 500 at once.
    body = {"name": "Edge", "game": "holdem", "levels": STRUCTURE, "starting_stack": 1000,
            "payout_percentages": ["100"], "starts_at": starts_at}
    problem = assert_problem(client.post("/v1/tournaments", json=body, headers=ADMIN), 400, "validation_error")
    assert problem["errors"][0]["field"] == "starts_at"


def test_a_start_more_than_ten_years_ahead_is_refused_with_the_latest(client):
    body = {"name": "Far", "game": "holdem", "levels": STRUCTURE, "starting_stack": 1000,
            "payout_percentages": ["100"], "starts_at": "9999-12-31T23:59:59Z"}
    problem = assert_problem(client.post("/v1/tournaments", json=body, headers=ADMIN), 422, "starts_too_late")
    assert problem["numbers"]["starts_at"] == "9999-12-31T23:59:59Z" and problem["numbers"]["latest"].endswith("Z")


def test_the_director_starts_two_hours_early_and_the_published_time_stays(client):
    starts = datetime.now(UTC) + timedelta(hours=2)
    body = {"name": "Later", "game": "holdem", "levels": STRUCTURE, "starting_stack": 1000,
            "payout_percentages": ["100"], "starts_at": iso(starts.replace(microsecond=0))}
    tournament_id = client.post("/v1/tournaments", json=body, headers=ADMIN).get_json()["id"]
    for name in ("A", "B"):
        post(client, tournament_id, "registrations", {"player_id": register_player(client, name)})
    assert post(client, tournament_id, "start", {}).status_code == 201
    shown = view(client, tournament_id)
    assert shown["status"] == "running" and shown["starts_at"] == iso(starts.replace(microsecond=0))
    assert shown["auto_start"] is False and shown["clock"]["level"] == 1


def test_an_adjustment_never_leaves_the_running_level_and_a_level_is_set_back_and_forth(client):
    tournament_id, _ = running(client, 4)
    clock = view(client, tournament_id)["clock"]
    assert clock["level"] == 1 and clock["ends_at"].endswith("Z")
    problem = refused_writes_nothing(client, tournament_id, post(client, tournament_id, "clock/adjust",
                                                                 {"seconds": -3000}), 422,
                                     "adjust_beyond_period")
    assert problem["numbers"]["remaining_s"] <= 20 * 60 and problem["numbers"]["level"] == 1
    assert post(client, tournament_id, "clock/level", {"level": 3, "remaining_s": 90}).status_code == 201
    clock = view(client, tournament_id)["clock"]
    assert (clock["level"], clock["period"], clock["blinds"]["big_blind"]) == (3, 4, 200)  # periods from 1
    assert 85 <= clock["remaining_s"] <= 90
    assert post(client, tournament_id, "clock/level", {"step": -1}).status_code == 201
    clock = view(client, tournament_id)["clock"]
    assert clock["on_break"] and clock["remaining_s"] >= 9 * 60
    assert post(client, tournament_id, "clock/level", {"level": 1}).status_code == 201
    assert view(client, tournament_id)["clock"]["level"] == 1
    refused_writes_nothing(client, tournament_id, post(client, tournament_id, "clock/level", {"level": 9}),
                           422, "unknown_level")
    refused_writes_nothing(client, tournament_id, post(client, tournament_id, "clock/level",
                                                       {"level": 1, "step": 1}), 400, "validation_error")


def test_rebuys_and_add_ons_credit_chips_within_their_limits(client):
    tournament_id, names = running(client, 3, late_registration_until_level=1, rebuy_price=100, rebuy_chips=5000,
                                   rebuys_allowed=1, rebuy_until_level=1, add_on_price=50, add_on_chips=8000)
    assert post(client, tournament_id, "rebuys", {"player_id": names[0]}).status_code == 201
    shown = view(client, tournament_id)
    chips = {p["player_id"]: p["chips"] for t in shown["tables"] for p in t["players"]}
    assert chips[names[0]] == 15000
    assert shown["chips"] == {"in_play": 35000, "issued": 35000, "removed": 0, "rebuys": 1, "add_ons": 0,
                              "known": 35000, "uncounted": 0, "average_stack": 11666}
    again = refused_writes_nothing(client, tournament_id, post(client, tournament_id, "rebuys",
                                                               {"player_id": names[0]}), 422, "rebuy_limit")
    assert again["numbers"] == {"taken": 1, "allowed": 1, "asked": 1}
    assert post(client, tournament_id, "add-ons", {"player_id": names[0]}).status_code == 201
    # names[0] now holds 23,000, above the starting stack: no rebuy for them.
    assert view(client, tournament_id)["chips"]["in_play"] == 43000
    assert view(client, tournament_id)["prize_pool"] == 3 * 100 + 100 + 50


def test_a_rebuy_is_taken_at_or_below_the_starting_stack(client):
    tournament_id, names = running(client, 2, late_registration_until_level=1, rebuy_price=100,
                                   rebuys_allowed=3)
    counts = [{"player_id": names[0], "chips": 12000}, {"player_id": names[1], "chips": 8000}]
    assert post(client, tournament_id, "chip-counts", {"counts": counts}).status_code == 201
    problem = refused_writes_nothing(client, tournament_id, post(client, tournament_id, "rebuys",
                                                                 {"player_id": names[0]}), 422,
                                     "rebuy_above_starting_stack")
    assert problem["numbers"] == {"stack": 12000, "rebuy_at_or_below": 10000, "starting_stack": 10000}
    assert post(client, tournament_id, "rebuys", {"player_id": names[1]}).status_code == 201
    wrong = [{"player_id": names[0], "chips": 12000}, {"player_id": names[1], "chips": 1}]
    problem = refused_writes_nothing(client, tournament_id, post(client, tournament_id, "chip-counts",
                                                                 {"counts": wrong}), 422, "chips_not_conserved")
    assert problem["numbers"]["expected"] == 30000


def test_a_move_asked_during_a_hand_is_queued_made_after_it_and_may_be_cancelled(client, postgres_store):
    tournament_id, names = running(client, 8, tables="service")
    shown = view(client, tournament_id)
    source, target = shown["tables"]
    tournaments.send(applications.of(postgres_store), tournament_id, tournament_commands.DealHand(target["number"], at=int(datetime.now().timestamp())))
    player = source["players"][0]["player_id"]
    open_seat = min(set(range(1, 7)) - {p["seat"] for p in target["players"]})  # seats from 1
    floor = key_for(client, "floor")
    asked = post(client, tournament_id, "moves", {"player_id": player, "to_table": target["number"],
                                                  "to_seat": open_seat}, floor)
    assert asked.status_code == 202, asked.get_data(as_text=True)
    move = asked.get_json()["move"]
    assert move == {"move_id": 1, "player_id": player, "to_table": target["number"], "to_seat": open_seat}
    assert view(client, tournament_id)["pending_moves"][0]["move_id"] == 1
    assert client.delete(f"/v1/tournaments/{tournament_id}/moves/1", json={}, headers=floor).status_code == 200
    assert view(client, tournament_id)["pending_moves"] == []
    assert_problem(client.delete(f"/v1/tournaments/{tournament_id}/moves/1", json={}, headers=floor), 422,
                   "unknown_move")
    assert post(client, tournament_id, "moves", {"player_id": player, "to_table": target["number"],
                                                 "to_seat": open_seat}, floor).status_code == 202
    finished = tournaments.send(applications.of(postgres_store), tournament_id,
                                tournament_commands.FinishHand(target["number"], at=int(datetime.now().timestamp())))
    made = [e["data"] for e in finished.events if e["type"] == "PlayerMoved"][0]
    assert (made["move_id"], made["move"]["player_id"], made["move"]["to_table"]) == (2, player, target["number"])
    assert view(client, tournament_id)["pending_moves"] == []  # (balancing may follow, as after any move)


def test_the_event_log_pages_and_the_csv_exports_neutralise_formulas(client):
    tournament_id, names = running(client, 3)
    first = client.get(f"/v1/tournaments/{tournament_id}/events?after=0&limit=2", headers=ADMIN).get_json()
    assert [e["version"] for e in first["events"]] == [1, 2] and first["next_after"] == 2
    rest = client.get(f"/v1/tournaments/{tournament_id}/events?after=2", headers=ADMIN).get_json()
    assert rest["next_after"] is None and rest["events"][0]["recorded_at"].endswith("Z")
    seating = client.get(f"/v1/tournaments/{tournament_id}/seating.csv", headers=ADMIN)
    assert seating.status_code == 200 and seating.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(seating.get_data(as_text=True))))
    assert rows[0] == ["table", "seat", "player_id", "name", "chips"] and len(rows) == 4
    assert seating.get_data(as_text=True).count("\r\n") == 4
    payouts = list(csv.reader(io.StringIO(client.get(f"/v1/tournaments/{tournament_id}/payouts.csv",
                                                     headers=ADMIN).get_data(as_text=True))))
    assert payouts == [["place", "percentage", "amount"], ["1", "65", "195"], ["2", "35", "105"]]
    results = client.get(f"/v1/tournaments/{tournament_id}/results.csv", headers=ADMIN).get_data(as_text=True)
    assert results.startswith("place,player_id,name,prize,bounties,total\r\n") and results.count("\r\n") == 4


def test_a_name_a_spreadsheet_would_run_as_a_formula_is_neutralised_in_csv(client):
    tournament_id = schedule(client)
    evil = register_player(client, '=HYPERLINK("http://x","y")')
    for player in (evil, register_player(client, "-2+3")):
        assert post(client, tournament_id, "registrations", {"player_id": player}).status_code == 201
    assert post(client, tournament_id, "start", {}).status_code == 201
    rows = list(csv.reader(io.StringIO(client.get(f"/v1/tournaments/{tournament_id}/seating.csv",
                                                  headers=ADMIN).get_data(as_text=True))))
    assert sorted(row[3] for row in rows[1:]) == ["'-2+3", "'=HYPERLINK(\"http://x\",\"y\")"]
