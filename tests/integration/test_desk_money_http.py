"""Money on the desk over HTTP (real PostgreSQL): a bounty bust asks who busted the player
(and a split pot's other winners), the deal figures and a deal recorded through the desk's
form after its question, the cashier's reconciliation, the results with bounties and
totals, and the payout slips."""
from __future__ import annotations

import re

from tests.integration.conftest import ADMIN_KEY
from tests.integration.test_desk_http import page, post, view
from tests.integration.test_pages_http import new_tournament, sign_in


def figure(desk: str, name: str) -> str:
    return re.search(rf'data-figure="{name}">([^<]*)<', desk).group(1)


def test_a_pko_with_a_deal_run_from_the_desk_ends_in_results_slips_and_books_that_add_up(client):
    names = ["Pko Ann", "Pko Bo", "Pko Cy", "Pko Di"]
    tournament_id, players = new_tournament(client, names, tables="physical", buy_in=100, fee=10, guarantee=500,
                                            bounty={"kind": "progressive", "amount": 40})
    sign_in(client, ADMIN_KEY)
    ann, bo, cy, di = players
    asked = post(client, tournament_id, "eliminate", player_id=ann)
    assert asked.status_code == 200 and "name who busted them" in page(asked)
    assert '<select name="busted_by" required>' in page(asked) and 'name="also_busted_by"' in page(asked)
    assert view(client, tournament_id)["players_left"] == 4, "asking writes nothing"
    done = post(client, tournament_id, "eliminate", player_id=ann, confirmed="yes", busted_by=bo, also_busted_by=[cy])
    assert done.status_code == 303
    assert {e["player_id"]: e["cash"] for e in view(client, tournament_id)["bounties"] if e["cash"]} == {bo: 10, cy: 10}

    desk = page(client.get(f"/floor/tournaments/{tournament_id}"))
    # 4 x 100 < 500 guaranteed: the house adds 100; 40 collected as fees; 20 bounties paid.
    assert (figure(desk, "collected"), figure(desk, "fees"), figure(desk, "overlay")) == ("600", "40", "100")
    assert "data-deal-unavailable" in desk, "physical tables: chips not counted since the bust"
    counts = {f"chips:{p['player_id']}": str(chips) for p, chips in
              zip(view(client, tournament_id)["tables"][0]["players"], (15000, 3000, 2000))}
    assert post(client, tournament_id, "counts", table="1", **counts).status_code == 303
    desk = page(client.get(f"/floor/tournaments/{tournament_id}"))
    assert "data-deal-player" in desk and "Record the deal" in desk and 'id="record-chip-chop"' in desk
    # Payouts 70/30 of 500: 350 / 150, third place unpaid; the desk's amounts: bo 250, cy 120, di 80, 50 to play for.
    amounts = {bo: "250", cy: "120", di: "80"}
    short = post(client, tournament_id, "deal", left_to_play_for="0",
                 **{f"amount:{p}": a for p, a in amounts.items()})
    assert short.status_code == 422 and 'data-code="deal_does_not_add_up"' in page(short)
    asked = post(client, tournament_id, "deal", left_to_play_for="50", **{f"amount:{p}": a for p, a in amounts.items()})
    assert asked.status_code == 200 and "50 is left to play for, paid to the winner" in page(asked)
    assert view(client, tournament_id)["deal"] is None, "asking writes nothing"
    assert post(client, tournament_id, "deal", left_to_play_for="50", confirmed="yes",
                **{f"amount:{p}": a for p, a in amounts.items()}).status_code == 303
    for out, by in ((cy, bo), (di, bo)):
        assert post(client, tournament_id, "eliminate", player_id=out, busted_by=by, confirmed="yes").status_code == 303
    final = view(client, tournament_id)
    assert final["status"] == "finished"
    assert {p["player_id"]: p["amount"] for p in final["prizes"]} == {bo: 300, cy: 120, di: 80}
    desk = page(client.get(f"/floor/tournaments/{tournament_id}"))
    assert (figure(desk, "left"), figure(desk, "prizes_paid"), figure(desk, "bounties_paid")) == ("0", "500", "160")
    totals = [int(t) for t in re.findall(r'data-total>([\d,]*)<', desk) if t]
    assert sum(totals) == 500 + 4 * 40, "every prize and every bounty, the winner's own included"
    slips = page(client.get(f"/floor/tournaments/{tournament_id}/print/payout-slips"))
    # Ann, fourth with no bounty, is paid nothing: no slip.
    assert slips.count('class="payout-slip"') == 3 and "Prize (the deal)" in slips
    one = page(client.get(f"/floor/tournaments/{tournament_id}/print/payout-slips/{di}"))
    assert one.count('class="payout-slip"') == 1 and 'data-field="total">80<' in one
    assert client.get(f"/floor/tournaments/{tournament_id}/print/payout-slips/{ann}").status_code == 404
    assert client.get(f"/floor/tournaments/{tournament_id}/reconciliation.csv").status_code == 200

