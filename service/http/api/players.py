"""Players: `POST /v1/players`, `GET /v1/players/{id}` (service.application.players) and a
player's results across events, `GET /v1/players/{id}/results` (service.application.series)."""
from __future__ import annotations

import uuid

import marshmallow as ma

from service.application.players import load_player, register_player
from service.application.series import player_results
from service.http.api import Blueprint, application, resources
from service.http.api.schemas import CreatedSchema, PlayerName
from service.http.auth import current_principal, require
from service.http.problems import Problem

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Player identities")


class NewPlayerSchema(ma.Schema):
    name = PlayerName(required=True, metadata={"example": "Ann"})


class PlayerSchema(ma.Schema):
    id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)


@blp.route("", methods=["POST"])
@require("admin", "organiser", "floor")
@blp.arguments(NewPlayerSchema)
@blp.response(201, CreatedSchema)
def create_player(body: dict) -> dict:
    """Register a player (admin, organiser, floor).

    With an `Idempotency-Key` header a retry answers the first answer (service.http.api.writes).
    """
    principal = current_principal()
    player_id = str(uuid.uuid4())
    register_player(application(), player_id, body["name"], actor=principal.role)
    return {"id": player_id}


@blp.route("/<string:player_id>", methods=["GET"])
@require("admin", "organiser", "floor", "player", "spectator")
@blp.response(200, PlayerSchema)
@blp.alt_response(404, response="NOT_FOUND")
def get_player(player_id: str) -> dict:
    """A player's public identity (any role)."""
    player = load_player(application(), player_id)
    if not player.registered:
        raise Problem(404, "not_found", f"no player {player_id}")
    return {"id": player.player_id, "name": player.name}


class PlayerResultsSchema(ma.Schema):
    player_id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    results = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "every finished event the player played, newest first: tournament_id, name, place, "
                       "agreed_place (a deal's, or null), field_size, prize, bounties (cash won), and series: "
                       "for each series the event is in, series_id, name and the league points earned"})


@blp.route("/<string:player_id>/results", methods=["GET"])
@require("admin", "organiser", "floor", "player", "spectator")
@blp.response(200, PlayerResultsSchema)
@blp.alt_response(404, response="NOT_FOUND")
def get_player_results(player_id: str) -> dict:
    """A player's history (any role): every finished event they played, with place, prize,
    bounties and league points."""
    player = load_player(application(), player_id)
    if not player.registered:
        raise Problem(404, "not_found", f"no player {player_id}")
    pool = resources().pool
    if pool is None:
        raise Problem(503, "database_unavailable", "no database is configured (DATABASE_URL)")
    return {"player_id": player_id, "name": player.name, "results": player_results(application(), pool, player_id)}
