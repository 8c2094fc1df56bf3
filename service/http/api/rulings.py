"""Stateless adjudication (api.md "Rulings"): describe a situation, get the ruling.

`POST /v1/rulings/betting`, `/showdown-order`, `/showdown`, `/dice` and `/palace-battle`. Nothing is read from
or written to the event store. Any authenticated key may ask: the caller supplies every
card, so no hidden information can leak, and a ruling changes nothing.

The schemas check the shape (400 `validation_error`); the domain decides the rules (422
with the domain's code, `detail` quoting the numbers, the `rule` applied when one is, and
`index` for the first illegal action of a betting sequence). A betting `verdict`, legal or
not, reads like the same refusal at a live table: `detail`, `rule` (edition named, from
domain.rules.citations; absent when no numbered rule decides it) and `numbers`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import marshmallow as ma

from domain.games.dice import dice_ruling
from domain.games.dice_scoring import LINES
from domain.games.palace_battles import palace_battle_ruling
from domain.rules.declarations import INTERPRETATIONS, ORDERS, RULE_BOOKS, STRUCTURES
from domain.rules.violations import Violation
from domain.rulings.betting import betting_ruling
from domain.rulings.chips import chips_ruling
from domain.rulings.showdown import JOKER_SETTINGS, showdown_ruling
from domain.rulings.who_shows_first import REASONS, showdown_order_ruling
from domain.tournaments.payouts import icm_ruling
from service.application.api_keys import ROLES
from service.http.api import Blueprint
from service.http.api.schemas import MAX_SEATS, BettingDescriptionSchema, Chips, GameSettings, RegisteredGame, StrictBoolean
from service.http.auth import require
from service.http.problems import Problem

blp = Blueprint(
    "rulings", __name__, url_prefix="/v1/rulings",
    description="Stateless adjudication: describe a situation, get the ruling. Nothing is stored.",
)

# Generous bounds that no real situation reaches; they keep a hostile request small.
NAME_MAX_LENGTH = 100
MAX_ACTIONS = 1000
CARDS_MAX_LENGTH = 100


def problem_from_violation(violation: Violation, index: int | None = None) -> Problem:
    """A domain refusal as a problem: a malformed request is the client's input error (400),
    anything else is well-formed but against the rules (422)."""
    if violation.code == "validation_error":
        return Problem(400, "validation_error", violation.detail,
                       errors=[{"location": "json", "field": "", "messages": [violation.detail]}])
    numbers = {name: _json_safe(value) for name, value in violation.numbers.items()}
    # A refusal that applies a rule names it; any other carries no `rule` (never "").
    extensions: dict[str, Any] = {**({"rule": violation.rule} if violation.rule else {}),
                                  "numbers": numbers}
    if index is not None:
        extensions["index"] = index
    return Problem(422, violation.code, violation.detail, **extensions)


def json_amount(amount: int | Fraction) -> int | float:
    """An amount as a JSON number: whole chips as integers; PHH replay may meet fractional
    amounts (an odd chip split in halves), which keep their decimals."""
    if isinstance(amount, Fraction) and amount.denominator != 1:
        return float(amount)
    return int(amount)


def _json_safe(value: Any) -> Any:
    if isinstance(value, Fraction):
        return json_amount(value)
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): _json_safe(item) for key, item in value.items()}
    return value


def adjudicate(ruling: Callable[[Mapping[str, Any]], dict[str, Any]], body: Mapping[str, Any]) -> dict[str, Any]:
    try:
        return ruling(body)
    except Violation as violation:
        raise problem_from_violation(violation, violation.numbers.get("index")) from None


# ---------------------------------------------------------------- shared fields


def _player_name(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(validate=ma.validate.Length(min=1, max=NAME_MAX_LENGTH), **kwargs)


def _cards(**kwargs: Any) -> ma.fields.String:
    kwargs.setdefault("metadata", {"description": "cards as text, rank 23456789TJQKA + suit shdc "
                                                  "(e.g. 'AsKd'); the joker is Jk"})
    return ma.fields.String(validate=ma.validate.Length(max=CARDS_MAX_LENGTH), **kwargs)


# ---------------------------------------------------------------- betting


class RulingBettingDescriptionSchema(BettingDescriptionSchema):
    """A ruling's betting description: the tables' plus the bring-in of the games that have one."""

    bring_in = Chips(metadata={"description": "games with a bring-in: its amount"})


class SeatSchema(ma.Schema):
    player = _player_name(required=True)
    stack = Chips(minimum=1, required=True, metadata={"description": "at the start of the hand"})


ACTIONS = ("fold", "check", "call", "bet", "raise", "draw", "bring_in", "split_openers", "false_openers")
HAND_SIZE = 5


class DiscardField(ma.fields.Field):
    """A five-card draw discard: the cards (a list, or one string like "Kd7c") or a count."""

    default_error_messages = {"invalid": "a list of cards, a string of cards, or a count 0 to 5"}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= HAND_SIZE:
            return value
        if isinstance(value, str) and len(value) <= CARDS_MAX_LENGTH:
            return value
        if isinstance(value, list) and len(value) <= HAND_SIZE and all(
                isinstance(card, str) and len(card) <= 10 for card in value):
            return value
        raise self.make_error("invalid")


class BettingActionSchema(ma.Schema):
    player = _player_name(required=True)
    action = ma.fields.String(required=True, validate=ma.validate.OneOf(ACTIONS))
    to = Chips(allow_none=True, metadata={"description": "bet total for the round (bet, raise)"})
    discard = DiscardField(metadata={
        "description": "five-card draw `draw` (or `split_openers`, the opener keeping the discards "
                       "aside): the cards thrown away, or how many",
        "oneOf": [{"type": "integer", "minimum": 0, "maximum": HAND_SIZE},
                  {"type": "array", "items": {"type": "string"}, "maxItems": HAND_SIZE},
                  {"type": "string"}]})


class KnownCardsSchema(ma.Schema):
    hole = ma.fields.Dict(keys=_player_name(), values=_cards(), validate=ma.validate.Length(max=MAX_SEATS))
    board = _cards()
    received = ma.fields.Dict(keys=_player_name(), values=_cards(), validate=ma.validate.Length(max=MAX_SEATS),
                              metadata={"description": "draw games: the cards each player drew"})


class DrawRulingSettingsSchema(ma.Schema):
    """Five-card draw settings that change a betting ruling (five-card-draw.md)."""

    draw_limit = ma.fields.Raw(metadata={"description": "3_or_4_with_ace (default), 3 or 5",
                                         "oneOf": [{"type": "string"}, {"type": "integer"}]})
    opening = ma.fields.String(allow_none=True, validate=ma.validate.Length(max=NAME_MAX_LENGTH),
                               metadata={"description": "none (default) or jacks_or_better"})
    second_round_start = ma.fields.String(validate=ma.validate.Length(max=NAME_MAX_LENGTH),
                                          metadata={"description": "opener (default) or left_of_dealer"})
    joker = ma.fields.String(allow_none=True, validate=ma.validate.Length(max=NAME_MAX_LENGTH),
                             metadata={"description": "none (default), wild or bug"})


class HandDescriptionSchema(ma.Schema):
    """A hand as the rulings describe it: the betting, the seats and the actions so far."""

    betting = ma.fields.Nested(RulingBettingDescriptionSchema, required=True)
    seats = ma.fields.List(ma.fields.Nested(SeatSchema), required=True,
                           validate=ma.validate.Length(min=2, max=MAX_SEATS),
                           metadata={"description": "clockwise from left of the button; the button last"})
    button = _player_name()
    actions = ma.fields.List(ma.fields.Nested(BettingActionSchema),
                             validate=ma.validate.Length(max=MAX_ACTIONS))
    cards = ma.fields.Nested(KnownCardsSchema)


# The games whose hands the betting ruling replays (and the order of show reads).
BETTING_RULING_GAMES = RegisteredGame(lambda game: game.betting_ruling)


class BettingRulingRequestSchema(HandDescriptionSchema):
    game = ma.fields.String(load_default="holdem", validate=BETTING_RULING_GAMES)
    proposed = ma.fields.Nested(BettingActionSchema)
    settings = ma.fields.Nested(DrawRulingSettingsSchema,
                                metadata={"description": "five-card draw only; betting.min_bet is the "
                                                         "unit, twice the ante"})


class AmountRangeSchema(ma.Schema):
    min_to = ma.fields.Integer(required=True)
    max_to = ma.fields.Integer(required=True)


class CallSchema(ma.Schema):
    to = ma.fields.Integer(required=True)
    adds = ma.fields.Integer(required=True)


class VerdictReasonSchema(ma.Schema):
    detail = ma.fields.String(required=True)
    rule = ma.fields.String(required=True)


class LegalActionsSchema(ma.Schema):
    fold = ma.fields.Boolean(required=True)
    check = ma.fields.Boolean(required=True)
    call = ma.fields.Nested(CallSchema, allow_none=True, required=True)
    bet = ma.fields.Nested(AmountRangeSchema, allow_none=True, required=True)
    raise_ = ma.fields.Nested(AmountRangeSchema, allow_none=True, required=True,
                              data_key="raise", attribute="raise")
    raise_closed_reason = ma.fields.String()
    raise_reopened = ma.fields.Nested(VerdictReasonSchema, metadata={
        "description": "a player who has acted may raise again: the short all-ins since add up to a "
                       "full raise (TDA 2024 47-A), the arithmetic in words"})
    bring_in = ma.fields.Integer(metadata={
        "description": "games with a bring-in, while it is due: its amount (or complete: `bet`)"})


class VerdictSchema(ma.Schema):
    legal = ma.fields.Boolean(required=True)
    code = ma.fields.String(metadata={"description": "why not, when not legal"})
    detail = ma.fields.String(metadata={"description": "the ruling as a floor person reads it out, "
                                                      "with its numbers"})
    rule = ma.fields.String(metadata={"description": "the rule applied, edition named "
                                                    "(\"TDA 2024 47-A\"); absent when none applies"})
    numbers = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Raw(), required=True,
                             metadata={"description": "the numbers behind the verdict"})


class PotSchema(ma.Schema):
    amount = ma.fields.Integer(required=True)
    eligible = ma.fields.List(ma.fields.String(), required=True)
    winners = ma.fields.List(ma.fields.String(), metadata={"description": "once the hand is over"})
    shares = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer())


class DrawOptionsSchema(ma.Schema):
    player = ma.fields.String(required=True)
    most = ma.fields.Integer(required=True, metadata={"description": "most cards they may exchange"})
    most_keeping_no_ace = ma.fields.Integer(required=True, metadata={
        "description": "most cards they may exchange without keeping an ace or the joker"})


class FalseOpenersSchema(ma.Schema):
    player = ma.fields.String(required=True)
    outcome = ma.fields.String(required=True, metadata={"description": "carried (to the next deal) or pot_plays"})
    rule = ma.fields.String(required=True)
    detail = ma.fields.String(required=True)


class BettingRulingSchema(ma.Schema):
    round = ma.fields.String(required=True)
    to_act = ma.fields.String(required=True, allow_none=True)
    hand_over = ma.fields.Boolean(required=True)
    legal = ma.fields.Nested(LegalActionsSchema, required=True, allow_none=True)
    verdict = ma.fields.Nested(VerdictSchema, metadata={"description": "when `proposed` was given"})
    pots = ma.fields.List(ma.fields.Nested(PotSchema), required=True)
    returned = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer(),
                              metadata={"description": "uncalled chips, once the hand is over"})
    stacks = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer(), required=True)
    draw = ma.fields.Nested(DrawOptionsSchema, metadata={"description": "five-card draw, while a player is to draw"})
    drawn = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer(),
                           metadata={"description": "five-card draw: how many cards each player drew (public)"})
    redeals = ma.fields.Integer(metadata={"description": "five-card draw: unopened first rounds dealt again"})
    false_openers = ma.fields.Nested(FalseOpenersSchema, metadata={
        "description": "five-card draw: an opener found without openers (`false_openers` action, or "
                       "the end of the hand), and what becomes of the pot"})
    to_draw = ma.fields.String(metadata={"description": "draw games: who draws next"})


@blp.route("/betting", methods=["POST"])
@require(*ROLES)
@blp.arguments(BettingRulingRequestSchema)
@blp.response(200, BettingRulingSchema)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def betting(body: dict) -> dict:
    """Who acts, what is legal, and whether a proposed action is (any role).

    Every game `game` lists (domain.registry's betting-ruling games): blind games; an ante
    draw game (`betting.min_bet` is the unit, twice the ante); games with a bring-in
    (`betting.ante` and `betting.bring_in`, a `bring_in` action, `cards.hole` in dealing
    order); draw games (`draw` actions with `discard`; `cards.received` the cards drawn).
    An illegal sequence in `actions` is a 422 naming the first illegal action (`index`).
    """
    return adjudicate(betting_ruling, body)


# ---------------------------------------------------------------- who shows first


class ShowdownOrderRequestSchema(HandDescriptionSchema):
    """The betting ruling's description of a hand, replayed to its showdown; in the games
    with up cards, `cards.hole` gives the up cards that decide who shows first when nobody
    bet on the last street."""

    game = ma.fields.String(load_default="holdem", validate=BETTING_RULING_GAMES)


class ShowdownOrderSchema(ma.Schema):
    all_in = ma.fields.Boolean(required=True, metadata={
        "description": "a player is all in with the betting over: every hand is tabled at once (TDA 2024 16)"})
    order = ma.fields.List(ma.fields.String(), required=True, metadata={
        "description": "the hands in the order they are tabled (clockwise from the first)"})
    first = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "who shows first; null when every hand is tabled at once"})
    reason = ma.fields.String(required=True, validate=ma.validate.OneOf(REASONS))
    rule = ma.fields.String(required=True, metadata={"example": "TDA 2024 17-A"})
    words = ma.fields.String(required=True, metadata={"description": "the ruling as a floor person reads it out"})


@blp.route("/showdown-order", methods=["POST"])
@require(*ROLES)
@blp.arguments(ShowdownOrderRequestSchema)
@blp.response(200, ShowdownOrderSchema)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def showdown_order(body: dict) -> dict:
    """Who shows first at the showdown (any role; TDA 2024 16, 17-A).

    The last aggressor of the final betting round shows first; with no bet on it, the player
    who would act first: the first seat left of the button in flop and draw games, the best
    board showing in the games with up cards (the lowest in a lowball one). A player all in with the betting
    over: every hand is tabled at once. A hand still being bet is `showdown_not_reached`,
    one won without a showdown `no_showdown` (422).
    """
    return adjudicate(showdown_order_ruling, body)


# ---------------------------------------------------------------- chips pushed and words said

SAID_MAX_LENGTH = 200
MAX_CHIPS_PUSHED = 100


class ChipSituationSchema(ma.Schema):
    """declarations.md's compact situation; omitted fields change nothing."""

    structure = ma.fields.String(load_default="no-limit", validate=ma.validate.OneOf(STRUCTURES))
    facing_to = Chips(load_default=0, metadata={"description": "the bet total faced this round"})
    committed = Chips(load_default=0, metadata={"description": "what the player has in for this round"})
    last_full_raise = Chips(load_default=0, metadata={"description": "size of the last full bet or raise"})
    pot = Chips(metadata={"description": "every chip in the pot and in front of players, the bet "
                                         "faced included (pot limit needs it)"})
    stack = Chips(required=True, metadata={"description": "chips before this push, the pushed included"})
    big_blind = Chips(minimum=1, required=True)
    raise_open = StrictBoolean(load_default=True, metadata={
        "description": "false when an incomplete raise did not reopen the betting"})
    prior_chips = Chips(load_default=0, metadata={
        "description": "chips of an earlier bet not yet pulled in (change due included)"})
    unit = Chips(minimum=1, metadata={"description": "fixed limit: the bet of this round (default the big blind)"})
    opponents = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=1, max=MAX_SEATS), metadata={
        "description": "others still in the hand (the undercall rule needs it)"})
    rules = ma.fields.String(load_default="tda", validate=ma.validate.OneOf(RULE_BOOKS), metadata={
        "description": "tda (default), or robert: the cash-game setting where a spoken amount wins"})


