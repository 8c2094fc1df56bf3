"""Money over HTTP (real PostgreSQL): fees and a guarantee in the view, payouts as rooms
set them, a PKO bust in a split pot, deal figures and a deal that must add up, and the
exports and reconciliation that follow. Every refusal is a 4xx problem that writes nothing."""
from __future__ import annotations

import csv
import io

import pytest

from tests.integration.conftest import ADMIN, assert_problem, register_player
from tests.integration.test_tournament_operations_http import post, refused_writes_nothing
from tests.integration.test_tournaments_http import STRUCTURE, register, view

pytestmark = pytest.mark.integration

PKO = {"buy_in": 100, "fee": 10, "guarantee": 1000, "payouts": [{"percent": "70"}, {"percent": "30"}],
       "payout_unit": 5, "bounty": {"kind": "progressive", "amount": 50}}


def create(client, **money) -> dict:
    body = {"name": "Money", "game": "holdem", "levels": STRUCTURE, "starting_stack": 10000, "table_size": 6,
            "tables": "physical", "starts_at": "now", **money}
    return client.post("/v1/tournaments", json=body, headers=ADMIN)


def running_with(client, players: int, **money) -> tuple[str, list[str]]:
    created = create(client, **money)
    assert created.status_code == 201, created.get_data(as_text=True)
    tournament_id = created.get_json()["id"]
    names = [register_player(client, f"M{n}") for n in range(players)]
    for name in names:
        assert register(client, tournament_id, name).status_code == 201
    assert post(client, tournament_id, "start", {}).status_code == 201
    return tournament_id, names


def csv_rows(client, tournament_id: str, export: str) -> list[list[str]]:
    answer = client.get(f"/v1/tournaments/{tournament_id}/{export}.csv", headers=ADMIN)
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(answer.get_data(as_text=True))))


@pytest.mark.parametrize("money, status, code", [
    ({"payouts": [{"percent": "60"}, {"amount": 40}]}, 400, "validation_error"),
    ({"payouts": [{"amount": 300}, {"amount": 500}]}, 422, "invalid_payouts"),
    ({"payouts": [{"amount": 500}], "payout_preset": True}, 400, "validation_error"),
    ({"payout_percentages": ["100"], "bounty": {"kind": "mystery", "amount": 5}}, 400, "validation_error"),
    ({"payout_percentages": ["100"], "rebuy_fee": 5}, 422, "invalid_setting"),
    ({}, 400, "validation_error"),
])
def test_money_settings_that_cannot_be_are_problems(client, money, status, code):
    assert_problem(create(client, **money), status, code)


def test_fixed_payouts_and_a_guarantee_show_in_the_view_and_the_payouts_export(client):
    tournament_id, _ = running_with(client, 4, buy_in=100, fee=15, payouts=[{"amount": 600}, {"amount": 250}])
    shown = view(client, tournament_id)
    # 400 paid in, fixed amounts of 850: the house makes up 450.
    reconciliation = shown["money"]["reconciliation"]
    assert (shown["prize_pool"], reconciliation["overlay"], reconciliation["fees"]) == (850, 450, 60)
    assert [p["amount"] for p in shown["payouts"]] == [600, 250]
    assert csv_rows(client, tournament_id, "payouts") == [["place", "percentage", "amount"], ["1", "", "600"],
                                                          ["2", "", "250"]]


def test_a_pko_with_a_split_pot_a_deal_and_results_that_add_up(client):
    tournament_id, players = running_with(client, 4, **PKO)
    seats = view(client, tournament_id)["tables"][0]["players"]
    a, b, c, d = (p["player_id"] for p in seats)
    refused_writes_nothing(client, tournament_id, post(client, tournament_id, "eliminations", {"player_id": a}),
                           422, "busted_by_required")
    assert post(client, tournament_id, "eliminations",
                {"player_id": a, "busted_by": b, "also_busted_by": [c]}).status_code == 201
    shown = view(client, tournament_id)
    ledger = {entry["player_id"]: entry for entry in shown["bounties"]}
    # 50 progressive: 25 in cash and 25 onto heads, split 13/12 and 13/12.
    assert sorted((ledger[b]["cash"], ledger[c]["cash"])) == [12, 13]
    assert ledger[b]["head"] + ledger[c]["head"] == 125
    assert assert_problem(client.get(f"/v1/tournaments/{tournament_id}/deal-figures", headers=ADMIN), 422,
                          "stacks_unknown")
    counts = [{"player_id": b, "chips": 20000}, {"player_id": c, "chips": 12000}, {"player_id": d, "chips": 8000}]
    assert post(client, tournament_id, "chip-counts", {"counts": counts}).status_code == 201
    figures = client.get(f"/v1/tournaments/{tournament_id}/deal-figures", headers=ADMIN).get_json()
    # 4 x 100 < 1,000 guaranteed: 700 / 300 to pay, third place unpaid.
    assert figures["remaining_pool"] == 1000 and figures["open_prizes"] == [700, 300]
    # Third place pays nothing: the chip chop is the whole 1,000 by chips.
    assert {p["player_id"]: p["chip_chop"] for p in figures["players"]} == {b: 500, c: 300, d: 200}
    assert sum(p["icm"] for p in figures["players"]) == sum(p["chip_chop"] for p in figures["players"]) == 1000
    shares = [{"player_id": b, "amount": 450}, {"player_id": c, "amount": 300}, {"player_id": d, "amount": 200}]
    problem = refused_writes_nothing(client, tournament_id, post(client, tournament_id, "deals",
                                                                 {"shares": shares, "left_to_play_for": 49}),
                                     422, "deal_does_not_add_up")
    assert problem["numbers"] == {"agreed": 999, "remaining_pool": 1000}
    refused_writes_nothing(client, tournament_id, post(client, tournament_id, "deals",
                                                       {"shares": shares[:2], "left_to_play_for": 250}),
                           422, "deal_players")
    assert post(client, tournament_id, "deals", {"shares": shares, "left_to_play_for": 50}).status_code == 201
    assert view(client, tournament_id)["deal"]["left_to_play_for"] == 50
    for out, by in ((b, d), (c, d)):
        assert post(client, tournament_id, "eliminations", {"player_id": out, "busted_by": by}).status_code == 201
    final = view(client, tournament_id)
    assert final["status"] == "finished"
    prizes = {p["player_id"]: p["amount"] for p in final["prizes"]}
    assert prizes == {d: 250, b: 450, c: 300}
    books = final["money"]["reconciliation"]
    assert (books["collected"], books["fees"], books["overlay"], books["left"]) == (640, 40, 600, 0)
    assert books["paid"] == 1000 + 200 and books["bounties_paid"] == 200
    results = csv_rows(client, tournament_id, "results")
    assert results[0] == ["place", "player_id", "name", "prize", "bounties", "total"]
    assert sum(int(row[5]) for row in results[1:]) == books["paid"]
    bounties = csv_rows(client, tournament_id, "bounties")
    assert sum(int(row[4]) for row in bounties[1:]) == 200 and bounties[-1][0] == bounties[-1][2] == d
    assert dict(csv_rows(client, tournament_id, "reconciliation")[1:])["left"] == "0"
