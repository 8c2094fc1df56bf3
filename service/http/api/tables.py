"""Live tables: create a table, start hands, act, and read the table and its event log.

Stream `table-<id>`. Reads carry `ETag: "N"` (the stream version); actions need the
version the client last saw (`If-Match`, or `expected_version` in the body) and accept an
`Idempotency-Key`. Every answer is redacted for the caller (service.application.views).

Players may sit out and come back to the same seat (`/absences`); the computer plays for
them meanwhile. On a table with an action clock the view shows the running deadline.
"""
from __future__ import annotations

import re
import uuid
from typing import Any

import marshmallow as ma
from flask import Response, current_app, request

from domain.live import table, table_commands, table_names, table_state
from domain.registry import GameRules
from domain.rules.betting import BettingStructure
from domain.rules.declarations import ORDERS, Pushed
from service.application import commands, views
from service.application.api_keys import Principal
from service.application.handling import Handled
from service.http.api import Blueprint, application, event_store
from service.http.api.buy_in import CASH_FIELD, buy_in_limits, table_seats
from service.http.api.etags import conditional, version_tag
from service.http.api.event_pages import EventSchema, EventsQuerySchema, EventsSchema, events_page
from service.http.api.names import with_names
from service.http.api.schemas import MAX_CHIPS, BettingDescriptionSchema, Chips, GameSettings, RegisteredGame, StrictBoolean
from service.http.api.streams import wait_for_events
from service.http.auth import current_principal, require
from service.http.problems import Problem, validation_problem, with_player_names

blp = Blueprint("tables", __name__, url_prefix="/v1/tables", description="Live tables")

ALL_ROLES = ("admin", "organiser", "floor", "player", "spectator")
# "N", or "N.<view>" as a redacted read's ETag says it (service.http.api.etags).
_IF_MATCH = re.compile(r'^\s*(?:W/)?"?(\d{1,9})(?:\.[0-9a-f]{1,32})?"?\s*$')
IF_MATCH_HEADER = {
    "name": "If-Match", "in": "header", "required": True, "schema": {"type": "string"},
    "description": 'the table version last seen: "N" (a bare N is accepted too); '
                   "`expected_version` in the body may stand in for it",
}
IDEMPOTENCY_KEY_HEADER = {
    "name": "Idempotency-Key", "in": "header", "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 200},
    "description": "the caller's key for this request: a retry with the same key and body "
                   "answers the first response and writes nothing (service.http.api.writes)",
}


# ----------------------------------------------------------------------------- schemas
# `blp.arguments` gets schema instances: given a class, webargs (which still parses query
# strings) builds a new schema and deep-copies its fields on every request.

class TableSeatSchema(ma.Schema):
    player_id = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=100))
    stack = Chips(minimum=1, metadata={"description": "chips (cash tables); default settings.starting_chips"})


class NewTableSchema(ma.Schema):
    name = ma.fields.String(load_default=None, allow_none=True,
                            validate=ma.validate.Length(min=1, max=table_names.MAX_LENGTH),
                            metadata={"example": "Feature table",
                                      "description": "what the room calls the table, shown in its views and "
                                                     "as the replayer's hand headings: letters, digits, "
                                                     f"spaces inside and {table_names.PUNCTUATION.strip()} "
                                                     "(else 422 invalid_table_name)"})
    game = ma.fields.String(required=True, validate=RegisteredGame(lambda game: game.table is not None))
    settings = GameSettings(load_default=dict,
                            metadata={"description": "the game's settings from its spec page"})
    betting = ma.fields.Nested(BettingDescriptionSchema, load_default=None, allow_none=True,
                               metadata={"description": "the betting description of api.md; a game with "
                                         "settings of its own derives its betting from them"})
    # Not required: a cash table may open empty (table_seats asks the others for two or more).
    seats = ma.fields.List(ma.fields.Nested(TableSeatSchema), load_default=list,
                           validate=ma.validate.Length(max=table.MAX_SEATS),
                           metadata={"description": f"{table.MIN_SEATS} to {table.MAX_SEATS}; a cash table's "
                                                    "players at the start (none or more; may be left out)"})
    cash = CASH_FIELD
    ranked = StrictBoolean(load_default=False)
    action_clock_s = ma.fields.Integer(
        strict=True, load_default=None, allow_none=True,
        validate=ma.validate.Range(min=1, max=table.MAX_ACTION_CLOCK_S),
        metadata={"description": "Seconds for each action (none: no clock). A game's settings may "
                                 "give it as `turn_time_limit_s` instead; if both, they must agree."})
    auto_deal = StrictBoolean(load_default=False, metadata={
        "description": "Deal the next hand as soon as one ends, in the same write as the action that "
                       "ended it (its answer's `to_act` is then the new hand's first player); "
                       "otherwise POST /hands starts each hand."})


