"""`/floor/tables/new` (pages.md): the floor opens a cash table by name: its game (one that
bets with the table's own blinds, domain.registry), betting (structure and blinds), seats and buy-in limits, dealing each hand as
the last ends if asked. The table opens with its seats empty; players sit down with a
buy-in (POST /v1/tables/{id}/seats). The same command as POST /v1/tables, so the same
refusals: a name that does not read as one (`invalid_table_name`), blinds or buy-ins out
of order come back on the form with why.
"""
from __future__ import annotations

import uuid
from typing import Any

from flask import redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from domain import registry
from domain.live import table, table_commands, table_names, table_state
from domain.rules.betting import KINDS, BettingStructure
from domain.rules.violations import Violation
from service.application import commands
from service.http.api import application
from service.http.api.tables import actor_name
from service.http.auth import current_principal
from service.http.pages.frame import pages
from service.http.pages.replayer import FLOOR_ROLES
from service.http.pages.session import floor_page


def _games() -> list[str]:
    """The games a table bets with its own blinds (the others derive theirs from settings)."""
    return registry.names(lambda game: game.table is not None and game.table.table_game is None)

NUMBERS = ("small_blind", "big_blind", "seats", "min_buy_in", "max_buy_in")
DEFAULTS = {"name": "", "game": "holdem", "structure": "no-limit", "small_blind": "50", "big_blind": "100",
            "seats": "9", "min_buy_in": "4000", "max_buy_in": "10000", "auto_deal": "true"}


@pages.route("/floor/tables/new", methods=["GET"])
@floor_page(roles=FLOOR_ROLES)
def table_form() -> Any:
    return _form(DEFAULTS, None, 200)


@pages.route("/floor/tables/new", methods=["POST"])
@floor_page(roles=FLOOR_ROLES)
def open_table() -> Any:
    given = {key: request.form.get(key, "").strip() if key != "name" else request.form.get(key, "")
             for key in DEFAULTS}
    try:
        command = _command(given)
        commands.create_table(application(), command, actor=actor_name(current_principal()))
    except Violation as refused:
        return _form(given, f"{refused.code}: {refused.detail}", 422)
    return redirect(url_for("pages.floor_table", table_id=command.table_id), code=303)


def _command(given: dict[str, str]) -> table_commands.CreateTable:
    numbers: dict[str, int] = {}
    for key in NUMBERS:
        if not given[key].isdigit() or len(given[key]) > 12:
            raise Violation("invalid_table", f"{key.replace('_', ' ')} must be a whole number, not {given[key]!r}")
        numbers[key] = int(given[key])
    if given["game"] not in _games() or given["structure"] not in KINDS:
        raise Violation("invalid_table", f"a table of {given['game']!r} {given['structure']!r} is not opened here")
    if not table.MIN_SEATS <= numbers["seats"] <= table.MAX_SEATS:
        raise Violation("invalid_table", f"a table seats {table.MIN_SEATS} to {table.MAX_SEATS}, not {numbers['seats']}")
    betting = BettingStructure.from_dict({"structure": given["structure"], "small_blind": numbers["small_blind"],
                                          "big_blind": numbers["big_blind"]})
    return table_commands.CreateTable(
        str(uuid.uuid4()), given["game"], {}, betting, (table_commands.TableSeat(table_state.EMPTY_SEAT, 0),) * numbers["seats"],
        auto_deal=given["auto_deal"] == "true", min_buy_in=numbers["min_buy_in"], max_buy_in=numbers["max_buy_in"],
        name=given["name"] or None)


def _form(given: dict[str, str], error: str | None, status: int) -> Response:
    body = render_template("floor/table_new.html", given=given, error=error, games=_games(), kinds=KINDS,
                           max_name=table_names.MAX_LENGTH, min_seats=table.MIN_SEATS, max_seats=table.MAX_SEATS)
    return Response(body, status, mimetype="text/html")
