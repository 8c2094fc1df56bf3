"""ActionSchema.quick_load (the usual action body checked without marshmallow) gives what
`load` gives for every body it takes, and leaves every other body to `load`."""
from __future__ import annotations

import contextlib

import marshmallow as ma
import pytest

from service.http.api.schemas import MAX_CHIPS
from service.http.api.tables import ActionSchema

SCHEMA = ActionSchema()

TAKEN = [
    {"action": "check"},
    {"action": "r" * 20, "to": 0},
    {"action": "raise", "to": MAX_CHIPS},
    {"action": "call", "to": None},
    {"action": "fold", "expected_version": 0, "player_id": "p"},
    {"action": "bet", "to": 300, "expected_version": 12, "player_id": "x" * 100},
]
LEFT_TO_LOAD = [
    None, [], "check", {},
    {"to": 100},                                   # no action
    {"action": ""}, {"action": "r" * 21}, {"action": None}, {"action": 3},
    {"action": "raise", "to": -1}, {"action": "raise", "to": MAX_CHIPS + 1},
    {"action": "raise", "to": 1.0}, {"action": "raise", "to": "5"}, {"action": "raise", "to": True},
    {"action": "check", "expected_version": -1}, {"action": "check", "expected_version": None},
    {"action": "check", "expected_version": False}, {"action": "check", "expected_version": 2.0},
    {"action": "check", "player_id": ""}, {"action": "check", "player_id": None},
    {"action": "check", "player_id": "x" * 101}, {"action": "check", "player_id": 7},
    {"action": "draw", "discard": ["As"]},          # a field it does not know
    {"action": "check", "chips": [100]},
    {"action": "check", "surplus": 1},
]


@pytest.mark.parametrize("body", TAKEN)
def test_a_usual_body_is_what_load_gives(body: dict) -> None:
    quick = ActionSchema.quick_load(body)
    assert quick == SCHEMA.load(body)
    assert quick is not body  # the view may not change the parsed request's own dict


@pytest.mark.parametrize("body", LEFT_TO_LOAD)
def test_any_other_body_is_left_to_load(body: object) -> None:
    assert ActionSchema.quick_load(body) is None


def test_load_refuses_what_it_leaves_but_a_draw() -> None:
    accepted = []
    for body in LEFT_TO_LOAD:
        with contextlib.suppress(ma.ValidationError):
            accepted.append(SCHEMA.load(body))  # type: ignore[arg-type]
    assert accepted == [{"action": "draw", "discard": ["As"]}]  # valid, just not a usual body
