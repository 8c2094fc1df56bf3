"""Flask's JSON provider with its encoders built once per process.

`json.dumps` with any option (Flask always passes `default`, `ensure_ascii`, `sort_keys`)
builds a new JSONEncoder on every call, and `JSONEncoder.encode` a new C encoder, through
two Python frames: for an action's answer that costs more than the encoding (issue 37).
The output is Flask's own, byte for byte: the same options, given once to
service.json_text's encoder. That encoder has no check for circular references: what the
app answers is built afresh for each request from records (dicts, lists, strings, numbers),
never a value that holds itself; were one to, encoding it still fails, with a RecursionError
where json.dumps says ValueError, and the answer is the same 500.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask.json.provider import DefaultJSONProvider
from werkzeug.sansio.response import Response

from service import json_text

_COMPACT = (",", ":")
_SPACED = (", ", ": ")


class OnceBuiltJSONProvider(DefaultJSONProvider):
    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self._encoders: dict[tuple[bool, bool, bool], Callable[[Any], str]] = {}

    def _encoder(self, compact: bool) -> Callable[[Any], str]:
        """The encoder for the provider's options as they are now (an app may change
        `sort_keys` after it is made)."""
        options = (bool(self.sort_keys), bool(self.ensure_ascii), compact)
        encoder = self._encoders.get(options)
        if encoder is None:
            encoder = self._encoders[options] = json_text.encoder(
                default=self.default, sort_keys=options[0], ensure_ascii=options[1],
                separators=_COMPACT if compact else _SPACED)
        return encoder

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if not kwargs:
            return self._encoder(compact=False)(obj)
        if kwargs == {"separators": _COMPACT}:
            return self._encoder(compact=True)(obj)
        return super().dumps(obj, **kwargs)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        if (self.compact is None and self._app.debug) or self.compact is False:
            return super().response(*args, **kwargs)
        body = self._encoder(compact=True)(self._prepare_response_obj(args, kwargs))
        return self._app.response_class(f"{body}\n", mimetype=self.mimetype)
