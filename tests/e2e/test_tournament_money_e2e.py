"""An event's money end to end (issue 32): gunicorn serves HTTP on PostgreSQL, the floor
runs a PKO at physical tables as a room would, and the cashier's figures add up.

Twelve entries at 50 + 10 fee + a 20 progressive bounty, one rebuy (50 + 5 fee), 1,000
guaranteed (the house adds the overlay), payouts 50/30/20 in units of 5. The floor names
who busted each player: one bust in a split pot (the bounty shared, odd units by TDA 20),
one bust undone (its bounty reversed). Three left: the chips counted, the deal figures
read, a deal recorded with something left to play for; two more busts finish it. Then the
prizes pay the pool, results.csv's totals are the prizes and bounties paid, and the
reconciliation leaves nothing: collected - fees + overlay = paid. At most 90 s."""
from __future__ import annotations

import csv
import datetime
import http.client
import io
import random
import time

import pytest

from tests.e2e.conftest import Server

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]

PLAYERS, STACK = 12, 5000
BUY_IN, FEE, BOUNTY, REBUY_PRICE, REBUY_FEE, GUARANTEE = 50, 10, 20, 50, 5, 1000
LEVELS = [{"small_blind": 25, "big_blind": 50, "minutes": 20}, {"small_blind": 50, "big_blind": 100, "minutes": 20},
          {"small_blind": 100, "big_blind": 200, "minutes": 20}]


def _csv(server: Server, path: str) -> list[list[str]]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request("GET", path, headers=server.admin)
        response = connection.getresponse()
        assert response.status == 200 and response.getheader("Content-Type", "").startswith("text/csv")
        return list(csv.reader(io.StringIO(response.read().decode("utf-8"))))
    finally:
        connection.close()