class CreatedTableSchema(ma.Schema):
    id = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True)


_QUICK_ACTION_FIELDS = frozenset({"action", "to", "expected_version", "player_id"})
"""What ActionSchema.quick_load takes: the fields of the usual action body."""

# Rulings only the floor enters (five-card draw: the opener found without openers).
FLOOR_ONLY_ACTIONS = ("false_openers",)


class WriteSchema(ma.Schema):
    expected_version = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=0),
                                         metadata={"description": "instead of If-Match"})


class ActionSchema(WriteSchema):
    action = ma.fields.String(validate=ma.validate.Length(min=1, max=20),
                              metadata={"example": "raise", "description": "required unless `chips` or `said`"})
    to = Chips(allow_none=True, metadata={"description": "the round total for bet and raise"})
    discard = ma.fields.List(ma.fields.String(validate=ma.validate.Length(max=4)), allow_none=True,
                             validate=ma.validate.Length(max=7),
                             metadata={"description": "draw: the cards thrown ([] stands pat); "
                                       "buy or discard: the soldiers discarded"})
    player_id = ma.fields.String(validate=ma.validate.Length(min=1, max=100),
                                 metadata={"description": "floor and admin keys: who acts"})
    defender = ma.fields.String(allow_none=True, validate=ma.validate.Length(min=1, max=100),
                                metadata={"description": "attack: the player attacked, one of the legal "
                                                          "actions' `attack.targets`"})
    keep = ma.fields.List(ma.fields.Integer(strict=True, validate=ma.validate.Range(min=0, max=4)),
                          allow_none=True, validate=ma.validate.Length(max=5),
                          metadata={"description": "roll: the positions (0-4) kept"})
    line = ma.fields.String(allow_none=True, validate=ma.validate.Length(min=1, max=40),
                            metadata={"description": "score: the line written"})
    chips = ma.fields.List(Chips(minimum=1), validate=ma.validate.Length(max=100), metadata={
        "description": "floor and admin keys, instead of `action`: the chips pushed (declarations.md)"})
    said = ma.fields.String(allow_none=True, validate=ma.validate.Length(max=200),
                            metadata={"description": "floor and admin keys: the words said"})
    order = ma.fields.String(allow_none=True, validate=ma.validate.OneOf(ORDERS),
                             metadata={"description": "said_first, chips_first or simultaneous"})

    @ma.validates_schema
    def _action_or_chips(self, data: dict, **kwargs: Any) -> None:
        pushed = data.get("chips") is not None or data.get("said") is not None
        if pushed == ("action" in data):
            raise ma.ValidationError("give either `action` or what was pushed and said (`chips`, `said`)",
                                     "action")
        if pushed and data.get("to") is not None:
            raise ma.ValidationError("the chips and words say the amount: no `to` with them", "to")

    @staticmethod
    def quick_load(data: Any) -> dict[str, Any] | None:
        """The body as `load` gives it, without marshmallow, for the bodies nearly every
        action sends (`action`, with `to`, `expected_version` or `player_id`, all valid);
        None for any other, which `load` then judges (and words its errors). Marshmallow
        took 60 us of an action's CPU (issue 37)."""
        if type(data) is not dict or not data.keys() <= _QUICK_ACTION_FIELDS:
            return None
        action, to = data.get("action"), data.get("to")
        version, player_id = data.get("expected_version", 0), data.get("player_id", "-")
        if (_text_within(action, 20) and _text_within(player_id, 100)
                and (to is None or _whole_within(to, MAX_CHIPS)) and _whole_within(version, None)):
            return dict(data)
        return None


def _text_within(value: Any, longest: int) -> bool:
    return type(value) is str and 1 <= len(value) <= longest


def _whole_within(value: Any, largest: int | None) -> bool:
    """A JSON integer (not a boolean) from 0 to `largest` (None: no bound)."""
    return type(value) is int and value >= 0 and (largest is None or value <= largest)


class StartHandSchema(WriteSchema):
    pass


class AbsenceSchema(WriteSchema):
    player_id = ma.fields.String(validate=ma.validate.Length(min=1, max=100),
                                 metadata={"description": "floor and admin keys: who sits out"})


