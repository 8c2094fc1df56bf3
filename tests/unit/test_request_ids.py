"""A request's fresh id is the hex of a version 4 UUID, as uuid.uuid4().hex spells it."""
from __future__ import annotations

import random
import re
import uuid

import pytest

from service.http import request_log

_SEEDED = random.Random(37)
RANDOM = [bytes(16), b"\xff" * 16, bytes(range(16)), bytes(range(240, 256)),
          *(_SEEDED.randbytes(16) for _ in range(20))]


@pytest.mark.parametrize("drawn", RANDOM)
def test_the_id_is_uuid4s_hex_from_the_same_random_bytes(drawn, monkeypatch):
    monkeypatch.setattr(request_log.os, "urandom", lambda count: drawn[:count])
    assert request_log.fresh_request_id() == uuid.UUID(bytes=drawn, version=4).hex


def test_fresh_ids_are_sane_and_new():
    ids = {request_log.fresh_request_id() for _ in range(1000)}
    assert len(ids) == 1000
    for made in ids:
        assert re.fullmatch(r"[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}", made)
        assert request_log._SANE_REQUEST_ID.fullmatch(made)  # noqa: SLF001 - an id a client may send back
        assert uuid.UUID(hex=made).version == 4
