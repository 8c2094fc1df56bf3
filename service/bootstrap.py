"""The web process's entry point: create_app() builds the Flask app, its blueprints and
hooks, over the parts service.wiring builds once (the store, the caches: one `Streams` per
kind of stream, inside the Application; the key and session tables, the live feeds, the
scheduler), kept in `app.extensions["cardroom"]`. A Celery worker is wired by
service.wiring alone (workers.celery_app), and never loads this module or Flask."""
from __future__ import annotations

import sys
from collections.abc import Callable
from itertools import chain
from typing import Any, cast

from flask import Flask, Response
from flask.ctx import RequestContext
from flask.globals import _cv_request
from flask.signals import request_tearing_down
from flask.typing import ResponseReturnValue
from flask.wrappers import Request
from werkzeug._internal import _wsgi_decoding_dance
from werkzeug.routing import MapAdapter, Rule

from service import wiring
from service.application.scheduling import Scheduler
from service.config import Config
from service.http import docs, metrics, rate_limits, request_log
from service.http.api import (
    Api,
    Resources,
    cash_tables,
    floor_rulings,
    hand_histories,
    hands,
    health,
    keys,
    lists,
    operations,
    players,
    ratings,
    receipts,
    refuse_nul_in_url,
    rulings,
    series,
    streams,
    tables,
    tournaments,
)
from service.http.api import public_log as public_log_api
from service.http.json_provider import OnceBuiltJSONProvider
from service.http.pages.frame import pages
from service.http.problems import register_problem_handlers
from service.http.responses import CardroomResponse

API_VERSION = "1.0.0"
OPENAPI_VERSION = "3.1.0"
MAX_BODY_BYTES = 1024 * 1024
_NOT_GIVEN: Any = object()
BOUND_HOSTS_KEPT = 64
"""Hosts whose URL binding a process keeps (CardroomFlask.create_url_adapter)."""
MATCHES_KEPT = 4096
"""Paths whose route a process keeps (_RememberedMatches): a few per table in play."""


class _RememberedMatches(RequestContext):
    def match_request(self) -> None:
        """Flask's, with each path's route remembered: Werkzeug's matcher walks the path a
        part at a time in Python (a recursion per part, issue 37), and gives the same route
        and arguments each time for the same host, method and path (the URL map is fixed
        once serving starts: Flask refuses new rules then). Only matches are remembered: a
        404, 405 or redirect is Werkzeug's each time. Each request gets its own arguments."""
        adapter, served = self.url_adapter, self.request
        assert adapter is not None  # Flask matches only a bound request
        remembered = cast(CardroomFlask, self.app)._matches
        path = (adapter.server_name, adapter.subdomain, adapter.websocket, adapter.default_method, adapter.path_info)
        known = remembered.get(path)
        if known is None:
            super().match_request()
            if served.routing_exception is None and served.view_args is not None:
                if len(remembered) >= MATCHES_KEPT:  # the path is the client's
                    remembered.clear()
                remembered[path] = (served.url_rule, dict(served.view_args))
            return
        served.url_rule, arguments = known
        served.view_args = dict(arguments)


