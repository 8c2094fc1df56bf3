"""The blind structure's sanity checks and the level clock derived from events."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.rules.violations import Violation
from domain.tournaments.clock import ClockAdjusted, ClockPaused, ClockResumed, LevelStarted, clock_from_events, level_for_hand, read_clock
from domain.tournaments.structure import Period, level_number, period_index_of_level, validate_structure

T0 = 1_800_000_000.0
STRUCTURE = (
    Period.level(25, 50, minutes=20),
    Period.level(50, 100, minutes=20, ante=100, big_blind_ante=True),
    Period.pause(minutes=10),
    Period.level(100, 200, minutes=20, ante=200, big_blind_ante=True),
)


def violation_code(periods: list[Period]) -> str:
    with pytest.raises(Violation) as raised:
        validate_structure(periods)
    return raised.value.code


def test_a_sane_structure_is_accepted() -> None:
    assert validate_structure(STRUCTURE) == STRUCTURE


def test_blinds_never_decrease() -> None:
    assert violation_code([Period.level(50, 100, 20), Period.level(25, 50, 20)]) == "blinds_decrease"


def test_blinds_compare_across_a_break() -> None:
    periods = [Period.level(50, 100, 20), Period.pause(10), Period.level(50, 80, 20)]
    assert violation_code(periods) == "blinds_decrease"


def test_the_ante_is_not_above_the_big_blind() -> None:
    assert violation_code([Period.level(50, 100, 20, ante=150)]) == "ante_above_big_blind"


def test_the_small_blind_is_not_above_the_big_blind() -> None:
    assert violation_code([Period.level(200, 100, 20)]) == "small_blind_above_big_blind"


@pytest.mark.parametrize(
    "periods",
    [[], [Period.pause(10)], [Period.pause(5), Period.level(25, 50, 20)], [Period.level(25, 50, 0)]],
)
def test_malformed_structures_are_refused(periods: list[Period]) -> None:
    assert violation_code(periods) == "invalid_structure"


def test_levels_are_numbered_without_the_breaks() -> None:
    assert [level_number(STRUCTURE, i) for i in range(4)] == [1, 2, None, 3]
    assert period_index_of_level(STRUCTURE, 3) == 3


def test_the_clock_counts_down_from_the_level_start() -> None:
    reading = read_clock(clock_from_events(STRUCTURE, [LevelStarted(0, T0)]), T0 + 300)
    assert (reading.level, reading.remaining_s, reading.paused) == (1, 900, False)


def test_levels_roll_over_by_themselves_into_the_break() -> None:
    reading = read_clock(clock_from_events(STRUCTURE, [LevelStarted(0, T0)]), T0 + 40 * 60 + 60)
    assert reading.on_break and reading.level is None and reading.remaining_s == 540
    assert reading.level_in_force == 1


def test_a_pause_freezes_the_remaining_time() -> None:
    events = [LevelStarted(0, T0), ClockPaused(T0 + 600)]
    reading = read_clock(clock_from_events(STRUCTURE, events), T0 + 5000)
    assert (reading.level, reading.remaining_s, reading.paused) == (1, 600, True)


def test_resuming_continues_from_the_time_left() -> None:
    events = [LevelStarted(0, T0), ClockPaused(T0 + 600), ClockResumed(T0 + 900)]
    reading = read_clock(clock_from_events(STRUCTURE, events), T0 + 1000)
    assert (reading.remaining_s, reading.paused) == (500, False)


def test_an_adjustment_adds_or_takes_time_from_the_current_level() -> None:
    events = [LevelStarted(0, T0), ClockAdjusted(120, T0 + 60)]
    assert read_clock(clock_from_events(STRUCTURE, events), T0 + 60).remaining_s == 1260
    events = [LevelStarted(0, T0), ClockAdjusted(-1200, T0 + 60)]
    assert read_clock(clock_from_events(STRUCTURE, events), T0 + 60).level == 2


def test_the_last_level_goes_on_until_the_end() -> None:
    reading = read_clock(clock_from_events(STRUCTURE, [LevelStarted(0, T0)]), T0 + 10**6)
    assert (reading.level, reading.remaining_s) == (3, 0)


def test_a_new_level_applies_from_the_next_hand() -> None:
    # TDA 23: a hand dealt a second before the level ends plays the old blinds throughout.
    events = [LevelStarted(0, T0)]
    assert level_for_hand(STRUCTURE, events, T0 + 1199) == 0
    assert level_for_hand(STRUCTURE, events, T0 + 1200) == 1


def test_a_hand_level_ignores_clock_events_recorded_after_it_started() -> None:
    events = [LevelStarted(0, T0), ClockAdjusted(-1100, T0 + 1000)]
    assert level_for_hand(STRUCTURE, events, T0 + 999) == 0
    assert level_for_hand(STRUCTURE, events, T0 + 1001) == 1


def test_no_hand_is_dealt_on_a_break() -> None:
    with pytest.raises(Violation) as raised:
        level_for_hand(STRUCTURE, [LevelStarted(0, T0)], T0 + 2500)
    assert raised.value.code == "on_break"


@given(st.lists(st.tuples(st.sampled_from(["pause", "resume", "adjust"]), st.integers(0, 900),
                          st.integers(-600, 600)), max_size=12))
def test_a_late_level_task_changes_nothing(steps: list[tuple[str, int, int]]) -> None:
    # Recording LevelStarted exactly when the derived clock rolls over is a no-op.
    events: list = [LevelStarted(0, T0)]
    now = T0
    for kind, wait, seconds in steps:
        now += wait
        events.append({"pause": ClockPaused(now), "resume": ClockResumed(now),
                       "adjust": ClockAdjusted(seconds, now)}[kind])
    clock = clock_from_events(STRUCTURE, events)
    later = now + 10_000
    reading = read_clock(clock, later)
    assert reading.remaining_s >= 0
    running_mid_level = not reading.paused and reading.remaining_s > 0
    if running_mid_level and reading.period_index is not None and reading.period_index > 0:
        boundary = later - (STRUCTURE[reading.period_index].seconds - reading.remaining_s)
        if boundary > now:
            confirmed = clock_from_events(STRUCTURE, [*events, LevelStarted(reading.period_index, boundary)])
            assert read_clock(confirmed, later) == reading
