"""The public screens of a tournament (pages.md): what a TV in the room shows, and nothing
else. Each screen is built from the tournament's state as the keyless `public` view sees
it, field by field from the lists below: players by name (names are public in a room),
never by id; no chip count of a player; no key, no card.

The lists are the contract the tests check: every key of a screen's answer is listed.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from domain.tournaments import tournament
from domain.tournaments.clock import read_clock
from domain.tournaments.structure import Period, level_number
from service.application.tournaments import LoadedTournament

CLOCK_FIELDS = (
    "name", "status", "starts_in_s", "level", "on_break", "paused", "remaining_s",
    "blinds", "next", "to_break_s", "players_left", "entries", "average_stack", "prize_pool",
)
"""`blinds`: BLINDS_FIELDS of the level in force; `next`: the next period (NEXT_FIELDS);
`to_break_s`: seconds to the next break's start (null when no break follows); seconds are
at the moment of the answer, and run only while `running`."""
BLINDS_FIELDS = ("small_blind", "big_blind", "ante", "big_blind_ante")
NEXT_FIELDS = ("break", "level", "minutes", "seconds", "small_blind", "big_blind", "ante", "big_blind_ante")
SEATING_FIELDS = ("name", "status", "table_size", "tables", "moves", "players_left")
TABLE_FIELDS = ("number", "seats")
SEAT_FIELDS = ("seat", "name")
"""`seat` counts from 1, as the seat cards on the felt."""
MOVE_FIELDS = ("name", "from_table", "from_seat", "to_table", "to_seat")
"""Moves waiting for a hand to end, then moves made and still to call out, newest first."""
FOUND_FIELDS = ("name", "table", "seat", "to_table", "to_seat")
"""Find your seat: a seat of the seating screen whose name matches, and where its move
waiting, if any, goes (`to_table` and `to_seat` null without one)."""
FOUND_AT_MOST = 20
PAYOUTS_FIELDS = ("name", "status", "prize_pool", "entries", "places")
PLACE_FIELDS = ("place", "amount", "names")
"""`names`: who finished there (several when they share it); empty while it is open."""

Names = Mapping[str, str]


def players_named(loaded: LoadedTournament) -> set[str]:
    """Every player a screen may name: to look their names up in one query."""
    state = loaded.state
    found = set(state.seating.where) | {e.player_id for e in state.standings}
    found |= {m.player_id for m in state.pending_moves} | {c.player_id for c in state.move_calls}
    return found


def clock_screen(loaded: LoadedTournament, now: float) -> dict[str, Any]:
    state = loaded.state
    settings = state.settings
    assert settings is not None
    reading = read_clock(state.clock, now)
    periods = state.clock.periods
    left = _players_left(state)
    shown: dict[str, Any] = {
        "name": settings.name,
        "status": state.status,
        "starts_in_s": max(0, int(settings.starts_at - now)) if state.status == tournament.REGISTERING else None,
        "level": reading.level,
        "on_break": reading.on_break,
        "paused": reading.paused,
        "remaining_s": int(reading.remaining_s),
        "blinds": _blinds(periods[reading.level_in_force]) if reading.level_in_force is not None else None,
        "next": None,
        "to_break_s": None,
        "players_left": left,
        "entries": state.entries,
        # The ledger knows the chips in play exactly; busted players waiting to rebuy hold none.
        "average_stack": state.chips_in_play // state.players_with_chips
        if state.players_with_chips and state.status == tournament.RUNNING else None,
        "prize_pool": state.prize_pool,
    }
    index = reading.period_index
    if index is not None and state.status == tournament.RUNNING:
        if index + 1 < len(periods):
            following = periods[index + 1]
            shown["next"] = {"break": following.is_break, "level": None if following.is_break
                             else level_number(periods, index + 1), "minutes": following.minutes,
                             "seconds": following.seconds, **_blinds(following)}
        shown["to_break_s"] = _to_break_s(periods, index, reading.remaining_s)
    return shown


def _to_break_s(periods: tuple[Period, ...], index: int, remaining_s: float) -> int | None:
    """Seconds until the next break after the current period begins."""
    waited = remaining_s
    for period in periods[index + 1:]:
        if period.is_break:
            return int(waited)
        waited += period.length_s
    return None


def _blinds(period: Period) -> dict[str, Any]:
    return {"small_blind": period.small_blind, "big_blind": period.big_blind, "ante": period.ante,
            "big_blind_ante": period.big_blind_ante}


def _players_left(state: tournament.Tournament) -> int:
    return len(state.registered) if state.status == tournament.REGISTERING else state.seating.players


def _moves_to_call(state: tournament.Tournament, now: float) -> tuple[tournament.MoveCall, ...]:
    """Moves made and still to be called out: at physical tables until the floor confirms
    the player seated (or move_call_s passes); at the service's tables, a notice for as long."""
    settings = state.settings
    assert settings is not None
    if settings.tables == tournament.TABLES_PHYSICAL:
        calls = state.pending_move_calls(now)
    else:
        calls = tuple(c for c in state.move_calls if now < c.at + settings.move_call_s)
    return latest_per_player(calls)


