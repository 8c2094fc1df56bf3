"""A series' public pages (docs/series.md), no sign-in, readable on a phone:
`/series` (every series), `/series/{id}` (its events: what is coming, what runs, what
finished, with each registration window), `/series/{id}/standings` (the league table,
each player linked to their page) and `/players/{id}` (a player's results across events).
Built from service.application.series, as the API's answers are."""
from __future__ import annotations

import time

from flask import render_template

from service.application import listings
from service.application import series as series_service
from service.application.players import load_player
from service.http.api import application, resources
from service.http.pages.frame import pages
from service.http.problems import Problem

PHASES = (series_service.RUNNING, series_service.COMING, series_service.FINISHED)
"""The order the schedule's sections are shown in: what runs now first."""


def _existing(series_id: str) -> series_service.LoadedSeries:
    loaded = series_service.load_series(application(), series_id)
    if not loaded.state.exists:
        raise Problem(404, "not_found", f"no series {series_id}")
    return loaded


@pages.route("/series", methods=["GET"])
def series_list() -> str:
    return render_template("series_list.html", series=[s.state for s in series_service.every_series(application())])


@pages.route("/series/<string:series_id>", methods=["GET"])
def series_page(series_id: str) -> str:
    loaded = _existing(series_id)
    entries = series_service.schedule(application(), loaded.state, time.time())
    sections = [(phase, [e for e in entries if e.phase == phase]) for phase in PHASES]
    return render_template("series.html", series=loaded.state, sections=sections)


@pages.route("/series/<string:series_id>/standings", methods=["GET"])
def series_standings(series_id: str) -> str:
    loaded = _existing(series_id)
    table = series_service.series_standings(application(), loaded.state)
    pool = resources().pool
    names = listings.names(pool, [row.player_id for row in table]) if pool is not None else {}
    played = {s.tournament_id for row in table for s in row.events}
    return render_template("series_standings.html", series=loaded.state, standings=table, names=names,
                           events_counted=sum(1 for e in loaded.state.events if e.tournament_id in played))


@pages.route("/players/<string:player_id>", methods=["GET"])
def player_page(player_id: str) -> str:
    player = load_player(application(), player_id)
    if not player.registered:
        raise Problem(404, "not_found", f"no player {player_id}")
    pool = resources().pool
    results = series_service.player_results(application(), pool, player_id) if pool is not None else []
    return render_template("player.html", player=player, results=results)
