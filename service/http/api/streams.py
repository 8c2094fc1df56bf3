"""Live feeds (live.md): `GET /v1/tables/{id}/stream` and `GET /v1/tournaments/{id}/stream`
as Server-Sent Events (service.http.streams), and the long-poll of `GET .../events?wait=`.

A stream starts after the client's version: `Last-Event-ID` (what a browser's EventSource
sends when it reconnects) or else `?after=` (default 0: the whole log). A table's events
are redacted for the caller exactly as `GET .../events` redacts them (service.application.views).
`?view=public` needs no key: the keyless view of the public screens (pages.md), which sees
what a spectator sees (no hidden card). A browser's EventSource sends no Authorization
header: without one, the pages' session cookie says who the caller is
(service.http.page_sessions), and the events are redacted for the signed-in caller.
"""
from __future__ import annotations

import re
from functools import partial
from typing import Any

import marshmallow as ma
from flask import Response, request

from service.application import commands, tournaments, views
from service.application.handling import UnreadableStream
from service.application.live_feeds import FeedSource, LiveFeed
from service.application.parts import Application
from service.application.sealing import REVEAL_CLOSED_HANDS
from service.http.api import Blueprint, application, resources
from service.http.page_sessions import stream_caller
from service.http.problems import Problem, validation_problem
from service.http.streams import ADOPT_STREAM, CONTENT_TYPE, HEADERS, EventStream

blp = Blueprint("streams", __name__, url_prefix="/v1", description="Live feeds (Server-Sent Events)")

MAX_WAIT_S = 60
"""The longest long-poll (`?wait=`): a client waits again rather than hold a thread longer."""
_LAST_EVENT_ID = re.compile(r"^\s*(\d{1,10})\s*$")


class StreamQuerySchema(ma.Schema):
    after = ma.fields.Integer(load_default=0, validate=ma.validate.Range(min=0, max=2**31 - 1),
                              metadata={"description": "start after this version (Last-Event-ID wins)"})
    view = ma.fields.String(load_default=None, validate=ma.validate.OneOf(["public"]),
                            metadata={"description": "`public`: the keyless view of the public screens"})


def wait_query_field() -> ma.fields.Integer:
    """`?wait=` of the events lists: the long-poll, in whole seconds."""
    return ma.fields.Integer(load_default=0, validate=ma.validate.Range(min=0, max=MAX_WAIT_S), metadata={
        "description": f"long-poll: wait up to this many seconds (at most {MAX_WAIT_S}) for an event "
                       "after `after` before answering (empty if none came)"})


def wait_for_events(stream_id: str, after: int, wait_s: int) -> None:
    """The long-poll, before an events list reads: returns as soon as the stream has an
    event after `after`, or after `wait_s` seconds."""
    if wait_s:
        live().wait_after(stream_id, after, wait_s)


def live() -> LiveFeed:
    feeds = resources().live
    if feeds is None:
        raise Problem(503, "database_unavailable", "no database is configured (DATABASE_URL)")
    return feeds


_STREAM_DOC = {
    "description": "Server-Sent Events: one message per event (`id:` its version, `event:` its "
                   "type, `data:` the event as the caller may see it), keep-alive comments, and "
                   "on tables `event: turn` with `version`, `to_act` and `legal` when the caller "
                   "is to act. Resume with `Last-Event-ID` or `?after=`.",
    "responses": {"200": {"description": "the stream", "content": {CONTENT_TYPE: {"schema": {"type": "string"}}}}},
    # A key (or the pages' session cookie), or none with `?view=public` (what a spectator sees).
    "security": [{"bearerAuth": []}, {}],
}


@blp.route("/tables/<string:table_id>/stream", methods=["GET"])
@blp.arguments(StreamQuerySchema(), location="query")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**_STREAM_DOC)
def table_stream(query: dict, table_id: str) -> Response:
    """The table's events live, redacted for the caller.

    A table this code cannot read answers `unreadable_stream` before the stream opens."""
    who = _viewer(query)
    stream_id = commands.table_stream(table_id)
    if commands.load_table(application(), table_id).state is None:
        raise Problem(404, "not_found", f"no table {table_id}")
    # Only a player is told their turn: only their stream needs the table's state.
    player = who.player_id is not None
    source = FeedSource(stream_id, partial(views.redact_records, viewer=who), who, REVEAL_CLOSED_HANDS,
                        follow=partial(_table_if_readable, application(), table_id) if player else None,
                        turn=partial(_turn, who) if player else None)
    return _served(source, query)


def _table_if_readable(app: Application, table_id: str) -> commands.LoadedTable | None:
    """The table for the `turn` messages; None (no turn told) once it cannot be read (a
    record this code cannot evolve appended after the stream opened): the events still go."""
    try:
        return commands.load_table(app, table_id)
    except UnreadableStream:
        return None


@blp.route("/tournaments/<string:tournament_id>/stream", methods=["GET"])
@blp.arguments(StreamQuerySchema(), location="query")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**_STREAM_DOC)
def tournament_stream(query: dict, tournament_id: str) -> Response:
    """The tournament's events live (they hold no hidden cards).

    A tournament this code cannot read answers `unreadable_stream`, as its other reads do."""
    _viewer(query)
    stream_id = tournaments.stream_id(tournament_id)
    if tournaments.load_tournament(application(), tournament_id).version == 0:
        raise Problem(404, "not_found", f"no tournament {tournament_id}")
    return _served(FeedSource(stream_id, views.tournament_records, "anyone"), query)


def _viewer(query: dict) -> views.Viewer:
    if query["view"] == "public":
        return views.Viewer("public")
    principal = stream_caller()
    return views.Viewer(principal.role, principal.player_id)


def _turn(who: views.Viewer, loaded: commands.LoadedTable | None, version: int) -> dict[str, Any] | None:
    """The caller's turn at `version` (the version just sent), if it is theirs."""
    if loaded is None or loaded.state is None or loaded.version != version:
        return None
    shown = views.legal_actions_view(loaded.state, who)
    if shown["to_act"] != who.player_id:
        return None
    return {"version": version, **shown}


def _served(source: FeedSource, query: dict) -> Response:
    stream = EventStream(live(), source, _start_after(query))
    adopt = request.environ.get(ADOPT_STREAM)
    # An iterator, never a list: Werkzeug gives a list body a Content-Length, and a client
    # (curl, a browser's EventSource) then stops reading after the backlog.
    body = iter([stream.open(adopt(stream))]) if adopt is not None else stream.in_thread()
    return Response(body, 200, mimetype=CONTENT_TYPE, headers=HEADERS)


def _start_after(query: dict) -> int:
    header = request.headers.get("Last-Event-ID")
    if header is None:
        return query["after"]
    match = _LAST_EVENT_ID.match(header)
    if match is None or int(match.group(1)) > 2**31 - 1:
        raise validation_problem([{"location": "headers", "field": "Last-Event-ID",
                                   "messages": ["the version of the last event received, a whole number"]}])
    return int(match.group(1))
