"""service.json_text's encoders write what json.JSONEncoder with the same options writes."""
from __future__ import annotations

import json

import pytest

from service import json_text

VALUES = [
    {"b": [1, "é\u2028\x01", None, True, False], "a": {"z": 'x"\\', "y": []}, "c": -7},
    "s\u00e9\n", 5, None, [], {}, "", 2**70,
    [["Content-Type", "application/json"], ["Cardroom-Receipt", '{"stream":"t-1","version":3}']],
]
OPTIONS = [
    {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": False},
    {"separators": (",", ":")},
    {},
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("value", VALUES)
def test_the_same_text_as_jsonencoder(options: dict, value: object) -> None:
    assert json_text.encoder(**options)(value) == json.JSONEncoder(**options).encode(value)


def test_the_default_spelling_is_json_dumps() -> None:
    for value in VALUES:
        assert json_text.encoder()(value) == json.dumps(value)


def test_default_is_called_for_what_json_cannot_write() -> None:
    def refuse(value: object) -> object:
        raise TypeError(f"not JSON: {value!r}")

    with pytest.raises(TypeError, match="not JSON"):
        json_text.encoder(default=refuse)({"a": object()})
    assert json_text.encoder(default=str)({"a": b"x"}) == json.dumps({"a": b"x"}, default=str)
