"""Cursor paging for the lists (live.md): `?limit=` and an opaque `cursor`; the answer's
`next` is the URL of the following page (null at the end), and so is its `Link:
<...>; rel="next"` header (RFC 8288).

A cursor is the position to continue before, bound to the list and filters it was made
for, and signed with the deployment's chain key (an HMAC, so every app server accepts the
others' cursors): an edited cursor, or one carried to another list or other filters, is a
400 `invalid_cursor`, never a page of something else.
"""
from __future__ import annotations

import base64
import binascii
import hmac
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

import marshmallow as ma
from flask import request

from service.http.api import event_store
from service.http.problems import Problem

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
# A cursor's MAC shares the chain key with the log's MACs; version 0 never names an event
# (versions start at 1), so no cursor's MAC can pass for an event's, nor the reverse.
_CURSOR_STREAM = "cursor:"
_CURSOR_MAX_LENGTH = 400


class ListQuerySchema(ma.Schema):
    limit = ma.fields.Integer(load_default=DEFAULT_LIMIT, validate=ma.validate.Range(min=1, max=MAX_LIMIT),
                              metadata={"description": f"items per page (at most {MAX_LIMIT})"})
    cursor = ma.fields.String(load_default=None, validate=ma.validate.Length(min=1, max=_CURSOR_MAX_LENGTH),
                              metadata={"description": "the page to continue from: take it from `next`"})


class PagedSchema(ma.Schema):
    next = ma.fields.String(allow_none=True, required=True, metadata={
        "description": "the URL of the next page (null at the end); also the Link rel=\"next\" header"})


def _scope(filters: Mapping[str, Any]) -> str:
    """The list and the filters a cursor belongs to, in one canonical text."""
    shown = {name: value for name, value in filters.items() if value is not None}
    return request.path + "?" + json.dumps(shown, sort_keys=True, separators=(",", ":"))


def _mac(scope: str, payload: str) -> str:
    signer = event_store().signer  # type: ignore[attr-defined]
    return signer.sign(_CURSOR_STREAM + scope, 0, payload)[:32]


def encode_cursor(filters: Mapping[str, Any], position: int) -> str:
    payload = base64.urlsafe_b64encode(str(position).encode()).decode().rstrip("=")
    return f"{payload}.{_mac(_scope(filters), payload)}"


def decode_cursor(filters: Mapping[str, Any], cursor: str | None) -> int | None:
    """The position a cursor continues before (None without a cursor); 400 if it is not one
    this list made with these filters."""
    if cursor is None:
        return None
    payload, _, mac = cursor.partition(".")
    # Bytes: compare_digest refuses str with non-ASCII characters (a TypeError, a 500).
    if not mac or not hmac.compare_digest(_mac(_scope(filters), payload).encode(),
                                          mac.encode("utf-8", "surrogatepass")):
        raise _invalid_cursor()
    try:
        position = int(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode())
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise _invalid_cursor() from None
    return position


def _invalid_cursor() -> Problem:
    return Problem(400, "invalid_cursor",
                   "the cursor is not one this list gave for these filters: start again without it, "
                   "or follow `next` as given")


def next_url(query: Mapping[str, Any]) -> str:
    """This path with `query` (None values left out) as the next page's URL."""
    return request.path + "?" + urlencode({k: v for k, v in query.items() if v is not None})


def link_headers(next_page: str | None) -> dict[str, str]:
    return {"Link": f'<{next_page}>; rel="next"'} if next_page else {}
