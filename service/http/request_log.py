"""One log line per request, and the request id that ties it to what the client saw.

The id is the client's `X-Request-Id` when it is sane (1-128 letters, digits, `.`, `_`,
`-`, `:`; anything else could forge log lines or fill them), else a fresh one. It is
echoed in the response's `X-Request-Id` and in every problem document (`request_id`), so
a person who reports a problem document hands the operator the key to its log line.

The line goes to the `cardroom.requests` logger with its fields in `record.fields`
(service.adapters.logs formats them as JSON or as text): request id, key id and role, method,
path, route, status, duration, and the table, tournament, hand or stream it concerned.
"""
from __future__ import annotations

import logging
import os
import re
import time
from typing import Any

from flask import Flask, Response, g, has_request_context, request

from service import log_lines

REQUEST_ID_HEADER = "X-Request-Id"
_SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
# Path parameters worth a field of their own: what an operator searches the log by.
SUBJECT_PARAMETERS = ("table_id", "tournament_id", "hand_id", "stream_id", "player_id", "key_id")

log = logging.getLogger("cardroom.requests")


def current_request_id() -> str | None:
    """The id of the request being served (None outside a request)."""
    return g.get("request_id") if has_request_context() else None


def note_principal(key_id: str | None, role: str) -> None:
    """Called by authentication: who made this request, for its log line."""
    g._get_current_object().principal_seen = (key_id, role)  # not through the proxy's setattr lookup


def _start() -> None:
    seen = g._get_current_object()  # one proxy lookup, not two
    # The request itself: reading `headers` through the proxy misses on it first (an
    # AttributeError raised and formatted, issue 37).
    # Read from the environ as `headers.get` reads it, without its translation of the name
    # and, for a request without the header, the KeyError it raises and catches (issue 37).
    offered = request._get_current_object().environ.get("HTTP_X_REQUEST_ID", "")  # type: ignore[attr-defined]
    seen.request_id = offered if _SANE_REQUEST_ID.fullmatch(offered) else fresh_request_id()
    seen.request_started = time.perf_counter()


# The bits uuid.uuid4 sets in a random 128-bit number: the version (4) and the variant (RFC 4122).
_UUID4_CLEARED = (0xF000 << 64) | (0xC000 << 48)
_UUID4_SET = (0x4000 << 64) | (0x8000 << 48)


def fresh_request_id() -> str:
    """`uuid.uuid4().hex`, from the same 16 random bytes with the same bits set, without
    building the UUID (its checks cost two thirds of the id, issue 37)."""
    return "%032x" % (int.from_bytes(os.urandom(16), "big") & ~_UUID4_CLEARED | _UUID4_SET)


def _finish(response: Response) -> Response:
    # The request and g looked up once: each use of Flask's proxies is a lookup of its own
    # (a dozen per line, a measurable share of the line's cost).
    seen, served = g._get_current_object(), request._get_current_object()  # type: ignore[attr-defined]
    if "request_id" not in seen:  # a hook before ours failed
        _start()
    response.headers[REQUEST_ID_HEADER] = seen.request_id
    duration_s = time.perf_counter() - seen.request_started
    seen.request_duration_s = duration_s
    if log.isEnabledFor(logging.INFO):
        key_id, role = seen.get("principal_seen", (None, None))
        status = response.status_code
        fields: dict[str, Any] = {
            "request_id": seen.request_id,
            "method": served.method,
            "path": served.path,
            "route": served.url_rule.rule if served.url_rule else None,
            "status": status,
            "duration_ms": round(duration_s * 1000, 2),
            "key_id": key_id,
            "role": role,
        }
        view_args = served.view_args or {}
        for name in SUBJECT_PARAMETERS:
            value = view_args.get(name)
            if value is not None:
                fields[name] = value
        _log_line(served.method, served.path, status, duration_s, fields)
    return response


def _log_line(method: str, path: str, status: int, duration_s: float, fields: dict[str, Any]) -> None:
    """The request's line. When it would only reach the JSON handler `configure` installed
    (production), written straight to it: the same line, without the LogRecord and the
    logging module's walk to the handler (about two thirds of the line's cost)."""
    arguments = (method, path, status, duration_s * 1000)
    handler = log_lines.direct_json_handler(log, logging.INFO)
    if handler is not None:
        try:
            log_lines.write_json_line(handler, time.time(), "INFO", log.name, _MESSAGE % arguments, fields)
            return
        except Exception:  # noqa: BLE001 - the handler's own error handling has the record: the usual way
            pass
    # Made and handled as log.info would, but without its walk up the stack for the
    # caller's file and line (a fifth of the line's cost): they are this function's.
    log.handle(log.makeRecord(log.name, logging.INFO, __file__, _LINE_AT, _MESSAGE, arguments, None,
                              "_finish", {"fields": fields}))


_MESSAGE = "%s %s %s %.1f ms"


_LINE_AT = _log_line.__code__.co_firstlineno


def install(app: Flask) -> None:
    # First before-request hook, so even a request refused by a later hook has an id.
    app.before_request_funcs.setdefault(None, []).insert(0, _start)
    app.after_request(_finish)
