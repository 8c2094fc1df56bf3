"""Tournaments: create, register, start, read (clock derived at the time of the request),
the organiser's clock controls and the floor's eliminations, moves and disqualifications.

Stream `tournament-<id>`. Reads carry `ETag: "N"`; writes take `If-Match` (or
`expected_version`) when the client wants its view checked, and an `Idempotency-Key`.
Without a version the write is judged on the current state (registrations from many
players at once must not turn into conflicts).
"""
from __future__ import annotations

import time
import uuid
from datetime import datetime, timezone
from typing import Any

import marshmallow as ma

from domain import table
from domain.tournaments import tournament
from domain.tournaments.payouts import RANK_BY_STARTING_STACK, RANK_SHARED
from domain.tournaments.seating import BREAK_PREDETERMINED, BREAK_RANDOM
from domain.tournaments.structure import Period
from service import tournaments
from service.api import Blueprint, event_store, request_idempotency_key
from service.api.schemas import Chips, StrictBoolean
from service.api.tables import IDEMPOTENCY_KEY_HEADER, actor_name, expected_version
from service.auth import current_principal, require
from service.problems import Problem

blp = Blueprint("tournaments", __name__, url_prefix="/v1/tournaments",
                description="Multi-table tournaments and their level clock")

ALL_ROLES = ("admin", "organiser", "floor", "player", "spectator")
ORGANISERS = ("admin", "organiser")
FLOOR = ("admin", "organiser", "floor")
# Tournament ids derived from an Idempotency-Key live in their own UUID namespace.
IDEMPOTENT_TOURNAMENT_IDS = uuid.UUID("3d1e7a90-64c2-4f0b-8b7e-2c9a5d4f6e18")
IF_MATCH_OPTIONAL = {
    "name": "If-Match", "in": "header", "required": False, "schema": {"type": "string"},
    "description": 'the tournament version last seen: "N" (a bare N is accepted too); '
                   "a stale one is a 409 and nothing is written",
}
WRITE_PARAMETERS = [IF_MATCH_OPTIONAL, IDEMPOTENCY_KEY_HEADER]
# A tournament's tables play its levels' blinds: the games dealt with a betting description
# (five-card draw, Palace Poker and dice derive theirs from their own settings).
TOURNAMENT_GAMES = sorted(name for name, rules in table.GAMES.items() if rules.table_game is None)


def _player_id(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(validate=ma.validate.Length(min=1, max=100), **kwargs)


# ----------------------------------------------------------------------------- schemas


class PeriodSchema(ma.Schema):
    is_break = StrictBoolean(data_key="break", load_default=False,
                                 metadata={"description": "a break; blinds are then ignored"})
    minutes = ma.fields.Integer(strict=True, load_default=0, validate=ma.validate.Range(min=0, max=1440))
    seconds = ma.fields.Integer(strict=True, load_default=0, validate=ma.validate.Range(min=0, max=86400),
                                metadata={"description": "added to the minutes: turbo and test levels "
                                                         "may be shorter than a minute"})
    small_blind = Chips(load_default=0)
    big_blind = Chips(load_default=0)
    ante = Chips(load_default=0)
    big_blind_ante = StrictBoolean(load_default=False)

    @ma.validates_schema
    def _lasts(self, data: dict, **kwargs: Any) -> None:
        if data.get("minutes", 0) * 60 + data.get("seconds", 0) <= 0:
            raise ma.ValidationError("a level or break lasts more than 0: give minutes, seconds or both",
                                     "minutes")


class NewTournamentSchema(ma.Schema):
    name = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=100))
    game = ma.fields.String(required=True, validate=ma.validate.OneOf(TOURNAMENT_GAMES),
                            metadata={"example": "holdem"})
    betting = ma.fields.String(load_default="no-limit",
                               validate=ma.validate.OneOf(["no-limit", "pot-limit", "fixed-limit"]))
    levels = ma.fields.List(ma.fields.Nested(PeriodSchema), required=True,
                            validate=ma.validate.Length(min=1, max=200),
                            metadata={"description": "levels and breaks in order"})
    starting_stack = Chips(minimum=1, required=True)
    buy_in = Chips(load_default=0)
    table_size = ma.fields.Integer(strict=True, load_default=9, validate=ma.validate.Range(min=2, max=10))
    starts_at = ma.fields.AwareDateTime(required=True, metadata={"example": "2026-12-01T18:00:00Z"})
    late_registration_until_level = ma.fields.Integer(strict=True, load_default=0,
                                                      validate=ma.validate.Range(min=0, max=200))
    re_entries_allowed = ma.fields.Integer(strict=True, load_default=0, validate=ma.validate.Range(min=0, max=100))
    rebuy_price = Chips(load_default=0, metadata={"description": "0: no rebuys"})
    add_on_price = Chips(load_default=0, metadata={"description": "0: no add-on"})
    payout_percentages = ma.fields.List(
        ma.fields.String(validate=ma.validate.Regexp(r"^\d{1,3}(\.\d{1,6})?$")),
        required=True, validate=ma.validate.Length(min=1, max=1000),
        metadata={"description": "exact decimals by place, summing to 100", "example": ["50", "30", "20"]})
    balance_tolerance = ma.fields.Integer(strict=True, load_default=1, validate=ma.validate.Range(min=1, max=10))
    break_order = ma.fields.String(load_default=BREAK_PREDETERMINED,
                                   validate=ma.validate.OneOf([BREAK_PREDETERMINED, BREAK_RANDOM]))
    bust_ranking = ma.fields.String(load_default=RANK_SHARED,
                                    validate=ma.validate.OneOf([RANK_SHARED, RANK_BY_STARTING_STACK]))


