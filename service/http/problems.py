"""RFC 9457 problem documents: the one shape of every error the API returns.

Views raise `Problem` (or let a domain `Violation` / store `VersionConflict` escape);
`register_problem_handlers` turns each into `application/problem+json` with a stable
machine `code`. Nothing reaches the client as an HTML page or a bare 500.
"""
from __future__ import annotations

import http
import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any

import psycopg
from flask import Flask, Response, current_app, has_app_context, json, request
from werkzeug.exceptions import HTTPException

from domain.rules.violations import Violation
from service.application import listings
from service.application.event_log import IntegrityFailure, VersionConflict
from service.application.handling import UnreadableStream
from service.application.metrics import VERSION_CONFLICTS
from service.http.request_log import current_request_id

PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_TYPE_PREFIX = "urn:cardroom:problem:"

log = logging.getLogger(__name__)

# Codes clients branch on; any other status falls back to its snake_case HTTP name.
CODE_BY_STATUS: dict[int, str] = {
    400: "validation_error",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "version_conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    500: "internal_error",
}


class Problem(Exception):
    """An error a view wants the client to see, with its status and machine code."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        headers: Mapping[str, str] | None = None,
        **extensions: Any,
    ) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = dict(headers or {})
        self.extensions = extensions


def problem_body(status: int, code: str, detail: str, **extensions: Any) -> dict[str, Any]:
    """The problem document itself (also written by the HTTP server, without Flask)."""
    return {
        "type": PROBLEM_TYPE_PREFIX + code,
        "title": http.HTTPStatus(status).phrase,
        "status": status,
        "code": code,
        "detail": detail,
        **extensions,
    }


def problem_response(
    status: int,
    code: str,
    detail: str,
    *,
    headers: Mapping[str, str] | None = None,
    **extensions: Any,
) -> Response:
    body = problem_body(status, code, detail, **extensions)
    request_id = current_request_id()
    if request_id is not None:
        body["request_id"] = request_id
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM_CONTENT_TYPE)
    response.headers.update(headers or {})
    return response


def code_for_status(status: int) -> str:
    return CODE_BY_STATUS.get(status) or http.HTTPStatus(status).name.lower()


def validation_errors(messages: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Flatten marshmallow/webargs messages ({"json": {"seats": {0: {"stack": [..]}}}})
    into one entry per field: {"location": "json", "field": "seats.0.stack", "messages": [...]}."""
    errors: list[dict[str, Any]] = []
    for location, tree in messages.items():
        for path, texts in _leaves(tree, ()):
            field = ".".join(str(part) for part in path if part != "_schema")
            errors.append({"location": str(location), "field": field, "messages": texts})
    return errors


def _leaves(tree: Any, path: tuple[Any, ...]) -> Iterable[tuple[tuple[Any, ...], list[str]]]:
    if isinstance(tree, Mapping):
        for key, subtree in tree.items():
            yield from _leaves(subtree, (*path, key))
    elif isinstance(tree, (list, tuple)) and all(isinstance(t, str) for t in tree):
        yield path, list(tree)
    elif isinstance(tree, (list, tuple)):
        for text_or_tree in tree:
            yield from _leaves(text_or_tree, path)
    else:
        yield path, [str(tree)]


def validation_problem(errors: list[dict[str, Any]]) -> Problem:
    described = "; ".join(
        f"{e['field'] or e['location']}: {' '.join(e['messages'])}" for e in errors
    )
    return Problem(400, "validation_error", f"invalid request: {described}", errors=errors)


def from_violation(violation: Violation) -> Response:
    detail, numbers, names = with_player_names(violation.detail, dict(violation.numbers))
    return problem_response(
        422,
        violation.code,
        detail,
        # A refusal that applies a rule names it; any other carries no `rule` (never "").
        **({"rule": violation.rule} if violation.rule else {}),
        numbers=numbers,
        **({"names": names} if names else {}),
    )


# Player ids are UUIDs; the domain names players by id, people by name (issue 16).
_PLAYER_ID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")


def with_player_names(detail: str, numbers: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, str]]:
    """A refusal about players as people read it: each registered player's id in `numbers`
    gets their name beside it (`player` -> `player_name`, `player_id` -> `player_name`,
    `to_act_player` -> `to_act_player_name`), the detail says the name where it said the id
    (unless it already says the name), and every player named gets {id: name} in the
    third value (the problem's `names`)."""
    keyed = {key: value for key, value in numbers.items() if isinstance(value, str) and _PLAYER_ID.fullmatch(value)}
    names = _registered_names(set(keyed.values()) | set(_PLAYER_ID.findall(detail)))
    if not names:
        return detail, numbers, {}
    named: dict[str, Any] = {}
    for key, value in numbers.items():
        named[key] = value
        if key in keyed and value in names:
            named[(key[:-3] if key.endswith("_id") else key) + "_name"] = names[value]
    # A detail that already says the name keeps the id (it reads "... registered as 'Ann'").
    said = _PLAYER_ID.sub(lambda found: found.group() if names.get(found.group(), "") in detail
                          else names.get(found.group(), found.group()), detail)
    return said, named, dict(sorted(names.items()))


