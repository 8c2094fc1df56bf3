"""service.http.responses: the app's responses hand the WSGI server what Flask's would."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Response
from werkzeug.test import EnvironBuilder

from service.http.responses import CardroomResponse


def _chunks() -> Iterator[bytes]:
    yield b"data: 1\n\n"
    yield b"data: 2\n\n"


def _json(cls: type[Response]) -> Response:
    response = cls('{"a":1}\n', status=201, mimetype="application/json")
    response.headers["ETag"] = '"7.abc"'
    response.headers.add("Set-Cookie", "a=1")
    response.headers.add("set-cookie", "b=2")
    return response


RESPONSES: list[Callable[[type[Response]], Response]] = [
    _json,
    lambda cls: cls("moved", status=303, headers={"Location": "/v1/tables/t-\u00e9"}),
    lambda cls: cls("made", status=201, headers={"location": "https://example.test/x"}),
    lambda cls: cls("{}", headers={"Content-Location": "/v1/x y"}),
    lambda cls: cls(status=204, headers={"Content-Length": "0"}),
    lambda cls: cls("gone", status=304, headers={"ETag": '"3"', "Content-Type": "text/plain"}),
    lambda cls: cls(status=101),
    lambda cls: cls(_chunks(), mimetype="text/event-stream"),
    lambda cls: cls([b"a", b"bc"]),
    lambda cls: cls(b"raw", direct_passthrough=True),
    lambda cls: cls("", status=500),
    lambda cls: cls("x", headers={"Content-Length": "1", "X-Request-Id": "r\u00e9"}),
]


def _answered(response: Response, environ: dict[str, Any]) -> tuple[list[bytes], str, list[tuple[str, str]]]:
    app_iter, status, headers = response.get_wsgi_response(environ)
    return list(app_iter), status, headers


@pytest.mark.parametrize("method", ["GET", "HEAD", "POST"])
@pytest.mark.parametrize("made", RESPONSES)
def test_the_wsgi_answer_is_flasks(made: Callable[[type[Response]], Response], method: str) -> None:
    environ = EnvironBuilder(path="/v1/tables/t1/actions", method=method, base_url="http://127.0.0.1:8000").get_environ()
    mine, flasks = made(CardroomResponse), made(Response)
    assert _answered(mine, environ) == _answered(flasks, environ)
    assert mine.headers.to_wsgi_list() == flasks.headers.to_wsgi_list()  # its own headers left as they were
