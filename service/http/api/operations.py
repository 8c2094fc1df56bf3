"""What an operator asks of a running service (the `cardroom` command line uses these):
`GET /v1/streams`, every stream's id (to verify them all), and `GET /v1/status`: the
health, the queue depth, the open action clocks past their deadline, the tournaments
that have not finished, the tournaments and open tables this code cannot read, and the
streams whose log failed its integrity check, and the key, revocation, session,
idempotency and tracking rows refused because their MAC fails."""
from __future__ import annotations

import time
from typing import Any

import marshmallow as ma

from domain.tournaments import tournament
from service.application import clock_deadlines, commands, listings, tournaments
from service.application.handling import IntegrityFailure, UnreadableStream
from service.http.api import Blueprint, application, event_store, resources
from service.http.api.health import HealthSchema, broker_state, database_check, overall, queue_depth
from service.http.auth import require
from service.http.metrics import CELERY_QUEUE

blp = Blueprint("operations", __name__, url_prefix="/v1",
                description="For operators: every stream, and what runs now")

STREAMS_PAGE = 1000
CLOCKS_COUNTED = 10_000
# An open clock this far past its deadline is one the workers have not acted on: the
# sweep acts within about a second (workers.clock_tasks).
OVERDUE_AFTER_MS = 5000
UNREADABLE_KINDS = ("tournament", "table")
FAILING_KINDS = (*UNREADABLE_KINDS, "stream")


# Stream ids hold no control characters (a URL may not carry NUL at all).
_STREAM_ID_TEXT = ma.validate.Regexp(r"^[^\x00-\x1f\x7f]*$", error="no control characters")


class StreamsQuerySchema(ma.Schema):
    prefix = ma.fields.String(load_default="", validate=[ma.validate.Length(max=200), _STREAM_ID_TEXT])
    after = ma.fields.String(load_default="", validate=[ma.validate.Length(max=300), _STREAM_ID_TEXT],
                             metadata={"description": "the last id of the previous page"})


class StreamsSchema(ma.Schema):
    streams = ma.fields.List(ma.fields.String(), required=True)
    next = ma.fields.String(allow_none=True, required=True,
                            metadata={"description": "pass as `after` for the next page; null: no more"})


@blp.route("/streams", methods=["GET"])
@require("admin")
@blp.arguments(StreamsQuerySchema, location="query", as_kwargs=True)
@blp.response(200, StreamsSchema)
def list_streams(prefix: str, after: str) -> dict[str, Any]:
    """Every stream's id starting with `prefix`, in order, a page at a time (admin only):
    those of the log, and those the listings or the signed public log know (a stream whose
    events were removed is listed, so that `verify` reports it)."""
    store, pool, public = event_store(), resources().pool, resources().public_log
    known = {*store.list_streams(prefix), *(public.streams(prefix) if public is not None else ()),
             *(listings.listed_streams(pool, prefix) if pool is not None else ())}
    ids = sorted(s for s in known if s > after)
    page = ids[:STREAMS_PAGE]
    return {"streams": page, "next": page[-1] if len(ids) > STREAMS_PAGE else None}


class TournamentRunningSchema(ma.Schema):
    id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    status = ma.fields.String(required=True)
    players_left = ma.fields.Integer(required=True)
    level = ma.fields.Integer(allow_none=True, required=True)


class UnreadableStreamSchema(ma.Schema):
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(UNREADABLE_KINDS),
                            metadata={"description": ", ".join(UNREADABLE_KINDS)})
    id = ma.fields.String(required=True, metadata={"description": "the tournament's or the table's id"})
    version = ma.fields.Integer(allow_none=True, required=True, metadata={"description": "the event refused"})
    reason = ma.fields.String(required=True)


class IntegrityFailureSchema(UnreadableStreamSchema):
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(FAILING_KINDS),
                            metadata={"description": ", ".join(FAILING_KINDS) + " (any other stream)"})
    id = ma.fields.String(required=True, metadata={
        "description": "the tournament's or the table's id; the stream's for kind stream"})
    version = ma.fields.Integer(required=True, metadata={"description": "the first event that fails"})


class RefusedRowSchema(ma.Schema):
    table = ma.fields.String(required=True, metadata={
        "description": "api_keys, key_revocations, page_sessions, idempotency_records or process_trackings"})
    row = ma.fields.String(required=True, metadata={"description": "which row (never a secret)"})


class WitnessStatusSchema(ma.Schema):
    key = ma.fields.String(required=True, metadata={"description": "the witness's verifier key"})
    last_cosigned_s_ago = ma.fields.Float(allow_none=True, required=True,
                                          metadata={"description": "seconds since its newest cosignature (null: never)"})


class PublicLogStatusSchema(ma.Schema):
    backlog = ma.fields.Integer(required=True, metadata={
        "description": "events of the global log the integrator has not read yet (counted up to 100,000)"})
    tree_size = ma.fields.Integer(required=True)
    checkpoint_size = ma.fields.Integer(allow_none=True, required=True,
                                        metadata={"description": "the newest signed checkpoint's (null: none yet)"})
    witnesses = ma.fields.List(ma.fields.Nested(WitnessStatusSchema), required=True)


