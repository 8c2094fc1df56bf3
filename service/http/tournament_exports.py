"""A tournament's CSV exports: results (standings), seating and payouts. The API serves
them (`GET /v1/tournaments/{id}/results.csv` ...) and so does the organiser's desk.

RFC 4180 (CRLF, quoted where needed), UTF-8; a cell that a spreadsheet would take for a
formula (= + - @, tab, CR) is neutralised with a leading apostrophe.
"""
from __future__ import annotations

import csv
import io
from typing import Any

from flask import Response

from service.application import tournaments
from service.http.api import application
from service.application.players import load_player


def results_csv(loaded: tournaments.LoadedTournament, now: float) -> Response:
    """Places so far (the players still in share the best place left), with prizes once finished."""
    view = tournaments.tournament_view(loaded, now)
    prizes = {p["player_id"]: p["amount"] for p in view["prizes"]}
    rows: list[list[Any]] = [["place", "player_id", "name", "prize"]]
    rows += [[e.place, e.player_id, _name(e.player_id), prizes.get(e.player_id, 0)]
             for e in loaded.state.finishing_order()]
    return csv_response(rows, f"{loaded.tournament_id}-results.csv")


def seating_csv(loaded: tournaments.LoadedTournament) -> Response:
    """Every seated player: table, seat (from 1), player, chips as last known."""
    state = loaded.state
    rows: list[list[Any]] = [["table", "seat", "player_id", "name", "chips"]]
    for seating_table in state.seating.tables:
        if seating_table is None:
            continue
        rows += [[seating_table.number, seat + 1, player, _name(player), state.stack_of(player)]
                 for seat, player in enumerate(seating_table.seats) if player is not None]
    return csv_response(rows, f"{loaded.tournament_id}-seating.csv")


def payouts_csv(loaded: tournaments.LoadedTournament, now: float) -> Response:
    """The payout table for the prize pool so far: place, percentage, amount."""
    view = tournaments.tournament_view(loaded, now)
    percentages = loaded.state.settings.payout_percentages  # type: ignore[union-attr]
    rows: list[list[Any]] = [["place", "percentage", "amount"]]
    rows += [[p["place"], percentages[p["place"] - 1], p["amount"]] for p in view["payouts"]]
    return csv_response(rows, f"{loaded.tournament_id}-payouts.csv")


def csv_response(rows: list[list[Any]], filename: str) -> Response:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    for row in rows:
        writer.writerow([_cell(value) for value in row])
    response = Response(out.getvalue().encode("utf-8"), mimetype="text/csv")
    response.headers["Content-Type"] = "text/csv; charset=utf-8; header=present"
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _name(player_id: str) -> str:
    return load_player(application(), player_id).name or ""


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    if isinstance(value, str) and text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + text
    return text
