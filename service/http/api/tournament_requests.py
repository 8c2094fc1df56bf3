"""What the tournament API's views share: the roles, the write parameters and answers, and
loading and writing a tournament.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from service.application import tournaments
from service.http.api import Blueprint, application, event_store
from service.http.api.tables import IDEMPOTENCY_KEY_HEADER, actor_name, expected_version
from service.http.auth import current_principal
from service.http.problems import Problem

ALL_ROLES = ("admin", "organiser", "floor", "player", "spectator")
ORGANISERS = ("admin", "organiser")
FLOOR = ("admin", "organiser", "floor")
IF_MATCH_OPTIONAL = {
    "name": "If-Match", "in": "header", "required": False, "schema": {"type": "string"},
    "description": 'the tournament version last seen: "N" (a bare N is accepted too); '
                   "a stale one is a 409 and nothing is written",
}
WRITE_PARAMETERS = [IF_MATCH_OPTIONAL, IDEMPOTENCY_KEY_HEADER]

CSV_DOC = {"responses": {"200": {"description": "RFC 4180 CSV, UTF-8",
                                 "content": {"text/csv": {"schema": {"type": "string"}}}}}}


def now() -> int:
    return int(time.time())


def existing(tournament_id: str) -> tournaments.LoadedTournament:
    loaded = tournaments.load_tournament(application(), tournament_id)
    if not loaded.exists:
        raise Problem(404, "not_found", f"no tournament {tournament_id}")
    return loaded


def send(tournament_id: str, body: dict[str, Any], command: Any, status: int = 201) -> tuple[dict[str, Any], int, dict[str, str]]:
    existing(tournament_id)
    outcome = tournaments.send(application(), tournament_id, command, expected_version=expected_version(body, required=False),
        actor=actor_name(current_principal()),
    )
    return ({"version": outcome.version, "events": list(outcome.events)}, status,
            {"ETag": f'"{outcome.version}"'})


def registered_player(player_id: str) -> None:
    if event_store().stream_version(f"player-{player_id}") == 0:
        raise Problem(422, "unknown_player", f"no player {player_id} is registered")


def for_self_or_staff(player_id: str) -> None:
    principal = current_principal()
    if principal.role == "player" and principal.player_id != player_id:
        raise Problem(403, "forbidden", "a player key registers its own player only")


def write_docs(blp: Blueprint) -> Callable[[Any], Any]:
    """A write's documented answers (400, 404, 409, 422) and parameters (If-Match, Idempotency-Key)."""
    def documented(view: Any) -> Any:
        for status, name in ((400, "BAD_REQUEST"), (404, "NOT_FOUND"), (409, "CONFLICT"),
                             (422, "UNPROCESSABLE_ENTITY")):
            view = blp.alt_response(status, response=name)(view)
        return blp.doc(parameters=WRITE_PARAMETERS)(view)
    return documented