class DataKeysSchema(ma.Schema):
    sealing = ma.fields.String(required=True, metadata={
        "description": "the id of the data key new secrets are sealed under (README, \"Rotating the data key\")"})
    retired = ma.fields.List(ma.fields.String(), required=True, metadata={
        "description": "the ids of the retired keys this process opens old secrets with; a secret sealed "
                       "under a key in neither is refused (integrity_failure naming its id). Which keys the "
                       "stored secrets use: `cardroom data-key list` (a scan of the log)"})


class StatusSchema(HealthSchema):
    queue_depth = ma.fields.Integer(allow_none=True, required=True,
                                    metadata={"description": "tasks waiting in the Celery queue"})
    clocks_due = ma.fields.Integer(required=True, metadata={
        "description": f"open action clocks more than {OVERDUE_AFTER_MS} ms past their deadline "
                       "(the workers are behind or stopped)"})
    tournaments = ma.fields.List(ma.fields.Nested(TournamentRunningSchema), required=True,
                                 metadata={"description": "those registering or running"})
    unreadable = ma.fields.List(ma.fields.Nested(UnreadableStreamSchema), required=True, metadata={
        "description": "tournaments, and tables not finished, that this code cannot read (stored before "
                       "a fix, or refused by the domain): their reads answer the problem unreadable_stream"})
    integrity_failures = ma.fields.List(ma.fields.Nested(IntegrityFailureSchema), required=True, metadata={
        "description": "tournaments and open tables whose log fails its integrity check (an event's hash, "
                       "its link to the one before or its MAC), and any stream this process found failing "
                       "on read: their reads and writes answer the problem integrity_failure"})
    public_log = ma.fields.Nested(PublicLogStatusSchema, allow_none=True, required=True, metadata={
        "description": "the public log (docs/TRANSPARENCY.md): its integrator's backlog and its witnesses"})
    data_keys = ma.fields.Nested(DataKeysSchema, required=True, metadata={
        "description": "this process's key ring of the secrets at rest, by key id (never a key)"})
    refused_rows = ma.fields.List(ma.fields.Nested(RefusedRowSchema), required=True, metadata={
        "description": "rows that grant or answer (keys, revocations, sessions, idempotency and tracking records) whose "
                       "MAC fails: inserted or changed in the database without the chain key, and refused"})


@blp.route("/status", methods=["GET"])
@require("admin")
@blp.response(200, StatusSchema)
def status() -> dict[str, Any]:
    """What runs now: health, queue depth, overdue clocks, unfinished tournaments (admin only).

    `unreadable` lists the tournaments, and the tables not finished, whose streams this
    code cannot read, with the version refused and the reason; `integrity_failures` those
    whose log fails its check, with the first bad version (and any other stream found
    failing on read)."""
    (database, server), broker = database_check(), broker_state()
    app, pool = application(), resources().pool
    assert pool is not None  # application() answered, so a pool is configured
    now = time.time()
    overdue = clock_deadlines.due_clocks(pool, int(now * 1000) - OVERDUE_AFTER_MS, CLOCKS_COUNTED)
    running: list[dict[str, Any]] = []
    unreadable: list[dict[str, Any]] = []
    failing: dict[str, dict[str, Any]] = {}

    def refused_as(kind: str, id_: str, refused: UnreadableStream) -> None:
        if isinstance(refused, IntegrityFailure):
            failing[refused.stream_id] = _unreadable(kind, id_, refused)
        else:
            unreadable.append(_unreadable(kind, id_, refused))

    for tournament_id in tournaments.tournament_ids(app):
        try:
            loaded = tournaments.load_tournament(app, tournament_id)
            if loaded.state.status == tournament.FINISHED:
                continue
            view = tournaments.tournament_view(loaded, now)
        except UnreadableStream as refused:
            refused_as("tournament", tournament_id, refused)
            continue
        running.append({"id": tournament_id, "name": view["name"], "status": view["status"],
                        "players_left": view["players_left"], "level": (view["clock"] or {}).get("level")})
    # Every table still open is read (from the process's cache, or its snapshot): a
    # finished one is history, which its own reads answer for.
    with pool.connection() as connection:
        open_tables = listings.open_tables(connection)
        refused_rows = _refused_rows(connection)
    for table_id in open_tables:
        try:
            commands.load_table(app, table_id)
        except UnreadableStream as refused:
            refused_as("table", table_id, refused)
    for failed in getattr(event_store(), "integrity_failures", list)():
        if failed.stream_id not in failing:
            failing[failed.stream_id] = _unreadable("stream", failed.stream_id, failed)
    return {"status": overall(database, broker), "database": database, "broker": broker,
            "database_server": server, "queue_depth": queue_depth(CELERY_QUEUE) if broker == "ok" else None,
            "clocks_due": len(overdue), "tournaments": running, "unreadable": unreadable,
            "integrity_failures": sorted(failing.values(), key=lambda f: (f["kind"], f["id"])),
            "refused_rows": refused_rows,
            "data_keys": {"sealing": resources().data_key_ids[0], "retired": list(resources().data_key_ids[1:])},
            "public_log": wired_log.status(now) if (wired_log := resources().public_log) is not None else None}


def _refused_rows(connection: Any) -> list[dict[str, str]]:
    refused = resources().refused_rows
    assert refused is not None
    return refused.listed(connection)


def _unreadable(kind: str, stream_id: str, refused: UnreadableStream) -> dict[str, Any]:
    return {"kind": kind, "id": stream_id, "version": refused.version, "reason": refused.reason}
