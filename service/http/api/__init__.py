"""What every blueprint builds on: the request parser, the Blueprint and Api classes, and
access to the app's wired resources (the event store, the key table).

Blueprints use `service.http.api.Blueprint` (not flask_smorest's) so that request bodies get the
house rules: JSON only (415 otherwise), no NUL characters or lone surrogates, no nesting
deeper than MAX_JSON_DEPTH, and 400 for invalid input.
"""
from __future__ import annotations

import functools
import http
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import flask_smorest
import marshmallow as ma
from flask import Flask, Request, current_app, request
from flask_smorest.utils import prepare_response
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request

from service.config import Config
from service.http.api.schemas import ProblemSchema
from service.http.problems import PROBLEM_CONTENT_TYPE, Problem, from_http_exception, validation_errors, validation_problem

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from service.application.api_keys import ApiKeys
    from service.application.event_log import EventStore
    from service.application.live_feeds import LiveFeed
    from service.application.page_sessions import PageSessions
    from service.application.parts import Application
    from service.application.public_log import PublicLog
    from service.application.refused_rows import RefusedRows

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
    the house rules: a body of another media type is a 415; NUL characters, lone surrogates
    and nesting deeper than MAX_JSON_DEPTH are a 400 naming the field (`unstorable_values`);
    a key twice in one object is a 400 `duplicate_key` naming it."""
    # The plain JSON type as clients send it, decided without webargs' parse of the header
    # (issue 37): the same verdict, application/json.
    if req.environ.get("CONTENT_TYPE") != "application/json" and not is_json_request(req):
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
        # Strict UTF-8 (as webargs decodes; json.loads would also guess UTF-16 and -32), and
        # standard JSON: no NaN or Infinity, which json.loads takes by default.
        data = _load_body(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise _body_problem("Invalid JSON body.") from None
    except RecursionError:
        raise _body_problem(NESTED_TOO_DEEPLY) from None
    except ValueError as error:  # our constant, or an integer of more than 4,300 digits
        raise _body_problem(_NUMBER_REFUSED if "digits" in str(error) else str(error)) from None
    errors = unstorable_values(data)
    if errors:
        raise validation_problem(
            [{"location": "json", "field": path, "messages": [message]} for path, message in errors]
        )
    return data


_NUMBER_REFUSED = "A number has too many digits."


def _load_body(text: str) -> Any:
    """json.loads(text) with the house's hooks, by one decoder built for them (json.loads
    builds a new one per call when given hooks)."""
    if text.startswith("\ufeff"):  # as json.loads refuses it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return _BODY_DECODER.decode(text)


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when a key comes twice: json.loads keeps the last, while a
    proxy or validator in front of us may read the first (`{"role": "spectator", "role":
    "admin"}`), so the body means different things to each."""
    found = dict(pairs)
    if len(found) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                shown = _escaped(key)
                raise Problem(400, "duplicate_key",
                              f"the key \"{shown}\" appears more than once in one object of the "
                              "body: send each key once", numbers={"key": shown})
            seen.add(key)
    return found


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number.")


_BODY_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, object_pairs_hook=_object_without_duplicates)


def _body_problem(message: str) -> Problem:
    return validation_problem([{"location": "json", "field": "", "messages": [message]}])


def refuse_nul_in_url() -> None:
    """before_request hook: path parameters and query strings end up in SQL parameters too.
    Checked on the raw query string: a NUL can only get there as %00 (or a raw NUL byte),
    and parsing the arguments here would cost every request."""
    served = request._get_current_object()  # type: ignore[attr-defined]  # one proxy lookup
    query = served.query_string
    if "\x00" in served.path or b"\x00" in query or b"%00" in query:
        raise validation_problem(
            [{"location": "url", "field": "", "messages": ["NUL characters are not allowed."]}]
        )


IDEMPOTENCY_KEY_MAX_LENGTH = 200


def request_idempotency_key(served: Request) -> str | None:
    """The request's `Idempotency-Key` header (every write accepts one), validated."""
    key = served.environ.get("HTTP_IDEMPOTENCY_KEY")  # as headers.get reads it, without translating the name
    # An empty key is refused, not taken for no key: its sender would count on retries
    # being answered once and get a second write instead.
    if key is not None and (not key or len(key) > IDEMPOTENCY_KEY_MAX_LENGTH or "\x00" in key):
        raise validation_problem(
            [
                {
                    "location": "headers",
                    "field": "Idempotency-Key",
                    "messages": [f"1 to {IDEMPOTENCY_KEY_MAX_LENGTH} characters, no NUL."],
                }
            ]
        )
    return key