class ReturnQuerySchema(ma.Schema):
    expected_version = ma.fields.Integer(validate=ma.validate.Range(min=0),
                                         metadata={"description": "instead of If-Match"})


class PotSummarySchema(ma.Schema):
    amount = ma.fields.Integer(required=True)
    eligible = ma.fields.List(ma.fields.String(), required=True)


class HandSummarySchema(ma.Schema):
    id = ma.fields.String(allow_none=True)
    number = ma.fields.Integer()
    round = ma.fields.String(metadata={"description": "the game's round or phase"})
    over = ma.fields.Boolean()
    board = ma.fields.String(metadata={"description": "community cards (\"\" in games without a board)"})
    pots = ma.fields.List(ma.fields.Nested(PotSummarySchema))
    stacks = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer(),
                            metadata={"description": "each player's stack behind (chips not yet bet)"})


LEGAL_DESCRIPTION = (
    "every key an action of the game (sent as `{\"action\": key, ...}`), the same shape in every game: "
    "null or false when it is not allowed now, true when it is and takes nothing more, else its parameters: "
    "`min_to`/`max_to` bound the `to` sent, `options` lists the values its fields may take (each option "
    "the fields to send), `min_cards`/`max_cards` bound a `discard` (README \"Changelog\")")
ROUND_FIELD = ma.fields.String(allow_none=True, metadata={
    "description": "the hand's betting round, or the phase of a game played in turns (its "
                   "rules page names them)"})
RAISE_CLOSED_FIELD = ma.fields.String(metadata={
    "description": "beside `legal`, when `raise` is null and nobody may bet: why raising is closed "
                   "(not_reopened, raise_cap_reached, stack_too_short, opponents_all_in)"})
RAISE_REOPENED_FIELD = ma.fields.Dict(metadata={
    "description": "beside `legal`, when a player who has acted may raise again because the short "
                   "all-ins since add up to a full raise: `detail` (the arithmetic in words) and `rule` "
                   "(TDA 2024 47-A)"})


class WrittenSchema(ma.Schema):
    version = ma.fields.Integer(required=True)
    events = ma.fields.List(ma.fields.Nested(EventSchema), required=True)
    to_act = ma.fields.String(allow_none=True, metadata={
        "description": "who acts next (null between hands): act on it with If-Match = version, "
                       "no GET legal-actions needed"})
    round = ROUND_FIELD
    legal = ma.fields.Dict(allow_none=True, metadata={
        "description": "what `to_act` may do, as GET legal-actions answers it: derived from "
                       "public information (stacks, bets, round), never from hidden cards; " + LEGAL_DESCRIPTION})
    raise_closed_reason = RAISE_CLOSED_FIELD
    raise_reopened = RAISE_REOPENED_FIELD
    hand = ma.fields.Nested(HandSummarySchema, allow_none=True, metadata={
        "description": "the current (or last) hand's public summary; null before the first hand"})


class TableSchema(ma.Schema):
    id = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True)
    name = ma.fields.String(allow_none=True, metadata={
        "description": "what the room calls the table (a tournament's: \"<tournament> table N\"); "
                       "null: unnamed"})
    game = ma.fields.String(required=True)
    settings = ma.fields.Dict()
    betting = ma.fields.Dict(allow_none=True, metadata={
        "description": "the betting description of api.md the hands are played with, in every game "
                       "(`betting.structure`: no-limit, pot-limit or fixed-limit); null for a game "
                       "played for points (README \"What a client reads\")"})
    ranked = ma.fields.Boolean()
    action_clock_s = ma.fields.Integer(allow_none=True)
    auto_deal = ma.fields.Boolean()
    clock = ma.fields.Dict(allow_none=True, metadata={
        "description": "the running action clock: player_id, seat, deadline_at_ms (ms since the epoch)"})
    button = ma.fields.Integer(allow_none=True)
    hands_played = ma.fields.Integer()
    finished = ma.fields.Boolean()
    cash = ma.fields.Dict(allow_none=True, metadata={"description": "a cash table's min_buy_in and max_buy_in"})
    closing = ma.fields.Boolean(metadata={"description": "closed during a hand: finishes when it ends"})
    seats = ma.fields.List(ma.fields.Dict(), required=True,
                           metadata={"description": "seat, player_id, stack, status, bet, cards (where visible)"})
    hand = ma.fields.Dict(allow_none=True, metadata={"description": "the current or last hand"})
    standings = ma.fields.List(ma.fields.Dict(), allow_none=True)
    points = ma.fields.Dict(allow_none=True, metadata={"description": "games for points: each player's total"})
    results = ma.fields.List(ma.fields.Dict(), allow_none=True, metadata={
        "description": "once finished: player_id, place, outcome (win, draw, loss) for ratings"})
    rotation = ma.fields.Dict(allow_none=True, metadata={
        "description": "HORSE and 8-game tables: games (the rotation), current, hand_of_round, "
                       "hands_in_round, next; null at other tables"})