class ChipsRulingRequestSchema(ma.Schema):
    """A compact `situation`, or the whole hand as for `/betting` (of a `game` listed,
    `betting`, `seats`, `actions`, `cards`; the player is the one to act)."""

    situation = ma.fields.Nested(ChipSituationSchema)
    game = ma.fields.String(load_default="holdem", validate=RegisteredGame(lambda game: game.whole_hand_chips_ruling))
    betting = ma.fields.Nested(RulingBettingDescriptionSchema)
    seats = ma.fields.List(ma.fields.Nested(SeatSchema), validate=ma.validate.Length(min=2, max=MAX_SEATS),
                           metadata={"description": "clockwise from left of the button; the button last"})
    button = _player_name()
    actions = ma.fields.List(ma.fields.Nested(BettingActionSchema), validate=ma.validate.Length(max=MAX_ACTIONS))
    cards = ma.fields.Nested(KnownCardsSchema)
    chips = ma.fields.List(Chips(minimum=1), load_default=list,
                           validate=ma.validate.Length(max=MAX_CHIPS_PUSHED),
                           metadata={"description": "the denominations pushed in one motion"})
    said = ma.fields.String(allow_none=True, validate=ma.validate.Length(max=SAID_MAX_LENGTH),
                            metadata={"example": "raise, eight thousand"})
    order = ma.fields.String(allow_none=True, validate=ma.validate.OneOf(ORDERS),
                             metadata={"description": "which came first when both chips and words"})


