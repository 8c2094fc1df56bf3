"""`/`: what runs now (pages.md): the tournaments (status, level, players left) and the
tables, newest first, each linked to its screens and the floor's pages."""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from flask import render_template

from domain.tournaments.clock import read_clock
from service.application import commands, listings, tournaments
from service.application.handling import UnreadableStream
from service.http.api import application, resources
from service.http.pages.frame import pages

SHOWN = 30
"""Tournaments and tables each: the room's current ones are the newest."""


@pages.route("/", methods=["GET"])
def home() -> str:
    pool = resources().pool
    found_tournaments, more_tournaments = listings.page(pool, "tournament", SHOWN) if pool else ([], False)
    found_tables, more_tables = listings.page(pool, "table", SHOWN) if pool else ([], False)
    return render_template("home.html", tournaments=[_tournament_row(t) for t in found_tournaments],
                           tables=[_table_row(t) for t in found_tables], more_tournaments=more_tournaments,
                           more_tables=more_tables)


def _table_row(listing: listings.Listing) -> listings.Listing:
    """The table as listed; `unreadable` when this code cannot read its stream (said in
    /v1/status with the reason). Only a table still open is read: a finished one is
    history, and its own reads say so."""
    if listing.status == "finished":
        return listing
    try:
        commands.load_table(application(), listing.id)
    except UnreadableStream:
        return replace(listing, status="unreadable")
    return listing


def _tournament_row(listing: listings.Listing) -> dict[str, Any]:
    try:
        loaded = tournaments.load_tournament(application(), listing.id)
    except UnreadableStream:  # said in /v1/status with the reason; the room sees the others
        return {"id": listing.id, "name": listing.name, "game": listing.game, "status": "unreadable",
                "level": None, "on_break": False, "paused": False, "players_left": "–", "entries": None}
    state = loaded.state
    reading = read_clock(state.clock, time.time())
    running = state.status == "running"
    return {
        "id": listing.id,
        "name": listing.name,
        "game": listing.game,
        "status": state.status,
        "level": reading.level if running else None,
        "on_break": running and reading.on_break,
        "paused": running and reading.paused,
        "players_left": state.seating.players if state.status != "registering" else len(state.registered),
        "entries": state.entries,
    }
