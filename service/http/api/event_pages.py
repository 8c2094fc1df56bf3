"""A table's event log a page at a time (live.md): `after` and `limit` (default 500, at
most 5,000); `next` is the following page's URL, null once a page reaches the head, and
also the `Link: <...>; rel="next"` header."""
from __future__ import annotations

from typing import Any

import marshmallow as ma

from service.application import views
from service.application.sealing import REVEAL_CLOSED_HANDS
from service.http.api import event_store
from service.http.api.etags import not_modified, tagged, unchanged, version_tag
from service.http.api.paging import link_headers, next_url
from service.http.api.streams import wait_query_field
from service.http.problems import Problem

DEFAULT_EVENTS = 500
MAX_EVENTS = 5000


class EventSchema(ma.Schema):
    version = ma.fields.Integer(required=True)
    type = ma.fields.String(required=True)
    data = ma.fields.Dict(required=True, metadata={"description": (
        "the event's fields. `seat` is always the table seat; a hand event names the player's "
        "place in the hand `position` beside it (also `target_position`, `button_position`, "
        "`eligible_positions`, `winner_positions`); HandEnded and HandClosed list `stacks` as "
        "{seat, player_id, stack, points} (HandEnded with `position` too)")})
    hand_id = ma.fields.String()
    recorded_at = ma.fields.String()


class EventsSchema(ma.Schema):
    events = ma.fields.List(ma.fields.Nested(EventSchema), required=True)
    next = ma.fields.String(allow_none=True, required=True, metadata={
        "description": "the next page's URL (null when this page reaches the newest event)"})


class EventsQuerySchema(ma.Schema):
    after = ma.fields.Integer(load_default=0, validate=ma.validate.Range(min=0, max=2**31 - 1))
    limit = ma.fields.Integer(load_default=DEFAULT_EVENTS, validate=ma.validate.Range(min=1, max=MAX_EVENTS),
                              metadata={"description": f"events per page (at most {MAX_EVENTS})"})
    wait = wait_query_field()


def events_page(stream: str, query: dict[str, Any], who: views.Viewer, missing: str) -> Any:
    """The page of `stream` after `query["after"]`, redacted for `who`, tagged by the
    stream's head (read first: the page is never older than its tag, so a 304 never hides
    a later reveal)."""
    store = event_store()
    head = store.stream_version(stream)
    if head == 0:
        raise Problem(404, "not_found", missing)
    etag = version_tag(head, who)
    if unchanged(etag):
        return not_modified(etag)
    after, limit = query["after"], query["limit"]
    end = min(after + limit, head)
    # One read gives the events and, in the same snapshot, whether each one's hand is
    # closed: only then are its sealed secrets revealed.
    records = store.read_stream(stream, after_version=after, up_to_version=end,
                                reveal=REVEAL_CLOSED_HANDS) if end > after else []
    following = next_url({"after": end, "limit": limit}) if end < head else None
    body = {"events": views.redact_records(records, who), "next": following}
    return body, 200, tagged(etag, link_headers(following))
