"""Players' seats: floor moves (made, queued, called out, seated, cancelled) and absences at
the service's tables.
"""
from __future__ import annotations

from domain.tournaments import commands as tournament_commands
from service.application import tournament_tables, tournaments
from service.http.api import Blueprint, application
from service.http.api.names import with_names
from service.http.api.tables import actor_name
from service.http.api.tournament_requests import ALL_ROLES, FLOOR, existing, now, send, write_docs
from service.http.api.tournament_schemas import (
    MoveSchema,
    MovesSchema,
    MoveWrittenSchema,
    TableWrittenSchema,
    TournamentAbsenceSchema,
    TournamentWriteSchema,
    TournamentWrittenSchema,
)
from service.http.auth import current_principal, require

blp = Blueprint("seating", __name__)  # nested in tournaments.blp: "/v1/tournaments" + each route


@blp.route("/<string:tournament_id>/moves", methods=["POST"])
@require(*FLOOR)
@blp.arguments(MoveSchema)
@blp.response(201, MoveWrittenSchema)
@blp.alt_response(202, schema=MoveWrittenSchema, description="queued: made after the hand in progress")
@write_docs(blp)
def move(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """A floor move (or a seat change at the same table) to an open seat. Between hands it
    is made at once (201); while either table plays a hand it is queued (202, with its
    `move_id`) and made after that hand, before the table's next deal."""
    body_out, status, headers = send(tournament_id, body, tournament_commands.MovePlayer(
        body["player_id"], body["to_table"], body["to_seat"] - 1, at=now()))
    queued = [e for e in body_out["events"] if e["type"] == "MoveQueued"]
    if queued:
        data = queued[0]["data"]
        body_out["move"] = {"move_id": data["move_id"], "player_id": data["player_id"],
                            "to_table": data["to_table"], "to_seat": data["to_seat"] + 1}
        return body_out, 202, headers
    return body_out, status, headers


@blp.route("/<string:tournament_id>/moves", methods=["GET"])
@require(*ALL_ROLES)
@blp.response(200, MovesSchema)
@blp.alt_response(404, response="NOT_FOUND")
def list_moves(tournament_id: str) -> dict:
    """Moves the floor calls out. At physical tables every balancing or breaking move is
    pending until the floor confirms the player seated (POST .../moves/{move_id}/seated)
    or `move_call_s` passes; at service tables a move is a notice (never pending)."""
    view = with_names(tournaments.tournament_view(existing(tournament_id), now()))
    return view["moves"]


@blp.route("/<string:tournament_id>/moves/<int:move_id>/seated", methods=["POST"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def move_seated(body: dict, tournament_id: str, move_id: int) -> tuple[dict, int, dict]:
    """The floor saw the moved player sit down: the move is no longer pending."""
    return send(tournament_id, body, tournament_commands.ConfirmSeated(move_id, at=now()))


@blp.route("/<string:tournament_id>/moves/<int:move_id>", methods=["DELETE"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(200, TournamentWrittenSchema)
@write_docs(blp)
def cancel_move(body: dict, tournament_id: str, move_id: int) -> tuple[dict, int, dict]:
    """Cancel a queued move (404-like 422 `unknown_move` once made or cancelled)."""
    return send(tournament_id, body, tournament_commands.CancelMove(move_id), status=200)


def _away(tournament_id: str, player_id: str, away: bool, status: int) -> tuple[dict, int]:
    existing(tournament_id)
    handled = tournament_tables.mark_away(application(), tournament_id, player_id, away,
                                          actor=actor_name(current_principal()))
    assert handled.state is not None
    return ({"table_id": handled.state.table_id, "version": handled.version,
             "events": [e["type"] for e in handled.events]}, status)


@blp.route("/<string:tournament_id>/absences", methods=["POST"])
@require(*FLOOR)
@blp.arguments(TournamentAbsenceSchema)
@blp.response(201, TableWrittenSchema)
@write_docs(blp)
def mark_away(body: dict, tournament_id: str) -> tuple[dict, int]:
    """Service tables: the floor marks a player away. They stay dealt in and post their
    blinds and antes; their hand is killed at once, never waited for (TDA 2024 30). A
    player who misses two action clocks in a row is marked away by the table itself.
    422 `physical_tables` where dealers run the tables."""
    return _away(tournament_id, body["player_id"], True, 201)


@blp.route("/<string:tournament_id>/absences/<string:player_id>", methods=["DELETE"])
@require(*FLOOR)
@blp.response(200, TableWrittenSchema)
@write_docs(blp)
def mark_back(tournament_id: str, player_id: str) -> tuple[dict, int]:
    """The player is back at their seat: they act for themselves from their next turn."""
    return _away(tournament_id, player_id, False, 200)
