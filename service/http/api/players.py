"""Players: `POST /v1/players`, `GET /v1/players/{id}` (service.application.players)."""
from __future__ import annotations

import uuid

import marshmallow as ma

from service.application.players import load_player, register_player
from service.http.api import Blueprint, application
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
