"""The application's parts: the store, one `Streams` per kind of stream (each with its cache)
and the scheduler, which every use case is handed (service.application.application
builds them from the use cases' kinds of stream)."""
from __future__ import annotations

from dataclasses import dataclass

from domain import players as player_domain
from domain.live.table_state import TableState
from domain.rulings.on_record import RulingsLog
from domain.series.series import Series
from domain.tournaments.tournament import Tournament
from service.adapters.store.base import EventStore
from service.application.handling import Streams
from service.application.rating_book import RatingBook
from service.application.scheduling import Scheduler


@dataclass(frozen=True)
class Application:
    store: EventStore
    scheduler: Scheduler
    tables: Streams[TableState | None]
    tournaments: Streams[Tournament]
    ratings: Streams[RatingBook]
    players: Streams[player_domain.Player]
    series: Streams[Series]
    rulings: Streams[RulingsLog]