class ChipsRulingSchema(ma.Schema):
    interpretation = ma.fields.String(required=True, validate=ma.validate.OneOf(INTERPRETATIONS))
    to = ma.fields.Integer(required=True, metadata={"description": "the player's round total"})
    returned = ma.fields.Integer(required=True, metadata={"description": "chips given back"})
    must_add = ma.fields.Integer(required=True, metadata={"description": "chips the player must add"})
    rule = ma.fields.String(required=True, metadata={"example": "TDA 2024 45-A"})
    detail = ma.fields.String(required=True)


@blp.route("/chips", methods=["POST"])
@require(*ROLES)
@blp.arguments(ChipsRulingRequestSchema)
@blp.response(200, ChipsRulingSchema)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def chips(body: dict) -> dict:
    """What pushed chips and spoken words count as (any role; declarations.md): one
    oversized chip, several chips, chips already out, undercalls, speech against chips,
    spoken amounts and "pot"; `floor_decision` where the TDA leaves it to the floor."""
    return adjudicate(chips_ruling, body)


# ---------------------------------------------------------------- showdown


class ShowdownRulingRequestSchema(ma.Schema):
    game = ma.fields.String(required=True, validate=RegisteredGame(lambda game: game.showdown_ruling))
    joker = ma.fields.String(allow_none=True, validate=ma.validate.OneOf(JOKER_SETTINGS),
                             metadata={"description": "five-card draw only; default none"})
    board = _cards(metadata={"description": "board games: 3 to 5 cards"})
    hands = ma.fields.Dict(keys=_player_name(), values=_cards(), required=True,
                           validate=ma.validate.Length(min=2, max=MAX_SEATS),
                           metadata={"example": {"P1": "AsAhAdAcJk", "P2": "9dTdJdQdKd"}})


