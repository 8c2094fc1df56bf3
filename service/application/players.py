"""Players on the one handling path (service.application.handling): stream `player-<id>`,
registered once. HTTP (`POST /v1/players`) and the workers' bulk import both register
through `register_player`.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import reduce

from domain import players
from service.adapters.store.base import NewEvent, RecordedEvent
from service.application.handling import Decision, Loaded, StreamKind
from service.application.parts import Application

STREAM_PREFIX = "player-"


def stream_id(player_id: str) -> str:
    return STREAM_PREFIX + player_id


def _fold(state: players.Player, records: Sequence[RecordedEvent]) -> players.Player:
    return reduce(players.evolve, (players.EVENT_TYPES[r.type](**r.data) for r in records), state)


# A player's stream is one event, read once per lookup: nothing worth caching.
PLAYERS: StreamKind[players.Player] = StreamKind(STREAM_PREFIX, players.INITIAL, _fold)


def load_player(app: Application, player_id: str) -> players.Player:
    return app.players.load(stream_id(player_id)).state


def register_player(app: Application, player_id: str, name: str, *, actor: str | None = None,
                    idempotency_key: str | None = None) -> int:
    """Returns the stream version after the append. A lost race is a VersionConflict
    (409); a redelivery carrying the idempotency key of the registration (a worker's
    task) changes nothing."""
    def decide(loaded: Loaded[players.Player]) -> Decision[players.Player]:
        events = players.decide(loaded.state, players.RegisterPlayer(player_id=player_id, name=name))
        return Decision([NewEvent(type(e).__name__, dataclasses.asdict(e)) for e in events],
                        reduce(players.evolve, events, loaded.state), events)

    return app.players.handle(stream_id(player_id), decide, actor=actor,
                              idempotency_key=idempotency_key).version
