"""Marshmallow pieces shared by every blueprint: the problem document and the field types
that carry the house limits (api.md "Limits"), so every endpoint refuses the same input
the same way: whole numbers of chips from 0 to MAX_CHIPS, JSON booleans only, game
settings of whole numbers within the same bound, the betting description."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import marshmallow as ma

from domain import players, registry
from domain.rules.betting import KINDS

# Chips (blinds, antes, bets, stacks, prices) are whole numbers up to a million million: far
# above any real game, far below where arithmetic or JSON number precision (2**53) would bite.
MAX_CHIPS = 10**12
# The most seats any game deals to (23 hold'em players use 46 hole cards and 5 board cards).
MAX_SEATS = 23
# A setting may be a number of chips, seconds or a count; none is larger than chips.
MAX_SETTING_NUMBER = MAX_CHIPS


class RegisteredGame(ma.validate.OneOf):
    """One of the games domain.registry holds that `where` holds for, sorted, read each time
    it validates and when the OpenAPI document is written: a game registered later (a test's)
    is accepted with no schema changed."""

    def __init__(self, where: Callable[[registry.Game], bool] = lambda game: True) -> None:
        self._where = where
        super().__init__(())

    @property  # type: ignore[override]
    def choices(self) -> list[str]:
        return sorted(registry.names(self._where))

    @choices.setter
    def choices(self, ignored: Iterable[Any]) -> None:
        pass  # OneOf sets its choices once: these are the registry's

    @property  # type: ignore[override]
    def choices_text(self) -> str:
        return ", ".join(self.choices)

    @choices_text.setter
    def choices_text(self, ignored: str) -> None:
        pass


class FieldErrorSchema(ma.Schema):
    location = ma.fields.String(metadata={"description": "json, query, headers or path"})
    field = ma.fields.String(metadata={"description": "dotted path of the field"})
    messages = ma.fields.List(ma.fields.String())


class ProblemSchema(ma.Schema):
    """RFC 9457 problem document (documentation only: problems.py writes the payload)."""

    type = ma.fields.String(required=True, metadata={"example": "urn:cardroom:problem:not_found"})
    title = ma.fields.String(required=True)
    status = ma.fields.Integer(required=True)
    code = ma.fields.String(
        required=True, metadata={"description": "stable machine code, e.g. raise_below_minimum"}
    )
    detail = ma.fields.String(required=True, metadata={"description": "quotes the numbers"})
    rule = ma.fields.String(metadata={"description": "the rule applied (422 only)"})
    numbers = ma.fields.Dict(metadata={"description": "the figures behind a 422; a player's id "
                                                      "(`player`, `to_act_player`) has the name beside "
                                                      "it (`player_name`, `to_act_player_name`)"})
    names = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.String(), metadata={
        "description": "the registered players the refusal is about, id -> name (422 only)"})
    errors = ma.fields.List(ma.fields.Nested(FieldErrorSchema), metadata={"description": "400 only"})
    index = ma.fields.Integer(
        metadata={"description": "the first illegal action of a replayed sequence (422 only)"}
    )
    hands = ma.fields.Raw(metadata={
        "description": "hand histories only: with 400 `invalid_phh`, a list of each hand of the file "
                       "(`name`, `line`, `position`) and why it could not be read (`unreadable`); with "
                       "422 `too_many_hands`, how many hands the file holds"})
    max_hands = ma.fields.Integer(metadata={"description": "the most hands one request keeps (422 "
                                                           "`too_many_hands` only)"})
    line = ma.fields.Integer(metadata={"description": "the line of the text where the hand that cannot "
                                                      "be read begins (400 `invalid_hand_history` only)"})
    format = ma.fields.String(metadata={"description": "the site format asked for (400 "
                                                       "`invalid_hand_history` only)"})
    game = ma.fields.String(metadata={"description": "the hand's game (422 `phh_not_available` only)"})
    request_id = ma.fields.String(metadata={
        "description": "this request's id (also its X-Request-Id header and its log line)"})
    limit = ma.fields.String(metadata={"description": "the rate limit exceeded (429 only)"})
    per = ma.fields.String(metadata={"description": "`key` or `address`: what the limit counts (429 only)"})
    retry_after_s = ma.fields.Integer(metadata={"description": "as Retry-After (429 only)"})


class PlayerName(ma.fields.String):
    """The domain's naming rule, published in the schema so clients can check it first."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(
            validate=[
                ma.validate.Length(min=1, max=players.NAME_MAX_LENGTH),
                ma.validate.Regexp(
                    players.NAME_PATTERN, error="must not be blank or contain control characters"
                ),
            ],
            **kwargs,
        )


class CreatedSchema(ma.Schema):
    id = ma.fields.String(required=True)


class StrictBoolean(ma.fields.Boolean):
    """JSON true or false only: marshmallow's Boolean also takes "yes", 1, 0 and "on" (and a
    `truthy={True}` set still holds 1, since 1 == True), which the document (type boolean)
    does not promise."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class WholeNumber(ma.fields.Integer):
    """A JSON integer (never 1.0 or "1") within [minimum, maximum], published in the schema."""

    def __init__(self, minimum: int, maximum: int, **kwargs: Any) -> None:
        super().__init__(strict=True, validate=ma.validate.Range(min=minimum, max=maximum), **kwargs)


class Chips(WholeNumber):
    """A whole number of chips, from `minimum` (0 unless given) to MAX_CHIPS."""

    def __init__(self, minimum: int = 0, **kwargs: Any) -> None:
        super().__init__(minimum, MAX_CHIPS, **kwargs)


class GameSettings(ma.fields.Dict):
    """A game's settings (its spec page says which): an object of named values. Numbers are
    whole (events hold no fractions) and within +-MAX_SETTING_NUMBER; the game's own parser
    judges the rest. Errors name the setting's path (settings.limits.ante)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(keys=ma.fields.String(validate=ma.validate.Length(min=1, max=100)), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> dict:
        settings = super()._deserialize(value, attr, data, **kwargs)
        errors = _number_errors(settings)
        if errors:
            raise ma.ValidationError(errors)
        return settings


def _number_errors(value: Any) -> dict:
    """{key: [message]} (nested like the value) for every number that is not a whole number
    within +-MAX_SETTING_NUMBER."""
    errors: dict = {}
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        if isinstance(item, (dict, list)):
            inner = _number_errors(item)
            if inner:
                errors[key] = inner
        elif isinstance(item, float):
            errors[key] = ["numbers must be whole (no fractions)"]
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) > MAX_SETTING_NUMBER:
            errors[key] = [f"numbers must be within -{MAX_SETTING_NUMBER} to {MAX_SETTING_NUMBER}"]
    return errors


class BettingDescriptionSchema(ma.Schema):
    """api.md "Betting description" (shared by tables and rulings)."""

    structure = ma.fields.String(validate=ma.validate.OneOf(KINDS), metadata={"example": "no-limit"})
    small_blind = Chips(metadata={"example": 50})
    big_blind = Chips(metadata={"example": 100})
    ante = Chips()
    big_blind_ante = StrictBoolean()
    straddles = ma.fields.List(Chips(minimum=1), validate=ma.validate.Length(max=MAX_SEATS))
    min_bet = Chips(minimum=1, allow_none=True)
    small_bet = Chips(minimum=1, allow_none=True)
    big_bet = Chips(minimum=1, allow_none=True)
    raise_cap = WholeNumber(1, 1000, allow_none=True)
    heads_up_uncapped = StrictBoolean()
    dead_small_blind = StrictBoolean()