class ShownHandSchema(ma.Schema):
    category = ma.fields.String(required=True, metadata={"example": "five_of_a_kind"})
    best = ma.fields.String(required=True, metadata={"description": "the five cards that play"})
    description = ma.fields.String(required=True, metadata={"example": "five of a kind, aces"})


class LowHalfSchema(ma.Schema):
    winners = ma.fields.List(ma.fields.String(), required=True,
                             metadata={"description": "empty when no low qualifies (the high scoops)"})
    ranking = ma.fields.List(ma.fields.List(ma.fields.String()), required=True,
                             metadata={"description": "the qualifying lows, best first"})
    hands = ma.fields.Dict(keys=ma.fields.String(),
                           values=ma.fields.Nested(ShownHandSchema, allow_none=True), required=True,
                           metadata={"description": "each hand's low; null when it does not qualify"})


class ShowdownRulingSchema(ma.Schema):
    winners = ma.fields.List(ma.fields.String(), required=True)
    ranking = ma.fields.List(ma.fields.List(ma.fields.String()), required=True,
                             metadata={"description": "best first; players who tie share a group"})
    hands = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Nested(ShownHandSchema), required=True)
    low = ma.fields.Nested(LowHalfSchema, metadata={
        "description": "hi-lo games: the low half; the rest is the high"})