class CreatedTournamentSchema(ma.Schema):
    id = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True)


class TournamentWriteSchema(ma.Schema):
    expected_version = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=0, max=2**31 - 1),
                                         metadata={"description": "instead of If-Match"})


class RegistrationSchema(TournamentWriteSchema):
    player_id = _player_id(required=True)


class AdjustSchema(TournamentWriteSchema):
    seconds = ma.fields.Integer(strict=True, required=True, validate=ma.validate.Range(min=-86400, max=86400),
                                metadata={"description": "added to the current period; negative shortens it"})


class BustSchema(ma.Schema):
    player_id = _player_id(required=True)
    starting_stack = Chips(load_default=0, metadata={
        "description": "the stack at the start of the hand: ranks players busting together"})


class EliminationSchema(TournamentWriteSchema):
    busted = ma.fields.List(ma.fields.Nested(BustSchema), required=True,
                            validate=ma.validate.Length(min=1, max=100))


class MoveSchema(TournamentWriteSchema):
    player_id = _player_id(required=True)
    to_table = ma.fields.Integer(strict=True, required=True, validate=ma.validate.Range(min=1, max=100000))
    to_seat = ma.fields.Integer(strict=True, required=True, validate=ma.validate.Range(min=0, max=9))


class DisqualificationSchema(TournamentWriteSchema):
    player_id = _player_id(required=True)
    reason = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=500))


class TournamentEventSchema(ma.Schema):
    version = ma.fields.Integer(required=True)
    type = ma.fields.String(required=True)
    data = ma.fields.Dict(required=True)


class TournamentWrittenSchema(ma.Schema):
    version = ma.fields.Integer(required=True)
    events = ma.fields.List(ma.fields.Nested(TournamentEventSchema), required=True)


class TournamentSchema(ma.Schema):
    id = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True)
    name = ma.fields.String(required=True)
    game = ma.fields.String()
    betting = ma.fields.String()
    status = ma.fields.String(required=True, metadata={"description": "registering, running or finished"})
    starts_at = ma.fields.String(required=True)
    starting_stack = ma.fields.Integer()
    buy_in = ma.fields.Integer()
    table_size = ma.fields.Integer()
    late_registration_until_level = ma.fields.Integer()
    hand_for_hand = ma.fields.Boolean(metadata={"description": "every table plays one hand at a time"})
    registered = ma.fields.List(ma.fields.String())
    entries = ma.fields.Integer()
    players_left = ma.fields.Integer()
    clock = ma.fields.Dict(required=True, metadata={
        "description": "started, period, level, on_break, paused, remaining_s, blinds, next"})
    tables = ma.fields.List(ma.fields.Dict(), metadata={"description": "number, table_id (the live table where its players act), players (seat, player_id)"})
    standings = ma.fields.List(ma.fields.Dict(), metadata={"description": "player_id, place"})
    prize_pool = ma.fields.Integer()
    payouts = ma.fields.List(ma.fields.Dict(), metadata={"description": "place, amount"})
    prizes = ma.fields.List(ma.fields.Dict(), metadata={"description": "once finished: player_id, place, amount"})