class TableLegalActionsSchema(ma.Schema):
    to_act = ma.fields.String(allow_none=True)
    round = ROUND_FIELD
    legal = ma.fields.Dict(allow_none=True, metadata={"description": LEGAL_DESCRIPTION})
    raise_closed_reason = RAISE_CLOSED_FIELD
    raise_reopened = RAISE_REOPENED_FIELD


# ------------------------------------------------------------------------------ shared


def viewer() -> views.Viewer:
    principal = current_principal()
    return views.Viewer(principal.role, principal.player_id)


def actor_name(principal: Principal) -> str:
    return f"{principal.role}:{principal.player_id}" if principal.player_id else principal.role


def loaded_table(table_id: str) -> commands.LoadedTable:
    """The table's state now: 404 without one; UnreadableStream (answered as the problem
    `unreadable_stream`) when this code cannot read its stream."""
    loaded = commands.load_table(application(), table_id)
    if loaded.state is None:
        raise Problem(404, "not_found", f"no table {table_id}")
    return loaded


def expected_version(body: dict, *, required: bool) -> int | None:
    """If-Match ("N", bare N) or the body's expected_version; 428 if neither and required."""
    header = request._get_current_object().headers.get("If-Match")  # type: ignore[attr-defined]  # not via the proxy
    field = body.get("expected_version")
    from_header = None
    if header is not None:
        match = _IF_MATCH.match(header)
        if match is None:
            raise validation_problem([{"location": "headers", "field": "If-Match",
                                       "messages": ['the table version, as "N" or N']}])
        from_header = int(match.group(1))
    if from_header is not None and field is not None and from_header != field:
        raise validation_problem([{"location": "json", "field": "expected_version",
                                   "messages": [f"If-Match says {from_header}, expected_version {field}"]}])
    version = from_header if from_header is not None else field
    if version is None and required:
        raise Problem(428, "precondition_required",
                      'send the table version you last saw: If-Match: "N" (from the ETag) or expected_version')
    return version


def written(result: Handled, status: int = 201) -> Response:
    """The events as the caller may see them, and what comes next (views.next_view), so a
    client acts again without a read. Built here as plain JSON: the data is ours and already
    in shape, and dumping it through the schema again was a measurable share of an action."""
    who = viewer()
    shown = {"version": result.version,
             "events": views.redact_events(result.events, who),
             **views.next_view(result.state, who)}
    return json_response(shown, status, result.version, who)


def json_response(body: dict, status: int, version: int, who: views.Viewer) -> Response:
    """`body` as JSON, its ETag the version as `who` sees it."""
    response = current_app._get_current_object().json.response(body)  # type: ignore[attr-defined]  # not via the proxy
    response.status_code = status
    response.headers["ETag"] = version_tag(version, who)
    return response


# ------------------------------------------------------------------------------- views


@blp.route("", methods=["POST"])
@require("admin", "organiser", "floor")
@blp.arguments(NewTableSchema())
@blp.response(201, CreatedTableSchema)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(parameters=[IDEMPOTENCY_KEY_HEADER])
def create_table(body: dict) -> tuple[dict, int, dict]:
    """Open a table (admin, organiser, floor). Seats need registered players."""
    principal = current_principal()
    store = event_store()
    rules = table_state.game_rules(body["game"])
    if rules.table_game is None:
        if body["betting"] is None:
            raise validation_problem([{"location": "json", "field": "betting",
                                       "messages": [f"{body['game']} tables need a betting description"]}])
        betting = BettingStructure.from_dict(body["betting"])
    else:
        if body["betting"] is not None and not rules.takes_betting:
            raise validation_problem([{"location": "json", "field": "betting", "messages": [
                f"{body['game']} derives its betting from its settings: leave betting out"]}])
        if body["betting"] is not None:  # a game with settings of its own reads it into them
            body["settings"] = rules.settings_with_betting(body["settings"], body["betting"])
        betting = rules.table_game.betting(body["settings"])
    starting = _starting_chips(rules, body["settings"])
    seats = []
    for seat in body["seats"]:
        stack = seat.get("stack", starting)
        if isinstance(stack, bool) or not isinstance(stack, int) or \
                (stack <= 0 and rules.plays_for_chips(body["settings"])):
            detail, numbers, _ = with_player_names(
                f"seat of {seat['player_id']} needs a stack (or settings.starting_chips) above 0",
                {"player_id": seat["player_id"], "stack": seat.get("stack")})
            raise Problem(422, "invalid_table", detail, numbers=numbers)
        if store.stream_version(f"player-{seat['player_id']}") == 0:
            raise Problem(422, "unknown_player", f"no player {seat['player_id']} is registered",
                          numbers={"player_id": seat["player_id"]})
        seats.append(table_commands.TableSeat(seat["player_id"], stack))
    table_id = str(uuid.uuid4())
    command = table_commands.CreateTable(table_id, body["game"], body["settings"], betting, table_seats(body, seats),
                                         body["ranked"], body["action_clock_s"], auto_deal=body["auto_deal"],
                                         name=body["name"], **buy_in_limits(body))
    result = commands.create_table(application(), command, actor=actor_name(principal))
    return {"id": table_id, "version": result.version}, 201, {"ETag": f'"{result.version}"'}


