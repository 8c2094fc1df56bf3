"""Cash tables over HTTP (live.md): sit down with a buy-in (`POST .../seats`), stand up
(`DELETE .../seats/{player_id}`), top up (`POST .../top-ups`), and close a table (`POST
.../close`). Each is one command through service.application.commands, so it is an event of the
table's stream; the domain refuses what its rules forbid (422 with the numbers). A player
key acts for its own player; floor and admin keys name one. If-Match is optional.
"""
from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask import Response

from domain.live import table, table_commands
from service.application import commands
from service.http.api import Blueprint, application, event_store
from service.http.api.schemas import Chips
from service.http.api.tables import (
    IDEMPOTENCY_KEY_HEADER,
    ReturnQuerySchema,
    WriteSchema,
    WrittenSchema,
    _player_named,
    actor_name,
    expected_version,
    loaded_table,
    written,
)
from service.http.auth import current_principal, require
from service.http.problems import Problem

blp = Blueprint("cash_tables", __name__, url_prefix="/v1/tables", description="Cash tables")

_PLAYER_ID = ma.validate.Length(min=1, max=100)


class SitDownSchema(WriteSchema):
    player_id = ma.fields.String(validate=_PLAYER_ID, metadata={"description": "floor and admin keys: who sits"})
    buy_in = Chips(required=True, minimum=1, metadata={"description": "chips brought, within the table's limits"})
    seat = ma.fields.Integer(strict=True, load_default=None, allow_none=True,
                             validate=ma.validate.Range(min=0, max=table.MAX_SEATS - 1),
                             metadata={"description": "the empty seat wanted (default: the first empty one)"})


class TopUpSchema(WriteSchema):
    player_id = ma.fields.String(validate=_PLAYER_ID, metadata={"description": "floor and admin keys: who"})
    amount = Chips(required=True, minimum=1, metadata={"description": "chips added, up to the maximum buy-in"})


def _write(path: str, method: str, schema: ma.Schema, *, location: str = "json",
           roles: tuple[str, ...] = ("admin", "floor", "player")) -> Any:
    """A cash-table write's route: its roles, its input, the table's written answer (201,
    200 for a DELETE) and the problems it may answer."""
    def routed(view: Any) -> Any:
        for status, name in ((400, "BAD_REQUEST"), (403, "FORBIDDEN"), (404, "NOT_FOUND"),
                             (409, "CONFLICT"), (422, "UNPROCESSABLE_ENTITY")):
            view = blp.alt_response(status, response=name)(view)
        view = blp.doc(parameters=[IDEMPOTENCY_KEY_HEADER])(view)
        view = blp.response(200 if method == "DELETE" else 201, WrittenSchema)(view)
        view = blp.arguments(schema, location=location)(view)
        return blp.route(path, methods=[method])(require(*roles)(view))
    return routed


def _run(table_id: str, body: dict, command: Any, status: int = 201) -> Response:
    version = expected_version(body, required=False)
    loaded_table(table_id)
    result = commands.execute(application(), table_id, version, command, actor=actor_name(current_principal()))
    return written(result, status)


@_write("/<string:table_id>/seats", "POST", SitDownSchema())
def sit_down(body: dict, table_id: str) -> Response:
    """Sit down at a cash table with a buy-in within its limits, in an empty seat; dealt
    in from the next hand (`seat_taken`, `table_full`, `buy_in_out_of_range`, `already_seated`)."""
    player_id = _player_named(body, current_principal())
    if event_store().stream_version(f"player-{player_id}") == 0:
        raise Problem(422, "unknown_player", f"no player {player_id} is registered")
    return _run(table_id, body, table_commands.SitDown(player_id, body["buy_in"], body["seat"]))


@_write("/<string:table_id>/seats/<string:player_id>", "DELETE", ReturnQuerySchema(), location="query")
def stand_up(query: dict, table_id: str, player_id: str) -> Response:
    """Stand up with the stack, once not in a hand being played (`hand_in_progress`
    otherwise: leave after the hand)."""
    _player_named({"player_id": player_id}, current_principal())
    return _run(table_id, query, table_commands.StandUp(player_id), status=200)


@_write("/<string:table_id>/top-ups", "POST", TopUpSchema())
def top_up(body: dict, table_id: str) -> Response:
    """Add chips between the player's hands, up to the maximum buy-in (`top_up_over_max`)."""
    player_id = _player_named(body, current_principal())
    return _run(table_id, body, table_commands.TopUp(player_id, body["amount"]))


@_write("/<string:table_id>/close", "POST", WriteSchema(), roles=("admin", "organiser", "floor"))
def close_table(body: dict, table_id: str) -> Response:
    """No new hand: the table finishes now, or once the hand being played ends
    (`closing` meanwhile). A tournament closes its own tables."""
    return _run(table_id, body, table_commands.CloseTable())
