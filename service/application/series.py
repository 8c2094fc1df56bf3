"""Series and leagues as a service (running-events.md, "Series and leagues"; docs/series.md).

Stream `series-<id>` on the one handling path (service.application.handling): a series is
its schedule and its points formula. Everything else is read from the tournaments when
asked: what is coming, running or finished, the results, the points and the standings
(domain.series), so a series never holds a copy that could disagree with an event.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import reduce
from typing import Any

from psycopg_pool import ConnectionPool

from domain.records import from_record, to_record
from domain.rules.violations import Violation
from domain.series import series
from domain.series.points import Finish, PointsFormula, points
from domain.series.standings import EventResults, Standing, standings
from domain.tournaments import tournament
from service.adapters.store.base import NewEvent, RecordedEvent
from service.application import listings
from service.application.handling import Decision, Loaded, StreamKind, folded
from service.application.parts import Application
from service.application.tournaments import bounty_ledger, load_tournament

STREAM_PREFIX = "series-"
# The series page's words for a tournament's status.
COMING, RUNNING, FINISHED = "coming", "running", "finished"
_PHASES = {tournament.REGISTERING: COMING, tournament.RUNNING: RUNNING, tournament.FINISHED: FINISHED}
RESULTS_PAGE = 200  # finished tournaments read from the listings a query at a time


def stream_id(series_id: str) -> str:
    return STREAM_PREFIX + series_id


def _evolve_record(state: series.Series, record: RecordedEvent) -> series.Series:
    return series.evolve(state, from_record(series.EVENT_TYPES, record.type, record.data))


def _fold(state: series.Series, records: Sequence[RecordedEvent]) -> series.Series:
    return folded(state, records, _evolve_record)


SERIES: StreamKind[series.Series] = StreamKind(STREAM_PREFIX, series.INITIAL, _fold)


def _execute(app: Application, series_id: str, command: object, *, expected_version: int | None = None,
             actor: str | None = None) -> int:
    def decide(loaded: Loaded[series.Series]) -> Decision[series.Series]:
        events = series.decide(loaded.state, command)
        return Decision([NewEvent(*to_record(event)) for event in events],
                        reduce(series.evolve, events, loaded.state), events)

    return app.series.handle(stream_id(series_id), decide, expected_version=expected_version, actor=actor).version


def create_series(app: Application, series_id: str, name: str, formula: PointsFormula, *, now: float,
                  actor: str | None = None) -> int:
    return _execute(app, series_id, series.CreateSeries(series_id, name, formula, now), expected_version=0,
                    actor=actor)


def schedule_event(app: Application, series_id: str, tournament_id: str, starts_at: float | None,
                   registration_opens_at: float, registration_closes_at: float, *, now: float,
                   expected_version: int | None = None, actor: str | None = None) -> int:
    """Add an existing tournament to the series (422 `unknown_tournament` when there is
    none), at `starts_at` (None: the tournament's own)."""
    settings = load_tournament(app, tournament_id).state.settings
    if settings is None:
        raise Violation("unknown_tournament", f"there is no tournament {tournament_id}",
                        numbers={"tournament_id": tournament_id})
    event = series.ScheduledEvent(tournament_id, settings.starts_at if starts_at is None else starts_at,
                                  registration_opens_at, registration_closes_at)
    return _execute(app, series_id, series.ScheduleEvent(event, now), expected_version=expected_version,
                    actor=actor)


@dataclass(frozen=True)
class LoadedSeries:
    version: int
    state: series.Series


def load_series(app: Application, series_id: str) -> LoadedSeries:
    loaded = app.series.load(stream_id(series_id))
    return LoadedSeries(loaded.version, loaded.state)


def every_series(app: Application) -> list[LoadedSeries]:
    """Every series (a series is a handful of events: there are few of them)."""
    return [load_series(app, stream[len(STREAM_PREFIX):]) for stream in app.store.list_streams(STREAM_PREFIX)]


def event_results(state: tournament.Tournament, tournament_id: str) -> EventResults:
    """A tournament's results as league points need them: each player's place (a deal's
    agreed place beside it), prize and bounty cash won."""
    prizes = {p.player_id: p.amount for p in state.prizes()}
    cash = {entry["player_id"]: entry["cash"] for entry in bounty_ledger(state)}
    agreed = {share.player_id: share.place for share in state.deal.shares} if state.deal else {}
    finishes = tuple(Finish(e.player_id, e.place, prizes.get(e.player_id, 0), cash.get(e.player_id, 0),
                            agreed.get(e.player_id, 0)) for e in state.finishing_order())
    settings = state.settings
    return EventResults(tournament_id, len(state.entries_by_player), settings.buy_in if settings else 0, finishes)


@dataclass(frozen=True)
class ScheduleEntry:
    event: series.ScheduledEvent
    name: str
    phase: str  # coming, running or finished
    registration_open: bool  # now within the registration window, and not finished


def schedule(app: Application, state: series.Series, now: float) -> list[ScheduleEntry]:
    entries = []
    for event in state.events:
        loaded = load_tournament(app, event.tournament_id).state
        phase = _PHASES.get(loaded.status or "", COMING)
        window = event.registration_opens_at <= now < event.registration_closes_at
        entries.append(ScheduleEntry(event, loaded.settings.name if loaded.settings else "", phase,
                                     window and phase != FINISHED))
    return entries


def _finished(app: Application, tournament_ids: Iterable[str]) -> list[EventResults]:
    results = []
    for tournament_id in tournament_ids:
        state = load_tournament(app, tournament_id).state
        if state.status == tournament.FINISHED:
            results.append(event_results(state, tournament_id))
    return results


def series_standings(app: Application, state: series.Series) -> tuple[Standing, ...]:
    """The standings over the series' finished events, by its formula."""
    return standings(state.formula, _finished(app, (e.tournament_id for e in state.events)))


def player_results(app: Application, pool: ConnectionPool, player_id: str) -> list[dict[str, Any]]:
    """Every finished tournament the player entered, newest first: place, prize, bounty cash
    and, for each series the tournament is in, the league points earned there."""
    finished: list[str] = []
    before = None
    while True:
        found, more = listings.page(pool, "tournament", RESULTS_PAGE, before=before, status="finished",
                                    player_id=player_id)
        finished += [f.id for f in found]
        if not more:
            break
        before = found[-1].position
    series_of: dict[str, list[series.Series]] = {}
    for loaded in every_series(app):
        for event in loaded.state.events:
            series_of.setdefault(event.tournament_id, []).append(loaded.state)
    rows = []
    for tournament_id in finished:
        state = load_tournament(app, tournament_id).state
        event = event_results(state, tournament_id)
        finish = next((f for f in event.finishes if f.player_id == player_id), None)
        if finish is None:  # unregistered before the start
            continue
        rows.append({
            "tournament_id": tournament_id, "name": state.settings.name if state.settings else "",
            "place": finish.place, "agreed_place": finish.agreed_place or None, "field_size": event.field_size,
            "prize": finish.prize, "bounties": finish.bounty_cash,
            "series": [{"series_id": s.series_id, "name": s.name,
                        "points": str(points(s.formula, finish, event.field_size, event.buy_in))}
                       for s in series_of.get(tournament_id, [])],
        })
    return rows