def _registered_names(player_ids: set[str]) -> dict[str, str]:
    """Names of registered players (none without a database: the embedded memory store)."""
    pool = getattr(current_app.extensions.get("cardroom"), "pool", None) if has_app_context() else None
    if not player_ids or pool is None:
        return {}
    return listings.names(pool, player_ids)


def from_problem(problem: Problem) -> Response:
    return problem_response(
        problem.status, problem.code, problem.detail, headers=problem.headers, **problem.extensions
    )


def from_version_conflict(conflict: VersionConflict) -> Response:
    # The numbers too, as every problem has them: a client that lost a race learns the
    # version to read (or retry) at without parsing the detail.
    VERSION_CONFLICTS.labels("request").inc()
    return problem_response(409, "version_conflict", str(conflict),
                            numbers={"expected_version": conflict.expected, "actual_version": conflict.actual})


def from_http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    # webargs reports schema failures with `messages`; flask-smorest's default is 422,
    # but well-formed-yet-invalid *input* is a 400 here (422 is kept for rule violations).
    if "messages" in data:
        return from_problem(validation_problem(validation_errors(data["messages"])))
    headers = dict(data.get("headers") or {})
    if status == 405:
        # flask-smorest's own handler drops werkzeug's Allow header; RFC 9110 requires it.
        headers.update((k, v) for k, v in error.get_headers() if k.lower() == "allow")
    detail = data.get("message") or error.description or http.HTTPStatus(status).phrase
    if status == 404 and not data:
        detail = f"no resource at {request.path}"
    return problem_response(status, code_for_status(status), detail, headers=headers)


RETRY_AFTER_S = 2
READ_ONLY_SQL_TRANSACTION = "25006"


def from_database_error(error: psycopg.Error) -> Response:
    """The database cannot be reached (no connection within the pool's wait, or one lost
    mid-request): a 503 the client may retry, not a 500. A write that lost its connection
    may or may not have been recorded: a retry with the same Idempotency-Key tells.
    Any other database error is the server's fault."""
    if not is_database_outage(error):
        return from_unexpected(error)
    log.warning("database unavailable on %s %s: %s", request.method, request.path, error)
    return problem_response(
        503, "database_unavailable", "the database cannot be reached; retry shortly",
        headers={"Retry-After": str(RETRY_AFTER_S)},
    )


def is_database_outage(error: psycopg.Error) -> bool:
    """Connection failures (psycopg's OperationalError, the pool's timeout), and a result
    the server never sent (no SQLSTATE: the connection died under the statement) or sent
    as a connection exception (08), operator intervention (57: shutting down),
    insufficient resources (53: too many connections), or a read-only transaction (25006:
    the server is a standby now, a primary demoted under the connection; the pool drops it
    and finds the new primary, service.wiring.check_idle_connection)."""
    if isinstance(error, psycopg.OperationalError):
        return True
    return error.sqlstate is None or error.sqlstate[:2] in ("08", "57", "53") or error.sqlstate == READ_ONLY_SQL_TRANSACTION


UNREADABLE_STREAM_STATUS = 409
"""A stream this code cannot read (`unreadable_stream`) or whose log fails its check
(`integrity_failure`): a conflict with the stored state, the same for reads and writes,
that a retry meets again until the floor repairs the log or deploys a fix."""


def unreadable_stream_problem(error: UnreadableStream) -> tuple[str, dict[str, Any]]:
    """The detail and numbers of the `unreadable_stream` or `integrity_failure` problem
    (error.code; the API's and the pages'), logged once per request that meets it."""
    log.error("%s on %s %s: %s", error.code, request.method, request.path, error)
    detail = (f"{error.stream_id} fails its integrity check at version {error.version}: {error.reason}; "
              "nothing is read from or written to it until the log is repaired"
              if isinstance(error, IntegrityFailure)
              else f"this code cannot read {error.stream_id} at version {error.version}: {error.reason}")
    return detail, {"stream": error.stream_id, "version": error.version}


def from_unreadable_stream(error: UnreadableStream) -> Response:
    """A stored stream this code cannot read, or whose log fails its check: said with the
    stream, the version and the reason, so the operator knows where."""
    detail, numbers = unreadable_stream_problem(error)
    return problem_response(UNREADABLE_STREAM_STATUS, error.code, detail, numbers=numbers)


def from_unexpected(error: Exception) -> Response:
    log.exception("unhandled error on %s %s", request.method, request.path, exc_info=error)
    return problem_response(500, "internal_error", "the server failed to handle this request")


def register_problem_handlers(app: Flask) -> None:
    """Register after flask-smorest's Api so these replace its JSON error handler."""
    app.register_error_handler(Problem, from_problem)
    app.register_error_handler(Violation, from_violation)
    app.register_error_handler(VersionConflict, from_version_conflict)
    app.register_error_handler(UnreadableStream, from_unreadable_stream)
    app.register_error_handler(HTTPException, from_http_exception)
    app.register_error_handler(psycopg.Error, from_database_error)
    app.register_error_handler(Exception, from_unexpected)
