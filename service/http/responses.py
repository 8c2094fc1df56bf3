"""The app's response class: Flask's, handing its headers to the WSGI server without
Werkzeug's copy of them when that copy would change nothing.

Werkzeug's `get_wsgi_headers` copies the headers (each one added and checked again, a
Python call per header, issue 37) so it can fix a copy for the environ: a relative
Location made absolute, a Content-Location made a URI, Content-Length dropped for a 1xx,
204 or 304 (and the entity headers for a 304), Content-Length set when it is missing and
the body is a sequence. An answer with none of those (its Content-Length set, as a body set
whole sets it; no Location, no Content-Location; another status) gets the very list the
copy would give, read from its own headers.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flask import Response

_REWRITTEN = frozenset(("location", "content-location"))


class CardroomResponse(Response):
    def get_wsgi_response(self, environ: dict[str, Any]) -> tuple[Iterable[bytes], str, list[tuple[str, str]]]:
        status = self.status_code
        if 100 <= status < 200 or status in (204, 304):
            return super().get_wsgi_response(environ)
        listed = self.headers.to_wsgi_list()
        names = {name.lower() for name, _ in listed}
        if "content-length" not in names or not _REWRITTEN.isdisjoint(names):
            return super().get_wsgi_response(environ)
        return self.get_app_iter(environ), self.status, listed
