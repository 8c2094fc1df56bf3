"""Tournaments: create, register, start, read (clock derived at the time of the request),
the organiser's clock controls and the floor's eliminations, moves and disqualifications,
rebuys, add-ons, chip counts and races, the event log and CSV exports.

Stream `tournament-<id>`. Reads carry `ETag: "N"`; writes take `If-Match` (or
`expected_version`) when the client wants its view checked, and an `Idempotency-Key`.
Without a version the write is judged on the current state (registrations from many
players at once must not turn into conflicts).

The routes are kept by resource in nested blueprints (entries, clock, floor, seating,
records), one OpenAPI tag.
"""
from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import datetime

from domain.tournaments import commands as tournament_commands
from domain.tournaments.structure import Period
from service.application import tournaments
from service.http.api import Blueprint, application, tournament_clock, tournament_entries, tournament_floor, tournament_records, tournament_seating
from service.http.api.etags import body_tag, conditional
from service.http.api.names import with_names
from service.http.api.tables import IDEMPOTENCY_KEY_HEADER, actor_name
from service.http.api.tournament_requests import ALL_ROLES, ORGANISERS, existing, now
from service.http.api.tournament_schemas import CreatedTournamentSchema, NewTournamentSchema, TournamentSchema
from service.http.auth import current_principal, require

blp = Blueprint("tournaments", __name__, url_prefix="/v1/tournaments",
                description="Multi-table tournaments and their level clock")


def _period(fields: dict) -> Period:
    if fields["is_break"]:
        return Period.pause(fields["minutes"], fields["seconds"], fields["colour_up"])
    level = Period.level(fields["small_blind"], fields["big_blind"], fields["minutes"],
                         fields["ante"], fields["big_blind_ante"], fields["seconds"], fields["colour_up"])
    return replace(level, action_clock_s=fields["action_clock_s"])


def _starts_at(value: str | datetime) -> int:
    return now() if value == "now" else int(value.timestamp())  # type: ignore[union-attr]


def _settings(body: dict) -> tournament_commands.Settings:
    """The settings, with the documented defaults of rebuys and add-ons when offered."""
    stack = body["starting_stack"]
    rebuy = body["rebuy_price"] > 0
    add_on = body["add_on_price"] > 0
    payouts = body.get("payouts", [])
    rebuy_until = body.get("rebuy_until_level", max(1, body["late_registration_until_level"]) if rebuy else 0)
    return tournament_commands.Settings(
        name=body["name"],
        structure=tuple(_period(p) for p in body["levels"]),
        starts_at=_starts_at(body["starts_at"]),
        starting_stack=stack,
        buy_in=body["buy_in"],
        payout_percentages=tuple(body.get("payout_percentages") or
                                 (place["percent"] for place in payouts if "percent" in place)),
        table_size=body["table_size"],
        late_registration_until_level=body["late_registration_until_level"],
        re_entries_allowed=body["re_entries_allowed"],
        rebuy_price=body["rebuy_price"],
        add_on_price=body["add_on_price"],
        balance_tolerance=body["balance_tolerance"],
        break_order=body["break_order"],
        bust_ranking=body["bust_ranking"],
        rebuy_chips=body.get("rebuy_chips", stack if rebuy else 0),
        rebuys_allowed=body.get("rebuys_allowed", 0),
        rebuy_until_level=rebuy_until,
        add_on_chips=body.get("add_on_chips", stack if add_on else 0),
        add_ons_allowed=body.get("add_ons_allowed", 1 if add_on else 0),
        add_on_until_level=body.get("add_on_until_level", (rebuy_until or max(1, body["late_registration_until_level"]))
                                    if add_on else 0),
        tables=body["tables"],
        hand_for_hand_at_bubble=body["hand_for_hand_at_bubble"],
        denominations=tuple(body["denominations"]),
        auto_start=body["auto_start"],
        min_players=body["min_players"],
        rebuy_at_or_below=body["rebuy_at_or_below"],
        double_rebuy=body["double_rebuy"],
        rebuy_grace_s=body["rebuy_grace_s"],
        move_call_s=body["move_call_s"],
        action_clock_s=body["action_clock_s"],
        time_bank_s=body["time_bank_s"],
        fee=body["fee"], rebuy_fee=body["rebuy_fee"], add_on_fee=body["add_on_fee"], guarantee=body["guarantee"],
        payout_fixed=tuple(place["amount"] for place in payouts if "amount" in place),
        payout_preset=body["payout_preset"], payout_unit=body["payout_unit"],
        bounty_kind=body["bounty"]["kind"] if "bounty" in body else "",
        bounty=body["bounty"]["amount"] if "bounty" in body else 0,
        bounty_cash_percent=body["bounty"]["cash_percent"] if "bounty" in body else 50,
    )


@blp.route("", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(NewTournamentSchema)
@blp.response(201, CreatedTournamentSchema)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(parameters=[IDEMPOTENCY_KEY_HEADER])
def create_tournament(body: dict) -> tuple[dict, int, dict]:
    """Schedule a tournament (organiser, admin): structure, entries, payouts. A broken
    structure or payout table is a 422 naming the rule; a start in the past is a 422
    `starts_in_past` (give `"starts_at": "now"` to start as soon as it is started)."""
    principal = current_principal()
    tournament_id = str(uuid.uuid4())
    outcome = tournaments.create_tournament(application(), tournament_id, _settings(body), body["game"],
                                            body["betting"], actor=actor_name(principal), now=now())
    return {"id": tournament_id, "version": outcome.version}, 201, {"ETag": f'"{outcome.version}"'}


@blp.route("/<string:tournament_id>", methods=["GET"])
@conditional
@require(*ALL_ROLES)
@blp.response(200, TournamentSchema)
@blp.alt_response(404, response="NOT_FOUND")
def get_tournament(tournament_id: str) -> tuple[dict, int, dict]:
    """Status, level and clock at the time of the request (derived from the events),
    tables with their players, standings and payouts. ETag: the version."""
    loaded = existing(tournament_id)
    shown = with_names(tournaments.tournament_view(loaded, now()))
    shown["registrations"] = with_names([{"player_id": p} for p in shown["registered"]])
    # The clock's reading changes with time at one version: the tag covers the content.
    return shown, 200, {"ETag": body_tag(shown, loaded.version)}


for nested in (tournament_entries.blp, tournament_clock.blp, tournament_floor.blp, tournament_seating.blp,
               tournament_records.blp):
    blp.register_blueprint(nested)
