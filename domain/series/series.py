"""A series: a named schedule of events (running-events.md, "Series and leagues"), each an
existing tournament with its published time and registration window, and the league points
formula its standings are counted by (domain.series.points).

Stream `series-<id>`. The schedule only refers to tournaments; what happened in them stays
in their own streams, so standings are read from the tournaments when asked, never copied.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from domain.rules.violations import Violation
from domain.series.points import PointsFormula, check_formula

NAME_MAX_LENGTH = 200
MAX_EVENTS = 500


@dataclass(frozen=True)
class ScheduledEvent:
    tournament_id: str
    starts_at: float
    registration_opens_at: float
    registration_closes_at: float


@dataclass(frozen=True)
class CreateSeries:
    series_id: str
    name: str
    formula: PointsFormula
    at: float


@dataclass(frozen=True)
class ScheduleEvent:
    event: ScheduledEvent
    at: float


@dataclass(frozen=True)
class SeriesCreated:
    series_id: str
    name: str
    formula: PointsFormula
    at: float


@dataclass(frozen=True)
class EventScheduled:
    event: ScheduledEvent
    at: float


@dataclass(frozen=True)
class Series:
    series_id: str | None = None
    name: str = ""
    formula: PointsFormula = PointsFormula()
    events: tuple[ScheduledEvent, ...] = ()  # by start, then as scheduled

    @property
    def exists(self) -> bool:
        return self.series_id is not None


INITIAL = Series()
EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in (SeriesCreated, EventScheduled)}


def decide(state: Series, command: object) -> list[object]:
    if isinstance(command, CreateSeries):
        return _create(state, command)
    if isinstance(command, ScheduleEvent):
        return _schedule(state, command)
    raise TypeError(f"not a series command: {command!r}")


def _create(state: Series, command: CreateSeries) -> list[object]:
    if state.exists:
        raise Violation("series_exists", f"series {command.series_id} already exists")
    name = command.name.strip()
    if not name or len(name) > NAME_MAX_LENGTH:
        raise Violation("invalid_name", f"a series' name has 1 to {NAME_MAX_LENGTH} characters",
                        numbers={"length": len(name), "max_length": NAME_MAX_LENGTH})
    check_formula(command.formula)
    return [SeriesCreated(command.series_id, name, command.formula, command.at)]


def _schedule(state: Series, command: ScheduleEvent) -> list[object]:
    if not state.exists:
        raise Violation("unknown_series", "there is no such series")
    event = command.event
    if any(e.tournament_id == event.tournament_id for e in state.events):
        raise Violation("event_scheduled", f"tournament {event.tournament_id} is already in this series",
                        numbers={"tournament_id": event.tournament_id})
    if len(state.events) >= MAX_EVENTS:
        raise Violation("too_many_events", f"a series holds at most {MAX_EVENTS} events",
                        numbers={"events": len(state.events), "max_events": MAX_EVENTS})
    if not event.registration_opens_at < event.registration_closes_at \
            or event.registration_opens_at > event.starts_at:
        # Registration may close after the start (late registration), never open after it.
        raise Violation("invalid_registration_window",
                        "registration opens before it closes, and no later than the start",
                        numbers={"registration_opens_at": event.registration_opens_at,
                                 "registration_closes_at": event.registration_closes_at,
                                 "starts_at": event.starts_at})
    return [EventScheduled(event, command.at)]


def evolve(state: Series, event: object) -> Series:
    if isinstance(event, SeriesCreated):
        return Series(event.series_id, event.name, event.formula)
    if isinstance(event, EventScheduled):
        events = sorted((*state.events, event.event), key=lambda e: e.starts_at)  # stable: ties as scheduled
        return replace(state, events=tuple(events))
    raise TypeError(f"not a series event: {event!r}")