@blp.route("/showdown", methods=["POST"])
@require(*ROLES)
@blp.arguments(ShowdownRulingRequestSchema)
@blp.response(200, ShowdownRulingSchema)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def showdown(body: dict) -> dict:
    """Who wins a showdown (any role): every game `game` lists (domain.registry's
    showdown-ruling games); five-card draw with its `joker` (none, wild, bug)."""
    return adjudicate(showdown_ruling, body)


# ---------------------------------------------------------------- dice


class DiceRulingRequestSchema(ma.Schema):
    rules = GameSettings(allow_none=True, metadata={"description": "dice settings (dice-poker.md)"})
    scorecard = ma.fields.Dict(keys=ma.fields.String(validate=ma.validate.OneOf(LINES)),
                               values=ma.fields.Integer(strict=True, allow_none=True), allow_none=True,
                               metadata={"description": "line -> score, null or missing = free"})
    dice = ma.fields.List(ma.fields.Integer(strict=True), allow_none=True,
                          validate=ma.validate.Length(max=10), metadata={"example": [3, 3, 3, 5, 5]})
    poker_bonus_count = ma.fields.Integer(strict=True, allow_none=True, validate=ma.validate.Range(min=0, max=100))
    rolls_taken = ma.fields.Integer(strict=True, allow_none=True, validate=ma.validate.Range(min=0, max=100),
                                    metadata={"description": "rolls taken this turn: the answer's `roll` says "
                                                             "whether another is allowed"})

    @ma.validates_schema
    def asks_something(self, data: dict, **_: Any) -> None:
        """A body that names no dice, no scorecard and no rolls asks for no ruling (an empty
        or missing body was once answered with a blank card's totals)."""
        if all(data.get(field) is None for field in ("dice", "scorecard", "rolls_taken")):
            raise ma.ValidationError("Send dice, a scorecard or rolls_taken: at least one is required.")


