"""The floor's word on a tournament: hand-for-hand, eliminations, chip counts and races,
disqualifications and undo.
"""
from __future__ import annotations

from domain.rules.violations import Violation
from domain.tournaments import commands as tournament_commands
from domain.tournaments import tournament
from service.application import tournaments
from service.http.api import Blueprint
from service.http.api.tables import expected_version
from service.http.api.tournament_requests import FLOOR, ORGANISERS, existing, now, send, write_docs
from service.http.api.tournament_schemas import (
    ChipCountsSchema,
    ChipRaceSchema,
    DisqualificationSchema,
    EliminationSchema,
    TournamentWriteSchema,
    TournamentWrittenSchema,
)
from service.http.auth import current_principal, require
from service.http.problems import Problem

blp = Blueprint("floor", __name__)  # nested in tournaments.blp: "/v1/tournaments" + each route


@blp.route("/<string:tournament_id>/hand-for-hand", methods=["POST"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def start_hand_for_hand(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Hand-for-hand (near the money): every table plays one hand at a time, and players
    out in the same round share the places reached (or are ranked by starting stack, as
    set) (TDA 2024 RP-8)."""
    return send(tournament_id, body, tournament_commands.StartHandForHand(at=now()))


@blp.route("/<string:tournament_id>/hand-for-hand", methods=["DELETE"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(200, TournamentWrittenSchema)
@write_docs(blp)
def stop_hand_for_hand(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Back to tables playing at their own pace; players out in the unfinished round are
    placed together."""
    return send(tournament_id, body, tournament_commands.StopHandForHand(at=now(), seed=tournaments.new_seed()),
                status=200)


@blp.route("/<string:tournament_id>/eliminations", methods=["POST"])
@require(*FLOOR)
@blp.arguments(EliminationSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def eliminate(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """A player out (`player_id`, optionally `busted_by`), or players busted on one hand
    (`busted`). At physical tables the floor's word is enough: no counts needed (the
    player's chips are with someone at the table until the next count; chips in play stay
    exact). During the rebuy period a player who may rebuy keeps the seat (RebuyAwaited)
    until they rebuy, decline or their time passes; the others take their places (shared,
    or by starting stack as set), then tables are balanced or broken (TDA 2024 10, 11); the
    last one finishes it."""
    listed = body.get("busted") or [{"player_id": body["player_id"], "starting_stack": 0,
                                     "busted_by": body.get("busted_by"),
                                     "also_busted_by": body.get("also_busted_by", [])}]
    busted = tuple(tournament_commands.Bust(b["player_id"], b["starting_stack"], busted_by=b.get("busted_by"),
                                            also_busted_by=tuple(b.get("also_busted_by", ()))) for b in listed)
    counts = tuple(tournament_commands.ChipCount(c["player_id"], c["chips"]) for c in body["counts"])
    return send(tournament_id, body, tournament_commands.Eliminate(busted, at=now(), seed=tournaments.new_seed(),
                                                                   counts=counts))


@blp.route("/<string:tournament_id>/chip-counts", methods=["POST"])
@require(*FLOOR)
@blp.arguments(ChipCountsSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def chip_counts(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Physical tables: stacks the floor counted, whenever it has them (a table, a few
    players, everyone). They can never hold more chips than are in play and not yet
    counted; a whole table counted while every chip is accounted for must hold exactly
    what it had (`chips_not_conserved` otherwise)."""
    counts = tuple(tournament_commands.ChipCount(c["player_id"], c["chips"]) for c in body["counts"])
    return send(tournament_id, body, tournament_commands.ReportChipCounts(counts, at=now()))


@blp.route("/<string:tournament_id>/chip-races", methods=["POST"])
@require(*FLOOR)
@blp.arguments(ChipRaceSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def chip_race(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """A scheduled colour-up at one table, between its hands (TDA 2024 24): the race's
    cards and every stack before and after are in the event. The service's own tables
    race by themselves before their next hand."""
    return send(tournament_id, body, tournament_commands.RaceChips(body["table"], at=now(), seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/disqualifications", methods=["POST"])
@require(*FLOOR)
@blp.arguments(DisqualificationSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def disqualify(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Disqualify a player: out at the current place, their chips removed from play (the
    event says how many), tables rebalanced. During the player's hand it is made when
    that hand is over."""
    return send(tournament_id, body, tournament_commands.Disqualify(body["player_id"], body["reason"], at=now(),
                                                                    seed=tournaments.new_seed()))


def check_undo_rights(state: tournament.Tournament, role: str) -> None:
    """Undo takes the roles of what it takes back: a clock change the clock's (the
    organisers', who alone pause, resume, adjust or set it), an elimination or a rebuy
    the floor's. The API and the desk both ask here, so they agree."""
    act = state.undoable
    if act is not None and act.kind == "clock" and role not in ORGANISERS:
        raise Problem(403, "forbidden", f"the clock is the organisers': the {role} role may not undo its change")


@blp.route("/<string:tournament_id>/undo", methods=["POST"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def undo(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Undo the last elimination, rebuy or clock change by a compensating event that
    shows in the log (EliminationUndone, RebuyUndone, ClockChangeUndone after the clock
    events that put it back as it was). A clock change is undone by an organiser or admin
    only, as it is made (403 `forbidden` for the floor). While something later depends on
    it (a move, a hand dealt, a count...) or nothing is to undo: 409 `undo_blocked` (with
    `depends`, the event type) or `nothing_to_undo`. An elimination a service table decided
    in its hand stands (409 `undo_blocked`, depends `HandFinished`)."""
    loaded = existing(tournament_id)
    check_undo_rights(loaded.state, current_principal().role)
    # The rights were judged on this version: the undo is written at it or not at all (409).
    given = expected_version(body, required=False)
    body = {**body, "expected_version": loaded.version if given is None else given}
    try:
        return send(tournament_id, body, tournament_commands.Undo(at=now()))
    except Violation as refused:
        if refused.code in ("undo_blocked", "nothing_to_undo"):
            raise Problem(409, refused.code, refused.detail, numbers=dict(refused.numbers)) from refused
        raise
