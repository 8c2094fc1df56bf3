"""A tournament's CSV exports: results (standings, prizes and bounties), seating, payouts,
the bounty ledger and the cashier's reconciliation. The API serves
them (`GET /v1/tournaments/{id}/results.csv` ...) and so does the organiser's desk.

RFC 4180 (CRLF, quoted where needed), UTF-8; a cell that a spreadsheet would take for a
formula (= + - @, tab, CR) is neutralised with a leading apostrophe.
"""
from __future__ import annotations

import csv
import io
from typing import Any

from flask import Response

from domain.tournaments.payouts import preset_percentages
from service.application import tournaments
from service.application.players import load_player
from service.http.api import application


def results_csv(loaded: tournaments.LoadedTournament, now: float) -> Response:
    """Places so far (the players still in share the best place left), with prizes (the
    players out: their place's, or the deal's; everyone once finished), the bounties each
    won in cash and the total."""
    state = loaded.state
    prizes = {p.player_id: p.amount for p in state.prizes()}
    bounties = {entry["player_id"]: entry["cash"] for entry in tournaments.bounty_ledger(state)}
    rows: list[list[Any]] = [["place", "player_id", "name", "prize", "bounties", "total"]]
    for e in state.finishing_order():
        prize, won = prizes.get(e.player_id, 0), bounties.get(e.player_id, 0)
        rows.append([e.place, e.player_id, _name(e.player_id), prize, won, prize + won])
    return csv_response(rows, f"{loaded.tournament_id}-results.csv")


def bounties_csv(loaded: tournaments.LoadedTournament) -> Response:
    """Each bounty won, in order: winner, whose bounty (the winner's own at the end), the
    cash paid and what went onto the winner's own bounty."""
    rows: list[list[Any]] = [["winner_id", "winner", "busted_id", "busted", "cash", "added_to_head"]]
    rows += [[a.winner, _name(a.winner), a.busted, _name(a.busted), a.cash, a.head]
             for a in loaded.state.bounties_won]
    return csv_response(rows, f"{loaded.tournament_id}-bounties.csv")


def reconciliation_csv(loaded: tournaments.LoadedTournament) -> Response:
    """The cashier's reconciliation, one figure a row."""
    books = tournaments.money_view(loaded.state)["reconciliation"]
    return csv_response([["figure", "amount"], *([k, v] for k, v in books.items())],
                        f"{loaded.tournament_id}-reconciliation.csv")


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
    """The payout table for the prize pool so far: place, percentage (as set; the preset's
    to two places; none for fixed amounts), amount."""
    view = tournaments.tournament_view(loaded, now)
    state = loaded.state
    settings = state.required_settings
    percentages = settings.payout_percentages  # none for fixed amounts
    if settings.payout_preset:
        percentages = tuple(f"{float(p):.2f}" for p in preset_percentages(state.entries))
    rows: list[list[Any]] = [["place", "percentage", "amount"]]
    rows += [[p["place"], percentages[p["place"] - 1] if percentages else "", p["amount"]] for p in view["payouts"]]
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
