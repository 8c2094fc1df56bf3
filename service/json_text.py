"""JSON encoders for the texts every request or write makes several of (its events'
canonical JSON, a row MAC's message, a receipt, a recorded answer's headers, the answer
itself, its log line): the C encoder made once.

`json.JSONEncoder.encode` builds a new C encoder (`json.encoder.c_make_encoder`) on every
call, through two Python frames; for the small values a write encodes that costs more than
the encoding itself (issue 37: a table action's encodes cost 71,000 CPU instructions more
that way, tools/action_instructions.py). The encoder made here writes the
very same text as a JSONEncoder with the same options does, without the check for
circular references: the values given are flat, went through a check that recurses
through them first (service.adapters.store.base.check_storable), or are built afresh for
the one answer or line (service.http.json_provider, service.log_lines say why that is safe).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as _stdlib
from typing import Any

# The json module's own C encoder maker (typeshed does not declare it); None in a Python
# built without the module's C part.
_MAKE_ENCODER: Any = getattr(_stdlib, "c_make_encoder", None)


def encoder(*, sort_keys: bool = False, separators: tuple[str, str] = (", ", ": "), ensure_ascii: bool = True,
            default: Callable[[Any], Any] | None = None) -> Callable[[Any], str]:
    """The text json.JSONEncoder(sort_keys=..., separators=..., ensure_ascii=..., default=...)
    .encode(value) gives, for values without cycles."""
    options = json.JSONEncoder(sort_keys=sort_keys, separators=separators, ensure_ascii=ensure_ascii,
                               default=default)
    if _MAKE_ENCODER is None:
        return options.encode
    made = _MAKE_ENCODER(
        None, options.default, _stdlib.encode_basestring_ascii if ensure_ascii else _stdlib.encode_basestring,
        None, options.key_separator, options.item_separator, sort_keys, False, True)

    def encode(value: Any) -> str:
        return "".join(made(value, 0))

    return encode
