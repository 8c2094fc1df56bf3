"""The organiser's desk, `/floor/tournaments/{id}` (pages.md): the clock controls (start,
pause, resume, adjust, set the level), registrations, rebuys, add-ons, moves,
eliminations, chip counts of physical tables, hand-for-hand and the CSV exports, for organisers, the floor and admins.

Every form is a POST with the session's CSRF token (service.http.pages.session) to
`/floor/tournaments/{id}/<action>`. An action is the command the API's view of the same
name sends, through the same application function (service.application.tournaments.send)
as the signed-in caller, and with the same roles (the clock is the organisers'). Each
form carries a random `form_id`, with the action and its fields its idempotency key: a
form sent twice (a double click, a resent POST) acts once. Success is a 303 back to the
desk; a refused rule or a stale view is the desk again with the refusal in words (422,
409).
"""
from __future__ import annotations

import hashlib
import json
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Response, redirect, render_template, request, url_for

from domain.rules.violations import Violation
from domain.tournaments import tournament
from domain.tournaments.clock import read_clock
from domain.tournaments.seating import floor_move
from domain.tournaments.structure import period_index_of_level
from service.adapters.store.base import VersionConflict
from service.application import listings, tournaments
from service.http import tournament_exports as exports
from service.http.api import application, event_store, resources
from service.application.players import register_player
from service.http.api.tables import actor_name
from service.http.api.tournaments import FLOOR, ORGANISERS
from service.http.auth import current_principal
from service.http.pages import pages
from service.http.pages.screens import FOLLOWED_TYPES
from service.http.pages.session import CSRF_FIELD, floor_page
from service.http.problems import Problem, with_player_names

DESK_ROLES = ("admin", "organiser", "floor")
STATUS_PART = "status"
NAME_MAX = 100
FORM_DIGEST_LENGTH = 32


@dataclass(frozen=True)
class Action:
    roles: tuple[str, ...]
    command: Callable[[tournaments.LoadedTournament, int, str], Any]
    """(the tournament, now, the form's id) -> the domain command."""
    done: str


def _loaded(tournament_id: str) -> tournaments.LoadedTournament:
    loaded = tournaments.load_tournament(application(), tournament_id)
    if not loaded.exists:
        raise Problem(404, "not_found", f"no tournament {tournament_id}")
    return loaded


# ---------------------------------------------------------------------- form fields


def _text(name: str, max_length: int = NAME_MAX) -> str:
    value = request.form.get(name, "").strip()
    if not value or len(value) > max_length or "\x00" in value:
        raise _invalid(name, f"1 to {max_length} characters, no NUL")
    return value


def _whole(name: str, low: int, high: int) -> int:
    raw = request.form.get(name, "").strip()
    if not raw.lstrip("-").isdigit() or not low <= int(raw) <= high:
        raise _invalid(name, f"a whole number from {low} to {high}")
    return int(raw)


def _invalid(field: str, message: str) -> Problem:
    return Problem(400, "validation_error", f"{field}: {message}",
                   errors=[{"location": "form", "field": field, "messages": [message]}])


# -------------------------------------------------------------------------- actions


def _set_level(loaded: tournaments.LoadedTournament, now: int, form_id: str) -> Any:
    periods = loaded.state.clock.periods
    if request.form.get("step"):
        current = read_clock(loaded.state.clock, now).period_index or 0
        index = current + _whole("step", -400, 400)
    else:
        index = period_index_of_level(periods, _whole("level", 1, 200))
    return tournament.SetLevel(index, at=now)


def _register(loaded: tournaments.LoadedTournament, now: int, form_id: str) -> Any:
    """A new player by name (the form's id makes the same player of a form sent twice),
    or a registered player by id."""
    player_id = _text("player_id") if request.form.get("player_id", "").strip() else ""
    if player_id:
        if event_store().stream_version(f"player-{player_id}") == 0:
            raise Problem(422, "unknown_player", f"no player {player_id} is registered")
    else:
        name = _text("name")
        player_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"cardroom:desk:{form_id}"))
        if event_store().stream_version(f"player-{player_id}") == 0:
            register_player(application(), player_id, name, actor=actor_name(current_principal()))
    return tournament.Register(player_id, at=now, seed=tournaments.new_seed())


