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

from domain.tournaments import commands as tournament_commands
from domain.tournaments import tournament
from domain.tournaments.clock import read_clock
from domain.tournaments.structure import Period, level_number
from service.application.tournaments import LoadedTournament

CLOCK_FIELDS = (
    "name", "status", "starts_at", "starts_in_s", "period", "level", "on_break", "paused", "remaining_s",
    "blinds", "next", "to_break_s", "colour_up", "late_registration", "late_registration_s",
    "players_left", "entries", "re_entries", "rebuys", "add_ons", "chips_in_play", "average_stack",
    "prize_pool", "payouts", "winner",
)
"""`period`: the index of the period running (a screen knows a period's end from a jump);
`remaining_s`: to the millisecond, so that every screen of an event shows the same second;
`blinds`: BLINDS_FIELDS of the level in force; `next`: the next period (NEXT_FIELDS);
`to_break_s`: seconds to the next break's start, to the millisecond too (null when no
break follows); seconds are at the moment of the answer, and run only while `running`.
`colour_up`: on a break, the colour-up at it or as the next level begins
(COLOUR_UP_FIELDS), else null. `late_registration`: null when the event has none, else
"open" or "closed"; `late_registration_s`: while open and running, seconds until it closes
(null when it stays open to the end). `re_entries`, `rebuys`, `add_ons`: null when the
event offers none. `payouts`: the first PAYOUTS_ON_THE_CLOCK places' amounts
(PAYOUT_FIELDS); `winner`: the winner's name once the event has finished (names are
public in a room)."""
COLOUR_UP_FIELDS = ("to", "raced_off")
"""`to`: the smallest chip from then on; `raced_off`: the denominations raced off for it
(empty when the event did not list its chips)."""
PAYOUT_FIELDS = ("place", "amount")
PAYOUTS_ON_THE_CLOCK = 9
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


def clock_screen(loaded: LoadedTournament, names: Names, now: float) -> dict[str, Any]:
    state = loaded.state
    settings = state.settings
    assert settings is not None
    reading = read_clock(state.clock, now)
    periods = state.clock.periods
    running = state.status == tournament.RUNNING
    late = settings.late_registration_until_level
    shown: dict[str, Any] = {
        "name": settings.name,
        "status": state.status,
        "starts_at": settings.starts_at,
        "starts_in_s": max(0, int(settings.starts_at - now)) if state.status == tournament.REGISTERING else None,
        "period": reading.period_index,
        "level": reading.level,
        "on_break": reading.on_break,
        "paused": reading.paused,
        "remaining_s": round(reading.remaining_s, 3),
        "blinds": _blinds(periods[reading.level_in_force]) if reading.level_in_force is not None else None,
        "next": None,
        "to_break_s": None,
        "colour_up": None,
        "late_registration": None,
        "late_registration_s": None,
        "players_left": _players_left(state),
        "entries": state.entries,
        "re_entries": state.re_entries if settings.re_entries_allowed else None,
        "rebuys": state.rebuys if settings.rebuy_price else None,
        "add_ons": state.add_ons if settings.add_on_price else None,
        "chips_in_play": state.chips_in_play if running else None,
        # The ledger knows the chips in play exactly; busted players waiting to rebuy hold none.
        "average_stack": state.chips_in_play // state.players_with_chips
        if state.players_with_chips and running else None,
        "prize_pool": state.prize_pool,
        "payouts": [{"place": place, "amount": amount} for place, amount in
                    enumerate(state.payout_table()[:PAYOUTS_ON_THE_CLOCK], 1)],
        "winner": _winner(state, names),
    }
    if late:
        # As the domain rules: open through the last late level and the break after it.
        in_force = reading.level_in_force
        shown["late_registration"] = "open" if state.status == tournament.REGISTERING or (
            running and in_force is not None and (level_number(periods, in_force) or 0) <= late) else "closed"
    index = reading.period_index
    if index is not None and running:
        if index + 1 < len(periods):
            following = periods[index + 1]
            shown["next"] = {"break": following.is_break, "level": None if following.is_break
                             else level_number(periods, index + 1), "minutes": following.minutes,
                             "seconds": following.seconds, **_blinds(following)}
        shown["to_break_s"] = _to_break_s(periods, index, reading.remaining_s)
        if reading.on_break:
            shown["colour_up"] = _colour_up(settings.denominations, periods, index)
        if shown["late_registration"] == "open":
            shown["late_registration_s"] = _late_registration_closes_in_s(periods, index, reading.remaining_s, late)
    return shown


def _winner(state: tournament.Tournament, names: Names) -> str | None:
    if state.status != tournament.FINISHED:
        return None
    first = [entry for entry in state.finishing_order() if entry.place == 1]
    return names.get(first[0].player_id, "") if first else None


def _colour_up(denominations: tuple[int, ...], periods: tuple[Period, ...], index: int) -> dict[str, Any] | None:
    """A break's colour-up: at the break itself or as the level after it begins (a period's
    `colour_up` races off the chips below it when the period begins)."""
    at = next((i for i in range(index, min(index + 2, len(periods))) if periods[i].colour_up), None)
    if at is None:
        return None
    to = periods[at].colour_up
    smallest_before = max((p.colour_up for p in periods[:at] if p.colour_up), default=0)
    return {"to": to, "raced_off": [chip for chip in denominations if smallest_before <= chip < to]}


def _late_registration_closes_in_s(periods: tuple[Period, ...], index: int, remaining_s: float,
                                   last_level: int) -> float | None:
    """Seconds until the first level after `last_level` begins (late registration stays open
    through the break after its last level); None when no such level follows."""
    waited = remaining_s
    for later in range(index + 1, len(periods)):
        number = level_number(periods, later)
        if number is not None and number > last_level:
            return round(waited, 3)
        waited += periods[later].length_s
    return None


def _to_break_s(periods: tuple[Period, ...], index: int, remaining_s: float) -> float | None:
    """Seconds until the next break after the current period begins (to the millisecond, as
    the countdown it ends with)."""
    waited = remaining_s
    for period in periods[index + 1:]:
        if period.is_break:
            return round(waited, 3)
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
    if settings.tables == tournament_commands.TABLES_PHYSICAL:
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
