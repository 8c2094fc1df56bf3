"""What every blueprint builds on: the request parser, the Blueprint and Api classes, and
access to the app's wired resources (the event store, the key table).

Blueprints use `service.api.Blueprint` (not flask_smorest's) so that request bodies get the
house rules: JSON only (415 otherwise), no NUL characters, and 400 for invalid input.
"""
from __future__ import annotations

import functools
import http
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import flask_smorest
import marshmallow as ma
from flask import Request, current_app, request
from flask_smorest.utils import prepare_response
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request

from service.api.schemas import ProblemSchema
from service.config import Config
from service.problems import (
    PROBLEM_CONTENT_TYPE,
    Problem,
    from_http_exception,
    validation_errors,
    validation_problem,
)

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from service.auth import ApiKeys
    from service.store.base import EventStore

SECURITY_SCHEME = "bearerAuth"


class RequestParser(FlaskParser):
    """For what `Blueprint.arguments` leaves to webargs: the other locations, and a JSON
    body wanted as keyword arguments or with webargs' own options."""

    # Invalid input is the client's mistake (400); 422 is kept for broken game rules.
    DEFAULT_VALIDATION_STATUS = 400

    def load_json(self, req: Request, schema: Any) -> Any:
        return read_json_body(req)


def read_json_body(req: Request) -> Any:
    """The body as webargs' FlaskParser reads it (`core.missing` if empty or not JSON), under
    the house rules: a body of another media type is a 415, NUL characters a 400."""
    if not is_json_request(req):
        if req.content_length or "chunked" in req.headers.get("Transfer-Encoding", ""):
            raise Problem(
                415,
                "unsupported_media_type",
                f"the body must be application/json, not {req.mimetype or 'untyped'}",
            )
        return core.missing
    raw = req.get_data(cache=True)
    if not raw:
        return core.missing
    try:
        # webargs' decoding: strict UTF-8, where json.loads would also guess UTF-16 and -32.
        data = core.parse_json(raw)
        nul_paths = list(_paths_with_nul(data, ()))
    except json.JSONDecodeError:
        raise _body_problem("Invalid JSON body.") from None
    except RecursionError:
        raise _body_problem("The JSON is nested too deeply.") from None
    if nul_paths:
        # PostgreSQL rejects NUL in text and jsonb; refuse it before it gets there.
        raise validation_problem(
            [
                {"location": "json", "field": path, "messages": ["NUL characters are not allowed."]}
                for path in nul_paths
            ]
        )
    return data


def _body_problem(message: str) -> Problem:
    return validation_problem([{"location": "json", "field": "", "messages": [message]}])


def refuse_nul_in_url() -> None:
    """before_request hook: path parameters and query strings end up in SQL parameters too.
    Checked on the raw query string: a NUL can only get there as %00 (or a raw NUL byte),
    and parsing the arguments here would cost every request."""
    query = request.query_string
    if "\x00" in request.path or b"\x00" in query or b"%00" in query:
        raise validation_problem(
            [{"location": "url", "field": "", "messages": ["NUL characters are not allowed."]}]
        )


IDEMPOTENCY_KEY_MAX_LENGTH = 200


def request_idempotency_key() -> str | None:
    """The request's `Idempotency-Key` header (every write accepts one), validated."""
    key = request.headers.get("Idempotency-Key") or None
    if key is not None and (len(key) > IDEMPOTENCY_KEY_MAX_LENGTH or "\x00" in key):
        raise validation_problem(
            [
                {
                    "location": "headers",
                    "field": "Idempotency-Key",
                    "messages": [f"at most {IDEMPOTENCY_KEY_MAX_LENGTH} characters, no NUL."],
                }
            ]
        )
    return key