def _player(loaded: tournaments.LoadedTournament) -> str:
    return _text("player_id")


MAX_CHIPS = 2**53
"""The largest count a form takes (what a JSON number holds exactly)."""


def _move(loaded: tournaments.LoadedTournament, now: int, form_id: str) -> Any:
    """A floor move. The desk numbers seats from 1, as its tables show them (the API from
    0), so a seat that is not open is refused in the desk's numbers."""
    player, table, seat = _player(loaded), _whole("to_table", 1, 100000), _whole("to_seat", 1, 10)
    try:
        floor_move(loaded.state.seating, player, table, seat - 1)
    except Violation as refused:
        if refused.code != "seat_taken":
            raise
        raise Problem(422, "seat_taken", f"seat {seat} at table {table} is not an open seat",
                      numbers={"table": table, "seat": seat}) from None
    return tournament.MovePlayer(player, table, seat - 1, at=now)


def _table_counts(loaded: tournaments.LoadedTournament, now: int, form_id: str) -> Any:
    """Physical tables: one table's chip counts after a hand, a field `chips:<player_id>`
    for each player at it. A player counted at 0 is out (ranked by the stack they had),
    the others' counts are reported with them; without anyone out, the counts alone."""
    state = loaded.state
    number = _whole("table", 1, 100000)
    table = next((t for t in state.seating.tables if t is not None and t.number == number), None)
    if table is None:
        raise Problem(422, "unknown_table", f"there is no table {number} in play", numbers={"table": number})
    counts = tuple(tournament.ChipCount(player, _whole(f"chips:{player}", 0, MAX_CHIPS))
                   for player in table.seats if player is not None)
    busted = tuple(tournament.Bust(c.player_id, state.stack_of(c.player_id)) for c in counts if c.chips == 0)
    if busted:
        return tournament.Eliminate(busted, at=now, seed=tournaments.new_seed(), counts=counts)
    return tournament.ReportChipCounts(counts, at=now)


ACTIONS: dict[str, Action] = {
    "start": Action(ORGANISERS, lambda t, now, f: tournament.StartTournament(at=now, seed=tournaments.new_seed()),
                    "The tournament started."),
    "pause": Action(ORGANISERS, lambda t, now, f: tournament.PauseClock(at=now), "The clock is paused."),
    "resume": Action(ORGANISERS, lambda t, now, f: tournament.ResumeClock(at=now), "The clock runs again."),
    "adjust": Action(ORGANISERS, lambda t, now, f: tournament.AdjustClock(_whole("seconds", -86400, 86400), at=now),
                     "The clock is adjusted."),
    "level": Action(ORGANISERS, _set_level, "The level is set."),
    "register": Action(DESK_ROLES, _register, "Registered."),
    "rebuy": Action(FLOOR, lambda t, now, f: tournament.Rebuy(_player(t), at=now), "Rebuy taken."),
    "add-on": Action(FLOOR, lambda t, now, f: tournament.AddOn(_player(t), at=now), "Add-on taken."),
    "move": Action(FLOOR, _move, "Move made or queued."),
    "cancel-move": Action(FLOOR, lambda t, now, f: tournament.CancelMove(_whole("move_id", 0, 2**31 - 1)),
                          "Move cancelled."),
    "eliminate": Action(FLOOR, lambda t, now, f: tournament.Eliminate(
        (tournament.Bust(_player(t), 0),), at=now, seed=tournaments.new_seed()), "Elimination recorded."),
    "counts": Action(FLOOR, _table_counts, "Chip counts recorded."),
    "hand-for-hand": Action(FLOOR, lambda t, now, f: tournament.StartHandForHand(at=now), "Hand-for-hand is on."),
    "hand-for-hand-off": Action(FLOOR, lambda t, now, f: tournament.StopHandForHand(
        at=now, seed=tournaments.new_seed()), "Hand-for-hand is off."),
}


# ---------------------------------------------------------------------------- views


