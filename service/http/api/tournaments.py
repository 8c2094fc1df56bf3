"""Tournaments: create, register, start, read (clock derived at the time of the request),
the organiser's clock controls and the floor's eliminations, moves and disqualifications,
rebuys, add-ons, chip counts and races, the event log and CSV exports.

Stream `tournament-<id>`. Reads carry `ETag: "N"`; writes take `If-Match` (or
`expected_version`) when the client wants its view checked, and an `Idempotency-Key`.
Without a version the write is judged on the current state (registrations from many
players at once must not turn into conflicts).
"""
from __future__ import annotations

import time
import uuid
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import marshmallow as ma
from flask import Response

from domain.rules.violations import Violation
from domain.tournaments import commands as tournament_commands
from domain.tournaments import tournament
from domain.tournaments.bounties import BOUNTY_KINDS
from domain.tournaments.clock import read_clock
from domain.tournaments.payouts import RANK_BY_STARTING_STACK, RANK_SHARED
from domain.tournaments.seating import BREAK_PREDETERMINED, BREAK_RANDOM
from domain.tournaments.structure import Period, period_index_of_level
from service.application import tournament_tables, tournaments, views
from service.http import tournament_exports as exports
from service.http.api import Blueprint, application, event_store
from service.http.api.etags import body_tag, conditional, tagged, version_tag
from service.http.api.event_pages import DEFAULT_EVENTS, MAX_EVENTS
from service.http.api.names import with_names
from service.http.api.paging import link_headers, next_url
from service.http.api.schemas import Chips, RegisteredGame, StrictBoolean
from service.http.api.streams import wait_for_events, wait_query_field
from service.http.api.tables import IDEMPOTENCY_KEY_HEADER, actor_name, expected_version
from service.http.auth import current_principal, require
from service.http.problems import Problem

blp = Blueprint("tournaments", __name__, url_prefix="/v1/tournaments",
                description="Multi-table tournaments and their level clock")

ALL_ROLES = ("admin", "organiser", "floor", "player", "spectator")
ORGANISERS = ("admin", "organiser")
FLOOR = ("admin", "organiser", "floor")
IF_MATCH_OPTIONAL = {
    "name": "If-Match", "in": "header", "required": False, "schema": {"type": "string"},
    "description": 'the tournament version last seen: "N" (a bare N is accepted too); '
                   "a stale one is a 409 and nothing is written",
}
WRITE_PARAMETERS = [IF_MATCH_OPTIONAL, IDEMPOTENCY_KEY_HEADER]


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
    action_clock_s = ma.fields.Integer(strict=True, load_default=None, allow_none=True,
                                       validate=ma.validate.Range(min=1, max=3600),
                                       metadata={"description": "this level's action clock (default: the tournament's)"})
    colour_up = Chips(load_default=0, metadata={
        "description": "a scheduled colour-up: when this period begins, chips below this denomination are "
                       "raced off (TDA 2024 24); 0: none"})

    @ma.validates_schema
    def _lasts(self, data: dict, **kwargs: Any) -> None:
        if data.get("minutes", 0) * 60 + data.get("seconds", 0) <= 0:
            raise ma.ValidationError("a level or break lasts more than 0: give minutes, seconds or both",
                                     "minutes")


