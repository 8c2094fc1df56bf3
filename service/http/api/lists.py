"""The lists of live.md: `GET /v1/tables`, `/v1/tournaments`, `/v1/players`, newest first,
with the filters people use and cursor paging (service.http.api.paging), read from the
listings read model (service.application.listings), never by replaying the streams listed."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import marshmallow as ma

from service.application import listings
from service.application.event_log import format_recorded_at
from service.http.api import Blueprint, resources
from service.http.api.etags import body_tag, conditional, tagged
from service.http.api.names import with_names
from service.http.api.paging import ListQuerySchema, PagedSchema, decode_cursor, encode_cursor, link_headers, next_url
from service.http.auth import require
from service.http.problems import Problem

blp = Blueprint("lists", __name__, url_prefix="/v1", description="Lists of tables, tournaments and players")

ALL_ROLES = ("admin", "organiser", "floor", "player", "spectator")
_ID = ma.validate.Length(min=1, max=100)


class TableListQuerySchema(ListQuerySchema):
    status = ma.fields.String(load_default=None, validate=ma.validate.OneOf(listings.TABLE_STATUSES))
    game = ma.fields.String(load_default=None, validate=ma.validate.Length(min=1, max=40))
    player_id = ma.fields.String(load_default=None, validate=_ID,
                                 metadata={"description": "tables this player has sat at"})


class TournamentListQuerySchema(ListQuerySchema):
    status = ma.fields.String(load_default=None, validate=ma.validate.OneOf(listings.TOURNAMENT_STATUSES))
    game = ma.fields.String(load_default=None, validate=ma.validate.Length(min=1, max=40))
    player_id = ma.fields.String(load_default=None, validate=_ID,
                                 metadata={"description": "tournaments this player entered"})


class PlayerListQuerySchema(ListQuerySchema):
    name = ma.fields.String(load_default=None, validate=ma.validate.Length(min=1, max=100),
                            metadata={"description": "names beginning with this (any case)"})


class NamedPlayerSchema(ma.Schema):
    player_id = ma.fields.String(required=True)
    name = ma.fields.String(allow_none=True, required=True)


class TableItemSchema(ma.Schema):
    id = ma.fields.String(required=True)
    game = ma.fields.String(required=True)
    status = ma.fields.String(required=True, metadata={"description": ", ".join(listings.TABLE_STATUSES)})
    created_at = ma.fields.String(required=True)
    players = ma.fields.List(ma.fields.Nested(NamedPlayerSchema), required=True,
                             metadata={"description": "everyone who has sat here, in the order they sat down"})


class TournamentItemSchema(ma.Schema):
    id = ma.fields.String(required=True)
    name = ma.fields.String(allow_none=True)
    game = ma.fields.String(allow_none=True)
    status = ma.fields.String(required=True, metadata={"description": ", ".join(listings.TOURNAMENT_STATUSES)})
    created_at = ma.fields.String(required=True)


class PlayerItemSchema(ma.Schema):
    id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    created_at = ma.fields.String(required=True)


class TableListSchema(PagedSchema):
    tables = ma.fields.List(ma.fields.Nested(TableItemSchema), required=True)


class TournamentListSchema(PagedSchema):
    tournaments = ma.fields.List(ma.fields.Nested(TournamentItemSchema), required=True)


class PlayerListSchema(PagedSchema):
    players = ma.fields.List(ma.fields.Nested(PlayerItemSchema), required=True)


def _pool() -> Any:
    pool = resources().pool
    if pool is None:
        raise Problem(503, "database_unavailable", "no database is configured (DATABASE_URL)")
    return pool


def _listed(kind: str, key: str, query: dict[str, Any], filters: dict[str, Any],
            item: Callable[[listings.Listing], dict[str, Any]]) -> tuple[dict, int, dict]:
    """One page of `kind` under `filters`, its `next` and Link, tagged by its content."""
    pool = _pool()
    before = decode_cursor(filters, query["cursor"])
    found, more = listings.page(pool, kind, query["limit"], before=before, **filters)
    following = None
    if more:
        cursor = encode_cursor(filters, found[-1].position)
        following = next_url({**_query_filters(filters), "limit": query["limit"], "cursor": cursor})
    body = with_names({key: [item(f) for f in found], "next": following})
    return body, 200, tagged(body_tag(body), link_headers(following))


def _list(path: str, query_schema: ma.Schema, response_schema: type[ma.Schema]) -> Callable[[Any], Any]:
    """A list's route: any role, its query parsed strictly, 304 to its ETag."""
    def routed(view: Any) -> Any:
        view = blp.alt_response(400, response="BAD_REQUEST")(view)
        view = blp.response(200, response_schema)(view)
        view = blp.arguments(query_schema, location="query", unknown=ma.RAISE)(view)
        return blp.route(path, methods=["GET"])(conditional(require(*ALL_ROLES)(view)))
    return routed


def _query_filters(filters: dict[str, Any]) -> dict[str, Any]:
    return {"name" if k == "name_prefix" else k: v for k, v in filters.items()}


@_list("/tables", TableListQuerySchema(), TableListSchema)
def list_tables(query: dict) -> tuple[dict, int, dict]:
    """Tables, newest first: by `status` (waiting between hands, playing, closing, finished),
    `game`, and `player_id` (tables the player has sat at); `limit` a page, then `next`."""
    filters = {"status": query["status"], "game": query["game"], "player_id": query["player_id"]}
    return _listed("table", "tables", query, filters, lambda f: {
        "id": f.id, "game": f.game, "status": f.status,
        "created_at": format_recorded_at(f.created_at),
        "players": [{"player_id": p} for p in f.players]})


@_list("/tournaments", TournamentListQuerySchema(), TournamentListSchema)
def list_tournaments(query: dict) -> tuple[dict, int, dict]:
    """Tournaments, newest first: by `status` (registering, running, finished), `game`, and
    `player_id` (tournaments the player entered); `limit` a page, then `next`."""
    filters = {"status": query["status"], "game": query["game"], "player_id": query["player_id"]}
    return _listed("tournament", "tournaments", query, filters, lambda f: {
        "id": f.id, "name": f.name, "game": f.game, "status": f.status,
        "created_at": format_recorded_at(f.created_at)})


@_list("/players", PlayerListQuerySchema(), PlayerListSchema)
def list_players(query: dict) -> tuple[dict, int, dict]:
    """Registered players, newest first; `name`: those whose name begins so (any case)."""
    filters = {"name_prefix": query["name"]}
    return _listed("player", "players", query, filters, lambda f: {
        "id": f.id, "name": f.name, "created_at": format_recorded_at(f.created_at)})
