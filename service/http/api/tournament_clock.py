"""The organisers' level clock: pause, resume, adjust, set the level."""
from __future__ import annotations

from domain.tournaments import commands as tournament_commands
from domain.tournaments.clock import read_clock
from domain.tournaments.structure import period_index_of_level
from service.http.api import Blueprint
from service.http.api.tournament_requests import ORGANISERS, existing, now, send, write_docs
from service.http.api.tournament_schemas import AdjustSchema, SetLevelSchema, TournamentWriteSchema, TournamentWrittenSchema
from service.http.auth import require

blp = Blueprint("clock", __name__)  # nested in tournaments.blp: "/v1/tournaments" + each route


@blp.route("/<string:tournament_id>/clock/pause", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def pause_clock(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Stop the level clock; the remaining time is frozen."""
    return send(tournament_id, body, tournament_commands.PauseClock(at=now()))


@blp.route("/<string:tournament_id>/clock/resume", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def resume_clock(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Restart the level clock with the time that was left."""
    return send(tournament_id, body, tournament_commands.ResumeClock(at=now()))


@blp.route("/<string:tournament_id>/clock/adjust", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(AdjustSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def adjust_clock(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Add (or with a negative number take) seconds to the current period. An adjustment
    never leaves the running period: taking more than the time left is a 422
    `adjust_beyond_period` with `remaining_s`; taking exactly that ends the period now.
    Leaving more than the period's own length (+6000 s on a 20-minute level) needs
    `confirm: true`, else 422 `adjust_past_level_length` with `seconds`, `remaining_s`,
    `length_s` and `would_leave_s`. To change periods, set the level."""
    return send(tournament_id, body, tournament_commands.AdjustClock(body["seconds"], at=now(), confirm=body["confirm"]))


@blp.route("/<string:tournament_id>/clock/level", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(SetLevelSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def set_level(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Set the clock to any period, forward or back: `level` (a level number), `period`
    (breaks counted, from 1) or `step` (periods from the current one), with `remaining_s`,
    or else: back to a period the clock left early (a mistaken "next"), the time it had
    then; otherwise its full time. A paused clock stays paused. Hands already dealt finish at their
    level; the next hand plays the level set (TDA 2024 23)."""
    loaded = existing(tournament_id)
    at = now()
    periods = loaded.state.clock.periods
    if "level" in body:
        index = period_index_of_level(periods, body["level"])
    elif "period" in body:
        index = body["period"] - 1
    else:
        current = read_clock(loaded.state.clock, at).period_index
        index = (current or 0) + body["step"]
    return send(tournament_id, body, tournament_commands.SetLevel(index, at=at, remaining_s=body.get("remaining_s")))
