"""`POST /v1/hand-histories`: replay one hand in the PHH format through our rules (api.md).

The body is the hand's TOML text (`Content-Type: application/toml`, or `text/plain`).
The answer is the computed outcome: finishing stacks, pots and winners, beside the record's
own `finishing_stacks` when it has them. A body that is not a PHH hand is a 400
`invalid_phh`; a variant we do not replay is a 422 `unsupported_variant`; an illegal action
is a 422 with the rule's code and the action's `index` in `actions` (0-based).

Any authenticated key may replay: nothing is stored. Keeping a hand as an audited record
(`?store=true`, floor and organiser) needs the hand streams of the live tables; until they
exist the parameter is refused with a 501 rather than silently ignored.
"""
from __future__ import annotations

import tomllib
from typing import Any

import marshmallow as ma
from flask import request

from domain.phh import HandHistory, PhhSyntaxError, ReplayResult, parse, replay, start_command
from domain.violations import Violation
from service.api import Blueprint
from service.api.rulings import StrictBoolean, json_amount, problem_from_violation
from service.auth import ROLES, require
from service.problems import Problem

blp = Blueprint("hand_histories", __name__, url_prefix="/v1/hand-histories",
                description="Hand histories in the PHH format, replayed through the rules")

PHH_MEDIA_TYPES = ("application/toml", "text/plain")
# A real hand is a few kilobytes; a hostile one should not cost a long parse.
MAX_PHH_BYTES = 256 * 1024
MAX_PLAYERS = 23


class PhhFieldsSchema(ma.Schema):
    """The field types of a PHH hand, checked before the domain reads it, so a hand of the
    wrong shape is a clear 400 naming the field. Fields we do not interpret pass through."""

    class Meta:
        unknown = ma.INCLUDE

    variant = ma.fields.String(required=True)
    ante_trimming_status = StrictBoolean()
    antes = ma.fields.List(ma.fields.Float(allow_nan=False), required=True)
    blinds_or_straddles = ma.fields.List(ma.fields.Float(allow_nan=False))
    bring_in = ma.fields.Float(allow_nan=False)
    small_bet = ma.fields.Float(allow_nan=False)
    big_bet = ma.fields.Float(allow_nan=False)
    min_bet = ma.fields.Float(allow_nan=False)
    starting_stacks = ma.fields.List(ma.fields.Float(allow_nan=False), required=True,
                                     validate=ma.validate.Length(min=2, max=MAX_PLAYERS))
    actions = ma.fields.List(ma.fields.String(), required=True)
    players = ma.fields.List(ma.fields.String())
    finishing_stacks = ma.fields.List(ma.fields.Float(allow_nan=False))


def _amount_field(**kwargs: Any) -> ma.fields.Raw:
    # Whole chips are JSON integers; PHH's fractional amounts (an odd chip split in halves)
    # are JSON numbers with their decimals.
    return ma.fields.Raw(metadata={"type": "number", **kwargs.pop("metadata", {})}, **kwargs)


class ReplayedPotSchema(ma.Schema):
    amount = _amount_field(required=True)
    eligible = ma.fields.List(ma.fields.String(), required=True)
    winners = ma.fields.List(ma.fields.String(), required=True)
    shares = ma.fields.Dict(keys=ma.fields.String(), values=_amount_field(), required=True)


class HandHistoryReplaySchema(ma.Schema):
    variant = ma.fields.String(required=True, metadata={"example": "NT"})
    players = ma.fields.List(ma.fields.String(), required=True,
                             metadata={"description": "the record's players (p1, p2 ... when unnamed), "
                                                      "first seat left of the button first"})
    finishing_stacks = ma.fields.List(_amount_field(), required=True,
                                      metadata={"description": "computed by our rules"})
    recorded_finishing_stacks = ma.fields.List(_amount_field(), required=True, allow_none=True,
                                               metadata={"description": "as the record states them"})
    matches_record = ma.fields.Boolean(required=True, allow_none=True,
                                       metadata={"description": "null when the record states none"})
    winners = ma.fields.List(ma.fields.String(), required=True)
    pots = ma.fields.List(ma.fields.Nested(ReplayedPotSchema), required=True)


