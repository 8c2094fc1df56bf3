"""A series end to end (issue 35): gunicorn serves HTTP on PostgreSQL; an organiser makes a
series with a table of points, schedules three events at physical tables, and the floor
plays them out, one with a chop (a deal agreeing each player's place) and one with fixed
bounties. The standings then add up by hand, and each player's results show the events
they played. At most 90 s.

The formula: a table 10 / 6 / 3 by place, 1 point for playing, a point per 20 of bounty cash.
- A (4 players, 100 buy-in, 50/30/20): ann wins, bob 2nd, cy 3rd, dee 4th:
  ann 10+1 = 11, bob 6+1 = 7, cy 3+1 = 4, dee 0+1 = 1.
- B (the same four): ann out 4th; the three left agree a deal of 150 / 130 / 120 (the
  400 to pay) and its places: dee 1st, bob 2nd, cy 3rd. Then bob goes out 3rd, dee 2nd,
  cy wins; the points follow the places agreed: dee 11, bob 7, cy 4, ann 1; the prizes
  the deal's amounts.
- C (ann, bob, cy; 100 + a 20 fixed bounty): bob busts cy and ann and wins, with 60 of
  bounty cash (his own at the end): bob 10+1+3 = 14, ann 6+1 = 7, cy 3+1 = 4.
Totals: bob 7+7+14 = 28, ann 11+1+7 = 19, cy 4+4+4 = 12, dee 1+11 = 12 (cy and dee share
third, listed by id)."""
from __future__ import annotations

import csv
import datetime
import http.client
import io
import time

import pytest

from tests.e2e.conftest import Server

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]

LEVELS = [{"small_blind": 25, "big_blind": 50, "minutes": 20}]
PAYOUTS = [{"percent": "50"}, {"percent": "30"}, {"percent": "20"}]


def _at(delta: datetime.timedelta) -> str:
    return (datetime.datetime.now(datetime.UTC) + delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_series_of_three_events_with_a_chop_ends_in_standings_that_add_up(server: Server):
    started = time.monotonic()

    def call(method: str, path: str, body: dict | None = None, expect: int = 201) -> dict:
        status, answer, _ = server.call(method, path, body, server.admin)
        assert status == expect, (path, answer)
        return answer

    players = {name: call("POST", "/v1/players", {"name": f"Series {name}"})["id"]
               for name in ("ann", "bob", "cy", "dee")}
    series_id = call("POST", "/v1/series", {"name": "Winter league", "formula": {
        "kind": "table", "table": [10, 6, 3], "participation": 1, "bounty_cash_per_point": 20}})["id"]
    refused = call("POST", "/v1/series", {"name": "Upside down", "formula": {"kind": "table", "table": [3, 6]}},
                   expect=422)
    assert refused["code"] == "invalid_formula"

    def event(name: str, entrants: list[str], **money: object) -> str:
        tournament_id = call("POST", "/v1/tournaments", {
            "name": name, "game": "holdem", "levels": LEVELS, "starting_stack": 5000, "tables": "physical",
            "starts_at": _at(datetime.timedelta(minutes=1)), "buy_in": 100, "payouts": PAYOUTS, **money})["id"]
        call("POST", f"/v1/series/{series_id}/events", {
            "tournament_id": tournament_id, "registration_opens_at": _at(-datetime.timedelta(hours=1)),
            "registration_closes_at": _at(datetime.timedelta(hours=1))})
        for entrant in entrants:
            call("POST", f"/v1/tournaments/{tournament_id}/registrations", {"player_id": players[entrant]})
        call("POST", f"/v1/tournaments/{tournament_id}/start", {})
        return tournament_id

    def out(tournament_id: str, name: str, busted_by: str | None = None) -> None:
        body = {"player_id": players[name], **({"busted_by": players[busted_by]} if busted_by else {})}
        call("POST", f"/v1/tournaments/{tournament_id}/eliminations", body)

    first = event("A", ["ann", "bob", "cy", "dee"])
    for name in ("dee", "cy", "bob"):
        out(first, name)

    second = event("B", ["ann", "bob", "cy", "dee"])
    out(second, "ann")
    deal = {"shares": [{"player_id": players["dee"], "amount": 150, "place": 1},
                       {"player_id": players["bob"], "amount": 130, "place": 2},
                       {"player_id": players["cy"], "amount": 120, "place": 3}], "left_to_play_for": 0}
    twice = {**deal, "shares": [{**share, "place": 1} for share in deal["shares"]]}
    assert call("POST", f"/v1/tournaments/{second}/deals", twice, expect=422)["code"] == "deal_places"
    call("POST", f"/v1/tournaments/{second}/deals", deal)
    for name in ("bob", "dee"):
        out(second, name)

    # The series shows what is finished and what is coming while the third is not over.
    third = event("C", ["ann", "bob", "cy"], bounty={"kind": "fixed", "amount": 20})
    shown = call("GET", f"/v1/series/{series_id}", expect=200)
    assert [(e["tournament_id"], e["phase"]) for e in shown["events"]] == [
        (first, "finished"), (second, "finished"), (third, "running")]
    out(third, "cy", busted_by="bob")
    out(third, "ann", busted_by="bob")

    standings = call("GET", f"/v1/series/{series_id}/standings", expect=200)
    assert standings["events"] == [first, second, third]
    table = [(row["rank"], row["name"], row["points"]) for row in standings["standings"]]
    ids = {v: k for k, v in players.items()}
    tied = sorted(["cy", "dee"], key=lambda name: players[name])
    assert table == [(1, "Series bob", "28.00"), (2, "Series ann", "19.00"),
                     (3, f"Series {tied[0]}", "12.00"), (3, f"Series {tied[1]}", "12.00")]
    by_player = {ids[row["player_id"]]: {e["tournament_id"]: e for e in row["events"]}
                 for row in standings["standings"]}
    assert [by_player[n][second]["points"] for n in ("dee", "bob", "cy", "ann")] == ["11.00", "7.00", "4.00", "1.00"]
    assert (by_player["dee"][second]["place"], by_player["dee"][second]["agreed_place"],
            by_player["dee"][second]["prize"]) == (2, 1, 150)
    assert (by_player["bob"][third]["bounties"], by_player["bob"][third]["points"]) == (60, "14.00")

    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request("GET", f"/v1/series/{series_id}/standings.csv", headers=server.admin)
        response = connection.getresponse()
        assert response.status == 200 and response.getheader("Content-Type", "").startswith("text/csv")
        rows = list(csv.reader(io.StringIO(response.read().decode("utf-8"))))
    finally:
        connection.close()
    assert rows[0] == ["rank", "player_id", "name", "points", first, second, third]
    assert rows[1] == ["1", players["bob"], "Series bob", "28.00", "7.00", "7.00", "14.00"]
    assert rows[2] == ["2", players["ann"], "Series ann", "19.00", "11.00", "1.00", "7.00"]

    history = call("GET", f"/v1/players/{players['dee']}/results", expect=200)
    assert sorted((r["tournament_id"], r["place"], r["prize"], r["series"][0]["points"])
                  for r in history["results"]) == sorted([(first, 4, 0, "1.00"), (second, 2, 150, "11.00")])
    assert call("GET", "/v1/series/no-such-series/standings", expect=404)["code"] == "not_found"
    assert time.monotonic() - started < 90
