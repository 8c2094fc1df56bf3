"""What the desk prints from the browser (print CSS, no PDF made here): seat cards, one per
player (name, table, seat), and the table draw, by table and by name, for the wall.
`/floor/tournaments/{id}/print/seat-cards` and `/print/table-draw`, for the desk's roles;
read from the tournament's seating, seats counted from 1 as on the felt."""
from __future__ import annotations

from typing import Any

from flask import render_template

from service.http.pages.frame import pages
from service.http.pages.desk import loaded_context, seated_players
from service.http.pages.desk_actions import DESK_ROLES
from service.http.pages.session import floor_page

SHEETS = {"seat-cards": "Seat cards", "table-draw": "Table draw"}


def _sheet(tournament_id: str, sheet: str) -> str:
    context = loaded_context(tournament_id)
    players = seated_players(context)
    tables: dict[int, list[dict[str, Any]]] = {}
    for player in sorted(players, key=lambda p: (p["table"], p["seat"])):
        tables.setdefault(player["table"], []).append(player)
    settings = context.state.settings
    return render_template("desk_print.html", sheet=sheet, title=SHEETS[sheet], tournament_id=tournament_id,
                           name=settings.name if settings else "", players=players, tables=tables)


@pages.route("/floor/tournaments/<string:tournament_id>/print/seat-cards", methods=["GET"])
@floor_page(roles=DESK_ROLES)
def seat_cards(tournament_id: str) -> str:
    return _sheet(tournament_id, "seat-cards")


@pages.route("/floor/tournaments/<string:tournament_id>/print/table-draw", methods=["GET"])
@floor_page(roles=DESK_ROLES)
def table_draw(tournament_id: str) -> str:
    return _sheet(tournament_id, "table-draw")