def _starting_chips(rules: GameRules, settings: dict) -> int | None:
    """A seat's stack when none is given: settings.starting_chips (five-card draw's default
    when unset); games for points need none."""
    if not rules.plays_for_chips(settings):
        return settings.get("starting_chips", 0)
    if rules.table_game is not None:
        return getattr(rules.table_game.settings(settings), "starting_chips", None)
    return settings.get("starting_chips")


@blp.route("/<string:table_id>", methods=["GET"])
@conditional
@require(*ALL_ROLES)
@blp.response(200, TableSchema)
@blp.alt_response(404, response="NOT_FOUND")
def get_table(table_id: str) -> tuple[dict, int, dict]:
    """The table as the caller may see it (ETag: the version)."""
    loaded = loaded_table(table_id)
    who = viewer()
    shown = with_names(views.table_view(loaded.state, loaded.version, who))
    return shown, 200, {"ETag": version_tag(loaded.version, who)}


@blp.route("/<string:table_id>/hands", methods=["POST"])
@require("admin", "organiser", "floor", "player")
@blp.arguments(StartHandSchema())
@blp.response(201, WrittenSchema)
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(409, response="CONFLICT")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(parameters=[IDEMPOTENCY_KEY_HEADER])
def start_hand(body: dict, table_id: str) -> Response:
    """Start the next hand: the button moves to the next seat with chips, a fresh shuffle is
    committed to in the hand's first event. If-Match optional; players seated here may ask."""
    principal = current_principal()
    version = expected_version(body, required=False)
    # With If-Match, the cached state at that version needs no read (the append checks it).
    app = application()
    loaded = commands.load_table_for_write(app, table_id, version)
    if loaded.state is None:
        raise Problem(404, "not_found", f"no table {table_id}")
    if principal.role == "player" and principal.player_id not in loaded.state.players:
        raise Problem(403, "forbidden", "only players seated at this table may start its hands")
    result = commands.start_next_hand(app, table_id, version, actor=actor_name(principal),
                                      loaded=loaded)
    return written(result)


@blp.route("/<string:table_id>/legal-actions", methods=["GET"])
@conditional
@require(*ALL_ROLES)
@blp.response(200, TableLegalActionsSchema)
@blp.alt_response(404, response="NOT_FOUND")
def legal_actions(table_id: str) -> Response:
    """Who is to act and what they may do (the betting ruling's `legal` shape), from public
    information: under jacks or better, others see a bet the player to act may make only
    with openers with `needs_openers` among its parameters. `legal` holds actions only, in
    one shape for every game (README "What a client reads")."""
    loaded = loaded_table(table_id)
    who = viewer()
    return json_response(views.legal_actions_view(loaded.state, who), 200, loaded.version, who)


