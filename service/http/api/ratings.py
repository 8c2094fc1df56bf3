"""Ratings: record a finished ranked result (`POST /v1/results`), a player's ratings with
their history (`GET /v1/players/{id}/rating`) and a game's leaderboard. Every answer
gives both systems: Elo (`rating`, the default) and Glicko-2 (`glicko2`: rating, deviation
and volatility); a leaderboard sorts by either (`?system=`).

Recording is idempotent on the result id: the same result again answers the first update
(200) and moves nobody twice; the same id with other finishes is a 422.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import marshmallow as ma

from domain.ratings import Finish, GameResult, Glicko2Rating
from service.application import ratings
from service.http.api import Blueprint, application, event_store
from service.http.api.etags import body_tag, conditional
from service.http.api.names import with_names
from service.http.api.tables import IDEMPOTENCY_KEY_HEADER, actor_name
from service.http.auth import current_principal, require
from service.http.problems import Problem, validation_problem

blp = Blueprint("ratings", __name__, url_prefix="/v1", description="Ratings and leaderboards")

ALL_ROLES = ("admin", "organiser", "floor", "player", "spectator")


class ResultFinishSchema(ma.Schema):
    player_id = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=100))
    place = ma.fields.Integer(strict=True, required=True, validate=ma.validate.Range(min=1, max=100000),
                              metadata={"description": "1 is first; equal places are a tie (half a win)"})


class NewResultSchema(ma.Schema):
    game = ma.fields.String(required=True, validate=ma.validate.Regexp(ratings.GAME_PATTERN.pattern),
                            metadata={"example": "holdem"})
    result_id = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=200),
                                 metadata={"description": "the game's own id: a result is rated once"})
    finishes = ma.fields.List(ma.fields.Nested(ResultFinishSchema), required=True,
                              validate=ma.validate.Length(min=2, max=1000))


DISPLAY = {"description": "the rating rounded to one decimal (half up), for showing; `rating` is exact"}


class Glicko2Schema(ma.Schema):
    rating = ma.fields.Float(required=True)
    display = ma.fields.Float(required=True, metadata=DISPLAY)
    deviation = ma.fields.Float(required=True, metadata={"description": "RD: about 95% of players "
                                                          "lie within 2 RD of their rating"})
    volatility = ma.fields.Float(required=True)


class Glicko2ChangeSchema(ma.Schema):
    before = ma.fields.Nested(Glicko2Schema, required=True)
    after = ma.fields.Nested(Glicko2Schema, required=True)
    change = ma.fields.Float(required=True)


class RatingChangeSchema(ma.Schema):
    player_id = ma.fields.String(required=True)
    name = ma.fields.String(allow_none=True)
    before = ma.fields.Float(required=True, metadata={"description": "Elo"})
    after = ma.fields.Float(required=True, metadata={"description": "Elo"})
    change = ma.fields.Float(required=True, metadata={"description": "Elo"})
    glicko2 = ma.fields.Nested(Glicko2ChangeSchema, allow_none=True, required=True,
                               metadata={"description": "null for a result rated before Glicko-2 was"})


class RecordedResultSchema(ma.Schema):
    result_id = ma.fields.String(required=True)
    game = ma.fields.String(required=True)
    system = ma.fields.String(required=True)
    changes = ma.fields.List(ma.fields.Nested(RatingChangeSchema), required=True)


class HistoryEntrySchema(ma.Schema):
    result_id = ma.fields.String(required=True)
    place = ma.fields.Integer(required=True)
    before = ma.fields.Float(required=True)
    after = ma.fields.Float(required=True)
    change = ma.fields.Float(required=True)
    glicko2 = ma.fields.Nested(Glicko2ChangeSchema, allow_none=True, required=True)
    recorded_at = ma.fields.String(required=True)


class GameRatingSchema(ma.Schema):
    game = ma.fields.String(required=True)
    rating = ma.fields.Float(required=True, metadata={"description": "Elo"})
    display = ma.fields.Float(required=True, metadata=DISPLAY)
    glicko2 = ma.fields.Nested(Glicko2Schema, required=True)
    games = ma.fields.Integer(required=True)
    history = ma.fields.List(ma.fields.Nested(HistoryEntrySchema), required=True)


class PlayerRatingSchema(ma.Schema):
    player_id = ma.fields.String(required=True)
    name = ma.fields.String(allow_none=True)
    ratings = ma.fields.List(ma.fields.Nested(GameRatingSchema), required=True)


class LeaderboardQuerySchema(ma.Schema):
    limit = ma.fields.Integer(load_default=100, validate=ma.validate.Range(min=1, max=1000))
    system = ma.fields.String(load_default="elo", validate=ma.validate.OneOf(ratings.SYSTEMS),
                              metadata={"description": "the rating to rank by"})


class LeaderboardEntrySchema(ma.Schema):
    rank = ma.fields.Integer(required=True)
    player_id = ma.fields.String(required=True)
    name = ma.fields.String(allow_none=True)
    rating = ma.fields.Float(required=True, metadata={"description": "Elo"})
    display = ma.fields.Float(required=True, metadata=DISPLAY)
    glicko2 = ma.fields.Nested(Glicko2Schema, required=True)
    games = ma.fields.Integer(required=True)


class LeaderboardSchema(ma.Schema):
    game = ma.fields.String(required=True)
    system = ma.fields.String(required=True)
    players = ma.fields.List(ma.fields.Nested(LeaderboardEntrySchema), required=True)


def _glicko2(rating: Glicko2Rating) -> dict[str, float]:
    return {"rating": rating.rating, "display": display(rating.rating), "deviation": rating.deviation,
            "volatility": rating.volatility}


def _glicko2_change(before: Glicko2Rating | None, after: Glicko2Rating | None) -> dict[str, Any] | None:
    if before is None or after is None:
        return None
    return {"before": _glicko2(before), "after": _glicko2(after), "change": after.rating - before.rating}


def _registered(player_id: str) -> bool:
    return event_store().stream_version(f"player-{player_id}") > 0


@blp.route("/results", methods=["POST"])
@require("admin", "floor")
@blp.arguments(NewResultSchema)
@blp.response(201, RecordedResultSchema)
@blp.alt_response(200, schema=RecordedResultSchema, description="already recorded: the first update")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(parameters=[IDEMPOTENCY_KEY_HEADER])
def record_result(body: dict) -> tuple[dict, int]:
    """Record a finished ranked game (admin, floor): Elo over every head-to-head pair,
    finishing ahead a win, the same place a draw, K 32 scaled by 1 / (N - 1)."""
    players = [f["player_id"] for f in body["finishes"]]
    if len(set(players)) != len(players):
        raise validation_problem([{"location": "json", "field": "finishes",
                                   "messages": ["a player appears twice"]}])
    for player_id in players:
        if not _registered(player_id):
            raise Problem(422, "unknown_player", f"no player {player_id} is registered")
    result = GameResult(body["result_id"], body["game"],
                        tuple(Finish(f["player_id"], f["place"]) for f in body["finishes"]))
    recorded = ratings.record_result(application(), result, actor=actor_name(current_principal()))
    update = recorded.update
    periods = {c.player_id: c for c in update.glicko2}
    shown = {
        "result_id": update.result_id, "game": update.game, "system": update.system,
        "changes": [{"player_id": c.player_id, "before": c.before, "after": c.after,
                     "change": c.after - c.before,
                     "glicko2": _glicko2_change(periods[c.player_id].before, periods[c.player_id].after)
                     if c.player_id in periods else None}
                    for c in update.elo],
    }
    return with_names(shown), 200 if recorded.deduplicated else 201


@blp.route("/players/<string:player_id>/rating", methods=["GET"])
@conditional
@require(*ALL_ROLES)
@blp.response(200, PlayerRatingSchema)
@blp.alt_response(404, response="NOT_FOUND")
def player_rating(player_id: str) -> tuple[dict[str, Any], int, dict]:
    """The player's current rating in each game, games played and history (oldest first)."""
    found = ratings.player_ratings(application(), player_id)
    if not found and not _registered(player_id):
        raise Problem(404, "not_found", f"no player {player_id}")
    return _tagged({
        "player_id": player_id,
        "ratings": [
            {"game": game, "rating": rating.rating, "display": display(rating.rating),
             "glicko2": _glicko2(rating.glicko2), "games": rating.games,
             "history": [{"result_id": h.result_id, "place": h.place, "before": h.before, "after": h.after,
                          "change": h.change, "glicko2": _glicko2_change(h.glicko2_before, h.glicko2_after),
                          "recorded_at": h.recorded_at} for h in rating.history]}
            for game, rating in sorted(found.items())
        ],
    })


