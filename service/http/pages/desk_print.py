"""What the desk prints from the browser (print CSS, no PDF made here): seat cards, one per
player (name, table, seat), the table draw, by table and by name, for the wall, and the
cashier's payout slips, one a page (place, prize or deal amount, bounties, total, a line to
sign). `/floor/tournaments/{id}/print/seat-cards`, `/print/table-draw`,
`/print/payout-slips` (every player paid so far) and `/print/payout-slips/{player_id}`,
for the desk's roles; read from the tournament's seating and results, seats counted from
1 as on the felt."""
from __future__ import annotations

from typing import Any

from flask import render_template

from service.application import tournaments
from service.http.pages.desk import loaded_context, seated_players
from service.http.pages.desk_actions import DESK_ROLES
from service.http.pages.frame import pages
from service.http.pages.session import floor_page
from service.http.problems import Problem

SHEETS = {"seat-cards": "Seat cards", "table-draw": "Table draw", "payout-slips": "Payout slips"}


def _sheet(tournament_id: str, sheet: str) -> str:
    context = loaded_context(tournament_id)
    players = seated_players(context)
    tables: dict[int, list[dict[str, Any]]] = {}
    for player in sorted(players, key=lambda p: (p["table"], p["seat"])):
        tables.setdefault(player["table"], []).append(player)
    settings = context.state.settings
    return render_template("desk_print.html", sheet=sheet, title=SHEETS[sheet], tournament_id=tournament_id,
                           name=settings.name if settings else "", players=players, tables=tables, slips=[])


def _slips(tournament_id: str, player_id: str | None) -> str:
    """One slip for each player the cashier pays (a prize, the deal's amount or bounties),
    or for one of them."""
    context = loaded_context(tournament_id)
    state = context.state
    prizes = {p.player_id: p for p in state.prizes()}
    bounties = {entry["player_id"]: entry["cash"] for entry in tournaments.bounty_ledger(state)}
    places = {e.player_id: e.place for e in state.finishing_order()}
    paid = [p for p in places if p in prizes or bounties.get(p)]
    if player_id is not None:
        if player_id not in paid:
            raise Problem(404, "not_found", f"nothing is paid to player {player_id} in this tournament (yet)")
        paid = [player_id]
    dealt = {share.player_id for share in state.deal.shares} if state.deal else set()
    slips = [{"player_id": p, "name": context.name(p), "place": places[p],
              "prize": prizes[p].amount if p in prizes else 0, "bounties": bounties.get(p, 0),
              "total": (prizes[p].amount if p in prizes else 0) + bounties.get(p, 0), "deal": p in dealt,
              "final": p in prizes} for p in paid]
    settings = state.settings
    return render_template("desk_print.html", sheet="payout-slips", title=SHEETS["payout-slips"],
                           tournament_id=tournament_id, name=settings.name if settings else "", players=slips,
                           tables={}, slips=slips, entries=state.entries)


@pages.route("/floor/tournaments/<string:tournament_id>/print/seat-cards", methods=["GET"])
@floor_page(roles=DESK_ROLES)
def seat_cards(tournament_id: str) -> str:
    return _sheet(tournament_id, "seat-cards")


@pages.route("/floor/tournaments/<string:tournament_id>/print/table-draw", methods=["GET"])
@floor_page(roles=DESK_ROLES)
def table_draw(tournament_id: str) -> str:
    return _sheet(tournament_id, "table-draw")


@pages.route("/floor/tournaments/<string:tournament_id>/print/payout-slips", methods=["GET"])
@floor_page(roles=DESK_ROLES)
def payout_slips(tournament_id: str) -> str:
    return _slips(tournament_id, None)


@pages.route("/floor/tournaments/<string:tournament_id>/print/payout-slips/<string:player_id>", methods=["GET"])
@floor_page(roles=DESK_ROLES)
def payout_slip(tournament_id: str, player_id: str) -> str:
    return _slips(tournament_id, player_id)