# Bodies are commands and settings a few levels deep; deeper nesting only costs recursion.
MAX_JSON_DEPTH = 32
NESTED_TOO_DEEPLY = "The JSON is nested too deeply."
_SURROGATE = re.compile("[\ud800-\udfff]")


def unstorable_values(value: Any) -> list[tuple[str, str]]:
    """(dotted path, message) for each part of a decoded JSON (or TOML) value that nothing
    downstream should see: NUL characters and lone UTF-16 surrogates (JSON's "\\ud800"
    decodes to one; PostgreSQL and UTF-8 cannot hold either), and nesting deeper than
    MAX_JSON_DEPTH. Keys count as strings. One walk; the usual body is a few dozen values."""
    found: list[tuple[str, str]] = []
    _walk(value, (), found)
    return found


def _walk(value: Any, path: tuple[str, ...], found: list[tuple[str, str]]) -> None:
    if isinstance(value, str):
        _check_text(value, path, found)
        return
    if not isinstance(value, (dict, list)):
        return
    if len(path) >= MAX_JSON_DEPTH:
        found.append((".".join(path), NESTED_TOO_DEEPLY))
        return
    if isinstance(value, dict):
        for key, item in value.items():
            shown = _escaped(key)
            _check_text(key, (*path, shown), found)
            _walk(item, (*path, shown), found)
    else:
        for index, item in enumerate(value):
            _walk(item, (*path, str(index)), found)


def _escaped(key: str) -> str:
    """A key as a path may show it: NUL and surrogates written as JSON escapes."""
    if key.isascii() and "\x00" not in key:
        return key
    return re.sub("[\x00\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", key)


def _check_text(text: str, path: tuple[str, ...], found: list[tuple[str, str]]) -> None:
    if text.isascii():
        if "\x00" in text:
            found.append((".".join(path), "NUL characters are not allowed."))
    elif _SURROGATE.search(text):
        found.append((".".join(path), "Lone surrogate characters (\\ud800-\\udfff) are not allowed."))
    elif "\x00" in text:
        found.append((".".join(path), "NUL characters are not allowed."))


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
    # A schema's `quick_load(data)`, where it has one: the body `load` would give, for the
    # bodies it knows to be valid; None sends the body to `load`.
    quick_load = getattr(schema, "quick_load", None)

    def parse_body_first(view: View) -> View:
        @functools.wraps(view)
        def with_body(*args: Any, **view_args: Any) -> Any:
            data = read_json_body(request._get_current_object())  # type: ignore[attr-defined]
            body = quick_load(data) if quick_load is not None else None
            if body is None:
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
    """Everything create_app wired (service.wiring builds the parts), reachable from any
    view through `resources()`."""

    config: Config
    pool: ConnectionPool | None
    store: EventStore | None
    keys: ApiKeys | None
    application: Application | None = None
    """The one application layer over `store` (service.application.application)."""
    broker_client: Any = None
    """The Redis client /healthz asks about a Redis broker (service.http.api.health)."""
    live: LiveFeed | None = None
    """This process's live feeds (service.application.live_feeds), for streams and
    long-polls."""
    sessions: PageSessions | None = None
    """The pages' sign-in sessions (service.application.page_sessions)."""
    refused_rows: RefusedRows | None = None
    """The key, revocation, session, idempotency and tracking rows whose MAC fails
    (service.application.refused_rows), for /v1/status."""
    public_log: PublicLog | None = None
    """What the public log's endpoints read (service.application.public_log)."""
    data_key_ids: tuple[str, ...] = ()
    """The ids of this process's data keys (service.adapters.store.cipher): the one that
    seals first, then the retired ones, for /v1/status."""


def resources() -> Resources:
    # The app itself: `extensions` read through the proxy would miss on the proxy first
    # (an AttributeError raised and formatted on every call, issue 37).
    return app_resources(current_app._get_current_object())  # type: ignore[attr-defined]


def app_resources(app: Flask) -> Resources:
    """`resources()` of an app the caller already holds (no lookup of `current_app`)."""
    return app.extensions["cardroom"]


def event_store() -> EventStore:
    store = resources().store
    if store is None:
        raise _no_database()
    return store


def application() -> Application:
    """Where every command goes: the application create_app wired over the store."""
    wired = resources().application
    if wired is None:
        raise _no_database()
    return wired


def _no_database() -> Problem:
    return Problem(503, "database_unavailable", "no database is configured (DATABASE_URL)")
