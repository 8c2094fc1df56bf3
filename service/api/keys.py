"""API keys: `POST /v1/keys` (admin) issues a key, shown once."""
from __future__ import annotations

import marshmallow as ma

from service.api import Blueprint, event_store, resources
from service.api.players import load_player
from service.auth import ROLES, require
from service.problems import Problem

blp = Blueprint("keys", __name__, url_prefix="/v1/keys", description="API keys and roles")


class NewKeySchema(ma.Schema):
    role = ma.fields.String(required=True, validate=ma.validate.OneOf(ROLES))
    player_id = ma.fields.String(
        load_default=None,
        allow_none=True,
        validate=ma.validate.Length(min=1, max=100),
        metadata={"description": "required for the player role, refused for the others"},
    )

    @ma.validates_schema
    def player_id_only_for_players(self, data: dict, **kwargs: object) -> None:
        if data.get("role") == "player" and data.get("player_id") is None:
            raise ma.ValidationError("a player key needs the player it acts for", "player_id")
        if data.get("role") != "player" and data.get("player_id") is not None:
            raise ma.ValidationError("only a player key is bound to a player", "player_id")


class IssuedKeySchema(ma.Schema):
    key = ma.fields.String(required=True, metadata={"description": "the secret; shown only once"})
    role = ma.fields.String(required=True)
    player_id = ma.fields.String(allow_none=True)


@blp.route("", methods=["POST"])
@require("admin")
@blp.arguments(NewKeySchema)
@blp.response(201, IssuedKeySchema)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def issue_key(body: dict) -> dict:
    """Issue an API key for a role (admin only)."""
    role, player_id = body["role"], body["player_id"]
    if player_id is not None and not load_player(event_store(), player_id).registered:
        raise Problem(422, "unknown_player", f"no player {player_id} is registered")
    keys = resources().keys
    if keys is None:
        raise Problem(503, "database_unavailable", "no database is configured (DATABASE_URL)")
    return {"key": keys.create(role, player_id), "role": role, "player_id": player_id}
