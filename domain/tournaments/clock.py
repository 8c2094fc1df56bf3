"""The level clock, derived only from events (level started or set, paused, resumed,
adjusted) and a `now` passed in; never from a counter kept in memory.

Times are seconds since the epoch (floats). While running, the clock is one fact: when
the current period ends. Periods roll over by themselves at that moment, so a level-end
task that fires late (or never) changes nothing: the derived level is the same. The last
level of the structure goes on until the tournament ends.

Level control by the organiser (decided here, refused in `check_adjustment`): an
adjustment never leaves the running period. It may add any time, or take time up to
exactly what is left (the period then ends at that moment and the next begins); taking
more is refused with the time left in the problem, so a typo never skips levels. To go to
another period the organiser sets it (LevelSet): any period, forward or back, with its
full time or a given remaining time, paused or running as the clock was.

A new level applies from the next hand (TDA 2024 23): a hand plays at the level in force when
it started, which `level_for_hand` answers from the events up to that moment.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import reduce

from domain.rules.violations import Violation
from domain.tournaments.structure import Period, level_number


@dataclass(frozen=True)
class LevelStarted:
    period_index: int
    at: float


@dataclass(frozen=True)
class ClockPaused:
    at: float


@dataclass(frozen=True)
class ClockResumed:
    at: float


@dataclass(frozen=True)
class ClockAdjusted:
    seconds: float  # added to the current period's remaining time; negative shortens it
    at: float


@dataclass(frozen=True)
class LevelSet:
    """The organiser set the clock to a period (forward or back), with `remaining_s` left."""
    period_index: int
    remaining_s: int
    at: float


ClockEvent = LevelStarted | ClockPaused | ClockResumed | ClockAdjusted | LevelSet
CLOCK_EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls for cls in (LevelStarted, ClockPaused, ClockResumed, ClockAdjusted, LevelSet)
}


@dataclass(frozen=True)
class Clock:
    periods: tuple[Period, ...]
    period_index: int | None = None  # None before the first level starts
    ends_at: float = 0.0  # while running: when the current period ends
    paused_remaining: float | None = None  # while paused: the time left, frozen

    @property
    def started(self) -> bool:
        return self.period_index is not None

    @property
    def paused(self) -> bool:
        return self.paused_remaining is not None


@dataclass(frozen=True)
class ClockReading:
    started: bool
    period_index: int | None
    level: int | None  # level number, None on a break or before the start
    on_break: bool
    paused: bool
    remaining_s: float
    level_in_force: int | None  # period index of the blinds a hand started now plays


def new_clock(periods: Sequence[Period]) -> Clock:
    return Clock(periods=tuple(periods))


def roll_forward(clock: Clock, now: float) -> Clock:
    """The clock with every period that ended by `now` passed."""
    if clock.period_index is None or clock.paused:
        return clock
    index, ends_at = clock.period_index, clock.ends_at
    while now >= ends_at and index + 1 < len(clock.periods):
        index += 1
        ends_at += clock.periods[index].length_s
    return replace(clock, period_index=index, ends_at=ends_at)


def evolve_clock(clock: Clock, event: ClockEvent) -> Clock:
    if isinstance(event, LevelStarted):
        return replace(
            clock,
            period_index=event.period_index,
            ends_at=event.at + clock.periods[event.period_index].length_s,
            paused_remaining=None,
        )
    if isinstance(event, LevelSet):
        if clock.paused:
            return replace(clock, period_index=event.period_index, paused_remaining=float(event.remaining_s))
        return replace(clock, period_index=event.period_index, ends_at=event.at + event.remaining_s)
    clock = roll_forward(clock, event.at)
    if isinstance(event, ClockPaused):
        return replace(clock, paused_remaining=max(0.0, clock.ends_at - event.at))
    if isinstance(event, ClockResumed):
        return replace(clock, ends_at=event.at + (clock.paused_remaining or 0.0), paused_remaining=None)
    if clock.paused:
        return replace(clock, paused_remaining=max(0.0, (clock.paused_remaining or 0.0) + event.seconds))
    return replace(clock, ends_at=clock.ends_at + event.seconds)


def read_clock(clock: Clock, now: float) -> ClockReading:
    clock = roll_forward(clock, now)
    if clock.period_index is None:
        return ClockReading(False, None, None, False, False, 0.0, None)
    index = clock.period_index
    remaining = clock.paused_remaining if clock.paused else max(0.0, clock.ends_at - now)
    return ClockReading(
        started=True,
        period_index=index,
        level=level_number(clock.periods, index),
        on_break=clock.periods[index].is_break,
        paused=clock.paused,
        remaining_s=remaining or 0.0,
        level_in_force=_last_level_at_or_before(clock.periods, index),
    )


def check_adjustment(clock: Clock, seconds: int, now: float) -> None:
    """An adjustment stays inside the running period: it may take at most the time left."""
    reading = read_clock(clock, now)
    if not reading.started:
        raise Violation("clock_not_started", "the clock starts with the tournament")
    left = int(reading.remaining_s)
    if seconds < -left:
        raise Violation(
            "adjust_beyond_period",
            f"taking {-seconds} s would leave the running period, which has {left} s left: "
            "take at most that, or set the level",
            numbers={"seconds": seconds, "remaining_s": left, "period": reading.period_index,
                     "level": reading.level},
        )


def clock_from_events(periods: Sequence[Period], events: Iterable[ClockEvent]) -> Clock:
    return reduce(evolve_clock, events, new_clock(periods))


def level_for_hand(periods: Sequence[Period], events: Iterable[ClockEvent], hand_started_at: float) -> int:
    """Period index of the level a hand started at `hand_started_at` plays to its end
    (TDA 2024 23), from the clock events recorded up to that moment."""
    clock = clock_from_events(periods, (e for e in events if e.at <= hand_started_at))
    reading = read_clock(clock, hand_started_at)
    if not reading.started:
        raise Violation("clock_not_started", "no hand is dealt before the first level starts")
    if reading.on_break:
        raise Violation("on_break", f"a hand started at {hand_started_at} falls in a break")
    return reading.period_index  # type: ignore[return-value]


def _last_level_at_or_before(periods: Sequence[Period], index: int) -> int | None:
    for candidate in range(index, -1, -1):
        if not periods[candidate].is_break:
            return candidate
    return None