PHH_REQUEST_BODY = {
    "required": True,
    "description": "One hand in the PHH format (phh-std TOML); variants NT, FT and PO replay. "
                   f"At most {MAX_PHH_BYTES} bytes (413 beyond).",
    "content": {
        media_type: {"schema": {"type": "string"},
                     "example": 'variant = "NT"\nante_trimming_status = true\nantes = [0, 0]\n'
                                'blinds_or_straddles = [1, 2]\nmin_bet = 2\n'
                                'starting_stacks = [200, 200]\nactions = ["d dh p1 AsAd", '
                                '"d dh p2 7c2h", "p2 f"]\n'}
        for media_type in PHH_MEDIA_TYPES
    },
}


@blp.route("", methods=["POST"])
@require(*ROLES)
@blp.doc(requestBody=PHH_REQUEST_BODY)
@blp.response(200, HandHistoryReplaySchema)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(413, response="REQUEST_ENTITY_TOO_LARGE")
@blp.alt_response(415, response="UNSUPPORTED_MEDIA_TYPE")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def replay_hand_history() -> dict[str, Any]:
    """Replay one PHH hand: computed finishing stacks, pots and winners (any role).

    An illegal action is a 422 naming it (`index` in `actions`); a variant other than
    NT, FT and PO is a 422 `unsupported_variant`. Nothing is stored.
    """
    if "store" in request.args:
        raise Problem(501, "not_implemented",
                      "storing hand histories is not available yet: replay without ?store")
    record = _record_from_body()
    try:
        result = replay(record)
    except Violation as violation:
        raise problem_from_violation(violation, violation.numbers.get("action_index")) from None
    return _answer(record, result)


def _record_from_body() -> HandHistory:
    if request.mimetype not in PHH_MEDIA_TYPES:
        raise Problem(415, "unsupported_media_type",
                      f"the body must be {' or '.join(PHH_MEDIA_TYPES)}, not {request.mimetype or 'untyped'}")
    if (request.content_length or 0) > MAX_PHH_BYTES:
        raise _too_large()
    raw = request.stream.read(MAX_PHH_BYTES + 1)
    if len(raw) > MAX_PHH_BYTES:
        raise _too_large()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _invalid_phh(f"the body is not UTF-8 text: {error}") from None
    if not text.strip():
        raise _invalid_phh("the body is empty: send one hand in the PHH format")
    try:
        fields = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise _invalid_phh(f"not valid TOML: {error}") from None
    try:
        PhhFieldsSchema().load(fields)
    except ma.ValidationError as error:
        raise _invalid_phh(f"not a PHH hand: {_flatten(error.normalized_messages())}") from None
    try:
        return parse(text)
    except PhhSyntaxError as error:
        raise _invalid_phh(str(error)) from None


def _flatten(messages: Any, path: str = "") -> str:
    if isinstance(messages, dict):
        return "; ".join(_flatten(inner, f"{path}.{key}" if path else str(key)) for key, inner in messages.items())
    return f"{path}: {' '.join(str(m) for m in messages)}"


def _invalid_phh(detail: str) -> Problem:
    return Problem(400, "invalid_phh", detail)


def _too_large() -> Problem:
    return Problem(413, "payload_too_large", f"a hand history is at most {MAX_PHH_BYTES} bytes")


def _answer(record: HandHistory, result: ReplayResult) -> dict[str, Any]:
    names = start_command(record).players
    recorded = record.finishing_stacks
    return {
        "variant": record.variant,
        "players": list(names),
        "finishing_stacks": [json_amount(a) for a in result.finishing_stacks],
        "recorded_finishing_stacks": None if recorded is None else [json_amount(a) for a in recorded],
        "matches_record": None if recorded is None else tuple(result.finishing_stacks) == tuple(recorded),
        "winners": [names[seat] for seat in result.winners],
        "pots": [
            {"amount": json_amount(pot.amount),
             "eligible": [names[seat] for seat in pot.eligible],
             "winners": [names[seat] for seat in pot.winners],
             "shares": {names[seat]: json_amount(share) for seat, share in zip(pot.winners, pot.shares)}}
            for pot in result.pots
        ],
    }
