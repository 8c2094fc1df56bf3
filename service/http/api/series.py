"""Series and leagues (docs/series.md): `POST /v1/series`, `GET /v1/series` and
`/v1/series/{id}`, `POST /v1/series/{id}/events`, `GET /v1/series/{id}/standings` and
`.csv` (service.application.series). A player's results across events are under
`/v1/players/{id}/results` (service.http.api.players)."""
from __future__ import annotations

import uuid
from typing import Any

import marshmallow as ma
from flask import Response

from domain.series import points, series
from domain.tournaments.tournament import iso
from service.application import series as series_service
from service.http.api import Blueprint, application
from service.http.api.names import names_of, with_names
from service.http.api.tournament_requests import ALL_ROLES, CSV_DOC, ORGANISERS, now
from service.http.api.tournament_schemas import StartsAt
from service.http.auth import current_principal, require
from service.http.problems import Problem
from service.http.tournament_exports import csv_response

blp = Blueprint("series", __name__, url_prefix="/v1/series",
                description="Series of events and their league standings")


class FormulaSchema(ma.Schema):
    kind = ma.fields.String(load_default=points.FIELD_ROOT, validate=ma.validate.OneOf(points.FORMULAS), metadata={
        "description": "field_root: scale × √(n / place); linear: scale × (n − place + 1); buy_in_weighted: "
                       "field_root × buy_in / reference_buy_in; table: the table's points by place"})
    scale = ma.fields.Integer(strict=True, load_default=10, validate=ma.validate.Range(min=0, max=10_000))
    reference_buy_in = ma.fields.Integer(strict=True, load_default=100, validate=ma.validate.Range(min=1))
    table = ma.fields.List(ma.fields.Integer(strict=True, validate=ma.validate.Range(min=0, max=1_000_000)),
                           load_default=list, validate=ma.validate.Length(max=points.MAX_TABLE_PLACES),
                           metadata={"description": "table: points by place, first place first, never increasing"})
    participation = ma.fields.Integer(strict=True, load_default=0, validate=ma.validate.Range(min=0, max=10_000),
                                      metadata={"description": "points to every player who played"})
    bounty_cash_per_point = ma.fields.Integer(strict=True, load_default=0, validate=ma.validate.Range(min=0), metadata={
        "description": "one point per this much bounty cash won; 0: bounties earn no points"})


class NewSeriesSchema(ma.Schema):
    name = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=series.NAME_MAX_LENGTH))
    formula = ma.fields.Nested(FormulaSchema, load_default=lambda: FormulaSchema().load({}))


INSTANT = {"description": 'an ISO 8601 instant with its offset, or "now"', "example": "2026-12-01T18:00:00Z",
           "type": "string"}


class NewEventSchema(ma.Schema):
    tournament_id = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=100))
    starts_at = StartsAt(load_default=None, metadata={**INSTANT, "description": "default: the tournament's starts_at"})
    registration_opens_at = StartsAt(required=True, metadata=INSTANT)
    registration_closes_at = StartsAt(required=True, metadata=INSTANT)


class SeriesWrittenSchema(ma.Schema):
    id = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True)


class SeriesSchema(ma.Schema):
    id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True)
    formula = ma.fields.Dict(required=True)
    events = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "by start: tournament_id, name, starts_at, registration_opens_at, registration_closes_at, "
                       "phase (coming, running, finished), registration_open"})


class SeriesListSchema(ma.Schema):
    series = ma.fields.List(ma.fields.Dict(), required=True, metadata={"description": "id, name, events"})


class StandingsSchema(ma.Schema):
    series_id = ma.fields.String(required=True)
    formula = ma.fields.Dict(required=True)
    events = ma.fields.List(ma.fields.String(), required=True,
                            metadata={"description": "the finished events counted, in the series' order"})
    standings = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "best first: rank (ties share it), player_id, name, points (an exact decimal), and per "
                       "event: tournament_id, place, agreed_place (a deal's), prize, bounties, points"})


def _existing(series_id: str) -> series_service.LoadedSeries:
    loaded = series_service.load_series(application(), series_id)
    if not loaded.state.exists:
        raise Problem(404, "not_found", f"no series {series_id}")
    return loaded


def _formula(formula: points.PointsFormula) -> dict[str, Any]:
    shown: dict[str, Any] = {"kind": formula.kind, "participation": formula.participation,
                             "bounty_cash_per_point": formula.bounty_cash_per_point}
    if formula.kind == points.TABLE:
        return {**shown, "table": list(formula.table)}
    if formula.kind == points.BUY_IN_WEIGHTED:
        shown["reference_buy_in"] = formula.reference_buy_in
    return {**shown, "scale": formula.scale}


def _instant(value: Any) -> int:
    return now() if value == "now" else int(value.timestamp())