# ------------------------------------------------------------------------------ shared


def now() -> int:
    return int(time.time())


def _existing(tournament_id: str) -> tournaments.LoadedTournament:
    loaded = tournaments.load_tournament(event_store(), tournament_id)
    if not loaded.exists:
        raise Problem(404, "not_found", f"no tournament {tournament_id}")
    return loaded


def _send(tournament_id: str, body: dict, command: Any, status: int = 201) -> tuple[dict, int, dict]:
    _existing(tournament_id)
    outcome = tournaments.send(
        event_store(), tournament_id, command, expected_version=expected_version(body, required=False),
        actor=actor_name(current_principal()), idempotency_key=request_idempotency_key(),
    )
    return ({"version": outcome.version, "events": list(outcome.events)}, status,
            {"ETag": f'"{outcome.version}"'})


def _registered_player(player_id: str) -> None:
    if event_store().stream_version(f"player-{player_id}") == 0:
        raise Problem(422, "unknown_player", f"no player {player_id} is registered")


def _for_self_or_staff(player_id: str) -> None:
    principal = current_principal()
    if principal.role == "player" and principal.player_id != player_id:
        raise Problem(403, "forbidden", "a player key registers its own player only")


def _period(fields: dict) -> Period:
    if fields["is_break"]:
        return Period.pause(fields["minutes"], fields["seconds"])
    return Period.level(fields["small_blind"], fields["big_blind"], fields["minutes"],
                        fields["ante"], fields["big_blind_ante"], fields["seconds"])


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat().replace("+00:00", "Z")


# ------------------------------------------------------------------------------- views