def latest_per_player(calls: tuple[tournament.MoveCall, ...]) -> tuple[tournament.MoveCall, ...]:
    """A player moved twice (balanced, then their table broke) goes where the last move
    says: only that one is called out (oldest first, as the calls)."""
    latest = {call.player_id: call for call in calls}
    return tuple(call for call in calls if latest[call.player_id] is call)


def seating_screen(loaded: LoadedTournament, names: Names, now: float) -> dict[str, Any]:
    state = loaded.state
    settings = state.settings
    assert settings is not None
    where = state.seating.where
    tables = [{"number": table.number,
               "seats": [{"seat": seat + 1, "name": names.get(player, "")}
                         for seat, player in enumerate(table.seats) if player is not None]}
              for table in state.seating.tables if table is not None]
    moves = []
    for move in state.pending_moves:
        at = where.get(move.player_id)
        moves.append({"name": names.get(move.player_id, ""), "from_table": at[0] if at else None,
                      "from_seat": at[1] + 1 if at else None, "to_table": move.to_table,
                      "to_seat": move.to_seat + 1})
    for call in reversed(_moves_to_call(state, now)):
        moves.append({"name": names.get(call.player_id, ""), "from_table": call.from_table,
                      "from_seat": call.from_seat + 1, "to_table": call.to_table, "to_seat": call.to_seat + 1})
    return {"name": settings.name, "status": state.status, "table_size": settings.table_size,
            "tables": tables, "moves": moves, "players_left": _players_left(state)}


def find_seats(seating: Mapping[str, Any], wanted: str) -> list[dict[str, Any]]:
    """Find your seat, from the seating screen alone (nothing else is public): the seats
    whose name holds `wanted`, in any case and without accents; at most FOUND_AT_MOST."""
    folded = _folded(wanted)
    if len(folded) < 2:
        return []
    moves = {move["name"]: move for move in seating["moves"]}
    found = []
    for table in seating["tables"]:
        for seat in table["seats"]:
            if folded in _folded(seat["name"]) and len(found) < FOUND_AT_MOST:
                move = moves.get(seat["name"])
                found.append({"name": seat["name"], "table": table["number"], "seat": seat["seat"],
                              "to_table": move["to_table"] if move else None,
                              "to_seat": move["to_seat"] if move else None})
    return found


def _folded(text: str) -> str:
    """As find.js folds names: no accents, no case."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c)).casefold().strip()


def payouts_screen(loaded: LoadedTournament, names: Names) -> dict[str, Any]:
    state = loaded.state
    settings = state.settings
    assert settings is not None
    finished: dict[int, list[str]] = {}
    order = state.finishing_order() if state.status == tournament.FINISHED else state.standings
    for entry in order:
        finished.setdefault(entry.place, []).append(names.get(entry.player_id, ""))
    amounts = state.payout_table()
    places = [{"place": place, "amount": amount, "names": finished.get(place, [])}
              for place, amount in enumerate(amounts, start=1)]
    return {"name": settings.name, "status": state.status, "prize_pool": state.prize_pool,
            "entries": state.entries, "places": places}
