"""service.http.json_provider writes, byte for byte, what Flask's own provider writes."""
from __future__ import annotations

import dataclasses
import decimal
import uuid
from datetime import UTC, date, datetime

import pytest
from flask import Flask
from flask.json.provider import DefaultJSONProvider

from service.http.json_provider import OnceBuiltJSONProvider


class _Html:
    """What Flask's default writes through `__html__` (markupsafe's Markup, say)."""

    def __html__(self) -> str:
        return "<b>x</b>"


@dataclasses.dataclass
class _Seat:
    player: str
    stack: int
    joined: date


VALUES = [
    {"b": [1, "\u00e9\u2028\x01\ud83c", None, True, False], "a": {"z": 'x"\\', "y": []}, "c": -7, "d": 1.5},
    {"when": datetime(2026, 12, 6, 7, 13, 18, tzinfo=UTC), "day": date(2026, 1, 2),
     "id": uuid.UUID(int=37), "amount": decimal.Decimal("1.10"), "shown": _Html()},
    {"seats": [_Seat("p\u00e9", 10_000, date(2026, 3, 4))], "nested": {"deeper": [{"deepest": [[]]}]}},
    "s\u00e9\n", 5, None, [], {}, "", 2**70, 0.1,
]


def _apps(debug: bool = False) -> tuple[Flask, Flask]:
    ours, flasks = Flask("ours"), Flask("flasks")
    ours.json = OnceBuiltJSONProvider(ours)
    flasks.json = DefaultJSONProvider(flasks)
    ours.debug = flasks.debug = debug
    return ours, flasks


@pytest.mark.parametrize("value", VALUES)
def test_dumps_and_response_are_flasks_own(value: object) -> None:
    ours, flasks = _apps()
    for kwargs in ({}, {"separators": (",", ":")}, {"indent": 2}, {"sort_keys": False}):
        assert ours.json.dumps(value, **kwargs) == flasks.json.dumps(value, **kwargs)
    with ours.app_context(), flasks.app_context():
        mine, theirs = ours.json.response(value), flasks.json.response(value)
        assert mine.get_data() == theirs.get_data()
        assert mine.headers == theirs.headers


def test_options_changed_after_the_app_is_made_are_followed() -> None:
    ours, flasks = _apps()
    value = {"b": "\u00e9", "a": 1}
    ours.json.dumps(value)  # an encoder made with the first options
    for provider in (ours.json, flasks.json):
        provider.sort_keys = False  # type: ignore[attr-defined]
        provider.ensure_ascii = False  # type: ignore[attr-defined]
    assert ours.json.dumps(value) == flasks.json.dumps(value) == '{"b": "\u00e9", "a": 1}'


def test_a_debug_app_answers_indented_as_flask_does() -> None:
    ours, flasks = _apps(debug=True)
    with ours.app_context(), flasks.app_context():
        assert ours.json.response(VALUES[0]).get_data() == flasks.json.response(VALUES[0]).get_data()


def test_what_json_cannot_write_is_refused_as_flask_refuses_it() -> None:
    ours, _ = _apps()
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        ours.json.dumps({"a": object()})