def _desk(loaded: tournaments.LoadedTournament, *, notice: str | None = None, error: Problem | None = None,
          status: int = 200) -> tuple[str, int]:
    view = tournaments.tournament_view(loaded, time.time())
    state = loaded.state
    wanted = set(state.registered) | set(state.seating.where) | {e.player_id for e in state.standings} \
        | {m.player_id for m in state.pending_moves}
    pool = resources().pool
    names = listings.names(pool, wanted) if pool is not None and wanted else {}
    seated = sorted(state.seating.where, key=lambda p: (names.get(p, ""), p))
    template = "desk_status.html" if request.args.get("part") == STATUS_PART else "desk.html"
    role = current_principal().role
    return render_template(
        template, tournament_id=loaded.tournament_id, view=view, version=loaded.version, names=names,
        seated=seated, notice=notice, error=error, form_id=secrets.token_urlsafe(16),
        may_run_clock=role in ORGANISERS, followed_types=FOLLOWED_TYPES,
        physical=state.settings is not None and state.settings.tables == tournament.TABLES_PHYSICAL,
    ), status


@pages.route("/floor/tournaments/<string:tournament_id>", methods=["GET"])
@floor_page(roles=DESK_ROLES)
def desk(tournament_id: str) -> tuple[str, int]:
    done = request.args.get("done")
    notice = ACTIONS[done].done if done in ACTIONS else None
    return _desk(_loaded(tournament_id), notice=notice)


def _sent_form_key(action: str) -> str:
    """What makes a sent form one action: its rendering's `form_id` with the action and
    the fields sent. Every form of one rendering shares the form_id, and a page shown
    again (the browser's Back button) sends other forms with it; only the same form with
    the same fields, sent again, is a resend that acts once."""
    fields = sorted((name, value) for name, value in request.form.items(multi=True)
                    if name not in (CSRF_FIELD, "form_id"))
    sent = hashlib.sha256(json.dumps([action, fields]).encode()).hexdigest()[:FORM_DIGEST_LENGTH]
    return f"{_text('form_id', 64)}:{sent}"


@pages.route("/floor/tournaments/<string:tournament_id>/<string:action>", methods=["POST"])
@floor_page(roles=DESK_ROLES)
def desk_action(tournament_id: str, action: str) -> Any:
    chosen = ACTIONS.get(action)
    if chosen is None:
        raise Problem(404, "not_found", f"the desk has no action {action!r}")
    principal = current_principal()
    if principal.role not in chosen.roles:
        raise Problem(403, "forbidden", f"the {principal.role} role may not do this; allowed: "
                                        f"{', '.join(chosen.roles)}")
    loaded = _loaded(tournament_id)
    form_id = _sent_form_key(action)
    try:
        command = chosen.command(loaded, int(time.time()), form_id)
        tournaments.send(application(), tournament_id, command, actor=actor_name(principal),
                         idempotency_key=f"desk:{principal.key_id}:{form_id}")
    except Violation as refused:
        detail, numbers, _ = with_player_names(refused.detail, dict(refused.numbers))
        return _desk(_loaded(tournament_id), error=Problem(422, refused.code, detail, rule=refused.rule,
                                                           numbers=numbers), status=422)
    except VersionConflict:
        return _desk(_loaded(tournament_id), error=Problem(
            409, "version_conflict", "someone else changed the tournament at the same moment: look and send again"),
            status=409)
    except Problem as problem:
        if problem.status >= 500:
            raise
        return _desk(_loaded(tournament_id), error=problem, status=problem.status)
    return redirect(url_for("pages.desk", tournament_id=tournament_id, done=action), code=303)


EXPORTS: dict[str, Callable[[tournaments.LoadedTournament], Response]] = {
    "standings": lambda loaded: exports.results_csv(loaded, time.time()),
    "seating": exports.seating_csv,
    "payouts": lambda loaded: exports.payouts_csv(loaded, time.time()),
}


@pages.route("/floor/tournaments/<string:tournament_id>/<string:export>.csv", methods=["GET"])
@floor_page(roles=DESK_ROLES)
def desk_export(tournament_id: str, export: str) -> Response:
    """The API's CSV exports, for a browser signed in to the desk."""
    build = EXPORTS.get(export)
    if build is None:
        raise Problem(404, "not_found", f"no export {export!r}: {', '.join(sorted(EXPORTS))}")
    return build(_loaded(tournament_id))
