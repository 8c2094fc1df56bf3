"""jsonb as a follower of the global log reads it (psycopg.types.json.set_json_loads,
process-wide): the server sends it as UTF-8 text, so it is decoded as such and parsed by one
decoder, without json.loads's guess at the encoding of bytes, which is half its time on an
event's small documents; a follower reads three of them an event (data, metadata, sealed
fields). The values are json.loads's."""
from __future__ import annotations

import json
from typing import Any

from psycopg.types.json import set_json_loads

_DECODER = json.JSONDecoder()


def loads(document: str | bytes) -> Any:
    return _DECODER.decode(document.decode("utf-8") if isinstance(document, bytes) else document)


def read_as_utf8() -> None:
    """Every jsonb (and json) value this process reads from now on, through `loads`."""
    set_json_loads(loads)