@blp.route("", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(NewTournamentSchema)
@blp.response(201, CreatedTournamentSchema)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(parameters=[IDEMPOTENCY_KEY_HEADER])
def create_tournament(body: dict) -> tuple[dict, int, dict]:
    """Schedule a tournament (organiser, admin): structure, entries, payouts. A broken
    structure or payout table is a 422 naming the rule."""
    principal = current_principal()
    key = request_idempotency_key()
    tournament_id = (str(uuid.uuid5(IDEMPOTENT_TOURNAMENT_IDS, f"{actor_name(principal)}:{key}"))
                     if key else str(uuid.uuid4()))
    settings = tournament.Settings(
        name=body["name"],
        structure=tuple(_period(p) for p in body["levels"]),
        starts_at=int(body["starts_at"].timestamp()),
        starting_stack=body["starting_stack"],
        buy_in=body["buy_in"],
        payout_percentages=tuple(body["payout_percentages"]),
        table_size=body["table_size"],
        late_registration_until_level=body["late_registration_until_level"],
        re_entries_allowed=body["re_entries_allowed"],
        rebuy_price=body["rebuy_price"],
        add_on_price=body["add_on_price"],
        balance_tolerance=body["balance_tolerance"],
        break_order=body["break_order"],
        bust_ranking=body["bust_ranking"],
    )
    outcome = tournaments.create_tournament(event_store(), tournament_id, settings, body["game"],
                                            body["betting"], actor=actor_name(principal), idempotency_key=key)
    return {"id": tournament_id, "version": outcome.version}, 201, {"ETag": f'"{outcome.version}"'}


@blp.route("/<string:tournament_id>", methods=["GET"])
@require(*ALL_ROLES)
@blp.response(200, TournamentSchema)
@blp.alt_response(404, response="NOT_FOUND")
def get_tournament(tournament_id: str) -> tuple[dict, int, dict]:
    """Status, level and clock at the time of the request (derived from the events),
    tables with their players, standings and payouts. ETag: the version."""
    loaded = _existing(tournament_id)
    view = tournaments.tournament_view(loaded, now())
    view["starts_at"] = _iso(view["starts_at"])
    return view, 200, {"ETag": f'"{loaded.version}"'}


def _write_docs(view: Any) -> Any:
    for status, name in ((400, "BAD_REQUEST"), (404, "NOT_FOUND"), (409, "CONFLICT"),
                         (422, "UNPROCESSABLE_ENTITY")):
        view = blp.alt_response(status, response=name)(view)
    return blp.doc(parameters=WRITE_PARAMETERS)(view)


@blp.route("/<string:tournament_id>/registrations", methods=["POST"])
@require("admin", "organiser", "floor", "player")
@blp.arguments(RegistrationSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def register(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Register a player (a player key registers itself). Before the start, or during late
    registration: the late entrant draws a seat (TDA 8-A); re-entry when allowed."""
    _for_self_or_staff(body["player_id"])
    _existing(tournament_id)
    _registered_player(body["player_id"])
    return _send(tournament_id, body, tournament.Register(body["player_id"], at=now(), seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/registrations/<string:player_id>", methods=["DELETE"])
@require("admin", "organiser", "floor", "player")
@blp.arguments(TournamentWriteSchema)
@blp.response(200, TournamentWrittenSchema)
@_write_docs
def unregister(body: dict, tournament_id: str, player_id: str) -> tuple[dict, int, dict]:
    """Withdraw a registration before the start."""
    _for_self_or_staff(player_id)
    return _send(tournament_id, body, tournament.Unregister(player_id), status=200)


@blp.route("/<string:tournament_id>/start", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def start(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Start now (not before the scheduled time): seats are drawn at random, the seed is
    in the event, and the first level starts. The clock worker does this by itself."""
    return _send(tournament_id, body, tournament.StartTournament(at=now(), seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/clock/pause", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def pause_clock(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Stop the level clock; the remaining time is frozen."""
    return _send(tournament_id, body, tournament.PauseClock(at=now()))


@blp.route("/<string:tournament_id>/clock/resume", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def resume_clock(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Restart the level clock with the time that was left."""
    return _send(tournament_id, body, tournament.ResumeClock(at=now()))


@blp.route("/<string:tournament_id>/clock/adjust", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(AdjustSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def adjust_clock(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Add (or with a negative number take) seconds to the current period."""
    return _send(tournament_id, body, tournament.AdjustClock(body["seconds"], at=now()))


@blp.route("/<string:tournament_id>/hand-for-hand", methods=["POST"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def start_hand_for_hand(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Hand-for-hand (near the money): every table plays one hand at a time, and players
    out in the same round share the places reached (or are ranked by starting stack, as
    set) (TDA RP-8)."""
    return _send(tournament_id, body, tournament.StartHandForHand(at=now()))


@blp.route("/<string:tournament_id>/hand-for-hand", methods=["DELETE"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(200, TournamentWrittenSchema)
@_write_docs
def stop_hand_for_hand(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Back to tables playing at their own pace; players out in the unfinished round are
    placed together."""
    return _send(tournament_id, body, tournament.StopHandForHand(at=now(), seed=tournaments.new_seed()),
                 status=200)


@blp.route("/<string:tournament_id>/eliminations", methods=["POST"])
@require(*FLOOR)
@blp.arguments(EliminationSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def eliminate(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Players busted on one hand. They take their places (shared, or by starting stack as
    set), then tables are balanced or broken (TDA 10, 11); the last one finishes it."""
    busted = tuple(tournament.Bust(b["player_id"], b["starting_stack"]) for b in body["busted"])
    return _send(tournament_id, body, tournament.Eliminate(busted, at=now(), seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/moves", methods=["POST"])
@require(*FLOOR)
@blp.arguments(MoveSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def move(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """A floor move to an open seat, between hands only."""
    return _send(tournament_id, body, tournament.MovePlayer(body["player_id"], body["to_table"], body["to_seat"]))


@blp.route("/<string:tournament_id>/disqualifications", methods=["POST"])
@require(*FLOOR)
@blp.arguments(DisqualificationSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def disqualify(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Disqualify a player: out at the current place, tables rebalanced."""
    return _send(tournament_id, body, tournament.Disqualify(body["player_id"], body["reason"], at=now(),
                                                           seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/rebuys", methods=["POST"])
@require(*FLOOR)
@blp.arguments(RegistrationSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def rebuy(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """A rebuy for a seated player, when offered and until late registration closes."""
    return _send(tournament_id, body, tournament.Rebuy(body["player_id"], at=now()))


@blp.route("/<string:tournament_id>/add-ons", methods=["POST"])
@require(*FLOOR)
@blp.arguments(RegistrationSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def add_on(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """An add-on for a seated player, when offered and until late registration closes."""
    return _send(tournament_id, body, tournament.AddOn(body["player_id"], at=now()))