def _paths_with_nul(value: Any, path: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        if "\x00" in value:
            yield ".".join(path)
    elif isinstance(value, dict):
        for key, item in value.items():
            if "\x00" in key:
                yield ".".join((*path, key.replace("\x00", "\\u0000")))
            yield from _paths_with_nul(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths_with_nul(item, (*path, str(index)))


View = Callable[..., Any]

# `Blueprint.arguments` options that only document; any other is one of webargs' use_args.
DOCUMENTATION_ONLY_ARGUMENTS = frozenset(
    {"content_type", "required", "description", "example", "examples"}
)


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint with the house request parser. `alt_response` and `doc`
    only document: flask-smorest also wraps the view in a layer per use that does nothing
    but call the next, a cost on every request (an action has six such layers); here the
    view keeps the documentation and loses the layer. `arguments` for a JSON body keeps
    flask-smorest's documentation but parses with `_with_json_body`, one layer instead of
    webargs' and flask-smorest's two."""

    ARGUMENTS_PARSER = RequestParser()

    def arguments(
        self, schema: Any, *, location: str = "json", **kwargs: Any
    ) -> Callable[[View], View]:
        documented = super().arguments(schema, location=location, **kwargs)
        if location != "json" or kwargs.keys() - DOCUMENTATION_ONLY_ARGUMENTS:
            return documented
        # webargs makes an instance of a Schema class per request; schemas keep no state.
        return _with_json_body(schema() if isinstance(schema, type) else schema, documented)

    def alt_response(self, *args: Any, **kwargs: Any) -> Callable[[View], View]:
        return _documentation_only(super().alt_response(*args, **kwargs))

    @staticmethod
    def doc(**kwargs: Any) -> Callable[[View], View]:
        return _documentation_only(flask_smorest.Blueprint.doc(**kwargs))


def _documentation_only(decorator: Callable[[View], View]) -> Callable[[View], View]:
    def document(view: View) -> View:
        view._apidoc = decorator(view)._apidoc  # type: ignore[attr-defined]
        return view

    return document


def _with_json_body(
    schema: ma.Schema, documented: Callable[[View], View]
) -> Callable[[View], View]:
    """What webargs' use_args does for a JSON body, as one layer: the body loaded by the
    schema (with the schema's own `unknown`, as webargs leaves it for JSON; an empty body
    as {}) goes to the view after its positional arguments."""

    def parse_body_first(view: View) -> View:
        @functools.wraps(view)
        def with_body(*args: Any, **view_args: Any) -> Any:
            data = read_json_body(request)
            try:
                body = schema.load({} if data is core.missing else data)
            except ma.ValidationError as error:
                # Under the location's name, as webargs reports it: the same 400 document.
                raise validation_problem(validation_errors({"json": error.messages})) from None
            return view(*args, body, **view_args)

        with_body._apidoc = documented(view)._apidoc  # type: ignore[attr-defined]
        return with_body

    return parse_body_first


class Api(flask_smorest.Api):
    """flask-smorest's Api with RFC 9457 problems as the documented and actual error shape."""

    ERROR_SCHEMA = ProblemSchema

    def _register_responses(self) -> None:
        for status in http.HTTPStatus:
            if status < 400:
                continue
            response = {"description": status.phrase, "schema": self.ERROR_SCHEMA}
            prepare_response(response, self.spec, PROBLEM_CONTENT_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Problem document (RFC 9457)", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_CONTENT_TYPE)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, response, lazy=True)
        self.spec.components.security_scheme(
            SECURITY_SCHEME,
            {"type": "http", "scheme": "bearer", "description": "an API key: Bearer <key>"},
        )

    def handle_http_exception(self, error: Any) -> Any:
        return from_http_exception(error)


@dataclass(frozen=True)
class Resources:
    """Everything create_app wired, reachable from any view through `resources()`."""

    config: Config
    pool: ConnectionPool | None
    store: EventStore | None
    keys: ApiKeys | None


def resources() -> Resources:
    return current_app.extensions["cardroom"]


def event_store() -> EventStore:
    store = resources().store
    if store is None:
        raise Problem(503, "database_unavailable", "no database is configured (DATABASE_URL)")
    return store
