"""Tournament entries and money: registrations, the start, rebuys, add-ons and deals."""
from __future__ import annotations

from domain.tournaments import commands as tournament_commands
from service.application import tournaments
from service.http.api import Blueprint
from service.http.api.names import with_names
from service.http.api.tournament_requests import FLOOR, ORGANISERS, existing, for_self_or_staff, now, registered_player, send, write_docs
from service.http.api.tournament_schemas import DealFiguresSchema, DealSchema, RebuySchema, RegistrationSchema, TournamentWriteSchema, TournamentWrittenSchema
from service.http.auth import require

blp = Blueprint("entries", __name__)  # nested in tournaments.blp: "/v1/tournaments" + each route


@blp.route("/<string:tournament_id>/registrations", methods=["POST"])
@require("admin", "organiser", "floor", "player")
@blp.arguments(RegistrationSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def register(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Register a player (a player key registers itself). Before the start, or during late
    registration: the late entrant draws a seat (TDA 2024 8-A); re-entry when allowed."""
    for_self_or_staff(body["player_id"])
    existing(tournament_id)
    registered_player(body["player_id"])
    return send(tournament_id, body, tournament_commands.Register(body["player_id"], at=now(), seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/registrations/<string:player_id>", methods=["DELETE"])
@require("admin", "organiser", "floor", "player")
@blp.arguments(TournamentWriteSchema)
@blp.response(200, TournamentWrittenSchema)
@write_docs(blp)
def unregister(body: dict, tournament_id: str, player_id: str) -> tuple[dict, int, dict]:
    """Withdraw a registration before the start."""
    for_self_or_staff(player_id)
    return send(tournament_id, body, tournament_commands.Unregister(player_id), status=200)


@blp.route("/<string:tournament_id>/start", methods=["POST"])
@require(*FLOOR)
@blp.arguments(TournamentWriteSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def start(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Start now, at the director's word, early or late (`starts_at` is the published
    time; with at least two players): seats are drawn at random, the seed is in the
    event, and the first level starts. The clock worker starts it by itself only with
    `auto_start`, and then with at least `min_players`."""
    return send(tournament_id, body, tournament_commands.StartTournament(at=now(), seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/rebuys", methods=["POST"])
@require(*FLOOR)
@blp.arguments(RebuySchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def rebuy(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """A rebuy, while offered (until `rebuy_until_level`; `rebuys_allowed` each, 0: no
    limit): for a player busted in the rebuy period who kept the seat, or a seated player
    at or below `rebuy_at_or_below` (default: the starting stack); `double` where offered.
    The chips reach the table between hands (at once when it is between hands)."""
    return send(tournament_id, body, tournament_commands.Rebuy(body["player_id"], at=now(), double=body["double"],
                                                               seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/rebuys/decline", methods=["POST"])
@require(*FLOOR)
@blp.arguments(RegistrationSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def decline_rebuy(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """A busted player waiting to rebuy declines: out now, placed below everyone still
    in, and the tables are balanced. 422 `not_awaiting_rebuy` for anyone else."""
    return send(tournament_id, body, tournament_commands.DeclineRebuy(body["player_id"], at=now(),
                                                                      seed=tournaments.new_seed()))


@blp.route("/<string:tournament_id>/add-ons", methods=["POST"])
@require(*FLOOR)
@blp.arguments(RegistrationSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def add_on(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """An add-on for a seated player, while offered (until `add_on_until_level`,
    `add_ons_allowed` each). The chips reach the table between hands."""
    return send(tournament_id, body, tournament_commands.AddOn(body["player_id"], at=now()))


@blp.route("/<string:tournament_id>/deals", methods=["POST"])
@require(*ORGANISERS)
@blp.arguments(DealSchema)
@blp.response(201, TournamentWrittenSchema)
@write_docs(blp)
def record_deal(body: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """Record the deal the players left agreed (organiser, admin): every player left once
    with their amount, and what is left to play for (paid to the winner). The amounts and
    what is left must come to exactly the prize money still to pay (422
    `deal_does_not_add_up` with `agreed` and `remaining_pool`); `deal_players` when the
    players named are not those left; one deal per event (`deal_exists`); none while the
    pool can still grow (`entries_open`) or a busted player may rebuy (`awaiting_rebuy`).
    The prizes follow the deal from then on, whatever the places."""
    shares = tuple(tournament_commands.DealShare(s["player_id"], s["amount"], s["place"]) for s in body["shares"])
    return send(tournament_id, body, tournament_commands.RecordDeal(shares, body["left_to_play_for"], at=now()))


@blp.route("/<string:tournament_id>/deal-figures", methods=["GET"])
@require(*FLOOR)
@blp.response(200, DealFiguresSchema)
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def get_deal_figures(tournament_id: str) -> dict:
    """What a deal among the players left could be: the prize money still to pay, each
    player's chips, ICM equity (Malmuth-Harville) and whole-unit ICM deal, and the chip
    chop (the smallest open prize each, the rest by chips, never above first prize). 422
    `stacks_unknown` while a player's chips are not known (count them first)."""
    figures = tournaments.deal_figures(existing(tournament_id).state)
    figures["players"] = with_names(figures["players"])
    return figures
