"""Marshmallow pieces shared by every blueprint: the problem document and small fields."""
from __future__ import annotations

import marshmallow as ma

from domain import players


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
    numbers = ma.fields.Dict(metadata={"description": "the figures behind a 422"})
    errors = ma.fields.List(ma.fields.Nested(FieldErrorSchema), metadata={"description": "400 only"})
    index = ma.fields.Integer(
        metadata={"description": "the first illegal action of a replayed sequence (422 only)"}
    )


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