@blp.route("", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(NewSeriesSchema)
@blp.response(201, SeriesWrittenSchema)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def create_series(body: dict) -> dict:
    """Create a series (organiser, admin): its name and its league points formula (422
    `invalid_formula` for one that could give negative points or reward a worse place)."""
    series_id = str(uuid.uuid4())
    given = body["formula"]
    formula = points.PointsFormula(given["kind"], given["scale"], given["reference_buy_in"], tuple(given["table"]),
                                   given["participation"], given["bounty_cash_per_point"])
    version = series_service.create_series(application(), series_id, body["name"], formula, now=now(),
                                           actor=current_principal().role)
    return {"id": series_id, "version": version}


@blp.route("", methods=["GET"])
@require(*ALL_ROLES)
@blp.response(200, SeriesListSchema)
def list_series() -> dict:
    """Every series: id, name and how many events it schedules (any role)."""
    return {"series": [{"id": s.state.series_id, "name": s.state.name, "events": len(s.state.events)}
                       for s in series_service.every_series(application())]}


@blp.route("/<string:series_id>", methods=["GET"])
@require(*ALL_ROLES)
@blp.response(200, SeriesSchema)
@blp.alt_response(404, response="NOT_FOUND")
def get_series(series_id: str) -> dict:
    """A series' schedule (any role): each event's times, registration window and phase now."""
    loaded = _existing(series_id)
    return {"id": series_id, "name": loaded.state.name, "version": loaded.version,
            "formula": _formula(loaded.state.formula),
            "events": [schedule_entry(entry) for entry in series_service.schedule(application(), loaded.state, now())]}


def schedule_entry(entry: series_service.ScheduleEntry) -> dict[str, Any]:
    event = entry.event
    return {"tournament_id": event.tournament_id, "name": entry.name, "starts_at": iso(event.starts_at),
            "registration_opens_at": iso(event.registration_opens_at),
            "registration_closes_at": iso(event.registration_closes_at),
            "phase": entry.phase, "registration_open": entry.registration_open}


@blp.route("/<string:series_id>/events", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(NewEventSchema)
@blp.response(201, SeriesWrittenSchema)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def add_event(body: dict, series_id: str) -> dict:
    """Schedule an existing tournament in the series (organiser, admin): 422
    `unknown_tournament`, `event_scheduled` (already in it), `invalid_registration_window`
    (registration opens before it closes and no later than the start)."""
    _existing(series_id)
    starts_at = None if body["starts_at"] is None else _instant(body["starts_at"])
    version = series_service.schedule_event(
        application(), series_id, body["tournament_id"], starts_at, _instant(body["registration_opens_at"]),
        _instant(body["registration_closes_at"]), now=now(), actor=current_principal().role)
    return {"id": series_id, "version": version}


def standings_view(series_id: str) -> dict[str, Any]:
    loaded = _existing(series_id)
    table = series_service.series_standings(application(), loaded.state)
    counted = [e.tournament_id for e in loaded.state.events
               if any(s.tournament_id == e.tournament_id for row in table for s in row.events)]
    return with_names({
        "series_id": series_id, "formula": _formula(loaded.state.formula), "events": counted,
        "standings": [{"rank": row.rank, "player_id": row.player_id, "points": str(row.points),
                       "events": [{"tournament_id": s.tournament_id, "place": s.finish.place,
                                   "agreed_place": s.finish.agreed_place or None, "prize": s.finish.prize,
                                   "bounties": s.finish.bounty_cash, "points": str(s.points)} for s in row.events]}
                      for row in table]})


@blp.route("/<string:series_id>/standings", methods=["GET"])
@require(*ALL_ROLES)
@blp.response(200, StandingsSchema)
@blp.alt_response(404, response="NOT_FOUND")
def get_standings(series_id: str) -> dict:
    """The league standings over the series' finished events (any role): points by the
    series' formula, a deal's agreed place respected."""
    return standings_view(series_id)


@blp.route("/<string:series_id>/standings.csv", methods=["GET"])
@require(*ALL_ROLES)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**CSV_DOC)
def standings_csv(series_id: str) -> Response:
    """The standings as CSV: rank, player_id, name, points, then each finished event's points."""
    view = standings_view(series_id)
    names = names_of(row["player_id"] for row in view["standings"])
    rows: list[list[Any]] = [["rank", "player_id", "name", "points", *view["events"]]]
    for row in view["standings"]:
        by_event = {e["tournament_id"]: e["points"] for e in row["events"]}
        rows.append([row["rank"], row["player_id"], names.get(row["player_id"], ""), row["points"],
                     *(by_event.get(t, "") for t in view["events"])])
    return csv_response(rows, f"{series_id}-standings.csv")