class DiceTotalsSchema(ma.Schema):
    upper = ma.fields.Integer(required=True)
    upper_bonus = ma.fields.Integer(required=True)
    lower = ma.fields.Integer(required=True)
    poker_bonuses = ma.fields.Integer(required=True)
    grand_total = ma.fields.Integer(required=True)


class DiceLineSchema(ma.Schema):
    score = ma.fields.Integer(required=True)
    legal = ma.fields.Boolean(required=True)
    bonus = ma.fields.Integer(required=True)
    total_after = ma.fields.Integer(required=True)
    reason = ma.fields.String(metadata={"description": "why the line is not legal"})


class DiceRollSchema(ma.Schema):
    another_roll = ma.fields.Boolean(required=True)
    rolls_taken = ma.fields.Integer(required=True)
    rolls_per_turn = ma.fields.Integer(required=True)
    rolls_left = ma.fields.Integer(required=True)
    rule = ma.fields.String(required=True, metadata={"example": "seed 003"})
    detail = ma.fields.String(required=True)


class DiceRulingSchema(ma.Schema):
    totals = ma.fields.Nested(DiceTotalsSchema, required=True)
    roll = ma.fields.Nested(DiceRollSchema, metadata={"description": "with rolls_taken: may the player roll again"})
    dice = ma.fields.List(ma.fields.Integer())
    joker = ma.fields.Boolean()
    poker_bonus = ma.fields.Integer()
    lines = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Nested(DiceLineSchema))
    legal_lines = ma.fields.List(ma.fields.String())
    best_line = ma.fields.String(allow_none=True)


@blp.route("/dice", methods=["POST"])
@require(*ROLES)
@blp.arguments(DiceRulingRequestSchema)
@blp.response(200, DiceRulingSchema)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def dice(body: dict) -> dict:
    """What a roll scores on every line, where it may be written, and the card's totals (any role)."""
    return adjudicate(dice_ruling, body)


# ---------------------------------------------------------------- Palace Poker battle


class PalaceSideSchema(ma.Schema):
    name = _player_name()
    banner = _cards(required=True, metadata={"description": "the face-up banner card"})
    palace = _cards(required=True, metadata={"description": "the palace cards"})
    soldiers = _cards(metadata={"description": "0 to 5 soldier cards"})


class PalaceBattleRequestSchema(ma.Schema):
    attacker = ma.fields.Nested(PalaceSideSchema, required=True)
    defender = ma.fields.Nested(PalaceSideSchema, required=True)
    last_two = StrictBoolean(metadata={"description": "only these two players remain"})
    small_bet = Chips(minimum=1, metadata={"description": "the small bet S: the answer's `stakes` give the "
                                                          "battle's minimum bet and the ante"})