def test_a_pko_with_fees_a_guarantee_and_a_deal_ends_in_results_and_books_that_add_up(server: Server):
    started = time.monotonic()
    rng = random.Random(32)

    def call(method: str, path: str, body: dict | None = None, expect: int = 201) -> dict:
        status, answer, _ = server.call(method, path, body, server.admin)
        assert status == expect, (path, answer)
        return answer

    in_a_minute = datetime.datetime.now(datetime.UTC) + datetime.timedelta(minutes=1)
    tournament_id = call("POST", "/v1/tournaments", {
        "name": "PKO 12", "game": "holdem", "levels": LEVELS, "starting_stack": STACK, "table_size": 6,
        "starts_at": in_a_minute.strftime("%Y-%m-%dT%H:%M:%SZ"), "tables": "physical",
        "buy_in": BUY_IN, "fee": FEE, "guarantee": GUARANTEE, "payout_unit": 5,
        "payouts": [{"percent": "50"}, {"percent": "30"}, {"percent": "20"}],
        "bounty": {"kind": "progressive", "amount": BOUNTY},
        "rebuy_price": REBUY_PRICE, "rebuy_fee": REBUY_FEE, "rebuy_chips": STACK, "rebuy_until_level": 1})["id"]
    base = f"/v1/tournaments/{tournament_id}"
    for n in range(PLAYERS):
        player = call("POST", "/v1/players", {"name": f"Pko {n}"})["id"]
        call("POST", f"{base}/registrations", {"player_id": player})
    call("POST", f"{base}/start", {})

    def shown() -> dict:
        return call("GET", base, expect=200)

    def tablemates(player: str) -> list[str]:
        table = next(t for t in shown()["tables"] if any(p["player_id"] == player for p in t["players"]))
        return [p["player_id"] for p in table["players"] if p["player_id"] != player]

    # A bust in the rebuy period keeps the seat and rebuys: no bounty changes hands.
    first = shown()["tables"][0]["players"][0]["player_id"]
    call("POST", f"{base}/eliminations", {"player_id": first, "busted_by": tablemates(first)[0]})
    call("POST", f"{base}/rebuys", {"player_id": first})
    assert shown()["bounties"] == [] or all(entry["cash"] == 0 for entry in shown()["bounties"])
    call("POST", f"{base}/clock/level", {"level": 2})  # rebuys are over

    # A split pot: two winners share the 20 (10 cash, 10 onto heads, 5 each).
    out = shown()["tables"][1]["players"][0]["player_id"]
    winners = tablemates(out)[:2]
    call("POST", f"{base}/eliminations", {"player_id": out, "busted_by": winners[0], "also_busted_by": [winners[1]]})
    assert sorted(e["cash"] for e in shown()["bounties"] if e["player_id"] in winners) == [5, 5]
    # A bust undone: its bounty comes back.
    victim = shown()["tables"][0]["players"][1]["player_id"]
    call("POST", f"{base}/eliminations", {"player_id": victim, "busted_by": tablemates(victim)[0]})
    cash_before_undo = sum(e["cash"] for e in shown()["bounties"])
    call("POST", f"{base}/undo", {})
    assert sum(e["cash"] for e in shown()["bounties"]) == cash_before_undo - BOUNTY // 2

    while shown()["players_left"] > 3:
        players = [p["player_id"] for t in shown()["tables"] for p in t["players"]]
        out = rng.choice(players)
        call("POST", f"{base}/eliminations", {"player_id": out, "busted_by": rng.choice(tablemates(out))})

    # Three left: counted, the figures read, the deal agreed with 60 left to play for.
    view = shown()
    left = [p["player_id"] for t in view["tables"] for p in t["players"]]
    in_play = view["chips"]["in_play"]
    counts = dict(zip(left, (in_play // 2, in_play // 3, in_play - in_play // 2 - in_play // 3)))
    call("POST", f"{base}/chip-counts", {"counts": [{"player_id": p, "chips": c} for p, c in counts.items()]})
    figures = call("GET", f"{base}/deal-figures", expect=200)
    remaining = figures["remaining_pool"]
    assert remaining == sum(figures["open_prizes"]) == sum(p["icm"] for p in figures["players"])
    assert sum(p["chip_chop"] for p in figures["players"]) == remaining
    shares = [{"player_id": p["player_id"], "amount": p["icm"] - 20} for p in figures["players"]]
    status, refused, _ = server.call("POST", f"{base}/deals", {"shares": shares, "left_to_play_for": 59},
                                     server.admin)
    assert status == 422 and refused["code"] == "deal_does_not_add_up"
    call("POST", f"{base}/deals", {"shares": shares, "left_to_play_for": 60})
    for out in sorted(left, key=counts.__getitem__)[:2]:  # the short stacks go out
        call("POST", f"{base}/eliminations", {"player_id": out, "busted_by": tablemates(out)[0]})

    final = shown()
    assert final["status"] == "finished"
    books = final["money"]["reconciliation"]
    entries, rebuys = final["entries"], final["chips"]["rebuys"]
    assert (entries, rebuys) == (PLAYERS, 1)
    assert books["collected"] == entries * (BUY_IN + FEE + BOUNTY) + rebuys * (REBUY_PRICE + REBUY_FEE)
    assert books["fees"] == entries * FEE + rebuys * REBUY_FEE
    assert books["overlay"] == GUARANTEE - (entries * BUY_IN + rebuys * REBUY_PRICE) and final["prize_pool"] == GUARANTEE
    prizes = {p["player_id"]: p["amount"] for p in final["prizes"]}
    assert sum(prizes.values()) == GUARANTEE
    winner = final["standings"][0]["player_id"]
    agreed = {s["player_id"]: s["amount"] for s in shares}
    assert {p: prizes[p] for p in agreed} == {p: a + (60 if p == winner else 0) for p, a in agreed.items()}
    assert books["bounties_paid"] == entries * BOUNTY, "every bounty paid, the winner's own included"
    assert books["left"] == 0 and books["collected"] - books["fees"] + books["overlay"] == books["paid"]

    results = _csv(server, f"{base}/results.csv")
    assert results[0] == ["place", "player_id", "name", "prize", "bounties", "total"]
    assert sum(int(row[5]) for row in results[1:]) == books["paid"]
    reconciliation = dict(_csv(server, f"{base}/reconciliation.csv")[1:])
    assert reconciliation["left"] == "0" and int(reconciliation["paid"]) == books["paid"]
    print(f"the PKO ran in {time.monotonic() - started:.1f} s")
