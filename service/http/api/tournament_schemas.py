"""The tournament API's request and response schemas (openapi.yaml is made from them)."""
from __future__ import annotations

from datetime import UTC
from typing import Any

import marshmallow as ma

from domain.tournaments import commands as tournament_commands
from domain.tournaments.bounties import BOUNTY_KINDS
from domain.tournaments.payouts import RANK_BY_STARTING_STACK, RANK_SHARED
from domain.tournaments.seating import BREAK_PREDETERMINED, BREAK_RANDOM
from service.http.api.event_pages import DEFAULT_EVENTS, MAX_EVENTS
from service.http.api.schemas import Chips, RegisteredGame, StrictBoolean
from service.http.api.streams import wait_query_field


def _player_id(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(validate=ma.validate.Length(min=1, max=100), **kwargs)


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
    def _lasts(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("minutes", 0) * 60 + data.get("seconds", 0) <= 0:
            raise ma.ValidationError("a level or break lasts more than 0: give minutes, seconds or both",
                                     "minutes")


class StartsAt(ma.fields.Field[Any]):
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
    def _one(self, data: dict[str, Any], **kwargs: Any) -> None:
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
    def _one_payout_table(self, data: dict[str, Any], **kwargs: Any) -> None:
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
    def _one_target(self, data: dict[str, Any], **kwargs: Any) -> None:
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
    def _someone(self, data: dict[str, Any], **kwargs: Any) -> None:
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


class MovesSchema(ma.Schema):
    pending = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "moves to call out: move_id, player_id, name, from_table, from_seat, to_table, to_seat "
                       "(seats from 1), reason (balance, break, floor), at, pending_until; physical tables only"})
    recent = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "the last moves, newest first, each with `seated_at` (null while pending) and `text`: "
                       "\"Ann Duke: table 3 seat 4 -> table 1 seat 2\""})
    queued = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "floor moves waiting for a hand to end: move_id, player_id, to_table, to_seat"})


class TournamentAbsenceSchema(TournamentWriteSchema):
    player_id = _player_id(required=True)


class TableWrittenSchema(ma.Schema):
    table_id = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True, metadata={"description": "the table's version"})
    events = ma.fields.List(ma.fields.String(), required=True, metadata={"description": "the table's event types"})
