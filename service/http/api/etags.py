"""Strong ETags per representation (live.md) and `If-None-Match` -> 304.

A stream's read is tagged `"N"` (its version) when the caller sees it whole (admin, floor)
and `"N.<view>"` when redacted for them, `<view>` a short digest of the role and player:
the same version redacted for two viewers is two ETags, and `If-Match` still reads the
version before the dot. A representation that also depends on something other than the
version and the viewer (a tournament's running clock, a list) is tagged by a digest of
its body instead. Every tagged answer says `Vary: Authorization`.
"""
from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from flask import Response, current_app, request

from service.application.views import Viewer

VARY = {"Vary": "Authorization"}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def version_tag(version: int, who: Viewer | None) -> str:
    """The ETag of a stream's representation at `version` for `who` (None: one for all)."""
    if who is None or who.sees_everything:
        return f'"{version}"'
    view = _digest(f"{who.role}:{who.player_id or ''}")
    return f'"{version}.{view}"'


def body_tag(body: Any, version: int | None = None) -> str:
    """The ETag of a representation by its content (and the stream version, when it has one)."""
    digest = _digest(json.dumps(body, sort_keys=True, separators=(",", ":"), default=str))
    return f'"{digest}"' if version is None else f'"{version}.{digest}"'


def tagged(etag: str, headers: dict[str, str] | None = None) -> dict[str, str]:
    return {**(headers or {}), "ETag": etag, **VARY}


def unchanged(etag: str) -> bool:
    """The request's If-None-Match names this ETag (or is `*`); weak ones compare too
    (RFC 9110 13.1.2: If-None-Match uses the weak comparison)."""
    header = request.headers.get("If-None-Match")
    if not header:
        return False
    wanted = {tag.strip().removeprefix("W/") for tag in header.split(",")}
    return "*" in wanted or etag in wanted


def not_modified(etag: str, headers: dict[str, str] | None = None) -> Response:
    response = current_app.response_class(status=304)
    response.headers.update(tagged(etag, headers))
    return response


def conditional(view: Any) -> Any:
    """Under `@blp.route`: the view's answer gets `Vary: Authorization`, and becomes a 304
    without a body when the request's If-None-Match names its ETag."""

    @functools.wraps(view)
    def answered(*args: Any, **kwargs: Any) -> Any:
        response = current_app.make_response(view(*args, **kwargs))
        etag = response.headers.get("ETag")
        if etag is None:
            return response
        response.headers.update(VARY)
        if response.status_code == 200 and unchanged(etag):
            return not_modified(etag)
        return response

    return answered