class PalaceHandSchema(ma.Schema):
    player = ma.fields.String(required=True)
    category = ma.fields.String(required=True)
    best = ma.fields.String(required=True)
    counted = ma.fields.String(required=True)
    ignored = ma.fields.String(required=True)
    ignored_suit = ma.fields.String(required=True, allow_none=True)
    banner_suit_cards = ma.fields.Integer(required=True)


class PalaceBattleHandsSchema(ma.Schema):
    attacker = ma.fields.Nested(PalaceHandSchema, required=True)
    defender = ma.fields.Nested(PalaceHandSchema, required=True)


class PalaceStakesSchema(ma.Schema):
    small_bet = ma.fields.Integer(required=True)
    minimum_bet = ma.fields.Integer(required=True, metadata={
        "description": "the attacker's minimum bet: (soldiers + banner) x small bet"})
    defender_call = ma.fields.Integer(required=True, metadata={
        "description": "the defender's call: (their soldiers + banner) x small bet"})
    ante = ma.fields.Integer(required=True, metadata={"description": "half a small bet, rounded down"})
    rule = ma.fields.String(required=True, metadata={"example": "seed 001"})
    detail = ma.fields.String(required=True)


class PalaceBattleRulingSchema(ma.Schema):
    stakes = ma.fields.Nested(PalaceStakesSchema, metadata={"description": "with small_bet"})
    outcome = ma.fields.String(required=True, metadata={
        "description": "attacker_won, defender_won, double_knockout or split"})
    winner = ma.fields.String(required=True, allow_none=True)
    loser = ma.fields.String(required=True, allow_none=True)
    out = ma.fields.List(ma.fields.String(), required=True)
    captured = ma.fields.String(required=True)
    reason = ma.fields.String(required=True)
    tie_break_applied = ma.fields.Boolean(required=True)
    hands = ma.fields.Nested(PalaceBattleHandsSchema, required=True)


@blp.route("/palace-battle", methods=["POST"])
@require(*ROLES)
@blp.arguments(PalaceBattleRequestSchema)
@blp.response(200, PalaceBattleRulingSchema)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def palace_battle(body: dict) -> dict:
    """Judge one Palace Poker battle from the cards alone (any role)."""
    return adjudicate(palace_battle_ruling, body)


REQUEST_SCHEMAS: dict[str, type[ma.Schema]] = {
    "betting": BettingRulingRequestSchema, "chips": ChipsRulingRequestSchema, "showdown": ShowdownRulingRequestSchema,
    "showdown-order": ShowdownOrderRequestSchema, "dice": DiceRulingRequestSchema,
    "palace-battle": PalaceBattleRequestSchema}
"""`POST /v1/rulings/<path>` -> its request schema: the floor's rulings page checks the form
of the same path with it (service.http.pages.rulings_forms)."""


# ---------------------------------------------------------------- ICM deal


class IcmRulingRequestSchema(ma.Schema):
    stacks = ma.fields.Dict(keys=_player_name(), values=Chips(minimum=1), required=True,
                            validate=ma.validate.Length(min=2, max=12),
                            metadata={"description": "player -> chips, for the players still in",
                                      "example": {"P1": 5000, "P2": 3000, "P3": 2000}})
    prizes = ma.fields.List(Chips(), required=True, validate=ma.validate.Length(min=1, max=100),
                            metadata={"description": "prizes still to pay, first place first",
                                      "example": [500, 300, 200]})


class IcmRulingSchema(ma.Schema):
    prizes_to_pay = ma.fields.Integer(required=True)
    equities = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Float(), required=True,
                              metadata={"description": "each player's ICM (Malmuth-Harville) equity, to the cent"})
    deal = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer(), required=True,
                          metadata={"description": "whole amounts adding up to prizes_to_pay"})


@blp.route("/icm", methods=["POST"])
@require(*ROLES)
@blp.arguments(IcmRulingRequestSchema)
@blp.response(200, IcmRulingSchema)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def icm(body: dict) -> dict:
    """An ICM chop for a deal at the end of a tournament: equities and a whole-amount deal
    (any role)."""
    return adjudicate(icm_ruling, body)