class CardroomFlask(Flask):
    json_provider_class = OnceBuiltJSONProvider
    response_class = CardroomResponse

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._bound_hosts: dict[tuple[Any, ...], tuple[str, MapAdapter]] = {}
        self._matches: dict[tuple[Any, ...], tuple[Rule | None, dict[str, Any]]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """Every view here is synchronous. Flask's own check inspects the function on every
        call, and flask-smorest calls it once per decorator layer of every request."""
        return func

    def request_context(self, environ: dict[str, Any]) -> RequestContext:
        """Flask's, with the request's body limit (MAX_CONTENT_LENGTH) given to the request
        as it is made: unset, the request reads it from `current_app.config` at each use
        (twice as a body is read), each read through the proxy a missed lookup first (an
        AttributeError raised and formatted, issue 37). The same limit, read once. A request
        context that remembers matches (_RememberedMatches)."""
        context = _RememberedMatches(self, environ)
        context.request.max_content_length = self.config["MAX_CONTENT_LENGTH"]
        return context

    def create_url_adapter(self, request: Request | None) -> MapAdapter | None:
        """Flask's, with Werkzeug's binding to the request's host done once per host: it
        checks the host (twice), lower-cases it and IDNA-encodes it in Python (a third of a
        request's routing, issue 37), the same for every request to that host. The adapter
        Flask would make, copied from the first one made for the same host, scheme and script
        name (every input of the binding but the path, the method and the query, set here as
        Werkzeug sets them). Flask's own way when a setting makes the binding depend on more."""
        config = self.config
        if (request is None or config["TRUSTED_HOSTS"] is not None or config["SERVER_NAME"] is not None
                or self.url_map.host_matching or self.subdomain_matching):
            return super().create_url_adapter(request)
        environ = request.environ
        binding = (environ.get("HTTP_HOST"), environ.get("SERVER_NAME"), environ.get("SERVER_PORT"),
                   environ["wsgi.url_scheme"], environ.get("HTTP_CONNECTION"), environ.get("HTTP_UPGRADE"),
                   environ.get("SCRIPT_NAME"))
        bound = self._bound_hosts.get(binding)
        if bound is None:
            made = super().create_url_adapter(request)  # an unusable host raises here, each time
            assert made is not None  # with a request, Flask always binds
            if len(self._bound_hosts) >= BOUND_HOSTS_KEPT:  # the Host header is the client's
                self._bound_hosts.clear()
            self._bound_hosts[binding] = (request.host, made)
            return made
        request.host, template = bound
        adapter = MapAdapter.__new__(MapAdapter)
        adapter.__dict__.update(template.__dict__)
        path_info, query = environ.get("PATH_INFO"), environ.get("QUERY_STRING")
        adapter.path_info = "/" if path_info is None else _wsgi_decoding_dance(path_info)
        adapter.default_method = environ["REQUEST_METHOD"]
        adapter.query_args = None if query is None else _wsgi_decoding_dance(query)
        return adapter

    # Flask's own steps of a request below, the same hooks in the same order with the same
    # arguments, but reading the request context once, from Flask's context variable: Flask's
    # read it through the `request` and `request_ctx` proxies at each use, each a proxy
    # lookup that misses on the proxy first (an AttributeError raised and formatted, issue 37).

    def dispatch_request(self) -> ResponseReturnValue:
        served = _cv_request.get().request
        if served.routing_exception is not None:
            self.raise_routing_exception(served)
        rule = served.url_rule
        if getattr(rule, "provide_automatic_options", False) and served.method == "OPTIONS":
            return self.make_default_options_response()
        return self.ensure_sync(self.view_functions[rule.endpoint])(**served.view_args)  # type: ignore[union-attr, arg-type, no-any-return]

    def preprocess_request(self) -> ResponseReturnValue | None:
        served = _cv_request.get().request
        names = (None, *reversed(served.blueprints))
        for name in names:
            for url_func in self.url_value_preprocessors.get(name, ()):
                url_func(served.endpoint, served.view_args)
        for name in names:
            for before_func in self.before_request_funcs.get(name, ()):
                answer = self.ensure_sync(before_func)()
                if answer is not None:
                    return answer  # type: ignore[no-any-return]
        return None

    def process_response(self, response: Response) -> Response:
        context = _cv_request.get()
        for func in context._after_request_functions:
            response = self.ensure_sync(func)(response)
        for name in chain(context.request.blueprints, (None,)):
            for func in reversed(self.after_request_funcs.get(name, ())):
                response = self.ensure_sync(func)(response)
        if not self.session_interface.is_null_session(context._session):
            self.session_interface.save_session(self, context._session, response)  # type: ignore[arg-type]
        return response

    def do_teardown_request(self, exc: BaseException | None = _NOT_GIVEN) -> None:
        if exc is _NOT_GIVEN:  # as Flask's: the exception being handled
            exc = sys.exc_info()[1]
        for name in chain(_cv_request.get().request.blueprints, (None,)):
            for func in reversed(self.teardown_request_funcs.get(name, ())):
                self.ensure_sync(func)(exc)
        request_tearing_down.send(self, _async_wrapper=self.ensure_sync, exc=exc)


def create_app(config: Config | None = None, scheduler: Scheduler | None = None) -> Flask:
    """`scheduler`: what the application schedules on (default: the Celery broker of the
    configuration, or nothing without one)."""
    config = config or Config.from_env()
    app = CardroomFlask("cardroom")
    app.config.update(
        API_TITLE="Cardroom",
        API_VERSION=API_VERSION,
        OPENAPI_VERSION=OPENAPI_VERSION,
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        # Keep the JSON key order of our payloads as written (problem documents read
        # type, title, status, code, detail).
        JSON_SORT_KEYS=False,
        # Bodies are commands and single hand histories: far below this. Larger is a 413.
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
    )
    app.json.sort_keys = False
    docs.install(app)

    parts = wiring.web_parts(config, scheduler) if config.database_url else None
    app.extensions["cardroom"] = Resources(
        config=config,
        broker_client=health.broker_client(config.broker_url, config.broker_master_name),
        # Without a database (no DATABASE_URL) the views that need one answer 503.
        **(vars(parts) if parts else {"pool": None, "store": None, "keys": None}),
    )

    api = Api(
        app,
        spec_kwargs={
            "info": {
                "description": "Event-sourced poker rules adjudication and tournaments. "
                "Errors are RFC 9457 problem documents with a stable `code`."
            }
        },
    )
    for blueprint in (health.blp, players.blp, keys.blp, rulings.blp, hand_histories.blp,
                      tables.blp, hands.blp, tournaments.blp, ratings.blp, receipts.blp,
                      lists.blp, cash_tables.blp, streams.blp, operations.blp, public_log_api.blp, series.blp,
                      floor_rulings.blp):
        api.register_blueprint(blueprint)
    app.register_blueprint(pages)
    register_problem_handlers(app)
    app.before_request(refuse_nul_in_url)
    request_log.install(app)
    metrics.install(app)
    rate_limits.install(app, config)
    return app
