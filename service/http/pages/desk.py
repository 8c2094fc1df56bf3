"""The organiser's desk, `/floor/tournaments/{id}` (pages.md): the clock controls (start,
pause, resume, adjust, set the level), registrations, rebuys, add-ons, moves,
eliminations, chip counts of physical tables, hand-for-hand, the results and the CSV
exports, for organisers, the floor and admins; and the sheets it prints (seat cards, the
table draw).

Every form is a POST with the session's CSRF token (service.http.pages.session) to
`/floor/tournaments/{id}/<action>`, one of service.http.pages.desk_actions' ACTIONS: the
command the API's view of the same name sends, through the same application function
(service.application.tournaments.send) as the signed-in caller, and with the same roles.
An action that cannot be taken back lightly answers first with a page that says what it
will do, and acts only when that page's Confirm is sent. Each form carries a random
`form_id`, with the action and its fields its idempotency key: a form sent twice (a double
click, a resent POST) acts once. Success is a 303 back to the desk; a refused rule or a
stale view is the desk again with the refusal in words (422, 409).

The desk shows a form only while it applies: Start and registrations before the start,
late registration and re-entries while it is open, rebuys and add-ons in their periods,
the clock and the players while the event runs, the results once it is over.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import secrets
import time
from collections.abc import Callable
from typing import Any

from flask import Response, redirect, render_template, request, url_for

from domain.rules.violations import Violation
from domain.tournaments import commands as tournament_commands
from domain.tournaments import decider as tournament_decider
from domain.tournaments import tournament
from domain.tournaments.clock import read_clock
from domain.tournaments.structure import level_number
from service.application import listings, tournaments
from service.application.event_log import VersionConflict
from service.application.screens import latest_per_player, players_named
from service.http import tournament_exports as exports
from service.http.api import application, resources
from service.http.api.tables import actor_name
from service.http.api.tournament_requests import ORGANISERS
from service.http.auth import current_principal
from service.http.pages.desk_actions import ACTIONS, CONFIRMED, DESK_ROLES, Context, confirmed, text, undo_blocked_words, undo_words
from service.http.pages.frame import pages
from service.http.pages.screens import FOLLOWED_TYPES
from service.http.pages.session import CSRF_FIELD, floor_page
from service.http.problems import Problem, with_player_names

STATUS_PART = "status"
FORM_DIGEST_LENGTH = 32


def _loaded(tournament_id: str) -> tournaments.LoadedTournament:
    loaded = tournaments.load_tournament(application(), tournament_id)
    if not loaded.exists:
        raise Problem(404, "not_found", f"no tournament {tournament_id}")
    return loaded


def _context(loaded: tournaments.LoadedTournament) -> Context:
    wanted = players_named(loaded) | set(loaded.state.registered)
    pool = resources().pool
    names = listings.names(pool, wanted) if pool is not None and wanted else {}
    return Context(loaded, int(time.time()), names)


def _offers(context: Context) -> dict[str, bool]:
    """Which entries the desk offers now: each only in its window (the domain refuses
    outside it; the desk does not show what it would refuse)."""
    state, settings = context.state, context.state.settings
    assert settings is not None
    reading = read_clock(state.clock, context.now)
    level = level_number(state.clock.periods, reading.level_in_force) if reading.level_in_force is not None else None
    def open_until(last: int) -> bool:
        return state.status == tournament.RUNNING and level is not None and level <= last

    return {"registration": state.status == tournament.REGISTERING,
            "late_registration": open_until(settings.late_registration_until_level),
            "re_entry": settings.re_entries_allowed > 0 and open_until(settings.late_registration_until_level),
            "rebuy": settings.rebuy_price > 0 and open_until(settings.rebuy_until_level),
            "add_on": settings.add_on_price > 0 and open_until(settings.add_on_until_level)}


def loaded_context(tournament_id: str) -> Context:
    return _context(_loaded(tournament_id))


def seated_players(context: Context) -> list[dict[str, Any]]:
    """The players in, by name: where they sit (seats from 1) and their chips as known."""
    state, settings = context.state, context.state.settings
    assert settings is not None
    at_or_below = settings.rebuy_at_or_below or settings.starting_stack
    rows = [{"player_id": player, "name": context.name(player), "table": table, "seat": seat + 1,
             "chips": state.stack_of(player), "rebuys": state.rebuys_by_player.get(player, 0),
             "awaiting": player in state.awaiting_players,
             # A rebuy is offered only to a stack the house takes it at (the rule refuses others).
             "may_rebuy": state.stack_of(player) <= at_or_below
             and (settings.rebuys_allowed == 0 or state.rebuys_by_player.get(player, 0) < settings.rebuys_allowed)}
            for player, (table, seat) in state.seating.where.items()]
    return sorted(rows, key=lambda row: (row["name"].casefold(), row["player_id"]))


def _may_re_enter(context: Context) -> list[Any]:
    """Players out who may buy another entry: not in again already, within their re-entries."""
    state, settings = context.state, context.state.settings
    assert settings is not None
    return [e for e in sorted(state.standings, key=lambda e: e.place)
            if e.player_id not in state.seating.where
            and state.entries_by_player.get(e.player_id, 0) <= settings.re_entries_allowed]


def moves_called(context: Context) -> list[dict[str, Any]]:
    """The moves the floor calls out, newest first, seats from 1: the queued ones (made
    when the hand at their table ends), then those made and still to call (at physical
    tables pending until the floor confirms the player seated, or their time passes)."""
    state = context.state
    settings = state.settings
    assert settings is not None
    pending = {c.move_id for c in state.pending_move_calls(context.now)}

    def called(move_id: int, player: str, at: tuple[int, int] | None, to: tuple[int, int], status: str) -> dict[str, Any]:
        return {"move_id": move_id, "name": context.name(player), "from_table": at[0] if at else None,
                "from_seat": at[1] + 1 if at else None, "to_table": to[0], "to_seat": to[1] + 1, "state": status}

    queued = [called(m.move_id, m.player_id, state.seating.where.get(m.player_id), (m.to_table, m.to_seat), "queued")
              for m in state.pending_moves]
    made = [called(c.move_id, c.player_id, (c.from_table, c.from_seat), (c.to_table, c.to_seat),
                   "pending" if c.move_id in pending else "seated" if c.seated_at is not None else "made")
            for c in reversed(latest_per_player(state.move_calls))
            if context.now < c.at + settings.move_call_s or c.move_id in pending]
    return queued + made


def _results(context: Context, view: dict[str, Any]) -> list[dict[str, Any]]:
    """Places so far, best first (the players still in share the best place left), the
    prize of each once it is theirs (their place's, or the deal's), the bounties they won
    in cash and the total the cashier pays them."""
    prizes = {p.player_id: p.amount for p in context.state.prizes()}
    bounties = {entry["player_id"]: entry["cash"] for entry in view["bounties"]}
    rows = []
    for e in context.state.finishing_order():
        prize, won = prizes.get(e.player_id, 0), bounties.get(e.player_id, 0)
        rows.append({"place": e.place, "name": context.name(e.player_id), "player_id": e.player_id,
                     "prize": prize, "bounties": won, "total": prize + won})
    return rows


DEAL_MAX_PLAYERS = 12  # ICM is exponential in the players: a final table's


def deal_figures(context: Context) -> dict[str, Any] | None:
    """ICM and chip-chop figures for the players left (with their names), or why there
    are none yet (`unavailable`); None when no deal applies (not running, a deal made, or
    more players than a final table)."""
    state = context.state
    if state.status != tournament.RUNNING or state.deal is not None \
            or not 2 <= state.seating.players <= DEAL_MAX_PLAYERS:
        return None
    try:
        figures = tournaments.deal_figures(state)
    except Violation as refused:
        return {"unavailable": refused.detail}
    for row in figures["players"]:
        row["name"] = context.name(row["player_id"])
    return figures


def _desk(loaded: tournaments.LoadedTournament, *, notice: str | None = None, error: Problem | None = None,
          status: int = 200) -> tuple[str, int]:
    context = _context(loaded)
    view = tournaments.tournament_view(loaded, context.now)
    state = loaded.state
    template = "desk_status.html" if request.args.get("part") == STATUS_PART else "desk.html"
    return render_template(
        template, tournament_id=loaded.tournament_id, view=view, version=loaded.version, names=context.names,
        players=seated_players(context), results=_results(context, view), offers=_offers(context),
        out=_may_re_enter(context), notice=notice, error=error,
        awaiting=[row for row in seated_players(context) if row["player_id"] in state.awaiting_players],
        moves=moves_called(context), undo=undo_words(context), undo_blocked=undo_blocked_words(context),
        double_rebuy=state.settings is not None and state.settings.double_rebuy,
        form_id=secrets.token_urlsafe(16), may_run_clock=current_principal().role in ORGANISERS,
        followed_types=FOLLOWED_TYPES,
        physical=state.settings is not None and state.settings.tables == tournament_commands.TABLES_PHYSICAL,
        # The live part (refetched on every event) shows no deal: the figures are the full page's.
        money=view["money"], deal=deal_figures(context) if template == "desk.html" else None,
        bounties_on=state.settings is not None and bool(state.settings.bounty_kind),
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
    return f"{text('form_id', 64)}:{sent}"


def _confirmation(tournament_id: str, action: str, consequence: str, context: Context,
                  asked: str | None = None) -> tuple[str, int]:
    """The page that asks before acting: the consequence in words, the form's fields
    again (hidden) and Confirm, or back to the desk."""
    fields = [(name, value) for name, value in request.form.items(multi=True)
              if name not in (CSRF_FIELD, "confirmed")]
    player = request.form.get("player_id", "")
    bust_choices = [p for p in seated_players(context) if p["player_id"] != player] if action == "eliminate" else []
    return render_template(
        "desk_confirm.html", tournament_id=tournament_id, action=action, consequence=consequence,
        fields=fields, confirmed=CONFIRMED, name=context.state.settings.name if context.state.settings else "",
        bust_choices=bust_choices, asked=asked,
        bounties_on=context.state.settings is not None and bool(context.state.settings.bounty_kind)), 200


def _as_confirmed(command: Any) -> Any:
    """A command that carries the organiser's confirmation itself (AdjustClock past the
    level's length) is judged as confirmed: that is the question the desk asks."""
    return dataclasses.replace(command, confirm=True) if "confirm" in getattr(command, "__dataclass_fields__", {}) \
        else command


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
    context = _context(_loaded(tournament_id))
    try:
        form_id = _sent_form_key(action)
        command = chosen.command(context, form_id)
        if chosen.confirm is not None and not confirmed():
            # What the rules would refuse is refused now, not asked about first (unless the
            # question's own form asks for what is missing).
            asked = None
            try:
                would = tournament_decider.decide(context.state, _as_confirmed(command))
            except Violation as refused:
                if refused.code not in chosen.asks:
                    raise
                would, asked = [], refused.detail
            consequence = chosen.confirm(context, would)
            if consequence is not None:
                return _confirmation(tournament_id, action, consequence, context, asked)
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
    "results": lambda loaded: exports.results_csv(loaded, time.time()),
    "seating": exports.seating_csv,
    "payouts": lambda loaded: exports.payouts_csv(loaded, time.time()),
    "bounties": exports.bounties_csv,
    "reconciliation": exports.reconciliation_csv,
}
"""Named as the API's exports are (`results.csv`, `seating.csv`, `payouts.csv`,
`bounties.csv`, `reconciliation.csv`)."""


@pages.route("/floor/tournaments/<string:tournament_id>/<string:export>.csv", methods=["GET"])
@floor_page(roles=DESK_ROLES)
def desk_export(tournament_id: str, export: str) -> Response:
    """The API's CSV exports, for a browser signed in to the desk."""
    build = EXPORTS.get(export)
    if build is None:
        raise Problem(404, "not_found", f"no export {export!r}: {', '.join(sorted(EXPORTS))}")
    return build(_loaded(tournament_id))
