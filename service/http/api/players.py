"""Players: `POST /v1/players`, `GET /v1/players/{id}`; stream `player-<id>`."""
from __future__ import annotations

import dataclasses
import uuid

import marshmallow as ma

from domain import players
from service.http.api import Blueprint, event_store
from service.http.api.schemas import CreatedSchema, PlayerName
from service.http.auth import current_principal, require
from service.http.problems import Problem
from service.adapters.store.base import EventStore, NewEvent

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Player identities")

STREAM_PREFIX = "player-"


def stream_id(player_id: str) -> str:
    return STREAM_PREFIX + player_id




def load_player(store: EventStore, player_id: str) -> players.Player:
    records = store.read_stream(stream_id(player_id))
    return players.replay(players.EVENT_TYPES[r.type](**r.data) for r in records)


def register_player(
    store: EventStore,
    player_id: str,
    name: str,
    *,
    actor: str | None = None,
    idempotency_key: str | None = None,
) -> int:
    """Load, decide, append with the expected version: the same path for HTTP and workers.

    Returns the stream version after the append. A lost race is a VersionConflict (409);
    a redelivery carrying the idempotency key of the registration (a worker's task)
    changes nothing.
    """
    records = store.read_stream(stream_id(player_id))
    if records and idempotency_key and records[0].metadata.get("idempotency_key") == idempotency_key:
        return len(records)
    state = players.replay(players.EVENT_TYPES[r.type](**r.data) for r in records)
    events = players.decide(state, players.RegisterPlayer(player_id=player_id, name=name))
    result = store.append(
        stream_id(player_id),
        len(records),
        [NewEvent(type(e).__name__, dataclasses.asdict(e)) for e in events],
        actor=actor,
        idempotency_key=idempotency_key,
    )
    return result.last_version


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
    register_player(event_store(), player_id, body["name"], actor=principal.role)
    return {"id": player_id}


@blp.route("/<string:player_id>", methods=["GET"])
@require("admin", "organiser", "floor", "player", "spectator")
@blp.response(200, PlayerSchema)
@blp.alt_response(404, response="NOT_FOUND")
def get_player(player_id: str) -> dict:
    """A player's public identity (any role)."""
    player = load_player(event_store(), player_id)
    if not player.registered:
        raise Problem(404, "not_found", f"no player {player_id}")
    return {"id": player.player_id, "name": player.name}