@blp.route("/leaderboards/<string:game>", methods=["GET"])
@conditional
@require(*ALL_ROLES)
@blp.arguments(LeaderboardQuerySchema, location="query", unknown=ma.RAISE)
@blp.response(200, LeaderboardSchema)
def leaderboard(query: dict, game: str) -> tuple[dict[str, Any], int, dict]:
    """The game's players by rating in `system` (Elo by default), highest first (a game
    nobody was rated in: empty)."""
    board = ratings.load_book(application(), game).leaderboard(query["system"])[: query["limit"]]
    return _tagged({
        "game": game, "system": query["system"],
        "players": [{"rank": rank, "player_id": player_id, "rating": rating.rating,
                     "display": display(rating.rating), "glicko2": _glicko2(rating.glicko2),
                     "games": rating.games}
                    for rank, (player_id, rating) in enumerate(board, start=1)],
    })


def _tagged(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict]:
    """Named, and tagged by content (ratings are read across many streams: no one version)."""
    shown = with_names(body)
    return shown, 200, {"ETag": body_tag(shown)}


def display(rating: float) -> float:
    """One decimal, half up on the decimal digits the rating prints with (round() would
    round 1512.25 down to even, and a binary float's own digits can round it either way)."""
    return float(Decimal(repr(rating)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