@blp.route("/<string:table_id>/actions", methods=["POST"])
@require("admin", "floor", "player")
@blp.arguments(ActionSchema())
@blp.response(201, WrittenSchema)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(409, response="CONFLICT")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.alt_response(428, response="PRECONDITION_REQUIRED")
@blp.doc(parameters=[IF_MATCH_HEADER, IDEMPOTENCY_KEY_HEADER])
def post_action(body: dict, table_id: str) -> Response:
    """Act in the current hand. A player key acts for its player; floor and admin keys name
    the player with `player_id`. The answer carries what the next action needs (`to_act`,
    `legal`, the hand's public summary; ETag: the new version), so a client reads again only
    after a 409."""
    principal = current_principal()
    version = expected_version(body, required=True)
    if principal.role == "player":
        if body.get("player_id") not in (None, principal.player_id):
            raise Problem(403, "forbidden", "a player key acts for its own player only")
        player_id = principal.player_id
    else:
        player_id = body.get("player_id")
        if player_id is None:
            raise validation_problem([{"location": "json", "field": "player_id",
                                       "messages": ["floor and admin keys name the player who acts"]}])
    app = application()
    loaded = commands.load_table_for_write(app, table_id, version)
    if loaded.state is None:
        raise Problem(404, "not_found", f"no table {table_id}")
    discard = tuple(body["discard"]) if body.get("discard") is not None else None
    keep = tuple(body["keep"]) if body.get("keep") is not None else None
    if body.get("action") in FLOOR_ONLY_ACTIONS and principal.role == "player":
        raise Problem(403, "forbidden", f"{body['action']} is the floor's ruling: a floor or admin key")
    pushed = None
    if "action" not in body:
        if principal.role == "player":
            raise Problem(403, "forbidden", "chips and words are entered by a floor or admin key")
        pushed = Pushed(tuple(body.get("chips") or ()), body.get("said"), body.get("order"))
    command = table_commands.Act(player_id, body.get("action", ""), body.get("to"), discard, body.get("defender"),
                                 keep, body.get("line"), pushed)
    result = commands.execute(app, table_id, version, command,
                              actor=actor_name(principal), loaded=loaded)
    return written(result)


def _player_named(body: dict, principal: Principal) -> str:
    """A player key speaks for its own player; floor and admin keys name one."""
    if principal.role == "player":
        if body.get("player_id") not in (None, principal.player_id):
            raise Problem(403, "forbidden", "a player key acts for its own player only")
        return principal.player_id  # type: ignore[return-value]
    player_id = body.get("player_id")
    if player_id is None:
        raise validation_problem([{"location": "json", "field": "player_id",
                                   "messages": ["floor and admin keys name the player"]}])
    return player_id


@blp.route("/<string:table_id>/absences", methods=["POST"])
@require("admin", "floor", "player")
@blp.arguments(AbsenceSchema())
@blp.response(201, WrittenSchema)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(409, response="CONFLICT")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(parameters=[IDEMPOTENCY_KEY_HEADER])
def sit_out(body: dict, table_id: str) -> Response:
    """Sit out: the seat is kept, and the computer plays the player's turns (check when
    possible, call a small bet with a pair or better, else fold) until they return.
    If-Match optional."""
    principal = current_principal()
    version = expected_version(body, required=False)
    player_id = _player_named(body, principal)
    loaded_table(table_id)
    result = commands.execute(application(), table_id, version, table_commands.SitOut(player_id),
                              actor=actor_name(principal))
    return written(result)


@blp.route("/<string:table_id>/absences/<string:player_id>", methods=["DELETE"])
@require("admin", "floor", "player")
@blp.arguments(ReturnQuerySchema(), location="query")
@blp.response(200, WrittenSchema)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(409, response="CONFLICT")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(parameters=[IDEMPOTENCY_KEY_HEADER])
def return_to_seat(query: dict, table_id: str, player_id: str) -> Response:
    """Come back to the same seat: the player acts for themselves from their next turn.
    If-Match optional."""
    principal = current_principal()
    version = expected_version(query, required=False)
    _player_named({"player_id": player_id}, principal)
    loaded_table(table_id)
    result = commands.execute(application(), table_id, version, table_commands.ReturnToSeat(player_id),
                              actor=actor_name(principal))
    return written(result, status=200)


@blp.route("/<string:table_id>/events", methods=["GET"])
@conditional
@require(*ALL_ROLES)
@blp.arguments(EventsQuerySchema(), location="query")
@blp.response(200, EventsSchema)
@blp.alt_response(404, response="NOT_FOUND")
def table_events(query: dict, table_id: str) -> tuple[dict, int, dict]:
    """The table's event log after version `after`, redacted for the caller, `limit` events
    a page (`next`: the following page's URL, null once the page reaches the head); with
    `wait`, answered as soon as an event after `after` exists (or empty at the timeout).
    A table this code cannot read answers `unreadable_stream`, as its other reads do."""
    loaded_table(table_id)
    stream = commands.table_stream(table_id)
    wait_for_events(stream, query["after"], query["wait"])
    return events_page(stream, query, viewer(), f"no table {table_id}")
