"""What a tournament wrote down: its event log and the CSV exports."""
from __future__ import annotations

from flask import Response

from service.application import tournaments, views
from service.http import tournament_exports as exports
from service.http.api import Blueprint, event_store
from service.http.api.etags import conditional, tagged, version_tag
from service.http.api.paging import link_headers, next_url
from service.http.api.streams import wait_for_events
from service.http.api.tournament_requests import ALL_ROLES, CSV_DOC, FLOOR, existing, now
from service.http.api.tournament_schemas import TournamentEventsQuerySchema, TournamentEventsSchema
from service.http.auth import require

blp = Blueprint("records", __name__)  # nested in tournaments.blp: "/v1/tournaments" + each route


@blp.route("/<string:tournament_id>/events", methods=["GET"])
@conditional
@require(*ALL_ROLES)
@blp.arguments(TournamentEventsQuerySchema(), location="query")
@blp.response(200, TournamentEventsSchema)
@blp.alt_response(404, response="NOT_FOUND")
def tournament_events(query: dict, tournament_id: str) -> tuple[dict, int, dict]:
    """The tournament's event log after version `after`, at most `limit` events. A
    tournament's events hold no hidden cards; who wrote them (the metadata) is left out."""
    after = query["after"]
    wait_for_events(tournaments.stream_id(tournament_id), after, query["wait"])
    loaded = existing(tournament_id)
    records = event_store().read_stream(tournaments.stream_id(tournament_id), after_version=after,
                                        up_to_version=after + query["limit"])
    events = views.tournament_records(records)
    last = events[-1]["version"] if events else after
    more = last < loaded.version
    following = next_url({"after": last, "limit": query["limit"]}) if more else None
    return ({"events": events, "next_after": last if more else None, "next": following}, 200,
            tagged(version_tag(loaded.version, None), link_headers(following)))


@blp.route("/<string:tournament_id>/results.csv", methods=["GET"])
@require(*ALL_ROLES)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**CSV_DOC)
def results_csv(tournament_id: str) -> Response:
    """Places so far (the players still in share the best place left), with prizes once finished."""
    return exports.results_csv(existing(tournament_id), now())


@blp.route("/<string:tournament_id>/seating.csv", methods=["GET"])
@require(*ALL_ROLES)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**CSV_DOC)
def seating_csv(tournament_id: str) -> Response:
    """Every seated player: table, seat (from 1), player, chips as last known."""
    return exports.seating_csv(existing(tournament_id))


@blp.route("/<string:tournament_id>/bounties.csv", methods=["GET"])
@require(*ALL_ROLES)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**CSV_DOC)
def bounties_csv(tournament_id: str) -> Response:
    """The bounty ledger: each bounty won (winner, whose bounty, cash, added to the winner's head)."""
    return exports.bounties_csv(existing(tournament_id))


@blp.route("/<string:tournament_id>/reconciliation.csv", methods=["GET"])
@require(*FLOOR)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**CSV_DOC)
def reconciliation_csv(tournament_id: str) -> Response:
    """The cashier's reconciliation: collected, contributions, fees, bounties, overlay, prize
    pool, prizes paid, bounties paid, paid, left."""
    return exports.reconciliation_csv(existing(tournament_id))


@blp.route("/<string:tournament_id>/payouts.csv", methods=["GET"])
@require(*ALL_ROLES)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**CSV_DOC)
def payouts_csv(tournament_id: str) -> Response:
    """The payout table for the prize pool so far: place, percentage, amount."""
    return exports.payouts_csv(existing(tournament_id), now())
