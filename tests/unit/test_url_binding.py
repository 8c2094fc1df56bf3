"""CardroomFlask.create_url_adapter binds once per host: the adapter, the request's host and
what matching gives (the route, 404, 405, the trailing-slash redirect, a bad host's 400)
must be Flask's own, for a first request to a host and for the next ones; so must a
remembered match (its route and arguments, or the 404, 405 or redirect)."""
from __future__ import annotations

import io
import itertools
import sys
from typing import Any

import pytest
from flask import Flask
from flask.ctx import RequestContext

from service.bootstrap import create_app
from service.config import Config

HOSTS = ["127.0.0.1:8000", "Example.COM", "bücher.de:80", None, "bad host!", "[::1]:8000", "x.org:443",
         "a..b", "x" * 70 + ".com"]
PATHS = ["/v1/tables/abc/actions", "/v1/tables/abc/actions/", "", None, "/v1//tables/abc", "/nope",
         "/v1/tables", "/openapi.json", "/v1/t\xc3\xa4bles/\xc3\xa4"]


@pytest.fixture(scope="module")
def app() -> Flask:
    return create_app(Config())


def _environ(host: str | None, path: str | None, method: str, query: str | None, script: str | None,
             scheme: str, upgrade: bool) -> dict[str, Any]:
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method, "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "wsgi.url_scheme": scheme,
        "wsgi.input": io.BytesIO(b""), "wsgi.errors": sys.stderr,
        "HTTP_HOST": host, "PATH_INFO": path, "QUERY_STRING": query, "SCRIPT_NAME": script,
        "HTTP_CONNECTION": "Upgrade" if upgrade else None, "HTTP_UPGRADE": "websocket" if upgrade else None,
    }
    return {name: value for name, value in environ.items() if value is not None}


def _outcome(app: Flask, environ: dict[str, Any], adapter_of: Any) -> tuple[Any, ...]:
    request = app.request_class(environ)
    try:
        adapter = adapter_of(app, request)
    except Exception as error:  # noqa: BLE001 - the refusal is part of the outcome
        return ("refused", type(error).__name__)
    try:
        rule, arguments = adapter.match(return_rule=True)
        matched: tuple[Any, ...] = (rule.rule, arguments)
    except Exception as error:  # noqa: BLE001 - so is the routing's exception
        matched = (type(error).__name__, getattr(error, "new_url", None), getattr(error, "valid_methods", None))
    return vars(adapter), matched, request.host


def test_the_adapter_and_its_matches_are_flasks(app: Flask) -> None:
    for host, path, method, query, script, scheme, upgrade in itertools.product(
            HOSTS, PATHS, ["POST", "GET", "OPTIONS"], ["", "a=1", None], ["", "/app", None], ["http", "https"],
            [False, True]):
        environ = _environ(host, path, method, query, script, scheme, upgrade)
        flasks = _outcome(app, environ, Flask.create_url_adapter)
        for _ in range(2):  # the first request to this host binds it; the second reuses the binding
            assert _outcome(app, environ, type(app).create_url_adapter) == flasks, environ


def _matched(context: RequestContext) -> tuple[Any, ...]:
    if context.url_adapter is not None:  # as Flask's push
        context.match_request()
    served = context.request
    return served.url_rule, served.view_args, repr(served.routing_exception)


def test_a_remembered_match_is_werkzeugs(app: Flask) -> None:
    for host, path, method in itertools.product(HOSTS, PATHS, ["POST", "GET", "OPTIONS"]):
        environ = _environ(host, path, method, "a=1", "", "http", False)
        werkzeugs = _matched(RequestContext(app, environ))
        for _ in range(2):  # the first request on this path matches it; the second is remembered
            context = app.request_context(environ)
            assert _matched(context) == werkzeugs, environ
            if context.request.view_args is not None:  # its own arguments, not the remembered ones
                context.request.view_args["table_id"] = "changed"
