"""API keys: `POST /v1/keys` (admin) issues a key (its secret shown once), `GET /v1/keys`
(admin) lists them, `DELETE /v1/keys/{id}` revokes one (admin, or a player their own).
A revoked key answers 401 `key_revoked` on every worker within a second (service.http.auth)."""
from __future__ import annotations

from typing import Any

import marshmallow as ma

from service.application.api_keys import ROLES, ApiKeys, IssuedKey
from service.application.players import load_player
from service.http.api import Blueprint, application, resources
from service.http.api.writes import keep_out_of_record
from service.http.auth import current_principal, require
from service.http.problems import Problem

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


class KeySchema(ma.Schema):
    id = ma.fields.String(required=True, metadata={"description": "names the key to revoke it"})
    role = ma.fields.String(required=True)
    player_id = ma.fields.String(required=True, allow_none=True)
    created_at = ma.fields.DateTime(required=True)
    revoked_at = ma.fields.DateTime(required=True, allow_none=True)


class IssuedKeySchema(KeySchema):
    key = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the secret; shown only once (null when an Idempotency-Key retry "
                       "replays the answer: the secret is never stored)"})


class KeyListQuerySchema(ma.Schema):
    limit = ma.fields.Integer(load_default=100, validate=ma.validate.Range(min=1, max=1000))
    after = ma.fields.String(validate=ma.validate.Length(min=1, max=100),
                             metadata={"description": "the `next` of the previous page: the id of its last key"})


class KeyListSchema(ma.Schema):
    keys = ma.fields.List(ma.fields.Nested(KeySchema), required=True,
                          metadata={"description": "in the order they were issued"})
    next = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "pass as `after` for the next page; null on the last page"})


def api_keys() -> ApiKeys:
    keys = resources().keys
    if keys is None:
        raise Problem(503, "database_unavailable", "no database is configured (DATABASE_URL)")
    return keys


def shown(key: IssuedKey) -> dict[str, Any]:
    return {"id": key.id, "role": key.role, "player_id": key.player_id,
            "created_at": key.created_at, "revoked_at": key.revoked_at}


@blp.route("", methods=["POST"])
@require("admin")
@blp.arguments(NewKeySchema)
@blp.response(201, IssuedKeySchema)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def issue_key(body: dict) -> dict:
    """Issue an API key for a role (admin only)."""
    role, player_id = body["role"], body["player_id"]
    if player_id is not None and not load_player(application(), player_id).registered:
        raise Problem(422, "unknown_player", f"no player {player_id} is registered")
    issued, secret = api_keys().create(role, player_id)
    keep_out_of_record("key")
    return {**shown(issued), "key": secret}


@blp.route("", methods=["GET"])
@require("admin")
@blp.arguments(KeyListQuerySchema, location="query", as_kwargs=True)
@blp.response(200, KeyListSchema)
def list_keys(limit: int, after: str | None = None) -> dict:
    """The keys issued, oldest first, `limit` at a time (admin only); never their secrets.
    A key row the service did not issue (its MAC fails) is not listed."""
    page = api_keys().listed(limit + 1, after)
    more = len(page) > limit
    return {"keys": [shown(key) for key in page[:limit]], "next": page[limit - 1].id if more else None}


@blp.route("/<string:key_id>", methods=["DELETE"])
@require(*ROLES)
@blp.response(200, KeySchema)
@blp.alt_response(404, response="NOT_FOUND")
def revoke_key(key_id: str) -> dict:
    """Revoke a key (admin any key; a player the keys of their own player). Within a second
    every worker answers 401 `key_revoked` to it. Revoking again changes nothing."""
    principal = current_principal()
    keys = api_keys()
    if principal.role != "admin":
        key = keys.get(key_id) if principal.role == "player" else None
        if key is None or key.player_id != principal.player_id:
            raise Problem(403, "forbidden", "only an admin, or a player their own keys, may revoke a key")
    revoked = keys.revoke(key_id)
    if revoked is None:
        raise Problem(404, "not_found", f"no key {key_id}")
    return shown(revoked)
