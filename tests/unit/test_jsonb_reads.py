"""A follower's jsonb reads (service.adapters.store.jsonb_reads) give json.loads's values."""
from __future__ import annotations

import json

import pytest

from service.adapters.store.jsonb_reads import loads

DOCUMENTS = [
    {"seat": 2, "action": "call", "amount": 1200, "street": "turn"},
    {"cards": ["Ah", "Kc"], "rank": "two pair, kings and aces", "nested": {"a": [1, {"b": None}]}},
    {"name": "Zoë 🂡 \u00e9\u4e2d", "quote": "\"\\/\n\t", "big": 10**20, "neg": -7, "yes": True},
    {},
    [],
    "text",
]


@pytest.mark.parametrize("value", DOCUMENTS)
def test_a_document_reads_as_json_loads_reads_it(value: object) -> None:
    for spelled in (json.dumps(value), json.dumps(value, ensure_ascii=False), json.dumps(value, indent=1)):
        document = spelled.encode("utf-8")
        assert loads(document) == json.loads(document) == value


def test_a_document_that_is_not_json_is_refused_as_json_loads_refuses_it() -> None:
    with pytest.raises(json.JSONDecodeError):
        loads(b'{"seat": 2,')
