"""Rulings on the record (service.application.floor_rulings): the floor records what was
asked and decided at a table, or on a stored (imported) hand, and anyone reads it back.

`POST /v1/tables/{id}/rulings`, `POST /v1/hands/{id}/rulings` (floor, admin);
`GET` of both and `GET /v1/tournaments/{id}/rulings` (any role, `?floor=` a key id,
`?hand=` a hand id); a refused ruling is a 422 with the domain's code (`invalid_ruling`,
`invalid_card`, `duplicate_card`), an unknown hand a 404 `unknown_hand`. The cards a ruling names are null for anyone but the floor while
its hand runs.
"""
from __future__ import annotations

from typing import Any

import marshmallow as ma

from domain.rulings.on_record import RecordRuling
from service.application import floor_rulings
from service.application.floor_rulings import UnknownHand
from service.http.api import Blueprint, application
from service.http.api.tables import ALL_ROLES, actor_name, loaded_table, viewer
from service.http.auth import current_principal, require
from service.http.problems import Problem

blp = Blueprint("floor_rulings", __name__, url_prefix="/v1",
                description="Rulings on the record: who ruled, on which hand, what was asked and decided, and why")

RULERS = ("admin", "floor")


class NewRulingSchema(ma.Schema):
    hand = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=200), metadata={
        "description": "the hand's id (`<table id>.<number>`, or the stored hand's `hand-<uuid>`)"})
    question = ma.fields.String(required=True, validate=ma.validate.Length(max=2000))
    decision = ma.fields.String(required=True, validate=ma.validate.Length(max=2000))
    rule = ma.fields.String(load_default=None, allow_none=True, validate=ma.validate.Length(max=100),
                            metadata={"example": "TDA 2024 47-A"})
    note = ma.fields.String(load_default=None, allow_none=True, validate=ma.validate.Length(max=2000))
    cards = ma.fields.List(ma.fields.String(validate=ma.validate.Length(max=10)), load_default=list,
                           validate=ma.validate.Length(max=52), metadata={
                               "description": "the cards the ruling turned on (not in the words): the floor's "
                                              "alone until the hand is closed", "example": ["As", "Kd"]})
    at_version = ma.fields.Integer(load_default=None, allow_none=True,
                                   validate=ma.validate.Range(min=1, max=2**31 - 1), metadata={
                                       "description": "the hand's step (its stream version) the ruling is "
                                                      "about; default its last event so far"})


class RulingSchema(ma.Schema):
    version = ma.fields.Integer(required=True, metadata={"description": "in the rulings log"})
    subject = ma.fields.String(required=True, metadata={"description": "the table, or the stored hand"})
    hand = ma.fields.String(required=True)
    at_version = ma.fields.Integer(required=True)
    question = ma.fields.String(required=True)
    decision = ma.fields.String(required=True)
    rule = ma.fields.String(required=True, allow_none=True)
    note = ma.fields.String(required=True, allow_none=True)
    cards = ma.fields.List(ma.fields.String(), required=True, allow_none=True,
                           metadata={"description": "null for all but the floor while the hand runs"})
    ruled_by = ma.fields.String(required=True, metadata={"description": "the API key id of who ruled"})
    role = ma.fields.String(required=True)
    recorded_at = ma.fields.String(required=True)


class RulingsSchema(ma.Schema):
    rulings = ma.fields.List(ma.fields.Nested(RulingSchema), required=True)


class RulingsQuerySchema(ma.Schema):
    floor = ma.fields.String(metadata={"description": "only the rulings of this API key id"})
    hand = ma.fields.String(metadata={"description": "only the rulings on this hand"})


def _record(subject: str, body: dict) -> dict[str, Any]:
    principal = current_principal()
    command = RecordRuling(subject=subject, **{**body, "cards": tuple(body["cards"])},
                           ruled_by=principal.key_id or principal.role, role=principal.role)
    try:
        return floor_rulings.record_ruling(application(), command, actor=actor_name(principal))
    except UnknownHand as unknown:
        raise Problem(404, "unknown_hand", str(unknown)) from unknown


def _filters(query: dict) -> dict[str, str | None]:
    return {"ruled_by": query.get("floor"), "hand": query.get("hand")}


@blp.route("/tables/<string:table_id>/rulings", methods=["POST"])
@require(*RULERS)
@blp.arguments(NewRulingSchema)
@blp.response(201, RulingSchema)
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def record_table_ruling(body: dict, table_id: str) -> dict[str, Any]:
    """Record a ruling on one of this table's hands (floor, admin), on the table's rulings
    log: the table's own version and its players' If-Match are untouched."""
    return _record(table_id, body)


@blp.route("/tables/<string:table_id>/rulings", methods=["GET"])
@require(*ALL_ROLES)
@blp.arguments(RulingsQuerySchema, location="query")
@blp.response(200, RulingsSchema)
@blp.alt_response(404, response="NOT_FOUND")
def table_rulings(query: dict, table_id: str) -> dict[str, Any]:
    """The table's rulings, oldest first (any role; cards of a running hand the floor's alone)."""
    loaded_table(table_id)  # 404 without one
    return {"rulings": floor_rulings.rulings_of(application(), [table_id], viewer(), **_filters(query))}


@blp.route("/hands/<string:hand_id>/rulings", methods=["POST"])
@require(*RULERS)
@blp.arguments(NewRulingSchema)
@blp.response(201, RulingSchema)
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def record_hand_ruling(body: dict, hand_id: str) -> dict[str, Any]:
    """Record a ruling on a hand (floor, admin): a table's hand goes on its table's log, a
    stored (imported) hand's on its own; `hand` in the body must be this hand."""
    if body["hand"] != hand_id:
        raise Problem(422, "hand_mismatch", f"the body names hand {body['hand']}, the path {hand_id}")
    located = floor_rulings.subject_of(hand_id)
    if located is None:
        raise Problem(404, "unknown_hand", f"no hand {hand_id}")
    return _record(located, body)


@blp.route("/hands/<string:hand_id>/rulings", methods=["GET"])
@require(*ALL_ROLES)
@blp.response(200, RulingsSchema)
def hand_rulings(hand_id: str) -> dict[str, Any]:
    """The rulings on this hand, oldest first (any role)."""
    subject = floor_rulings.subject_of(hand_id)
    found = [] if subject is None else floor_rulings.rulings_of(application(), [subject], viewer(), hand=hand_id)
    return {"rulings": found}


@blp.route("/tournaments/<string:tournament_id>/rulings", methods=["GET"])
@require(*ALL_ROLES)
@blp.arguments(RulingsQuerySchema, location="query")
@blp.response(200, RulingsSchema)
@blp.alt_response(404, response="NOT_FOUND")
def tournament_rulings(query: dict, tournament_id: str) -> dict[str, Any]:
    """The rulings at every table of the tournament, table by table (any role)."""
    found = floor_rulings.tournament_rulings(application(), tournament_id, viewer(), **_filters(query))
    if found is None:
        raise Problem(404, "not_found", f"no tournament {tournament_id}")
    return {"rulings": found}