class StartsAt(ma.fields.Field):
    """An ISO 8601 instant with its offset, or "now"."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if value == "now":
            return "now"
        instant = ma.fields.AwareDateTime()._deserialize(value, attr, data, **kwargs)
        try:
            # An offset can carry 0001-01-01 or 9999-12-31 outside the years a datetime
            # holds in UTC: such an instant could not be shown again (it was a 500 on read).
            return instant.astimezone(UTC)
        except OverflowError:
            raise ma.ValidationError("an instant between the years 1 and 9999 in UTC") from None


PERCENT = r"^\d{1,3}(\.\d{1,6})?$"


class PayoutPlaceSchema(ma.Schema):
    percent = ma.fields.String(validate=ma.validate.Regexp(PERCENT), metadata={"example": "25"})
    amount = Chips(minimum=1)

    @ma.validates_schema
    def _one(self, data: dict, **kwargs: Any) -> None:
        if ("percent" in data) == ("amount" in data):
            raise ma.ValidationError("each place gives a percent or an amount", "percent")


class BountySchema(ma.Schema):
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(BOUNTY_KINDS))
    amount = Chips(minimum=1, required=True, metadata={"description": "each entry's bounty, paid beside the buy-in"})
    cash_percent = ma.fields.Integer(strict=True, load_default=50, validate=ma.validate.Range(min=0, max=100),
                                     metadata={"description": "progressive: the eliminator's cash share; the rest "
                                                              "goes onto their own bounty (house setting, default 50)"})


class NewTournamentSchema(ma.Schema):
    name = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=100))
    game = ma.fields.String(required=True, validate=RegisteredGame(lambda game: game.in_tournaments),
                            metadata={"example": "holdem"})
    betting = ma.fields.String(load_default="no-limit",
                               validate=ma.validate.OneOf(["no-limit", "pot-limit", "fixed-limit"]))
    levels = ma.fields.List(ma.fields.Nested(PeriodSchema), required=True,
                            validate=ma.validate.Length(min=1, max=200),
                            metadata={"description": "levels and breaks in order"})
    starting_stack = Chips(minimum=1, required=True)
    buy_in = Chips(load_default=0)
    table_size = ma.fields.Integer(strict=True, load_default=9, validate=ma.validate.Range(min=2, max=10))
    starts_at = StartsAt(required=True, metadata={
        "description": 'an ISO 8601 instant with its offset, not in the past, or "now"',
        "example": "2026-12-01T18:00:00Z", "type": "string"})
    late_registration_until_level = ma.fields.Integer(strict=True, load_default=0,
                                                      validate=ma.validate.Range(min=0, max=200))
    re_entries_allowed = ma.fields.Integer(strict=True, load_default=0, validate=ma.validate.Range(min=0, max=100))
    rebuy_price = Chips(load_default=0, metadata={"description": "0: no rebuys"})
    rebuy_chips = Chips(metadata={"description": "chips per rebuy (default: the starting stack)"})
    rebuys_allowed = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=0, max=100),
                                       metadata={"description": "rebuys per player (default 0: no limit)"})
    rebuy_at_or_below = Chips(load_default=0, metadata={
        "description": "a seated player may rebuy holding at most this many chips (default 0: the starting stack); "
                       "a busted player keeps the seat during the rebuy period until they rebuy, decline or "
                       "their time passes"})
    double_rebuy = StrictBoolean(load_default=False, metadata={"description": "a rebuy may be double (two at once)"})
    rebuy_grace_s = ma.fields.Integer(strict=True, load_default=300, validate=ma.validate.Range(min=0, max=86400),
                                      metadata={"description": "physical tables: how long a busted player may take to "
                                                               "rebuy (service tables: until the end of the next hand "
                                                               "at their table)"})
    rebuy_until_level = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=0, max=200), metadata={
        "description": "the last level a rebuy is taken in, and the break after it (default: the late "
                       "registration's, at least 1). A rebuy is taken at or below the starting stack"})
    add_on_price = Chips(load_default=0, metadata={"description": "0: no add-on"})
    add_on_chips = Chips(metadata={"description": "chips per add-on (default: the starting stack)"})
    add_ons_allowed = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=0, max=100),
                                        metadata={"description": "add-ons per player (default 1)"})
    add_on_until_level = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=0, max=200), metadata={
        "description": "the last level an add-on is taken in, and the break after it (default: the rebuys')"})
    tables = ma.fields.String(load_default=tournament_commands.TABLES_SERVICE,
                              validate=ma.validate.OneOf([tournament_commands.TABLES_SERVICE, tournament_commands.TABLES_PHYSICAL]),
                              metadata={"description": "service: the service deals every hand and sees every bust; "
                                                       "physical: dealers at real tables, the floor reports busts "
                                                       "and chip counts"})
    auto_start = StrictBoolean(load_default=False, metadata={
        "description": "start by itself at starts_at, and then only with min_players; otherwise the director starts "
                       "it (POST .../start), early or late"})
    min_players = ma.fields.Integer(strict=True, load_default=2, validate=ma.validate.Range(min=2, max=100000))
    move_call_s = ma.fields.Integer(strict=True, load_default=180, validate=ma.validate.Range(min=0, max=3600),
                                    metadata={"description": "physical tables: a balancing or breaking move is "
                                                             "pending until the floor confirms it or this passes"})
    action_clock_s = ma.fields.Integer(strict=True, load_default=None, allow_none=True,
                                       validate=ma.validate.Range(min=1, max=3600), metadata={
        "description": "service tables: seconds per action (a level's own action_clock_s overrides it); "
                       "null: no action clock"})
    time_bank_s = ma.fields.Integer(strict=True, load_default=0, validate=ma.validate.Range(min=0, max=3600),
                                    metadata={"description": "service tables: extra seconds a player may use when "
                                                             "their action clock runs out"})
    hand_for_hand_at_bubble = StrictBoolean(load_default=False, metadata={
        "description": "hand-for-hand starts by itself when the next bust is the bubble, stops once it bursts"})
    denominations = ma.fields.List(Chips(), load_default=list, validate=ma.validate.Length(max=20), metadata={
        "description": "chip denominations in play at the start, smallest first (needed for colour-ups)"})
    payout_percentages = ma.fields.List(
        ma.fields.String(validate=ma.validate.Regexp(PERCENT)), validate=ma.validate.Length(min=1, max=1000),
        metadata={"description": "exact decimals by place, summing to 100 (or give `payouts`)",
                  "example": ["50", "30", "20"]})
    payouts = ma.fields.List(ma.fields.Nested(PayoutPlaceSchema), validate=ma.validate.Length(min=1, max=1000),
                             metadata={"description": "by place: all `{\"percent\": \"25\"}` (summing to 100) or "
                                                      "all `{\"amount\": 500}` (fixed; a larger pool pays the rest "
                                                      "to first place, a smaller one is made up by the house)"})
    payout_preset = StrictBoolean(load_default=False, metadata={
        "description": "the preset by field size instead: ceil(15% of the entries) places paid in proportion to "
                       "1/place (docs/tournaments-money.md)"})
    payout_unit = Chips(minimum=1, load_default=1, metadata={
        "description": "percentages' amounts are rounded down to this unit; the remainder goes to first place"})
    fee = Chips(load_default=0, metadata={"description": "the house's fee per entry, beside buy_in; never in the "
                                                          "prize pool"})
    rebuy_fee = Chips(load_default=0)
    add_on_fee = Chips(load_default=0)
    guarantee = Chips(load_default=0, metadata={"description": "the prize pool is at least this; the house pays the "
                                                                "shortfall (overlay)"})
    bounty = ma.fields.Nested(BountySchema, metadata={"description": "bounties: fixed or progressive (PKO)"})
    balance_tolerance = ma.fields.Integer(strict=True, load_default=1, validate=ma.validate.Range(min=1, max=10))
    break_order = ma.fields.String(load_default=BREAK_PREDETERMINED,
                                   validate=ma.validate.OneOf([BREAK_PREDETERMINED, BREAK_RANDOM]))
    bust_ranking = ma.fields.String(load_default=RANK_BY_STARTING_STACK,
                                    validate=ma.validate.OneOf([RANK_SHARED, RANK_BY_STARTING_STACK]), metadata={
        "description": "players out on one hand at one table: starting_stack (the bigger stack finishes "
                       "higher, equal stacks share) or shared (all share the places reached)"})

    @ma.validates_schema
    def _one_payout_table(self, data: dict, **kwargs: Any) -> None:
        given = [key for key in ("payout_percentages", "payouts") if key in data] + \
            (["payout_preset"] if data.get("payout_preset") else [])
        if len(given) != 1:
            raise ma.ValidationError("give one payout table: payout_percentages, payouts or payout_preset",
                                     "payouts")
        kinds = {"percent" if "percent" in place else "amount" for place in data.get("payouts", [])}
        if len(kinds) > 1:
            raise ma.ValidationError("payouts are all percentages or all fixed amounts", "payouts")


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
                                metadata={"description": "added to the current period; negative shortens it, "
                                                         "at most to its end (never past it)"})
    confirm = StrictBoolean(load_default=False, metadata={
        "description": "true to leave more time than the level's own length (else 422 adjust_past_level_length)"})


class SetLevelSchema(TournamentWriteSchema):
    level = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=1, max=200),
                              metadata={"description": "a level number (breaks not counted)"})
    period = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=1, max=400),
                               metadata={"description": "a period of the structure, breaks counted, from 1"})
    step = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=-400, max=400),
                             metadata={"description": "periods forward (positive) or back (negative) from the "
                                                      "current one, breaks counted"})
    remaining_s = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=1, max=86400 * 2),
                                    metadata={"description": "time left in it (default: its full length)"})

    @ma.validates_schema
    def _one_target(self, data: dict, **kwargs: Any) -> None:
        if sum(key in data for key in ("level", "period", "step")) != 1:
            raise ma.ValidationError("give exactly one of level, period or step", "level")


SPLIT_POT = ma.fields.List(_player_id(), validate=ma.validate.Length(max=9), metadata={
    "description": "a split pot: the other winners of the pot that busted the player (of the highest-numbered pot "
                   "the player was in); they share the bounty, odd units by TDA 2024 20's order"})


class BustSchema(ma.Schema):
    player_id = _player_id(required=True)
    busted_by = _player_id(metadata={"description": "who busted them (bounties, records)"})
    also_busted_by = SPLIT_POT
    starting_stack = Chips(load_default=0, metadata={
        "description": "the stack at the start of the hand: ranks players busting together"})


class ChipCountSchema(ma.Schema):
    player_id = _player_id(required=True)
    chips = Chips(required=True)


class ChipCountsSchema(TournamentWriteSchema):
    counts = ma.fields.List(ma.fields.Nested(ChipCountSchema), required=True,
                            validate=ma.validate.Length(min=1, max=10000),
                            metadata={"description": "physical tables: stacks the floor counted, for any players "
                                                     "(a table, a few, everyone); never more than the chips in play"})


class EliminationSchema(TournamentWriteSchema):
    player_id = _player_id(metadata={"description": "the player out (or `busted` for several on one hand)"})
    busted_by = _player_id(metadata={"description": "who busted them (bounties, records)"})
    also_busted_by = SPLIT_POT
    busted = ma.fields.List(ma.fields.Nested(BustSchema), validate=ma.validate.Length(min=1, max=100))
    counts = ma.fields.List(ma.fields.Nested(ChipCountSchema), load_default=list,
                            validate=ma.validate.Length(max=10),
                            metadata={"description": "optional: chip counts the floor has (any players)"})

    @ma.validates_schema
    def _someone(self, data: dict, **kwargs: Any) -> None:
        if ("player_id" in data) == ("busted" in data):
            raise ma.ValidationError("give player_id or busted, not both", "player_id")


class ChipRaceSchema(TournamentWriteSchema):
    table = ma.fields.Integer(strict=True, required=True, validate=ma.validate.Range(min=1, max=100000))


class MoveSchema(TournamentWriteSchema):
    player_id = _player_id(required=True)
    to_table = ma.fields.Integer(strict=True, required=True, validate=ma.validate.Range(min=1, max=100000))
    to_seat = ma.fields.Integer(strict=True, required=True, validate=ma.validate.Range(min=1, max=10),
                                metadata={"description": "a seat of the table, counted from 1"})


class RebuySchema(RegistrationSchema):
    double = StrictBoolean(load_default=False, metadata={"description": "a double rebuy, where offered"})


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


class MoveWrittenSchema(TournamentWrittenSchema):
    move = ma.fields.Dict(metadata={"description": "a move queued until the hand is over: move_id, player_id, "
                                                   "to_table, to_seat (202)"})


class LogEventSchema(ma.Schema):
    version = ma.fields.Integer(required=True)
    type = ma.fields.String(required=True)
    data = ma.fields.Dict(required=True)
    recorded_at = ma.fields.String()


class TournamentEventsSchema(ma.Schema):
    events = ma.fields.List(ma.fields.Nested(LogEventSchema), required=True)
    next_after = ma.fields.Integer(allow_none=True, metadata={"description": "the next page's `after`; null at the end"})
    next = ma.fields.String(allow_none=True, metadata={"description": "the next page's URL; null at the end"})


class TournamentEventsQuerySchema(ma.Schema):
    after = ma.fields.Integer(load_default=0, validate=ma.validate.Range(min=0, max=2**31 - 1))
    limit = ma.fields.Integer(load_default=DEFAULT_EVENTS, validate=ma.validate.Range(min=1, max=MAX_EVENTS))
    wait = wait_query_field()


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
    hand_for_hand = StrictBoolean(metadata={"description": "every table plays one hand at a time"})
    registered = ma.fields.List(ma.fields.String())
    registrations = ma.fields.List(ma.fields.Dict(), metadata={"description": "registered: player_id, name"})
    entries = ma.fields.Integer()
    players_left = ma.fields.Integer()
    clock = ma.fields.Dict(required=True, metadata={
        "description": "started, period (from 1, breaks counted), level (from 1), on_break, paused, remaining_s, "
                       "ends_at (ISO 8601), blinds, next"})
    chips = ma.fields.Dict(metadata={
        "description": "in_play (exact: issued - removed), issued, removed, rebuys, add_ons, known (the stacks as "
                       "last counted), uncounted (in play, not yet in anyone's count), average_stack (in play / "
                       "players left with chips)"})
    pending_moves = ma.fields.List(ma.fields.Dict(), metadata={
        "description": "queued floor moves (waiting for a hand's end): move_id, player_id, to_table, to_seat (from 1)"})
    moves = ma.fields.Dict(metadata={"description": "moves to call out: pending, recent, queued (as GET .../moves)"})
    awaiting_rebuy = ma.fields.List(ma.fields.Dict(), metadata={
        "description": "busted in the rebuy period, seat kept: player_id, table, busted_at, until"})
    auto_start = StrictBoolean(metadata={"description": "starts by itself at starts_at (with min_players)"})
    min_players = ma.fields.Integer()
    action_clock_s = ma.fields.Integer(allow_none=True)
    time_bank_s = ma.fields.Integer()
    undo = ma.fields.Dict(allow_none=True, metadata={
        "description": "what POST .../undo would undo: kind (elimination, rebuy, clock), event, blocked_by"})
    tables = ma.fields.List(ma.fields.Dict(), metadata={
        "description": "number, table_id (the live table where its players act), "
                       "players (seat from 1, player_id, chips, awaiting_rebuy)"})
    standings = ma.fields.List(ma.fields.Dict(), metadata={"description": "player_id, place"})
    prize_pool = ma.fields.Integer()
    payouts = ma.fields.List(ma.fields.Dict(), metadata={"description": "place, amount"})
    prizes = ma.fields.List(ma.fields.Dict(), metadata={"description": "once finished: player_id, place, amount "
                                                                       "(a deal's amounts for its players)"})
    money = ma.fields.Dict(metadata={
        "description": "prices and fees, guarantee, payout kind and unit, bounty, and the cashier's reconciliation: "
                       "collected, contributions, fees, bounties, overlay, prize_pool, prizes_paid, bounties_paid, "
                       "paid, left"})
    bounties = ma.fields.List(ma.fields.Dict(), metadata={
        "description": "the bounty ledger: player_id, won (busted, cash, head), cash, head (their bounty now)"})
    deal = ma.fields.Dict(allow_none=True, metadata={
        "description": "the recorded deal: shares (player_id, amount), left_to_play_for, remaining_pool, at"})


class DealShareSchema(ma.Schema):
    player_id = _player_id(required=True)
    amount = Chips(required=True)
    place = ma.fields.Integer(load_default=0, validate=ma.validate.Range(min=1), metadata={
        "description": "the place agreed, for league points (all shares or none; 422 `deal_places`); "
                       "without it, the place the player finishes in"})


class DealSchema(TournamentWriteSchema):
    shares = ma.fields.List(ma.fields.Nested(DealShareSchema), required=True,
                            validate=ma.validate.Length(min=2, max=100),
                            metadata={"description": "every player left, once, with the amount agreed"})
    left_to_play_for = Chips(load_default=0, metadata={"description": "paid to the winner; with the shares exactly "
                                                                       "the prize money still to pay"})


class DealFiguresSchema(ma.Schema):
    remaining_pool = ma.fields.Integer(required=True)
    open_prizes = ma.fields.List(ma.fields.Integer(), required=True,
                                 metadata={"description": "the payout table's amounts for the places still open"})
    players = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "player_id, name, chips, icm_equity, icm (the whole-unit ICM deal), chip_chop"})


# ------------------------------------------------------------------------------ shared


def now() -> int:
    return int(time.time())


def _existing(tournament_id: str) -> tournaments.LoadedTournament:
    loaded = tournaments.load_tournament(application(), tournament_id)
    if not loaded.exists:
        raise Problem(404, "not_found", f"no tournament {tournament_id}")
    return loaded


def _send(tournament_id: str, body: dict, command: Any, status: int = 201) -> tuple[dict, int, dict]:
    _existing(tournament_id)
    outcome = tournaments.send(application(), tournament_id, command, expected_version=expected_version(body, required=False),
        actor=actor_name(current_principal()),
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
        return Period.pause(fields["minutes"], fields["seconds"], fields["colour_up"])
    level = Period.level(fields["small_blind"], fields["big_blind"], fields["minutes"],
                         fields["ante"], fields["big_blind_ante"], fields["seconds"], fields["colour_up"])
    return replace(level, action_clock_s=fields["action_clock_s"])


def _starts_at(value: str | datetime) -> int:
    return now() if value == "now" else int(value.timestamp())  # type: ignore[union-attr]


def _settings(body: dict) -> tournament_commands.Settings:
    """The settings, with the documented defaults of rebuys and add-ons when offered."""
    stack = body["starting_stack"]
    rebuy = body["rebuy_price"] > 0
    add_on = body["add_on_price"] > 0
    payouts = body.get("payouts", [])
    rebuy_until = body.get("rebuy_until_level", max(1, body["late_registration_until_level"]) if rebuy else 0)
    return tournament_commands.Settings(
        name=body["name"],
        structure=tuple(_period(p) for p in body["levels"]),
        starts_at=_starts_at(body["starts_at"]),
        starting_stack=stack,
        buy_in=body["buy_in"],
        payout_percentages=tuple(body.get("payout_percentages") or
                                 (place["percent"] for place in payouts if "percent" in place)),
        table_size=body["table_size"],
        late_registration_until_level=body["late_registration_until_level"],
        re_entries_allowed=body["re_entries_allowed"],
        rebuy_price=body["rebuy_price"],
        add_on_price=body["add_on_price"],
        balance_tolerance=body["balance_tolerance"],
        break_order=body["break_order"],
        bust_ranking=body["bust_ranking"],
        rebuy_chips=body.get("rebuy_chips", stack if rebuy else 0),
        rebuys_allowed=body.get("rebuys_allowed", 0),
        rebuy_until_level=rebuy_until,
        add_on_chips=body.get("add_on_chips", stack if add_on else 0),
        add_ons_allowed=body.get("add_ons_allowed", 1 if add_on else 0),
        add_on_until_level=body.get("add_on_until_level", (rebuy_until or max(1, body["late_registration_until_level"]))
                                    if add_on else 0),
        tables=body["tables"],
        hand_for_hand_at_bubble=body["hand_for_hand_at_bubble"],
        denominations=tuple(body["denominations"]),
        auto_start=body["auto_start"],
        min_players=body["min_players"],
        rebuy_at_or_below=body["rebuy_at_or_below"],
        double_rebuy=body["double_rebuy"],
        rebuy_grace_s=body["rebuy_grace_s"],
        move_call_s=body["move_call_s"],
        action_clock_s=body["action_clock_s"],
        time_bank_s=body["time_bank_s"],
        fee=body["fee"], rebuy_fee=body["rebuy_fee"], add_on_fee=body["add_on_fee"], guarantee=body["guarantee"],
        payout_fixed=tuple(place["amount"] for place in payouts if "amount" in place),
        payout_preset=body["payout_preset"], payout_unit=body["payout_unit"],
        bounty_kind=body["bounty"]["kind"] if "bounty" in body else "",
        bounty=body["bounty"]["amount"] if "bounty" in body else 0,
        bounty_cash_percent=body["bounty"]["cash_percent"] if "bounty" in body else 50,
    )


# ------------------------------------------------------------------------------- views


@blp.route("", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(NewTournamentSchema)
@blp.response(201, CreatedTournamentSchema)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(parameters=[IDEMPOTENCY_KEY_HEADER])
def create_tournament(body: dict) -> tuple[dict, int, dict]:
    """Schedule a tournament (organiser, admin): structure, entries, payouts. A broken
    structure or payout table is a 422 naming the rule; a start in the past is a 422
    `starts_in_past` (give `"starts_at": "now"` to start as soon as it is started)."""
    principal = current_principal()
    tournament_id = str(uuid.uuid4())
    outcome = tournaments.create_tournament(application(), tournament_id, _settings(body), body["game"],
                                            body["betting"], actor=actor_name(principal), now=now())
    return {"id": tournament_id, "version": outcome.version}, 201, {"ETag": f'"{outcome.version}"'}


@blp.route("/<string:tournament_id>", methods=["GET"])
@conditional
@require(*ALL_ROLES)
@blp.response(200, TournamentSchema)
@blp.alt_response(404, response="NOT_FOUND")
def get_tournament(tournament_id: str) -> tuple[dict, int, dict]:
    """Status, level and clock at the time of the request (derived from the events),
    tables with their players, standings and payouts. ETag: the version."""
    loaded = _existing(tournament_id)
    shown = with_names(tournaments.tournament_view(loaded, now()))
    shown["registrations"] = with_names([{"player_id": p} for p in shown["registered"]])
    # The clock's reading changes with time at one version: the tag covers the content.
    return shown, 200, {"ETag": body_tag(shown, loaded.version)}


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
    registration: the late entrant draws a seat (TDA 2024 8-A); re-entry when allowed."""
    _for_self_or_staff(body["player_id"])
    _existing(tournament_id)
    _registered_player(body["player_id"])
    return _send(tournament_id, body, tournament_commands.Register(body["player_id"], at=now(), seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/registrations/<string:player_id>", methods=["DELETE"])
@require("admin", "organiser", "floor", "player")
@blp.arguments(TournamentWriteSchema)
@blp.response(200, TournamentWrittenSchema)
@_write_docs
def unregister(body: dict, tournament_id: str, player_id: str) -> tuple[dict, int, dict]:
    """Withdraw a registration before the start."""
    _for_self_or_staff(player_id)
    return _send(tournament_id, body, tournament_commands.Unregister(player_id), status=200)


@blp.route("/<string:tournament_id>/start", methods=["POST"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def start(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Start now, at the director's word, early or late (`starts_at` is the published
    time; with at least two players): seats are drawn at random, the seed is in the
    event, and the first level starts. The clock worker starts it by itself only with
    `auto_start`, and then with at least `min_players`."""
    return _send(tournament_id, body, tournament_commands.StartTournament(at=now(), seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/clock/pause", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def pause_clock(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Stop the level clock; the remaining time is frozen."""
    return _send(tournament_id, body, tournament_commands.PauseClock(at=now()))


@blp.route("/<string:tournament_id>/clock/resume", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def resume_clock(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Restart the level clock with the time that was left."""
    return _send(tournament_id, body, tournament_commands.ResumeClock(at=now()))


@blp.route("/<string:tournament_id>/clock/adjust", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(AdjustSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def adjust_clock(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Add (or with a negative number take) seconds to the current period. An adjustment
    never leaves the running period: taking more than the time left is a 422
    `adjust_beyond_period` with `remaining_s`; taking exactly that ends the period now.
    Leaving more than the period's own length (+6000 s on a 20-minute level) needs
    `confirm: true`, else 422 `adjust_past_level_length` with `seconds`, `remaining_s`,
    `length_s` and `would_leave_s`. To change periods, set the level."""
    return _send(tournament_id, body, tournament_commands.AdjustClock(body["seconds"], at=now(), confirm=body["confirm"]))


@blp.route("/<string:tournament_id>/clock/level", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(SetLevelSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def set_level(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Set the clock to any period, forward or back: `level` (a level number), `period`
    (breaks counted, from 1) or `step` (periods from the current one), with `remaining_s`,
    or else: back to a period the clock left early (a mistaken "next"), the time it had
    then; otherwise its full time. A paused clock stays paused. Hands already dealt finish at their
    level; the next hand plays the level set (TDA 2024 23)."""
    loaded = _existing(tournament_id)
    at = now()
    periods = loaded.state.clock.periods
    if "level" in body:
        index = period_index_of_level(periods, body["level"])
    elif "period" in body:
        index = body["period"] - 1
    else:
        current = read_clock(loaded.state.clock, at).period_index
        index = (current or 0) + body["step"]
    return _send(tournament_id, body, tournament_commands.SetLevel(index, at=at, remaining_s=body.get("remaining_s")))


@blp.route("/<string:tournament_id>/hand-for-hand", methods=["POST"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def start_hand_for_hand(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Hand-for-hand (near the money): every table plays one hand at a time, and players
    out in the same round share the places reached (or are ranked by starting stack, as
    set) (TDA 2024 RP-8)."""
    return _send(tournament_id, body, tournament_commands.StartHandForHand(at=now()))


@blp.route("/<string:tournament_id>/hand-for-hand", methods=["DELETE"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(200, TournamentWrittenSchema)
@_write_docs
def stop_hand_for_hand(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Back to tables playing at their own pace; players out in the unfinished round are
    placed together."""
    return _send(tournament_id, body, tournament_commands.StopHandForHand(at=now(), seed=tournaments.new_seed()),
                 status=200)


@blp.route("/<string:tournament_id>/eliminations", methods=["POST"])
@require(*FLOOR)
@blp.arguments(EliminationSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def eliminate(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """A player out (`player_id`, optionally `busted_by`), or players busted on one hand
    (`busted`). At physical tables the floor's word is enough: no counts needed (the
    player's chips are with someone at the table until the next count; chips in play stay
    exact). During the rebuy period a player who may rebuy keeps the seat (RebuyAwaited)
    until they rebuy, decline or their time passes; the others take their places (shared,
    or by starting stack as set), then tables are balanced or broken (TDA 2024 10, 11); the
    last one finishes it."""
    listed = body.get("busted") or [{"player_id": body["player_id"], "starting_stack": 0,
                                     "busted_by": body.get("busted_by"),
                                     "also_busted_by": body.get("also_busted_by", [])}]
    busted = tuple(tournament_commands.Bust(b["player_id"], b["starting_stack"], busted_by=b.get("busted_by"),
                                   also_busted_by=tuple(b.get("also_busted_by", ()))) for b in listed)
    counts = tuple(tournament_commands.ChipCount(c["player_id"], c["chips"]) for c in body["counts"])
    return _send(tournament_id, body, tournament_commands.Eliminate(busted, at=now(), seed=tournaments.new_seed(),
                                                           counts=counts))


@blp.route("/<string:tournament_id>/chip-counts", methods=["POST"])
@require(*FLOOR)
@blp.arguments(ChipCountsSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def chip_counts(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Physical tables: stacks the floor counted, whenever it has them (a table, a few
    players, everyone). They can never hold more chips than are in play and not yet
    counted; a whole table counted while every chip is accounted for must hold exactly
    what it had (`chips_not_conserved` otherwise)."""
    counts = tuple(tournament_commands.ChipCount(c["player_id"], c["chips"]) for c in body["counts"])
    return _send(tournament_id, body, tournament_commands.ReportChipCounts(counts, at=now()))


@blp.route("/<string:tournament_id>/chip-races", methods=["POST"])
@require(*FLOOR)
@blp.arguments(ChipRaceSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def chip_race(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """A scheduled colour-up at one table, between its hands (TDA 2024 24): the race's
    cards and every stack before and after are in the event. The service's own tables
    race by themselves before their next hand."""
    return _send(tournament_id, body, tournament_commands.RaceChips(body["table"], at=now(), seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/moves", methods=["POST"])
@require(*FLOOR)
@blp.arguments(MoveSchema)
@blp.response(201, MoveWrittenSchema)
@blp.alt_response(202, schema=MoveWrittenSchema, description="queued: made after the hand in progress")
@_write_docs
def move(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """A floor move (or a seat change at the same table) to an open seat. Between hands it
    is made at once (201); while either table plays a hand it is queued (202, with its
    `move_id`) and made after that hand, before the table's next deal."""
    body_out, status, headers = _send(tournament_id, body, tournament_commands.MovePlayer(
        body["player_id"], body["to_table"], body["to_seat"] - 1, at=now()))
    queued = [e for e in body_out["events"] if e["type"] == "MoveQueued"]
    if queued:
        data = queued[0]["data"]
        body_out["move"] = {"move_id": data["move_id"], "player_id": data["player_id"],
                            "to_table": data["to_table"], "to_seat": data["to_seat"] + 1}
        return body_out, 202, headers
    return body_out, status, headers


class MovesSchema(ma.Schema):
    pending = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "moves to call out: move_id, player_id, name, from_table, from_seat, to_table, to_seat "
                       "(seats from 1), reason (balance, break, floor), at, pending_until; physical tables only"})
    recent = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "the last moves, newest first, each with `seated_at` (null while pending) and `text`: "
                       "\"Ann Duke: table 3 seat 4 -> table 1 seat 2\""})
    queued = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "floor moves waiting for a hand to end: move_id, player_id, to_table, to_seat"})


@blp.route("/<string:tournament_id>/moves", methods=["GET"])
@require(*ALL_ROLES)
@blp.response(200, MovesSchema)
@blp.alt_response(404, response="NOT_FOUND")
def list_moves(tournament_id: str) -> dict:
    """Moves the floor calls out. At physical tables every balancing or breaking move is
    pending until the floor confirms the player seated (POST .../moves/{move_id}/seated)
    or `move_call_s` passes; at service tables a move is a notice (never pending)."""
    view = with_names(tournaments.tournament_view(_existing(tournament_id), now()))
    return view["moves"]


@blp.route("/<string:tournament_id>/moves/<int:move_id>/seated", methods=["POST"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def move_seated(body: dict, tournament_id: str, move_id: int) -> tuple[dict, int, dict]:
    """The floor saw the moved player sit down: the move is no longer pending."""
    return _send(tournament_id, body, tournament_commands.ConfirmSeated(move_id, at=now()))


class TournamentAbsenceSchema(TournamentWriteSchema):
    player_id = _player_id(required=True)


class TableWrittenSchema(ma.Schema):
    table_id = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True, metadata={"description": "the table's version"})
    events = ma.fields.List(ma.fields.String(), required=True, metadata={"description": "the table's event types"})


def _away(tournament_id: str, player_id: str, away: bool, status: int) -> tuple[dict, int]:
    _existing(tournament_id)
    handled = tournament_tables.mark_away(application(), tournament_id, player_id, away,
                                          actor=actor_name(current_principal()))
    assert handled.state is not None
    return ({"table_id": handled.state.table_id, "version": handled.version,
             "events": [e["type"] for e in handled.events]}, status)


@blp.route("/<string:tournament_id>/absences", methods=["POST"])
@require(*FLOOR)
@blp.arguments(TournamentAbsenceSchema)
@blp.response(201, TableWrittenSchema)
@_write_docs
def mark_away(body: dict, tournament_id: str) -> tuple[dict, int]:
    """Service tables: the floor marks a player away. They stay dealt in and post their
    blinds and antes; their hand is killed at once, never waited for (TDA 2024 30). A
    player who misses two action clocks in a row is marked away by the table itself.
    422 `physical_tables` where dealers run the tables."""
    return _away(tournament_id, body["player_id"], True, 201)


@blp.route("/<string:tournament_id>/absences/<string:player_id>", methods=["DELETE"])
@require(*FLOOR)
@blp.response(200, TableWrittenSchema)
@_write_docs
def mark_back(tournament_id: str, player_id: str) -> tuple[dict, int]:
    """The player is back at their seat: they act for themselves from their next turn."""
    return _away(tournament_id, player_id, False, 200)


def check_undo_rights(state: tournament.Tournament, role: str) -> None:
    """Undo takes the roles of what it takes back: a clock change the clock's (the
    organisers', who alone pause, resume, adjust or set it), an elimination or a rebuy
    the floor's. The API and the desk both ask here, so they agree."""
    act = state.undoable
    if act is not None and act.kind == "clock" and role not in ORGANISERS:
        raise Problem(403, "forbidden", f"the clock is the organisers': the {role} role may not undo its change")


@blp.route("/<string:tournament_id>/undo", methods=["POST"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def undo(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Undo the last elimination, rebuy or clock change by a compensating event that
    shows in the log (EliminationUndone, RebuyUndone, ClockChangeUndone after the clock
    events that put it back as it was). A clock change is undone by an organiser or admin
    only, as it is made (403 `forbidden` for the floor). While something later depends on
    it (a move, a hand dealt, a count...) or nothing is to undo: 409 `undo_blocked` (with
    `depends`, the event type) or `nothing_to_undo`. An elimination a service table decided
    in its hand stands (409 `undo_blocked`, depends `HandFinished`)."""
    loaded = _existing(tournament_id)
    check_undo_rights(loaded.state, current_principal().role)
    # The rights were judged on this version: the undo is written at it or not at all (409).
    given = expected_version(body, required=False)
    body = {**body, "expected_version": loaded.version if given is None else given}
    try:
        return _send(tournament_id, body, tournament_commands.Undo(at=now()))
    except Violation as refused:
        if refused.code in ("undo_blocked", "nothing_to_undo"):
            raise Problem(409, refused.code, refused.detail, numbers=dict(refused.numbers)) from refused
        raise


@blp.route("/<string:tournament_id>/deals", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(DealSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def record_deal(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Record the deal the players left agreed (organiser, admin): every player left once
    with their amount, and what is left to play for (paid to the winner). The amounts and
    what is left must come to exactly the prize money still to pay (422
    `deal_does_not_add_up` with `agreed` and `remaining_pool`); `deal_players` when the
    players named are not those left; one deal per event (`deal_exists`); none while the
    pool can still grow (`entries_open`) or a busted player may rebuy (`awaiting_rebuy`).
    The prizes follow the deal from then on, whatever the places."""
    shares = tuple(tournament_commands.DealShare(s["player_id"], s["amount"], s["place"]) for s in body["shares"])
    return _send(tournament_id, body, tournament_commands.RecordDeal(shares, body["left_to_play_for"], at=now()))


@blp.route("/<string:tournament_id>/deal-figures", methods=["GET"])
@require(*FLOOR)
@blp.response(200, DealFiguresSchema)
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def get_deal_figures(tournament_id: str) -> dict:
    """What a deal among the players left could be: the prize money still to pay, each
    player's chips, ICM equity (Malmuth-Harville) and whole-unit ICM deal, and the chip
    chop (the smallest open prize each, the rest by chips, never above first prize). 422
    `stacks_unknown` while a player's chips are not known (count them first)."""
    figures = tournaments.deal_figures(_existing(tournament_id).state)
    figures["players"] = with_names(figures["players"])
    return figures


@blp.route("/<string:tournament_id>/moves/<int:move_id>", methods=["DELETE"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(200, TournamentWrittenSchema)
@_write_docs
def cancel_move(body: dict, tournament_id: str, move_id: int) -> tuple[dict, int, dict]:
    """Cancel a queued move (404-like 422 `unknown_move` once made or cancelled)."""
    return _send(tournament_id, body, tournament_commands.CancelMove(move_id), status=200)


@blp.route("/<string:tournament_id>/disqualifications", methods=["POST"])
@require(*FLOOR)
@blp.arguments(DisqualificationSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def disqualify(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Disqualify a player: out at the current place, their chips removed from play (the
    event says how many), tables rebalanced. During the player's hand it is made when
    that hand is over."""
    return _send(tournament_id, body, tournament_commands.Disqualify(body["player_id"], body["reason"], at=now(),
                                                           seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/rebuys", methods=["POST"])
@require(*FLOOR)
@blp.arguments(RebuySchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def rebuy(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """A rebuy, while offered (until `rebuy_until_level`; `rebuys_allowed` each, 0: no
    limit): for a player busted in the rebuy period who kept the seat, or a seated player
    at or below `rebuy_at_or_below` (default: the starting stack); `double` where offered.
    The chips reach the table between hands (at once when it is between hands)."""
    return _send(tournament_id, body, tournament_commands.Rebuy(body["player_id"], at=now(), double=body["double"],
                                                       seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/rebuys/decline", methods=["POST"])
@require(*FLOOR)
@blp.arguments(RegistrationSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def decline_rebuy(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """A busted player waiting to rebuy declines: out now, placed below everyone still
    in, and the tables are balanced. 422 `not_awaiting_rebuy` for anyone else."""
    return _send(tournament_id, body, tournament_commands.DeclineRebuy(body["player_id"], at=now(),
                                                              seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/add-ons", methods=["POST"])
@require(*FLOOR)
@blp.arguments(RegistrationSchema)
@blp.response(201, TournamentWrittenSchema)
@_write_docs
def add_on(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """An add-on for a seated player, while offered (until `add_on_until_level`,
    `add_ons_allowed` each). The chips reach the table between hands."""
    return _send(tournament_id, body, tournament_commands.AddOn(body["player_id"], at=now()))


@blp.route("/<string:tournament_id>/events", methods=["GET"])
@conditional
@require(*ALL_ROLES)
@blp.arguments(TournamentEventsQuerySchema(), location="query")
@blp.response(200, TournamentEventsSchema)
@blp.alt_response(404, response="NOT_FOUND")
def tournament_events(query: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """The tournament's event log after version `after`, at most `limit` events. A
    tournament's events hold no hidden cards; who wrote them (the metadata) is left out."""
    after = query["after"]
    wait_for_events(tournaments.stream_id(tournament_id), after, query["wait"])
    loaded = _existing(tournament_id)
    records = event_store().read_stream(tournaments.stream_id(tournament_id), after_version=after,
                                        up_to_version=after + query["limit"])
    events = views.tournament_records(records)
    last = events[-1]["version"] if events else after
    more = last < loaded.version
    following = next_url({"after": last, "limit": query["limit"]}) if more else None
    return ({"events": events, "next_after": last if more else None, "next": following}, 200,
            tagged(version_tag(loaded.version, None), link_headers(following)))


CSV_DOC = {"responses": {"200": {"description": "RFC 4180 CSV, UTF-8",
                                 "content": {"text/csv": {"schema": {"type": "string"}}}}}}


@blp.route("/<string:tournament_id>/results.csv", methods=["GET"])
@require(*ALL_ROLES)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**CSV_DOC)
def results_csv(tournament_id: str) -> Response:
    """Places so far (the players still in share the best place left), with prizes once finished."""
    return exports.results_csv(_existing(tournament_id), now())


@blp.route("/<string:tournament_id>/seating.csv", methods=["GET"])
@require(*ALL_ROLES)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**CSV_DOC)
def seating_csv(tournament_id: str) -> Response:
    """Every seated player: table, seat (from 1), player, chips as last known."""
    return exports.seating_csv(_existing(tournament_id))


@blp.route("/<string:tournament_id>/bounties.csv", methods=["GET"])
@require(*ALL_ROLES)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**CSV_DOC)
def bounties_csv(tournament_id: str) -> Response:
    """The bounty ledger: each bounty won (winner, whose bounty, cash, added to the winner's head)."""
    return exports.bounties_csv(_existing(tournament_id))


@blp.route("/<string:tournament_id>/reconciliation.csv", methods=["GET"])
@require(*FLOOR)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**CSV_DOC)
def reconciliation_csv(tournament_id: str) -> Response:
    """The cashier's reconciliation: collected, contributions, fees, bounties, overlay, prize
    pool, prizes paid, bounties paid, paid, left."""
    return exports.reconciliation_csv(_existing(tournament_id))


@blp.route("/<string:tournament_id>/payouts.csv", methods=["GET"])
@require(*ALL_ROLES)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**CSV_DOC)
def payouts_csv(tournament_id: str) -> Response:
    """The payout table for the prize pool so far: place, percentage, amount."""
    return exports.payouts_csv(_existing(tournament_id), now())
